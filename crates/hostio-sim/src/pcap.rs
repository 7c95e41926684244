//! Packet captures as traffic: a capture's frame sizes, flows and timing, read once from a pcap or
//! pcapng file and replayed by a traffic source (`[traffic.<n>] pcap = "FILE"`).
//!
//! Formats (the layouts of the libpcap file format and of the pcapng draft, IETF
//! draft-ietf-opsawg-pcapng):
//! * classic pcap, either byte order, with microsecond (magic `a1b2c3d4`) or nanosecond
//!   (`a1b23c4d`) timestamps; the link-type field's FCS bits say how long a captured FCS is;
//! * pcapng: every section (each in its own byte order) and interface; Enhanced and obsolete
//!   Packet Blocks (timestamps in the interface's `if_tsresol` units, microseconds when it has
//!   none, plus its `if_tsoffset` seconds; its `if_fcslen`, in bits, or an Enhanced Packet
//!   Block's own `epb_flags` FCS length, in bytes, as the FCS bits) and Simple Packet Blocks
//!   (no timestamp: such a frame follows the one before at once, as close as the line allows);
//!   other blocks are skipped.
//!
//! Link types: Ethernet (1), raw IP (101, and 12 and 14 as some systems write it), IPv4 (228),
//! IPv6 (229), Linux cooked captures v1 (113) and v2 (276).
//!
//! **Frame size.** Captures hold frames without their 4 B FCS (what libpcap captures on Ethernet)
//! unless the file says otherwise, so a frame on the wire is the captured frame's original length,
//! less a captured FCS, plus 4 B (for the IP and cooked link types, an Ethernet header of 14 B is
//! put in place of the link header first), padded to the 64 B minimum. A frame above 9018 B (a
//! jumbo frame with FCS) is refused: such "frames" come from captures taken above the NIC's
//! segmentation or receive offloads, which no wire carried.
//!
//! **Flow.** A frame's flow is a hash of its IPv4 or IPv6 addresses, protocol (IPv6: the first
//! next header) and, for TCP, UDP and SCTP, its ports (none for an IPv4 fragment, nor behind an
//! IPv6 extension header), behind up to two VLAN tags. Other frames (another EtherType, or a raw-IP
//! frame of another version) hash their protocol number and first 12 captured bytes (on Ethernet,
//! the two MAC addresses, so RSS spreads them by MAC pair only); frames whose capture cut the IP
//! headers short hash all they captured. RSS then hashes the flow to a queue, as a NIC hashes the
//! same fields.
//!
//! **Timing.** Each frame keeps its gap to the latest timestamp before it (0 where timestamps go
//! backwards, as in a capture merged from several queues, so the replay never runs behind the
//! capture's clock); the first frame's gap is the capture's mean gap, so a replay that loops
//! starts its next round as far after the last frame as frames were apart on average. A capture
//! of one frame, or whose frames share one timestamp, therefore replays at line rate, and has no
//! mean rate ([`Capture::mean_gbps`]) for `rate_gbps` to scale its gaps to.
use crate::rng::mix64;
use std::collections::HashSet;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;

/// Frames a capture may hold (16 B of memory each, and up to as much again while the list grows,
/// plus 4 B per distinct flow: 1.6–3.2 GB at the limit).
pub const MAX_FRAMES: u64 = 100_000_000;

/// Longest frame on the wire (jumbo, FCS included) and shortest.
const MAX_FRAME: u32 = 9018;
const MIN_FRAME: u32 = 64;
/// Bytes of a captured frame read for its flow (the rest is skipped).
const HEADER_BYTES: usize = 128;
/// Largest record or block a file may announce (guards the skip of a corrupt length).
const MAX_RECORD: u64 = 1 << 26;

/// One frame of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Picoseconds after the latest timestamp before it (the first frame: the capture's mean gap;
    /// a frame without a timestamp: 0).
    pub gap_ps: u64,
    /// Ethernet frame size on the wire, FCS included (64..=9018 B).
    pub len: u32,
    /// Hash of the frame's flow fields.
    pub flow: u32,
}

/// A capture's frames and its totals.
#[derive(Clone, Debug)]
pub struct Capture {
    pub frames: Vec<Frame>,
    /// From the first timestamp to the latest, ps.
    pub span_ps: u64,
    /// Sum of the frames' sizes on the wire (FCS included, preamble and gap not), bytes.
    pub bytes: u64,
    /// Distinct flow hashes.
    pub flows: u64,
    /// Frames shorter than 64 B with their FCS, padded to 64 B.
    pub padded: u64,
    /// FNV-1a 64 of the file's bytes (the capture's identity in a run's hash).
    pub digest: u64,
}

impl Capture {
    /// Mean rate on the wire over the capture's span (preamble and inter-frame gap included), Gb/s;
    /// None for a capture of one frame or one instant.
    pub fn mean_gbps(&self) -> Option<f64> {
        let n = self.frames.len() as u64;
        (n > 1 && self.span_ps > 0).then(|| {
            // n frames over span: n - 1 gaps, so (n - 1) frames' bytes per span.
            let wire = (self.bytes + 20 * n) as f64 * (n - 1) as f64 / n as f64;
            wire * 8.0 / (self.span_ps as f64 / 1000.0)
        })
    }
}

/// Why a capture cannot be read, as a sentence that says where in the file (a frame's number
/// from 1, a byte offset) when it is about one frame or block.
#[derive(Debug)]
pub struct CaptureError(pub String);

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, CaptureError> {
    Err(CaptureError(msg.into()))
}

/// A reader that counts its offset and the FNV-1a hash of every byte it has passed.
struct Src<R: Read> {
    r: R,
    off: u64,
    fnv: u64,
}

impl<R: Read> Src<R> {
    /// Read into `buf` until it is full or the file ends; returns how many bytes came.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, CaptureError> {
        let mut got = 0;
        while got < buf.len() {
            match self.r.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => {
                    self.fnv = crate::result::fnv1a64_extend(self.fnv, &buf[got..got + n]);
                    got += n;
                    self.off += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return err(format!("the file cannot be read at byte {}: {e}", self.off)),
            }
        }
        Ok(got)
    }

    /// Fill `buf`; false at a clean end of file (no byte read), an error naming `what` (which
    /// says where it starts) at a cut one.
    fn exact(&mut self, buf: &mut [u8], what: &str) -> Result<bool, CaptureError> {
        match self.fill(buf)? {
            0 if !buf.is_empty() => Ok(false),
            n if n < buf.len() => err(format!("the file ends at byte {}, inside {what}", self.off)),
            _ => Ok(true),
        }
    }

    /// Read `n` bytes that must be there, keeping the first `keep.len()` (or fewer) in `keep`;
    /// returns how many were kept.
    fn take(&mut self, n: u64, keep: &mut [u8], what: &str) -> Result<usize, CaptureError> {
        let k = (keep.len() as u64).min(n) as usize;
        let mut rest = n - k as u64;
        let mut short = self.fill(&mut keep[..k])? < k;
        let mut sink = [0u8; 4096];
        while rest > 0 && !short {
            let m = rest.min(sink.len() as u64) as usize;
            short = self.fill(&mut sink[..m])? < m;
            rest -= m as u64;
        }
        if short {
            return err(format!("the file ends at byte {}, inside {what}", self.off));
        }
        Ok(k)
    }
}

#[derive(Clone, Copy)]
struct Order(bool); // true: big-endian

impl Order {
    fn u16(self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        if self.0 { u16::from_be_bytes(a) } else { u16::from_le_bytes(a) }
    }
    fn u32(self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        if self.0 { u32::from_be_bytes(a) } else { u32::from_le_bytes(a) }
    }
    fn u64(self, b: &[u8]) -> u64 {
        let a: [u8; 8] = b[..8].try_into().expect("8 bytes");
        if self.0 { u64::from_be_bytes(a) } else { u64::from_le_bytes(a) }
    }
}

/// How a link type's frames start: the bytes before the network layer, and where its protocol
/// number (an EtherType) is.
#[derive(Clone, Copy, Debug)]
enum Link {
    Ethernet,
    /// Raw IP: the version nibble tells v4 from v6.
    RawIp,
    /// Linux cooked v1 (16 B header, protocol at 14) or v2 (20 B, protocol at 0).
    Cooked { header: usize, proto_at: usize },
}

const LINK_TYPES: &str = "Ethernet (1), raw IP (101, 12, 14), IPv4 (228), IPv6 (229), Linux cooked v1 (113) or v2 (276)";

fn link(linktype: u32) -> Option<Link> {
    match linktype {
        1 => Some(Link::Ethernet),
        12 | 14 | 101 | 228 | 229 => Some(Link::RawIp),
        113 => Some(Link::Cooked { header: 16, proto_at: 14 }),
        276 => Some(Link::Cooked { header: 20, proto_at: 0 }),
        _ => None,
    }
}

/// Frames accumulated while reading, with their timestamps.
struct Builder {
    frames: Vec<Frame>,
    first_ps: Option<i128>,
    /// The latest timestamp so far (`i128::MIN` before the first).
    last_ps: i128,
    span_ps: i128,
    bytes: u64,
    flows: HashSet<u32>,
    padded: u64,
}

impl Builder {
    fn new() -> Self {
        Builder { frames: Vec::new(), first_ps: None, last_ps: i128::MIN, span_ps: 0, bytes: 0, flows: HashSet::new(), padded: 0 }
    }

    /// Add frame number `frames.len() + 1` (at byte `at`): its original length `orig` on link
    /// `link`, of which `fcs` bytes are a captured FCS, the captured start `head`, its timestamp
    /// (None: right after the frame before).
    fn push(&mut self, at: u64, link: Link, orig: u32, fcs: u32, head: &[u8], t_ps: Option<i128>) -> Result<(), CaptureError> {
        let n = self.frames.len() as u64 + 1;
        if n > MAX_FRAMES {
            return err(format!("the file holds more than {MAX_FRAMES} frames"));
        }
        // Ethernet's 14 B header in place of the link's own, and the 4 B FCS in place of a
        // captured one.
        let orig = (orig as u64).saturating_sub(fcs as u64);
        let wire = match link {
            Link::Ethernet => orig + 4,
            Link::RawIp => orig + 18,
            Link::Cooked { header, .. } => (orig + 18).saturating_sub(header as u64),
        };
        if wire > MAX_FRAME as u64 {
            return err(format!(
                "frame {n} (at byte {at}) is {wire} B on the wire with its FCS, above the {MAX_FRAME} B of a jumbo frame: \
                 a capture taken above the NIC's segmentation or receive offloads holds such frames (capture on the wire, or with the offloads off)"
            ));
        }
        let len = if wire < MIN_FRAME as u64 {
            self.padded += 1;
            MIN_FRAME
        } else {
            wire as u32
        };
        let flow = flow_of(link, head);
        let gap = match t_ps {
            None => 0,
            Some(t) => {
                // The first timestamped frame (untimed ones may come before it) has no gap.
                let first = *self.first_ps.get_or_insert(t);
                let gap = if t == first && self.last_ps == i128::MIN { 0 } else { (t - self.last_ps).max(0) };
                self.last_ps = self.last_ps.max(t);
                self.span_ps = self.last_ps - first;
                if self.span_ps > u64::MAX as i128 {
                    return err(format!("frame {n} (at byte {at}) comes more than 2^64 ps (213 days) after the first frame"));
                }
                gap
            }
        };
        self.bytes += len as u64;
        self.flows.insert(flow);
        self.frames.push(Frame { gap_ps: gap as u64, len, flow });
        Ok(())
    }

    fn finish(mut self, digest: u64) -> Result<Capture, CaptureError> {
        let n = self.frames.len() as u64;
        if n == 0 {
            return err("the file holds no frames");
        }
        // Within 2^64 ps, checked frame by frame.
        let span = self.span_ps as u64;
        if n > 1 {
            self.frames[0].gap_ps = span / (n - 1);
        }
        Ok(Capture { span_ps: span, bytes: self.bytes, flows: self.flows.len() as u64, padded: self.padded, digest, frames: self.frames })
    }
}

/// The flow hash of a frame whose captured start is `head`.
fn flow_of(link: Link, head: &[u8]) -> u32 {
    let (proto, ip) = match link {
        Link::Ethernet => {
            if head.len() < 14 {
                return fold(&[mix64(0xE7), hash_bytes(head)]);
            }
            let mut t = u16::from_be_bytes([head[12], head[13]]);
            let mut p = 14;
            // Up to two VLAN tags (802.1Q, 802.1ad, and the older QinQ EtherType).
            for _ in 0..2 {
                if matches!(t, 0x8100 | 0x88a8 | 0x9100) && head.len() >= p + 4 {
                    t = u16::from_be_bytes([head[p + 2], head[p + 3]]);
                    p += 4;
                }
            }
            (Some(t), &head[p..])
        }
        Link::RawIp => (None, head),
        Link::Cooked { header, proto_at } => {
            if head.len() < header {
                return fold(&[mix64(0xC0), hash_bytes(head)]);
            }
            (Some(u16::from_be_bytes([head[proto_at], head[proto_at + 1]])), &head[header..])
        }
    };
    let version = ip.first().map(|b| b >> 4);
    let ipv4 = match proto {
        Some(0x0800) => true,
        Some(0x86dd) => false,
        None if version == Some(4) => true,
        None if version == Some(6) => false,
        _ => return fold(&[mix64(proto.unwrap_or(0) as u64), hash_bytes(&head[..head.len().min(12)])]),
    };
    if ipv4 {
        let ihl = ip.first().map_or(0, |b| (b & 0xF) as usize * 4);
        if ip.len() < 20 || ihl < 20 {
            return fold(&[mix64(0x0800), hash_bytes(head)]);
        }
        let l4 = ip[9];
        let addrs = u64::from_be_bytes(ip[12..20].try_into().unwrap());
        let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3FFF; // MF and the offset
        let ports = if frag == 0 { ports(l4, ip.get(ihl..)) } else { None };
        fold(&[addrs, l4 as u64, ports.unwrap_or(0) as u64])
    } else {
        if ip.len() < 40 {
            return fold(&[mix64(0x86dd), hash_bytes(head)]);
        }
        let l4 = ip[6];
        let src = hash_bytes(&ip[8..24]);
        let dst = hash_bytes(&ip[24..40]);
        fold(&[src, dst, l4 as u64, ports(l4, ip.get(40..)).unwrap_or(0) as u64])
    }
}

/// Source and destination ports of a TCP, UDP or SCTP header at the start of `l4`.
fn ports(proto: u8, l4: Option<&[u8]>) -> Option<u32> {
    let l4 = l4?;
    (matches!(proto, 6 | 17 | 132) && l4.len() >= 4).then(|| u32::from_be_bytes([l4[0], l4[1], l4[2], l4[3]]))
}

fn hash_bytes(b: &[u8]) -> u64 {
    b.chunks(8).fold(b.len() as u64, |h, c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        mix64(h ^ u64::from_le_bytes(w))
    })
}

fn fold(words: &[u64]) -> u32 {
    let h = words.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, &w| mix64(h ^ w));
    (h >> 32) as u32
}

/// Captures read lately, by path, size, modification and status-change times and file number: a
/// sweep's points and the checks before its runs read a capture once per process. (A write to
/// the file changes its status-change time, which no program can set back.)
static RECENT: std::sync::Mutex<Vec<(CacheKey, Arc<Capture>)>> = std::sync::Mutex::new(Vec::new());
const RECENT_CAPTURES: usize = 2;

type CacheKey = (std::path::PathBuf, u64, std::time::SystemTime, (i64, i64, u64));

/// [`load`], or the capture read last time from the same path if the file's size, times and
/// number are the same.
pub fn load_cached(path: &Path) -> Result<Arc<Capture>, CaptureError> {
    let Some(key) = std::fs::metadata(path).ok().filter(|m| m.is_file()).and_then(|m| Some((path.to_path_buf(), m.len(), m.modified().ok()?, changed(&m)?))) else {
        return load(path).map(Arc::new);
    };
    let mut recent = RECENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = recent.iter().find(|(k, _)| *k == key) {
        return Ok(c.clone());
    }
    drop(recent);
    let c = Arc::new(load(path)?);
    recent = RECENT.lock().unwrap_or_else(|e| e.into_inner());
    recent.retain(|(k, _)| k.0 != key.0);
    if recent.len() >= RECENT_CAPTURES {
        recent.remove(0);
    }
    recent.push((key, c.clone()));
    Ok(c)
}

/// A file's status-change time and number (None where the system has none: no caching there).
#[cfg(unix)]
fn changed(m: &std::fs::Metadata) -> Option<(i64, i64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.ctime(), m.ctime_nsec(), m.ino()))
}

#[cfg(not(unix))]
fn changed(_: &std::fs::Metadata) -> Option<(i64, i64, u64)> {
    None
}

/// Read a capture file.
pub fn load(path: &Path) -> Result<Capture, CaptureError> {
    // Checked before opening: opening a pipe would wait for a writer.
    let m = std::fs::metadata(path).map_err(|e| CaptureError(format!("the file cannot be opened: {e}")))?;
    if m.is_dir() {
        return err("the path is a folder");
    }
    if !m.is_file() {
        return err("the path is not a regular file (a device, pipe or socket)");
    }
    let f = std::fs::File::open(path).map_err(|e| CaptureError(format!("the file cannot be opened: {e}")))?;
    read(BufReader::with_capacity(1 << 16, f))
}

/// Read a capture from `r`.
pub fn read<R: Read>(r: R) -> Result<Capture, CaptureError> {
    let mut s = Src { r, off: 0, fnv: crate::result::FNV1A64_START };
    let mut magic = [0u8; 4];
    if !s.exact(&mut magic, "the file header")? {
        return err("the file is empty");
    }
    let m = u32::from_le_bytes(magic);
    let b = match m {
        0xa1b2_c3d4 | 0xa1b2_3c4d | 0xd4c3_b2a1 | 0x4d3c_b2a1 => classic(&mut s, m)?,
        0x0a0d_0d0a => pcapng(&mut s)?,
        _ => {
            return err(format!(
                "the file starts with bytes {:02x} {:02x} {:02x} {:02x}, where a pcap file starts with a1b2c3d4 or a1b23c4d (in either byte order) and a pcapng file with 0a0d0d0a",
                magic[0], magic[1], magic[2], magic[3]
            ))
        }
    };
    let digest = s.fnv;
    b.finish(digest)
}

fn classic<R: Read>(s: &mut Src<R>, magic: u32) -> Result<Builder, CaptureError> {
    // The magic read little-endian as a1b2.. means the file is little-endian.
    let o = Order(matches!(magic, 0xd4c3_b2a1 | 0x4d3c_b2a1));
    let frac_ps: u128 = if matches!(magic, 0xa1b2_c3d4 | 0xd4c3_b2a1) { 1_000_000 } else { 1_000 };
    let mut h = [0u8; 20];
    if !s.exact(&mut h, "the file header")? {
        return err("the file ends at byte 4, inside the file header");
    }
    let (major, minor) = (o.u16(&h[0..2]), o.u16(&h[2..4]));
    if major != 2 {
        return err(format!("the file is pcap version {major}.{minor}; hostio reads version 2"));
    }
    // The low 16 bits are the link type; bit 26 says the frames hold an FCS, of the length in
    // 16-bit words in bits 28..=31.
    let field = o.u32(&h[16..20]);
    let linktype = field & 0xFFFF;
    let fcs = if field & 1 << 26 != 0 { (field >> 28) * 2 } else { 0 };
    let Some(link) = link(linktype) else {
        return err(format!("the file's link type is {linktype}; hostio reads {LINK_TYPES}"));
    };
    let mut b = Builder::new();
    let mut rec = [0u8; 16];
    let mut head = [0u8; HEADER_BYTES];
    loop {
        let at = s.off;
        let n = b.frames.len() + 1;
        if !s.exact(&mut rec, &format!("frame {n}'s record header (at byte {at})"))? {
            break;
        }
        let (sec, frac, incl, orig) = (o.u32(&rec[0..4]), o.u32(&rec[4..8]), o.u32(&rec[8..12]), o.u32(&rec[12..16]));
        if incl as u64 > MAX_RECORD {
            return err(format!("frame {n} (at byte {at}) announces {incl} captured bytes: the file is damaged"));
        }
        if frac as u128 * frac_ps >= 1_000_000_000_000 {
            return err(format!("frame {n} (at byte {at}) has {frac} {} past its second, a whole second or more: the file is damaged", if frac_ps == 1_000 { "ns" } else { "µs" }));
        }
        let kept = s.take(incl as u64, &mut head, &format!("frame {n} (at byte {at})"))?;
        let t = sec as i128 * 1_000_000_000_000 + frac as i128 * frac_ps as i128;
        b.push(at, link, orig.max(incl), fcs, &head[..kept], Some(t))?;
    }
    Ok(b)
}

/// Walk the pcapng options in `opts` (code, length, the value padded to 4 B; up to an
/// end-of-options code or the end) and hand `f` each one's code and value. An option that runs
/// past the end is refused, naming `block` and the option's byte offset (`opts` starts at byte
/// `at` of the file).
fn each_option(opts: &[u8], o: Order, block: &str, at: u64, mut f: impl FnMut(u16, &[u8]) -> Result<(), CaptureError>) -> Result<(), CaptureError> {
    let mut rest = opts;
    while rest.len() >= 4 {
        let (code, len) = (o.u16(&rest[0..2]), o.u16(&rest[2..4]) as usize);
        if code == 0 {
            break;
        }
        if rest.len() < 4 + len {
            let off = at + (opts.len() - rest.len()) as u64;
            return err(format!("{block} has an option of {len} B at byte {off} that runs past the block's end: the file is damaged"));
        }
        f(code, &rest[4..4 + len])?;
        rest = rest.get((4 + len).div_ceil(4) * 4..).unwrap_or(&[]);
    }
    Ok(())
}

/// One pcapng interface: its link, timestamp unit and offset, and captured FCS length.
struct Iface {
    link: Option<Link>,
    linktype: u32,
    /// Picoseconds per timestamp unit, as a fraction num/den (`if_tsresol`).
    unit: (u128, u128),
    /// Seconds added to every timestamp (`if_tsoffset`).
    offset_s: i64,
    /// FCS bytes its frames hold (`if_fcslen`).
    fcs: u32,
}

fn pcapng<R: Read>(s: &mut Src<R>) -> Result<Builder, CaptureError> {
    let mut b = Builder::new();
    let mut ifaces: Vec<Iface> = Vec::new();
    let mut o = Order(false);
    // The first block's type was read as the magic.
    let mut btype = Some(0x0a0d_0d0a_u32);
    let mut body = Vec::new();
    loop {
        let at = s.off - if btype.is_some() { 4 } else { 0 };
        let t = match btype.take() {
            Some(t) => t,
            None => {
                let mut w = [0u8; 4];
                if !s.exact(&mut w, &format!("the block at byte {at}"))? {
                    break;
                }
                o.u32(&w)
            }
        };
        let what = format!("the block at byte {at}");
        let cut = |s: &Src<R>| err(format!("the file ends at byte {}, inside {what}", s.off));
        let mut w = [0u8; 4];
        if !s.exact(&mut w, &what)? {
            return cut(s);
        }
        if t == 0x0a0d_0d0a {
            // A section: its byte-order magic sets how the rest of the section reads.
            let mut bom = [0u8; 4];
            if !s.exact(&mut bom, &what)? {
                return cut(s);
            }
            o = match u32::from_le_bytes(bom) {
                0x1a2b_3c4d => Order(false),
                0x4d3c_2b1a => Order(true),
                _ => return err(format!("the section header at byte {at} has no byte-order magic (1a2b3c4d): not a pcapng file")),
            };
            ifaces.clear();
        }
        let total = o.u32(&w) as u64;
        let read = if t == 0x0a0d_0d0a { 12 } else { 8 };
        let body_at = at + read;
        if total < read + 4 || total % 4 != 0 || total > MAX_RECORD {
            return err(format!(
                "{what} has length {total}: the file is damaged (a block's length is a multiple of 4 B from {} B to {MAX_RECORD} B)",
                read + 4
            ));
        }
        let n = (total - read - 4) as usize;
        body.resize(n, 0);
        if n > 0 && !s.exact(&mut body, &what)? {
            return cut(s);
        }
        let mut tail = [0u8; 4];
        if !s.exact(&mut tail, &what)? {
            return cut(s);
        }
        if o.u32(&tail) as u64 != total {
            return err(format!("{what} ends with length {} where it starts with {total}: the file is damaged", o.u32(&tail)));
        }
        if t == 0x0a0d_0d0a {
            if body.len() < 12 {
                return err(format!("the section header at byte {at} is too short: the file is damaged"));
            }
            let (major, minor) = (o.u16(&body[0..2]), o.u16(&body[2..4]));
            if major != 1 {
                return err(format!("the section at byte {at} is pcapng version {major}.{minor}; hostio reads version 1"));
            }
        }
        match t {
            // Interface Description Block.
            1 => {
                if body.len() < 8 {
                    return err(format!("the interface block at byte {at} is too short"));
                }
                let lt = o.u16(&body[0..2]) as u32;
                let mut ifc = Iface { link: link(lt), linktype: lt, unit: (1_000_000, 1), offset_s: 0, fcs: 0 };
                each_option(&body[8..], o, &format!("the interface block at byte {at}"), body_at + 8, |code, v| {
                    match (code, v.len()) {
                        (9, 1..) => {
                            let e = (v[0] & 0x7F) as u32;
                            ifc.unit = if v[0] & 0x80 == 0 {
                                if e > 24 {
                                    return err(format!("the interface block at byte {at} gives if_tsresol 10^-{e} s: hostio reads up to 10^-24"));
                                }
                                if e > 12 { (1, 10u128.pow(e - 12)) } else { (10u128.pow(12 - e), 1) }
                            } else if e > 100 {
                                return err(format!("the interface block at byte {at} gives if_tsresol 2^-{e} s: hostio reads up to 2^-100"));
                            } else {
                                (1_000_000_000_000, 1u128 << e)
                            };
                        }
                        // In bits, as the pcapng draft gives it (and Wireshark reads it).
                        (13, 1..) => ifc.fcs = v[0] as u32 / 8,
                        (14, 8..) => ifc.offset_s = o.u64(&v[..8]) as i64,
                        _ => {}
                    }
                    Ok(())
                })?;
                ifaces.push(ifc);
            }
            // Enhanced (6), Simple (3) and the obsolete Packet Block (2) hold frames.
            6 | 3 | 2 => {
                let nframe = b.frames.len() + 1;
                let short = || err(format!("frame {nframe}'s block at byte {at} is too short"));
                let (iface, t_units, incl, orig, data) = match t {
                    6 | 2 => {
                        if body.len() < 20 {
                            return short();
                        }
                        // The obsolete block's interface is 16 bits, followed by a drop count.
                        let id = if t == 6 { o.u32(&body[0..4]) as usize } else { o.u16(&body[0..2]) as usize };
                        let ts = (o.u32(&body[4..8]) as u128) << 32 | o.u32(&body[8..12]) as u128;
                        (id, Some(ts), o.u32(&body[12..16]) as usize, o.u32(&body[16..20]), &body[20..])
                    }
                    _ => {
                        if body.len() < 4 {
                            return short();
                        }
                        let orig = o.u32(&body[0..4]);
                        (0, None, (orig as usize).min(body.len() - 4), orig, &body[4..])
                    }
                };
                let Some(ifc) = ifaces.get(iface) else {
                    if t == 3 {
                        return err(format!("frame {nframe} (at byte {at}) is a simple packet block, which is on interface 0, and its section describes no interface before it"));
                    }
                    return err(format!("frame {nframe} (at byte {at}) names interface {iface}, which its section does not describe"));
                };
                let Some(link) = ifc.link else {
                    return err(format!("frame {nframe} (at byte {at}) is on an interface of link type {}; hostio reads {LINK_TYPES}", ifc.linktype));
                };
                if incl > data.len() {
                    return err(format!("frame {nframe} (at byte {at}) announces {incl} captured bytes in a block that holds {}", data.len()));
                }
                let head = &data[..incl.min(HEADER_BYTES)];
                // An Enhanced Packet Block's epb_flags may give this frame's FCS length (bits
                // 5..=8, in bytes).
                let mut fcs = ifc.fcs;
                let opts_at = 20 + incl.div_ceil(4) * 4;
                if t == 6 && opts_at < body.len() {
                    each_option(&body[opts_at..], o, &format!("frame {nframe}'s block at byte {at}"), body_at + opts_at as u64, |code, v| {
                        if code == 2 && v.len() >= 4 && (o.u32(v) >> 5) & 0xF != 0 {
                            fcs = (o.u32(v) >> 5) & 0xF;
                        }
                        Ok(())
                    })?;
                }
                let t_ps = t_units.map(|u| (u * ifc.unit.0 / ifc.unit.1) as i128 + ifc.offset_s as i128 * 1_000_000_000_000);
                b.push(at, link, orig.max(incl as u32), fcs, head, t_ps)?;
            }
            _ => {}
        }
    }
    Ok(b)
}

/// Captures written in memory, for tests here and in the engine.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An Ethernet frame of `len` captured bytes (FCS not included) carrying IPv4 UDP from port
    /// `sport` to 53, behind `vlans` VLAN tags.
    pub(crate) fn udp_frame(len: usize, sport: u16, vlans: usize) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f[..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
        for v in 0..vlans {
            f.extend_from_slice(&[0x81, 0x00, 0, 10 + v as u8]);
        }
        f.extend_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(&ipv4_udp(sport, 0));
        f.resize(len.max(f.len()), 0);
        f.truncate(len);
        f
    }

    /// An IPv4 header (20 B) and UDP ports, `frag` in the flags/offset field.
    fn ipv4_udp(sport: u16, frag: u16) -> Vec<u8> {
        let mut ip = vec![0x45, 0, 0, 0, 0, 0, (frag >> 8) as u8, frag as u8, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        ip.extend_from_slice(&sport.to_be_bytes());
        ip.extend_from_slice(&53u16.to_be_bytes());
        ip
    }

    /// A classic pcap: (timestamp in ns, original length, captured bytes) per frame.
    pub(crate) fn classic_file(frames: &[(u64, u32, Vec<u8>)], nanos: bool, big: bool, linktype: u32) -> Vec<u8> {
        let w32 = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let w16 = |v: u16| if big { v.to_be_bytes() } else { v.to_le_bytes() };
        let mut out = Vec::new();
        out.extend_from_slice(&w32(if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }));
        out.extend_from_slice(&w16(2));
        out.extend_from_slice(&w16(4));
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&w32(262_144));
        out.extend_from_slice(&w32(linktype));
        for (t, orig, data) in frames {
            let frac = if nanos { t % 1_000_000_000 } else { t % 1_000_000_000 / 1000 };
            out.extend_from_slice(&w32((t / 1_000_000_000) as u32));
            out.extend_from_slice(&w32(frac as u32));
            out.extend_from_slice(&w32(data.len() as u32));
            out.extend_from_slice(&w32(*orig));
            out.extend_from_slice(data);
        }
        out
    }

    fn block(t: u32, body: &[u8]) -> Vec<u8> {
        let pad = (4 - body.len() % 4) % 4;
        let total = (12 + body.len() + pad) as u32;
        let mut b = t.to_le_bytes().to_vec();
        b.extend_from_slice(&total.to_le_bytes());
        b.extend_from_slice(body);
        b.extend(std::iter::repeat(0).take(pad));
        b.extend_from_slice(&total.to_le_bytes());
        b
    }

    fn shb() -> Vec<u8> {
        let mut body = 0x1a2b_3c4du32.to_le_bytes().to_vec();
        body.extend_from_slice(&[1, 0, 0, 0]);
        body.extend_from_slice(&u64::MAX.to_le_bytes());
        block(0x0a0d_0d0a, &body)
    }

    /// Little-endian pcapng blocks re-written big-endian: every 16- and 32-bit field given by
    /// `fields` (offsets in the block body and widths) swapped, and the type and lengths.
    fn big_endian(block: &[u8], fields: &[(usize, usize)]) -> Vec<u8> {
        let mut b = block.to_vec();
        let n = b.len();
        for (at, w) in [(0, 4), (4, 4), (n - 4, 4)].into_iter().chain(fields.iter().map(|&(o, w)| (8 + o, w))) {
            b[at..at + w].reverse();
        }
        b
    }

    fn idb(linktype: u16, tsresol: Option<u8>) -> Vec<u8> {
        let mut body = linktype.to_le_bytes().to_vec();
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&0u32.to_le_bytes());
        if let Some(r) = tsresol {
            body.extend_from_slice(&9u16.to_le_bytes());
            body.extend_from_slice(&1u16.to_le_bytes());
            body.extend_from_slice(&[r, 0, 0, 0]);
            body.extend_from_slice(&[0, 0, 0, 0]);
        }
        block(1, &body)
    }

    fn epb(iface: u32, ts: u64, orig: u32, data: &[u8]) -> Vec<u8> {
        let mut body = iface.to_le_bytes().to_vec();
        body.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(ts as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(&orig.to_le_bytes());
        body.extend_from_slice(data);
        block(6, &body)
    }

    fn spb(orig: u32, data: &[u8]) -> Vec<u8> {
        let mut body = orig.to_le_bytes().to_vec();
        body.extend_from_slice(data);
        block(3, &body)
    }

    fn three() -> Vec<(u64, u32, Vec<u8>)> {
        vec![(1_000_000_000, 50, udp_frame(50, 1000, 0)), (1_000_010_000, 1514, udp_frame(128, 1000, 0)), (1_000_025_000, 100, udp_frame(100, 2000, 0))]
    }

    fn parse(bytes: &[u8]) -> Result<Capture, CaptureError> {
        read(bytes)
    }

    /// Sizes on the wire gain the FCS (a 50 B frame is padded to 64); gaps are the timestamps'
    /// differences, the first the mean; the same frames read alike from both byte orders and
    /// both timestamp resolutions.
    #[test]
    fn a_classic_capture_gives_sizes_with_fcs_gaps_and_flows() {
        let c = parse(&classic_file(&three(), false, false, 1)).unwrap();
        let lens: Vec<u32> = c.frames.iter().map(|f| f.len).collect();
        assert_eq!(lens, [64, 1518, 104]);
        let gaps: Vec<u64> = c.frames.iter().map(|f| f.gap_ps).collect();
        assert_eq!(gaps, [12_500_000, 10_000_000, 15_000_000]);
        assert_eq!((c.span_ps, c.bytes, c.flows, c.padded), (25_000_000, 64 + 1518 + 104, 2, 1));
        assert_eq!(c.frames[0].flow, c.frames[1].flow);
        assert_ne!(c.frames[0].flow, c.frames[2].flow);
        for (nanos, big) in [(true, false), (false, true), (true, true)] {
            let d = parse(&classic_file(&three(), nanos, big, 1)).unwrap();
            assert_eq!(d.frames, c.frames, "nanos {nanos} big-endian {big}");
        }
        // The digest covers every byte, those skipped past a frame's first 128 too.
        let long = classic_file(&[(0, 1514, udp_frame(1514, 9, 0))], false, false, 1);
        assert_eq!(parse(&long).unwrap().digest, crate::result::fnv1a64(&long));
        let mut other = long.clone();
        *other.last_mut().unwrap() ^= 1;
        assert_ne!(parse(&other).unwrap().digest, parse(&long).unwrap().digest);
        // 3 frames of 64 + 1518 + 104 B, 20 B of preamble and gap each, 2 gaps over 25 µs.
        let want = (64 + 1518 + 104 + 60) as f64 * 2.0 / 3.0 * 8.0 / 25_000.0;
        assert!((c.mean_gbps().unwrap() - want).abs() < 1e-9);
    }

    /// A pcapng file reads as the classic one: nanosecond timestamps by `if_tsresol`, or
    /// microseconds without it; a Simple Packet Block's frame follows the one before at once.
    #[test]
    fn a_pcapng_capture_reads_as_the_classic_one() {
        let f = three();
        let mut ns = shb();
        ns.extend(idb(1, Some(9)));
        let mut us = shb();
        us.extend(idb(1, None));
        for (t, orig, data) in &f {
            ns.extend(epb(0, *t, *orig, data));
            us.extend(epb(0, t / 1000, *orig, data));
        }
        let classic = parse(&classic_file(&f, true, false, 1)).unwrap();
        assert_eq!(parse(&ns).unwrap().frames, classic.frames);
        assert_eq!(parse(&us).unwrap().frames, classic.frames);
        ns.extend(spb(1514, &udp_frame(128, 1000, 0)));
        let c = parse(&ns).unwrap();
        assert_eq!(c.frames.len(), 4);
        assert_eq!((c.frames[3].gap_ps, c.frames[3].len, c.frames[3].flow), (0, 1518, classic.frames[0].flow));
        // if_tsresol as a power of two: 2^-10 s units.
        let mut p2 = shb();
        p2.extend(idb(1, Some(0x80 | 10)));
        p2.extend(epb(0, 0, 60, &f[0].2));
        p2.extend(epb(0, 1024, 60, &f[0].2));
        assert_eq!(parse(&p2).unwrap().frames[1].gap_ps, 1_000_000_000_000);
    }

    /// The flow is the IP addresses, protocol and ports: VLAN tags and the link type do not
    /// change it, other ports do, and a fragment is hashed without ports.
    #[test]
    fn flows_hash_the_ip_five_tuple_behind_tags_and_link_headers() {
        let flow = |bytes: Vec<u8>, lt: u32| parse(&classic_file(&[(0, bytes.len() as u32, bytes)], false, false, lt)).unwrap().frames[0].flow;
        let plain = flow(udp_frame(80, 7, 0), 1);
        assert_eq!(flow(udp_frame(80, 7, 1), 1), plain);
        assert_eq!(flow(udp_frame(84, 7, 2), 1), plain);
        assert_eq!(flow(udp_frame(80, 7, 0)[14..].to_vec(), 101), plain);
        assert_ne!(flow(udp_frame(80, 8, 0), 1), plain);
        let mut frag = udp_frame(80, 7, 0);
        frag[14 + 6] = 0x20; // more fragments
        let mut frag2 = udp_frame(80, 9, 0);
        frag2[14 + 6] = 0x20;
        assert_eq!(flow(frag.clone(), 1), flow(frag2, 1));
        assert_ne!(flow(frag, 1), plain);
        // Linux cooked v1: a 16 B header, the protocol at 14.
        let mut sll = vec![0u8; 14];
        sll.extend_from_slice(&[0x08, 0x00]);
        sll.extend_from_slice(&udp_frame(80, 7, 0)[14..]);
        assert_eq!(flow(sll.clone(), 113), plain);
        let c = parse(&classic_file(&[(0, sll.len() as u32, sll)], false, false, 113)).unwrap();
        assert_eq!(c.frames[0].len, 84, "a cooked header is replaced by Ethernet's 14 B");
    }

    #[test]
    fn timestamps_that_go_back_give_a_gap_of_zero() {
        let f = vec![(5_000, 60, udp_frame(60, 1, 0)), (2_000, 60, udp_frame(60, 1, 0)), (9_000, 60, udp_frame(60, 1, 0))];
        let c = parse(&classic_file(&f, true, false, 1)).unwrap();
        let gaps: Vec<u64> = c.frames.iter().map(|f| f.gap_ps).collect();
        assert_eq!(gaps, [2_000_000, 0, 4_000_000]);
        assert_eq!(c.span_ps, 4_000_000);
    }

    /// A big-endian section reads as a little-endian one, and a second section with its own
    /// byte order and interfaces follows; options before `if_tsresol` are skipped by their padded
    /// length.
    #[test]
    fn pcapng_sections_keep_their_own_byte_order_and_interfaces() {
        let f = three();
        let mut le = shb();
        le.extend(idb(1, Some(9)));
        for (t, orig, data) in &f {
            le.extend(epb(0, *t, *orig, data));
        }
        let want = parse(&le).unwrap().frames;
        // The same blocks big-endian (the section header's magic and version, the interface's
        // link type, the option header, each packet block's five words).
        let mut be = big_endian(&shb(), &[(0, 4), (4, 2), (6, 2)]);
        be.extend(big_endian(&idb(1, Some(9)), &[(0, 2), (4, 4), (8, 2), (10, 2)]));
        for (t, orig, data) in &f {
            be.extend(big_endian(&epb(0, *t, *orig, data), &[(0, 4), (4, 4), (8, 4), (12, 4), (16, 4)]));
        }
        assert_eq!(parse(&be).unwrap().frames, want);
        // A second, little-endian section whose interface 0 counts microseconds.
        be.extend(shb());
        be.extend(idb(1, None));
        be.extend(epb(0, 1_000_040, 60, &f[0].2));
        let c = parse(&be).unwrap();
        assert_eq!(c.frames.len(), 4);
        assert_eq!(c.frames[3].gap_ps, 15_000_000, "1.000040 s after the last frame at 1.000025 s");
        // An if_name option of 5 bytes (padded to 8) before if_tsresol.
        let mut body = 1u16.to_le_bytes().to_vec();
        body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        body.extend_from_slice(&[2, 0, 5, 0, b'e', b't', b'h', b'0', 0, 0, 0, 0]);
        body.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        let mut named = shb();
        named.extend(block(1, &body));
        for (t, orig, data) in &f {
            named.extend(epb(0, *t, *orig, data));
        }
        assert_eq!(parse(&named).unwrap().frames, want);
    }

    /// `if_tsresol` finer than picoseconds, `if_tsoffset` between interfaces, `if_fcslen`, the
    /// obsolete Packet Block, and a Simple Packet Block before any timestamp.
    #[test]
    fn pcapng_interface_options_and_other_packet_blocks() {
        let data = udp_frame(60, 1, 0);
        // Femtoseconds (10^-15): 5,000 units are 5 ps.
        let mut fs = shb();
        fs.extend(idb(1, Some(15)));
        fs.extend(epb(0, 0, 60, &data));
        fs.extend(epb(0, 5_000, 60, &data));
        assert_eq!(parse(&fs).unwrap().frames[1].gap_ps, 5);
        // Interface 1 is one second ahead: its frame at 0.5 s is at 1.5 s, 0.5 s after 1 s.
        let opt_idb = |code: u16, v: &[u8]| {
            let mut body = 1u16.to_le_bytes().to_vec();
            body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
            body.extend_from_slice(&code.to_le_bytes());
            body.extend_from_slice(&(v.len() as u16).to_le_bytes());
            body.extend_from_slice(v);
            body.extend(std::iter::repeat(0).take((4 - v.len() % 4) % 4));
            body.extend_from_slice(&[0, 0, 0, 0]);
            block(1, &body)
        };
        let mut off = shb();
        off.extend(idb(1, None));
        off.extend(opt_idb(14, &1u64.to_le_bytes()));
        off.extend(epb(0, 1_000_000, 60, &data));
        off.extend(epb(1, 500_000, 60, &data));
        assert_eq!(parse(&off).unwrap().frames[1].gap_ps, 500_000_000_000);
        // A negative offset moves every frame back alike: the gaps stay.
        let mut neg = shb();
        neg.extend(opt_idb(14, &(-10i64).to_le_bytes()));
        neg.extend(epb(0, 1_000_000, 60, &data));
        neg.extend(epb(0, 1_000_002, 60, &data));
        assert_eq!(parse(&neg).unwrap().frames[1].gap_ps, 2_000_000);
        // An interface that captures the 4 B FCS (if_fcslen in bits): a 1518 B original length
        // is a 1518 B frame.
        let mut fcs = shb();
        fcs.extend(opt_idb(13, &[32]));
        fcs.extend(epb(0, 0, 1518, &data));
        assert_eq!(parse(&fcs).unwrap().frames[0].len, 1518);
        // A frame's own epb_flags (the FCS length in bytes in bits 5..=8, among other bits) do
        // the same, and override the interface's; flags without an FCS length leave it. The
        // captured 61 B are padded to 64 before the options.
        let data61 = udp_frame(61, 1, 0);
        let flagged = |iface_fcs_bits: Option<u8>, flags: u32| {
            let mut f = shb();
            f.extend(match iface_fcs_bits {
                Some(bits) => opt_idb(13, &[bits]),
                None => idb(1, None),
            });
            let mut b = epb(0, 0, 1518, &data61);
            let n = b.len();
            let mut opt = 2u16.to_le_bytes().to_vec();
            opt.extend_from_slice(&4u16.to_le_bytes());
            opt.extend_from_slice(&flags.to_le_bytes());
            b.splice(n - 4..n - 4, opt);
            let total = (b.len() as u32).to_le_bytes();
            b[4..8].copy_from_slice(&total);
            let n = b.len();
            b[n - 4..].copy_from_slice(&total);
            f.extend(b);
            parse(&f).unwrap().frames[0].len
        };
        assert_eq!(flagged(None, 4 << 5), 1518);
        // Direction bits (0..=1) and bit 9 set besides an FCS of 8 B.
        assert_eq!(flagged(None, 8 << 5 | 1 << 9 | 3), 1514);
        assert_eq!(flagged(Some(32), 2 << 5), 1520);
        assert_eq!(flagged(Some(32), 3), 1518);
        // The obsolete Packet Block: a 16-bit interface and a drop count before the timestamp.
        let mut opb = shb();
        opb.extend(idb(1, Some(9)));
        for ts in [0u64, 700] {
            let mut body = 0u16.to_le_bytes().to_vec();
            body.extend_from_slice(&3u16.to_le_bytes());
            body.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
            body.extend_from_slice(&(ts as u32).to_le_bytes());
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(&100u32.to_le_bytes());
            body.extend_from_slice(&data);
            opb.extend(block(2, &body));
        }
        let c = parse(&opb).unwrap();
        assert_eq!((c.frames[1].gap_ps, c.frames[1].len), (700_000, 104));
        // Simple Packet Blocks first: no gap is measured from time 0.
        let mut spb_first = shb();
        spb_first.extend(idb(1, Some(9)));
        spb_first.extend(spb(60, &data));
        spb_first.extend(epb(0, 5_000_000_000, 60, &data));
        spb_first.extend(epb(0, 5_000_001_000, 60, &data));
        let gaps: Vec<u64> = parse(&spb_first).unwrap().frames.iter().map(|f| f.gap_ps).collect();
        assert_eq!(gaps, [500_000, 0, 1_000_000], "the mean of two gaps over 1 µs; no gap from time 0");
    }

    /// Link types: raw IP and Linux cooked v2 frames gain Ethernet's header; the classic link-type
    /// field's FCS bits take a captured FCS out and its reserved bits are ignored.
    #[test]
    fn link_headers_and_a_captured_fcs_set_the_size_on_the_wire() {
        let one = |bytes: Vec<u8>, orig: u32, lt: u32| parse(&classic_file(&[(0, orig, bytes)], false, false, lt)).unwrap().frames[0];
        let ip = udp_frame(114, 7, 0)[14..].to_vec();
        assert_eq!(one(ip.clone(), 100, 101).len, 118);
        let mut sll2 = vec![0x08, 0x00];
        sll2.extend_from_slice(&[0; 18]);
        sll2.extend_from_slice(&ip);
        let eth = one(udp_frame(114, 7, 0), 114, 1);
        let cooked = one(sll2, 120, 276);
        assert_eq!((cooked.len, cooked.flow), (118, eth.flow));
        // F bit (26) with an FCS of two 16-bit words (bits 28..=31): 1518 B with its FCS.
        assert_eq!(one(udp_frame(128, 7, 0), 1518, 1 | 1 << 26 | 2 << 28).len, 1518);
        assert_eq!(one(udp_frame(128, 7, 0), 1514, 1 | 1 << 16).len, 1518);
    }

    /// IPv6 frames hash their addresses and ports (raw or behind Ethernet alike); an IPv4 header
    /// with options puts the ports after them.
    #[test]
    fn ipv6_and_ipv4_options_hash_the_right_fields() {
        let v6 = |sport: u16| {
            let mut ip = vec![0x60, 0, 0, 0, 0, 8, 17, 64];
            ip.extend((0..32).map(|i| i as u8));
            ip.extend_from_slice(&sport.to_be_bytes());
            ip.extend_from_slice(&[0, 53, 0, 8, 0, 0]);
            ip
        };
        let flow = |bytes: Vec<u8>, lt: u32| parse(&classic_file(&[(0, bytes.len() as u32, bytes)], false, false, lt)).unwrap().frames[0].flow;
        let mut eth = udp_frame(14, 0, 0)[..12].to_vec();
        eth.extend_from_slice(&[0x86, 0xdd]);
        eth.extend(v6(7));
        assert_eq!(flow(eth, 1), flow(v6(7), 101));
        assert_ne!(flow(v6(7), 101), flow(v6(8), 101));
        // IHL 6: a 4 B option, then the ports.
        let opts = |sport: u16, opt: u8| {
            let mut ip = vec![0x46, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, opt, 0, 0, 0];
            ip.extend_from_slice(&sport.to_be_bytes());
            ip.extend_from_slice(&[0, 53]);
            ip
        };
        assert_eq!(flow(opts(7, 1), 101), flow(opts(7, 2), 101));
        assert_ne!(flow(opts(7, 1), 101), flow(opts(8, 1), 101));
    }

    #[test]
    fn a_capture_of_one_frame_has_no_span_and_no_mean_rate() {
        let c = parse(&classic_file(&three()[..1], false, false, 1)).unwrap();
        assert_eq!((c.frames[0].gap_ps, c.span_ps, c.mean_gbps()), (0, 0, None));
    }

    fn fails(bytes: &[u8], want: &str) {
        match parse(bytes) {
            Ok(_) => panic!("read, where it should fail with {want:?}"),
            Err(e) => assert!(e.0.contains(want), "{:?} does not say {want:?}", e.0),
        }
    }

    #[test]
    fn damaged_or_unreadable_captures_are_refused_with_where_and_why() {
        fails(b"", "is empty");
        fails(b"GIF89a...", "starts with bytes 47 49 46 38");
        let good = classic_file(&three(), false, false, 1);
        fails(&good[..10], "the file ends at byte 10, inside the file header");
        fails(&good[..24], "holds no frames");
        fails(&good[..4], "the file ends at byte 4, inside the file header");
        fails(&good[..24 + 8], "the file ends at byte 32, inside frame 1's record header (at byte 24)");
        fails(&good[..24 + 16 + 30], "the file ends at byte 70, inside frame 1 (at byte 24)");
        let mut v5 = good.clone();
        v5[4] = 5;
        fails(&v5, "pcap version 5.4; hostio reads version 2");
        let mut frac = classic_file(&three(), false, false, 1);
        frac[24 + 4..24 + 8].copy_from_slice(&1_000_000u32.to_le_bytes());
        fails(&frac, "frame 1 (at byte 24) has 1000000 µs past its second");
        fails(&classic_file(&[(0, 60, udp_frame(60, 1, 0)), (300 * 86_400 * 1_000_000_000, 60, udp_frame(60, 1, 0))], true, false, 1), "frame 2 (at byte 100) comes more than 2^64 ps");
        fails(&classic_file(&three(), false, false, 105), "link type is 105");
        fails(&classic_file(&[(0, 9015, udp_frame(64, 1, 0))], false, false, 1), "frame 1 (at byte 24) is 9019 B");
        let mut huge = classic_file(&three(), false, false, 1);
        huge[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        fails(&huge, "announces 4294967295 captured bytes");
        let mut ng = shb();
        ng.extend(idb(1, None));
        let mut bad = ng.clone();
        bad.extend(epb(1, 0, 60, &udp_frame(60, 1, 0)));
        fails(&bad, "names interface 1");
        let mut bad = ng.clone();
        let mut b = epb(0, 0, 60, &udp_frame(60, 1, 0));
        let n = b.len();
        b[n - 4] ^= 4;
        bad.extend(b);
        fails(&bad, "ends with length");
        let mut bad = shb();
        bad.extend(idb(147, None));
        bad.extend(epb(0, 0, 60, &udp_frame(60, 1, 0)));
        fails(&bad, "interface of link type 147");
        let mut bad = ng.clone();
        bad.extend_from_slice(&6u32.to_le_bytes());
        bad.extend_from_slice(&7u32.to_le_bytes());
        fails(&bad, "has length 7");
        let mut bad = ng.clone();
        bad.extend_from_slice(&6u32.to_le_bytes());
        bad.extend_from_slice(&(MAX_RECORD as u32 + 4).to_le_bytes());
        fails(&bad, "has length 67108868: the file is damaged (a block's length is a multiple of 4 B from 12 B to 67108864 B)");
        let mut cut = ng.clone();
        cut.extend(epb(0, 0, 60, &udp_frame(60, 1, 0)));
        fails(&cut[..cut.len() - 6], &format!("the file ends at byte {}, inside the block at byte {}", cut.len() - 6, ng.len()));
        let mut v2 = shb();
        v2[12] = 2;
        fails(&v2, "the section at byte 0 is pcapng version 2.0; hostio reads version 1");
        let mut spb_alone = shb();
        spb_alone.extend(spb(60, &udp_frame(60, 1, 0)));
        fails(&spb_alone, "frame 1 (at byte 28) is a simple packet block, which is on interface 0");
        // An option announcing more bytes than the block holds hides no if_tsresol after it.
        let mut body = 1u16.to_le_bytes().to_vec();
        body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        body.extend_from_slice(&[2, 0, 200, 0, 0, 0, 0, 0]);
        let mut over = shb();
        over.extend(block(1, &body));
        fails(&over, "the interface block at byte 28 has an option of 200 B at byte 44 that runs past the block's end");
        // A packet block announcing more captured bytes than it holds.
        let mut b = epb(0, 0, 60, &udp_frame(60, 1, 0));
        b[8 + 12..8 + 16].copy_from_slice(&200u32.to_le_bytes());
        let mut bad = ng.clone();
        bad.extend(b);
        fails(&bad, "announces 200 captured bytes in a block that holds 60");
        for (r, want) in [(25u8, "if_tsresol 10^-25"), (0x80 | 101, "if_tsresol 2^-101")] {
            let mut bad = shb();
            bad.extend(idb(1, Some(r)));
            fails(&bad, want);
        }
        match load(Path::new("/dev/null")) {
            Err(e) => assert!(e.0.contains("not a regular file"), "{}", e.0),
            Ok(_) => panic!("/dev/null read as a capture"),
        }
    }
}
