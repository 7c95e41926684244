//! Scenario files: the public contract of the simulator.
//!
//! A scenario is TOML with five tables: `[run]`, `[platform]`, `[nics.<name>]`,
//! `[traffic.<name>]` and `[apps.<name>]`. Every table is a serde struct declared once here with
//! its defaults and units; unknown keys and out-of-range values are errors that name the key
//! path, the value and what is allowed. `--set a.b.c=value` overrides are applied to the parsed
//! TOML tree before it is checked, so every key is reachable.
//!
//! Platform presets carry the machine facts of three parts (Xeon Gold 6140, E5-2699 v3, Silver
//! 4314); where each number comes from, and which are estimates, is listed on [`Platform::preset`].
pub use crate::cache::SliceHash;
use crate::slice_map::SKX_GEOMETRY;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A user error: the key path, the offending value and what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub key: String,
    pub value: String,
    pub allowed: String,
}

/// Characters of a value an error shows.
const MAX_SHOWN: usize = 200;

impl ConfigError {
    /// A number written with more than 20 digits (`1e308` as an `f64` prints 309) is shown in
    /// scientific notation, and a value longer than `MAX_SHOWN` characters by its start and its
    /// length.
    pub fn new(key: impl Into<String>, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        let mut value = value.to_string();
        if value.len() > 20 {
            if let Some(x) = value.parse::<f64>().ok().filter(|x| x.is_finite()) {
                value = format!("{x:e}");
            }
        }
        ConfigError { key: shown_cut(&key.into()), value: shown_cut(&value), allowed: allowed.into() }
    }
}

/// `text` as an error shows it: control and invisible characters escaped ([`escaped`]), and
/// beyond `MAX_SHOWN` characters its start and its length, cut before an escape rather than
/// inside one.
fn shown_cut(text: &str) -> String {
    cut_at(&escaped(text), MAX_SHOWN, text.chars().count())
}

/// `text` (escaped), or beyond `max` characters its start and `n`, the length of what it shows
/// (counted before escaping), cut before an escape rather than inside one.
fn cut_at(text: &str, max: usize, n: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut head: String = text.chars().take(max).collect();
    // An escape (`\uXXXX`, `\UXXXXXXXX`, `\u{...}`) the cut went through is dropped whole.
    if let Some(i) = head.rfind('\\') {
        let tail = &head[i..];
        let whole = tail.starts_with("\\u{") && tail.contains('}')
            || tail.starts_with("\\u") && !tail.starts_with("\\u{") && tail.len() >= 6
            || tail.starts_with("\\U") && tail.len() >= 10
            || !tail.starts_with("\\u") && !tail.starts_with("\\U") && tail.len() >= 2;
        if !whole {
            head.truncate(i);
        }
    }
    format!("{head}… ({n} characters)")
}

/// `text` with control and invisible characters ([`is_invisible`]) as `\uXXXX` (`\UXXXXXXXX`
/// beyond U+FFFF); everything else as it is.
fn escaped(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() || is_invisible(c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if (c.is_control() || is_invisible(c)) && (c as u32) < 0x10000 {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else if is_invisible(c) {
            out.push_str(&format!("\\U{:08x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}: {}", self.key, self.allowed)
        } else {
            write!(f, "{} = {}: {}", self.key, self.value, self.allowed)
        }
    }
}

impl std::error::Error for ConfigError {}

// ------------------------------------------------------------------------------------------------
// The scenario tables
// ------------------------------------------------------------------------------------------------

/// A whole scenario, as written in a TOML file.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub run: RunCfg,
    #[serde(default)]
    pub platform: PlatformCfg,
    #[serde(default)]
    pub nics: BTreeMap<String, NicCfg>,
    #[serde(default)]
    pub traffic: BTreeMap<String, TrafficCfg>,
    #[serde(default)]
    pub apps: BTreeMap<String, AppCfg>,
}

/// `[run]`: how long to simulate and with which seed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunCfg {
    /// Seed of the simulation's random draws (traffic sizes and flows, page placement, random
    /// replacement; each component's RNG is derived from it). Same scenario + seed →
    /// bit-identical results.
    pub seed: u64,
    /// Simulated time that is measured, µs. The default, 2 ms, is ~16 k packets of 1500 B at
    /// 100 Gb/s (~300 k at 64 B): enough for a p99 from ~160 packets above it, short enough for
    /// a laptop's sweep; the DDIO experiments measure 3 ms or more.
    pub duration_us: f64,
    /// Simulated time before measurement starts, µs: it must let the caches and rings reach
    /// steady state. The default (1 ms) does for small rings; one core with 4096 RX descriptors
    /// takes a few ms to fill them, which is why the DDIO experiments warm up for 2–6 ms.
    pub warmup_us: f64,
}

impl Default for RunCfg {
    fn default() -> Self {
        RunCfg { seed: 1, duration_us: 2000.0, warmup_us: 1000.0 }
    }
}

/// LLC replacement policy of core fills (within the core's CAT ways, which may include the I/O
/// ways); device allocations evict in LRU order, as measured, inserted by set dueling
/// (`ddio_insertion = "adaptive"`, the default) or at the MRU position (`"mru"`; `cache` module
/// docs).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// True least-recently-used.
    Lru,
    /// Bit-PLRU (MRU bits): one bit per way, cleared when all are set.
    Plru,
    /// Quad-age LRU (2-bit ages, insert at age 2, hit → 0), the family used by recent Intel LLCs.
    Qlru,
    /// Uniformly random victim from the simulation's RNG.
    Random,
}

/// Where DDIO's write-allocates enter the I/O ways' LRU order (`platform.ddio_insertion`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DdioInsertion {
    /// Set dueling between insertion at the most recently used position and bimodal insertion
    /// (DIP): hostio's modelling choice for the I/O ways, see the `cache` module docs.
    #[default]
    Adaptive,
    /// Always at the most recently used position: strict LRU, as in cache simulators that model
    /// LRU (pycachesim's `LRU`), and the baseline the adaptive choice is weighed against.
    Mru,
}

/// `[platform]`: which machine, and the DDIO/LLC knobs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PlatformCfg {
    /// `skylake-gold-6140`, `haswell-e5-2699v3`, `icelake-silver-4314`, or `file:PATH` (a platform
    /// file as written by `hostio probe --platform-out`).
    pub preset: String,
    /// DDIO on for every root port (a NIC's `ddio` overrides it per port).
    pub ddio: bool,
    /// Number of I/O ways: the preset's default ways plus the adjacent ones, highest first
    /// (contiguous from the top on Skylake-SP, as a tuner writes it; see [`widened_mask`]).
    pub ddio_ways: Option<u32>,
    /// An explicit IIO LLC WAYS mask (MSR 0xC8B). Exclusive with `ddio_ways`.
    pub ddio_mask: Option<u32>,
    /// Override: LLC ways.
    pub llc_ways: Option<u32>,
    /// Override: LLC slices per socket.
    pub llc_slices: Option<u32>,
    /// Override: MiB per LLC slice.
    pub llc_mib_per_slice: Option<f64>,
    /// Replacement of core fills: no preset sets one, so unset is `lru` (device allocations
    /// evict in LRU order whatever this says).
    pub replacement: Option<Replacement>,
    /// Where DDIO's write-allocates enter the I/O ways' LRU order (default `adaptive`).
    pub ddio_insertion: DdioInsertion,
    /// Number of sockets (1 or 2). Default 2: the DDIO paper's testbed and every preset's part
    /// are two-socket servers (its §4.3 places a NIC on the remote socket); an idle socket's
    /// caches cost nothing to simulate.
    pub sockets: u32,
}

impl Default for PlatformCfg {
    fn default() -> Self {
        PlatformCfg {
            preset: "skylake-gold-6140".into(),
            ddio: true,
            ddio_ways: None,
            ddio_mask: None,
            llc_ways: None,
            llc_slices: None,
            llc_mib_per_slice: None,
            replacement: None,
            ddio_insertion: DdioInsertion::Adaptive,
            sockets: 2,
        }
    }
}

/// How the NIC moves descriptors over PCIe.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NicDesign {
    /// ConnectX-5-like (DPDK mlx5 PMD defaults): 16 B RX descriptors fetched a line at a time,
    /// compressed RX completions (8 per 64 B block), TX by enhanced multi-packet send (a 16 B data
    /// segment per packet; frames up to 272 B (268 B without the FCS) inlined when the NIC has 8 or more queues), one TX
    /// completion per 32 packets, one doorbell per burst. Costs and sources: `attach::pcie`.
    Cx5,
    /// pcie-bench's simple NIC: every doorbell, descriptor, write-back, interrupt and head-pointer
    /// read per packet.
    Simple,
    /// pcie-bench's kernel-driver NIC (Intel 82599-like batching).
    Kernel,
    /// pcie-bench's DPDK-style NIC (tail every 32 packets, no interrupts, no head reads).
    Dpdk,
}

/// When transmitted buffers go back to the mempool.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TxRelease {
    /// As completions arrive, at every TX burst (DPDK mlx5 PMD: `mlx5_tx_handle_completion`): the
    /// driver asks for a completion on a burst's last frame once the frames since the last one
    /// reach the rings' interval (32 on the ConnectX-5-like rings, 8 on the coherent NIC's
    /// queues; sooner when inlined frames fill an eighth of the ring), and it releases every slot
    /// up to that frame once the frame has left the wire. Rings without completions (the
    /// coherent NIC's shared pool) release each slot by itself.
    Completion,
    /// Only when the ring is short of room: completed buffers are freed, oldest first, only
    /// while fewer than the burst's packets plus 32 slots are free (32: DPDK ixgbe/i40e's
    /// `tx_free_thresh` default) or, on an eMPW ring, fewer WQE segments than the burst takes, so
    /// transmitted buffers stay in flight and lengthen the buffer reuse distance. hostio's
    /// variant of those drivers' rule, which frees a chunk of `tx_rs_thresh` (32) buffers once
    /// fewer than 32 slots are free and then cuts the burst to the free slots: hostio sends
    /// whole bursts, so it keeps room for one, and holds up to one burst fewer buffers.
    Threshold,
}

/// `[nics.<name>]`: a 100 GbE NIC (ConnectX-5-like by default) on PCIe Gen3 x16.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NicCfg {
    /// Socket whose root port the NIC hangs off.
    pub socket: u32,
    /// Ethernet line rate, Gb/s.
    pub line_rate_gbps: f64,
    /// RX descriptors per queue (one queue per core of the app using the NIC). A power of two in
    /// 32..=65536.
    pub rx_descriptors: u32,
    /// TX descriptors per queue. A power of two in 32..=65536; a TX ring of 32 on a PCIe or on-die
    /// NIC is raised to 64, as the mlx5 PMD does (with a warning).
    pub tx_descriptors: u32,
    /// Ethernet flow control: the port is lossless and sends IEEE 802.3x PAUSE frames when its
    /// buffer fills (frames wait there for a descriptor). Off: a frame whose queue has no posted
    /// descriptor (and no frame waiting ahead of it) is dropped at once (out of buffer), and the
    /// buffer, which then holds frames waiting for the link, drops when full.
    pub pause_frames: bool,
    /// Per-root-port DDIO override (Use_Allocating_Flow_Wr); unset → `platform.ddio`.
    pub ddio: Option<bool>,
    /// Selective DCA, one of the DDIO paper's proposals for future DCA (§8, "Selective DMA/DCA":
    /// only the parts of a packet an application needs go to the cache, the rest to memory):
    /// DDIO may allocate only the first `ddio_lines` 64 B lines of each received frame; its other
    /// lines are written to DRAM as with DDIO off (cached copies invalidated), so the NIC's
    /// transmit reads of them miss. Unset: the whole frame. Needs DDIO on for this NIC.
    pub ddio_lines: Option<u32>,
    /// I/O isolation, another of the paper's proposals (§8: CAT extended to I/O, which Intel's RDT
    /// later specified for non-CPU agents): the LLC ways this NIC's DMA writes allocate into, in
    /// place of the platform's I/O ways. Its writes still update a line cached in any way, and
    /// lines a core rewrote still go to the platform's recycled region. Any nonzero mask within
    /// the LLC's ways: a proposal, so free of the IIO LLC WAYS register's rules (contiguity, the
    /// default bits) and honoured where that register has no effect (Ice Lake). Unset: the
    /// platform's I/O ways. Needs DDIO on for this NIC.
    pub ddio_mask: Option<u32>,
    /// Fine-grained placement, the paper's third proposal (§8: "only sending the relevant parts
    /// of these packets to the L2 cache", as cache stashing does on other architectures): the
    /// first `stash_lines` lines of each received frame are written into the L2 of the core that
    /// polls its queue, Modified there (its L2 victims go to the LLC as a core's do); the rest
    /// follows DDIO (and `ddio_lines`, which counts from the frame's first line, stashed lines
    /// included: with `ddio_lines` at or below `stash_lines` every line after the stashed ones
    /// goes to DRAM). Only where DDIO would allocate: the buffer homed on the NIC's socket and the
    /// core there too. Unset: none. Needs DDIO on for this NIC.
    pub stash_lines: Option<u32>,
    /// On-NIC receive packet buffer, KiB.
    pub buffer_kib: u32,
    /// Which descriptor/doorbell scheme costs PCIe bytes. The rings' cache traffic is the
    /// ConnectX-5-like one for every design, except that only `cx5` inlines small frames into
    /// TX descriptors (the core copies them, the NIC reads no buffer).
    pub design: NicDesign,
    /// When the driver returns transmitted buffers to the mempool.
    pub tx_release: TxRelease,
    /// Packet data one TX queue may have in flight as DMA reads, KiB: a queue's transmit rate is
    /// at most this over the read latency. Calibrated, by inference, on the DDIO paper's testbed:
    /// with one core forwarding 1500 B frames it "cannot exceed 90 Gbps" (§5.1), which the
    /// paper's preceding sentence attributes to "NIC and PCIe limitations" (Fig. 7), and with two
    /// cores it reaches 100 Gb/s (§5.2); hostio's core forwards 1500 B frames faster than that
    /// (its per-packet cycles are calibrated at 1024 B, see the engine docs), so the limit is put
    /// in the NIC's transmit queue. 11 KiB holds seven 1500 B frames, and a 1500 B read that hits
    /// the LLC takes ~0.88 µs on Gen3 x16 in hostio's PCIe latency model: one queue then carries
    /// 89.6 Gb/s (`ddio/single_core` at 128 descriptors, median of five seeds; 10 KiB gives 77.2,
    /// 12 KiB line rate), the
    /// smallest window whose single queue comes within the paper's 90 Gb/s. The NIC model is the
    /// same ConnectX-5-like one behind every attachment, so the window applies to all of them.
    pub tx_read_window_kib: u32,
    /// The PCIe link (`[nics.<name>.pcie]`: gen, lanes, mps, mrrs, rcb, addr_bits, ecrc,
    /// rcb_chunks). Each direction is a bounded resource at the link's TLP bandwidth; DMA
    /// latencies come from hostio's PCIe latency model on this link, except the DRAM part of a
    /// read that misses, which is the memory model's (see `attach::pcie`).
    pub pcie: hostio_pcie::PcieLink,
    /// How the NIC is attached (`pcie`, `integrated`, `coherent`, `memory-channel`).
    pub attachment: Attach,
    /// `[nics.<name>.coherent]`: the cache-coherent NIC's design (attachment = "coherent").
    pub coherent: CoherentCfg,
    /// `[nics.<name>.netdimm]`: the memory-channel NIC (attachment = "memory-channel").
    pub netdimm: NetdimmCfg,
}

/// How a NIC reaches the host (see `crate::attach`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Attach {
    /// A discrete NIC behind a PCIe root port.
    #[default]
    Pcie,
    /// On the processor die, on the mesh (no PCIe link, no IOMMU); DDIO rules apply.
    Integrated,
    /// A caching agent on a coherent link (CC-NIC).
    Coherent,
    /// In a DIMM's buffer device on a DDR channel (NetDIMM).
    MemoryChannel,
}

impl Attach {
    pub fn name(self) -> &'static str {
        match self {
            Attach::Pcie => "pcie",
            Attach::Integrated => "integrated",
            Attach::Coherent => "coherent",
            Attach::MemoryChannel => "memory-channel",
        }
    }
}

/// The coherent link a CC-NIC sits on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CoherentLink {
    /// A socket link (the CC-NIC prototype): the platform's `coherent_line_ns` and UPI bandwidth.
    #[default]
    Upi,
    /// CXL.cache on a x16 Gen5 port.
    Cxl,
}

/// Where a ring's lines are homed.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Homing {
    /// At the ring's producer (CC-NIC's choice).
    #[default]
    Writer,
    /// At its consumer: each line a core takes from the NIC also triggers a speculative read of
    /// the home's memory.
    Reader,
}

/// `[nics.<name>.coherent]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CoherentCfg {
    pub link: CoherentLink,
    pub signaling: hostio_hw::coherent::Signaling,
    pub layout: hostio_hw::coherent::Layout,
    pub homing: Homing,
    pub pool: hostio_hw::coherent::Pool,
}

impl Default for CoherentCfg {
    /// CC-NIC's design: inline signaling, grouped 16 B descriptors, writer-homed rings, a shared
    /// buffer pool.
    fn default() -> Self {
        CoherentCfg {
            link: CoherentLink::Upi,
            signaling: hostio_hw::coherent::Signaling::Inline,
            layout: hostio_hw::coherent::Layout::Grouped,
            homing: Homing::Writer,
            pool: hostio_hw::coherent::Pool::Shared,
        }
    }
}

/// The DDR channel a NetDIMM sits on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Channel {
    /// DDR4-2400, the NetDIMM paper's evaluated channel (19.2 GB/s).
    #[default]
    Ddr4_2400,
    Ddr4_3200,
    Ddr5_4800,
}

impl Channel {
    /// Peak transfer rate: MT/s × 8 B.
    pub fn gbyte_s(self) -> f64 {
        match self {
            Channel::Ddr4_2400 => 19.2,
            Channel::Ddr4_3200 => 25.6,
            Channel::Ddr5_4800 => 38.4,
        }
    }
}

/// How a frame received by a memory-channel NIC reaches an app's own buffer (`kind = "copy"`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CloneMode {
    /// The host asks the NIC to clone the buffer inside its DRAM (RowClone FPM, PSM or GCM by
    /// where the two buffers are).
    #[default]
    Rowclone,
    /// The core copies it, reading the frame over the channel.
    Copy,
}

/// Where a memory-channel NIC's driver puts an app's buffer relative to the DMA buffer.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Allocator {
    /// In the DMA buffer's DRAM subarray (the NetDIMM driver's allocation cache), so every clone
    /// is the fast in-subarray kind.
    #[default]
    Subarray,
    /// Anywhere in the NIC's DRAM: the clone's kind follows from the two addresses.
    Any,
}

/// `[nics.<name>.netdimm]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct NetdimmCfg {
    /// nCache size, KiB (256 in the NetDIMM paper).
    pub ncache_kib: u32,
    /// Lines the nPrefetcher fetches after each host read of the NIC's DRAM that misses the nCache
    /// (the paper triggers it on payload reads).
    pub prefetch_lines: u32,
    pub channel: Channel,
    /// How a `copy` app's copy is made.
    pub clone: CloneMode,
    /// Where app buffers are placed for an in-memory clone.
    pub allocator: Allocator,
}

impl Default for NetdimmCfg {
    fn default() -> Self {
        // nCache 256 KiB (NetDIMM, MICRO'19); the paper leaves the prefetch depth n open: 4 lines
        // is an estimate (a next-line prefetcher a few lines deep, enough to cover the channel's
        // read latency for a core reading a frame line after line).
        NetdimmCfg { ncache_kib: 256, prefetch_lines: 4, channel: Channel::Ddr4_2400, clone: CloneMode::Rowclone, allocator: Allocator::Subarray }
    }
}

/// The ConnectX-5 testbeds' link: Gen3 x16, MPS 256 (commonly reported for Xeon Scalable root
/// ports with ConnectX adapters, `lspci -vv`'s DevCtl MaxPayload; not published for the paper's
/// testbed), MRRS 4096 (the largest read request;
/// NVIDIA's performance tuning guide for ConnectX adapters recommends raising MRRS to it; one
/// read request per TX packet). Both are estimates of the testbed's settings.
fn cx5_link() -> hostio_pcie::PcieLink {
    hostio_pcie::PcieLink { lanes: 16, mrrs: 4096, ..Default::default() }
}

/// Written out (resolved scenarios, results, the scenario hash) with only the keys of its own
/// attachment: `design` and `pcie` for PCIe, `coherent` or `netdimm` for those, none for on-die.
impl Serialize for NicCfg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("NicCfg", 17)?;
        st.serialize_field("socket", &self.socket)?;
        st.serialize_field("line_rate_gbps", &self.line_rate_gbps)?;
        st.serialize_field("rx_descriptors", &self.rx_descriptors)?;
        st.serialize_field("tx_descriptors", &self.tx_descriptors)?;
        st.serialize_field("pause_frames", &self.pause_frames)?;
        st.serialize_field("ddio", &self.ddio)?;
        st.serialize_field("ddio_lines", &self.ddio_lines)?;
        st.serialize_field("ddio_mask", &self.ddio_mask)?;
        st.serialize_field("stash_lines", &self.stash_lines)?;
        st.serialize_field("buffer_kib", &self.buffer_kib)?;
        st.serialize_field("tx_release", &self.tx_release)?;
        st.serialize_field("tx_read_window_kib", &self.tx_read_window_kib)?;
        st.serialize_field("attachment", &self.attachment)?;
        match self.attachment {
            Attach::Pcie => {
                st.serialize_field("design", &self.design)?;
                st.serialize_field("pcie", &self.pcie)?;
            }
            Attach::Integrated => {}
            Attach::Coherent => st.serialize_field("coherent", &self.coherent)?,
            Attach::MemoryChannel => st.serialize_field("netdimm", &self.netdimm)?,
        }
        st.end()
    }
}

impl NicCfg {
    /// Does the NIC clone a `copy` app's frames in its own memory (else the core copies them)?
    pub fn clones(&self) -> bool {
        self.attachment == Attach::MemoryChannel && self.netdimm.clone == CloneMode::Rowclone
    }
}

impl Default for NicCfg {
    fn default() -> Self {
        NicCfg {
            socket: 0,
            line_rate_gbps: 100.0,
            // 1024 RX and TX descriptors per queue: a common DPDK ring size (and the ring size of
            // the DDIO paper's §3.1 PAUSE counts, see `buffer_kib`); experiments set their own.
            rx_descriptors: 1024,
            tx_descriptors: 1024,
            pause_frames: false,
            ddio: None,
            ddio_lines: None,
            ddio_mask: None,
            stash_lines: None,
            // On-NIC receive buffer: an estimate (Mellanox publishes no per-port figure for the
            // ConnectX-5; its mlnx_qos tool reports a port's buffer, ~256 KiB on the adapter of
            // Mellanox's "HowTo Tune Receive Buffers" note, which does not name the card, and the
            // 512 KiB here assumes a 100 GbE part's larger one); §3.1's PAUSE counts at 1024
            // descriptors are the check on it.
            buffer_kib: 512,
            design: NicDesign::Cx5,
            tx_release: TxRelease::Completion,
            tx_read_window_kib: 11,
            pcie: cx5_link(),
            attachment: Attach::Pcie,
            coherent: CoherentCfg::default(),
            netdimm: NetdimmCfg::default(),
        }
    }
}

/// Named packet-size mixes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SizeMix {
    /// The simple IMIX's 7:4:1 shares over 64, 576 and 1500 B frames (its packet sizes taken as
    /// frame sizes, FCS included; mean ≈ 354 B).
    Imix,
    /// A campus-trace-like mix, mean ≈ 981 B (bimodal: small ACKs and MTU-sized data).
    Campus,
}

/// How a replayed capture's frames are timed.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PcapTiming {
    /// Each frame follows the one before by its gap in the capture, or by its own wire time at
    /// the NIC's line rate where the gap was shorter. With `rate_gbps`, every gap is scaled by
    /// the factor that makes the capture's mean rate on the wire ([`crate::pcap::Capture::mean_gbps`],
    /// 20 B per frame counted, as `rate_gbps` counts them) equal to `rate_gbps`, so its bursts keep
    /// their shape; a frame the line holds back (its scaled gap shorter than its wire time)
    /// delays the frames after it, so a bursty capture reaches less than `rate_gbps`.
    #[default]
    Capture,
    /// In trains at `rate_gbps` (line rate when unset), as a generator sends.
    Rate,
}

/// `[traffic.<name>]`: a packet source feeding one NIC.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficCfg {
    /// The NIC receiving this traffic.
    pub nic: String,
    /// Offered rate, Gb/s on the wire (20 B preamble+IFG per frame included); unset → line rate
    /// (a replayed capture with `pcap_timing = "capture"`: its own timing, see [`PcapTiming`]).
    pub rate_gbps: Option<f64>,
    /// Fixed Ethernet frame size including FCS, bytes (64..=9018). Exclusive with `size_mix` and
    /// `pcap`.
    pub packet_size: Option<u32>,
    /// A named size mix. Exclusive with `packet_size` and `pcap`.
    pub size_mix: Option<SizeMix>,
    /// A capture (pcap or pcapng file) replayed in a loop: each frame's size and flow, and with
    /// `pcap_timing = "capture"` its timing, come from it ([`crate::pcap`]). A relative path is
    /// read from the scenario file's folder (the working directory for scenario text, mappings and
    /// overrides). Exclusive with `packet_size` and `size_mix`; `flows`, `flow_skew` and
    /// `imbalance` do not apply.
    pub pcap: Option<String>,
    /// `capture` (the default) or `rate`: see [`PcapTiming`].
    pub pcap_timing: PcapTiming,
    /// Number of flows; RSS hashes each flow to one queue.
    pub flows: u32,
    /// Zipf exponent of flow popularity (0 = uniform); larger values imbalance the queues.
    pub flow_skew: f64,
    /// Flow-director rules instead of RSS: flows are steered so that the first queue receives
    /// `imbalance` × the mean per-queue load and the others share the rest evenly (1 = RSS's
    /// uniform hash). The DDIO paper's rule sets gave 1.69 (round-robin) and 2.78 (load-aware).
    pub imbalance: f64,
    /// Packets the generator sends back to back at line rate before pausing to keep the offered
    /// rate: DPDK-based generators hand the NIC bursts of 32 frames, which leave it back to back.
    pub train_packets: u32,
}

impl Default for TrafficCfg {
    fn default() -> Self {
        // 4096 flows: an arbitrary default, many per queue; experiments set their own.
        TrafficCfg { nic: String::new(), rate_gbps: None, packet_size: None, size_mix: None, pcap: None, pcap_timing: PcapTiming::Capture, flows: 4096, flow_skew: 0.0, imbalance: 1.0, train_packets: 32 }
    }
}

/// Application kinds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AppKind {
    /// DPDK/FastClick L2 forwarder: reads the header line, swaps MACs (writes it), forwards.
    L2fwd,
    /// L2 forwarding plus `cycles_per_packet` of computation (the paper's mt19937 calls).
    Compute,
    /// L2 forwarding of frames the app first copies into its own buffer, as a socket's receive
    /// copies from the driver's buffer: the core copies them, or a memory-channel NIC clones them
    /// in its DRAM (`[nics.<n>.netdimm] clone`).
    Copy,
    /// Router + NAPT + load balancer: per-packet flow-table accesses in a working set.
    StatefulChain,
    /// A cache-hungry co-runner (no NIC): random accesses over a working set, closed loop. Each
    /// µs it issues up to `accesses_per_us` one after another, each taking its latency over the
    /// core's fill buffers, and stops at the end of that µs; the accesses it had no time for are
    /// dropped, so a co-runner whose accesses miss issues fewer.
    CacheHungry,
}

/// `[apps.<name>]`: a program pinned to cores of one socket.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AppCfg {
    pub kind: AppKind,
    /// The NIC it receives from and transmits to (I/O kinds).
    pub nic: Option<String>,
    /// Number of cores; each gets one RX and one TX queue.
    pub cores: u32,
    /// Socket of the cores.
    pub socket: u32,
    /// Socket whose memory holds the app's packet buffers and rings; unset → `socket`.
    pub mempool_socket: Option<u32>,
    /// CAT capacity bitmask for the app's cores (contiguous); unset → all ways.
    pub cat_mask: Option<u32>,
    /// Compute cycles per packet beyond the kind's own work (I/O kinds).
    pub cycles_per_packet: Option<u32>,
    /// Working set, MiB: the flow table (stateful-chain, default 16), the tables an I/O app accesses
    /// per packet (l2fwd/compute/copy, default 2: its own code and data), or the co-runner's data (required).
    pub working_set_mib: Option<f64>,
    /// Cache-hungry co-runner: accesses per µs it attempts (it issues fewer when they are slow,
    /// see [`AppKind::CacheHungry`]).
    pub accesses_per_us: Option<f64>,
    /// I/O kinds with a working set: lines accessed per packet, one after another (default 4 for
    /// the stateful chain, 2 otherwise; estimates, as the working sets). Every second access is a
    /// store that dirties its line (an estimate: the app updates its state, e.g. counters or flow
    /// entries, as often as it reads it). The stateful chain's lines are addressed by a hash of
    /// the flow (its per-flow state); the other kinds' at random in their working set.
    pub accesses_per_packet: Option<u32>,
    /// MBA throttle: share of a core's memory bandwidth, % (10..=100, steps of 10).
    pub mba_percent: u32,
}

impl Default for AppCfg {
    fn default() -> Self {
        AppCfg {
            kind: AppKind::L2fwd,
            nic: None,
            cores: 1,
            socket: 0,
            mempool_socket: None,
            cat_mask: None,
            cycles_per_packet: None,
            working_set_mib: None,
            accesses_per_us: None,
            accesses_per_packet: None,
            mba_percent: 100,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Platforms
// ------------------------------------------------------------------------------------------------

/// How an IIO LLC WAYS value must look on a microarchitecture.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MaskRule {
    /// Skylake-SP: set bits must be consecutive.
    Contiguous,
    /// Haswell-EP: any value that keeps the default bits.
    Any,
}

/// Machine facts of one socket. The same keys make a platform file (`preset = "file:PATH"`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    pub name: String,
    /// Core clock, GHz.
    pub clock_ghz: f64,
    pub cores_per_socket: u32,
    pub llc_ways: u32,
    pub llc_slices: u32,
    pub llc_mib_per_slice: f64,
    /// Inclusive LLC (Haswell) or non-inclusive (Skylake-SP).
    pub llc_inclusive: bool,
    pub l2_kib: u32,
    pub l2_ways: u32,
    /// Default IIO LLC WAYS mask (MSR 0xC8B); 0 = the CPU has no DDIO. Skylake-SP's 0x600 is the
    /// DDIO paper's (ATC'20 §4: two bits set, which cannot be unset); Haswell-EP's 0x60000 (ways
    /// 17 and 18 of 20, not the two highest) is inferred from that paper's §4.4, which gives the
    /// register's accepted values on Haswell as any value in [0x60000, 0xFFFFF]: the lower bound,
    /// with the bits that cannot be unset. (`pqos` users report 0xC0000 as Haswell's I/O
    /// contention mask; a platform file with `ddio_default_mask = 0xC0000` models a part whose
    /// register holds that.)
    pub ddio_default_mask: u32,
    pub ddio_mask_rule: MaskRule,
    /// Reported with the platform; the simulator charges no L1 (its accesses start at the L2).
    pub l1_latency_ns: f64,
    pub l2_latency_ns: f64,
    pub llc_latency_ns: f64,
    /// Idle local DRAM latency, load-to-use (the LLC's miss lookup included, as Intel MLC reports
    /// it), ns.
    pub dram_latency_ns: f64,
    /// Cache-line transfer from another core's L2, ns.
    pub c2c_latency_ns: f64,
    /// Sustained memory bandwidth per socket, GB/s (1e9 B/s).
    pub memory_bandwidth_gbyte_s: f64,
    /// DRAM latency under load, as points `[load, factor]`: when the socket's DRAM traffic is
    /// `load` × `memory_bandwidth_gbyte_s`, a read costs `factor` × `dram_latency_ns`, linear
    /// between points and the last point's factor beyond it (the saturated latency). The first
    /// point is `[0, 1]`; loads rise and factors do not fall from point to point. The presets'
    /// curves are Intel MLC `--loaded_latency` runs on their parts ([`Platform::preset`]).
    /// Unset in a platform file → the Skylake-SP preset's curve.
    #[serde(default = "default_load_curve", deserialize_with = "load_points")]
    pub dram_load_curve: Vec<[f64; 2]>,
    /// Extra latency of one UPI/QPI hop, ns: a remote access pays two (there and back).
    #[serde(default = "default_upi_ns")]
    pub upi_latency_ns: f64,
    /// Ways where a line written device → core → device lands ("inclusive ways", 0x003 on
    /// Skylake/Cascade Lake, measured by the A4 (ISCA'25) and Double-Trouble (USENIX
    /// Security'22) studies; Ice Lake's 0x3 is assumed the same, unmeasured); 0 = no such region. Unset in a platform file → 0x3 (the part of it
    /// inside the LLC's ways) for non-inclusive LLCs with DDIO, else 0.
    #[serde(default)]
    pub recycled_io_mask: Option<u32>,
    /// Writes to IIO LLC WAYS are accepted but have no effect, so `ddio_ways` stays the part's
    /// default. The Ice Lake-SP preset sets it as an assumption, not a measurement: no study of
    /// that register on Ice Lake-SP was found, and the DDIO paper and the later DDIO studies it
    /// builds on measured it only on Skylake-SP/Cascade Lake; a platform file can clear it.
    #[serde(default)]
    pub ddio_ways_ignored: bool,
    /// The part has Memory Bandwidth Allocation (Intel RDT; CPUID leaf 10H, EBX bit 3, Intel SDM
    /// Vol. 3B "Memory Bandwidth Allocation"): Intel introduced it with the Xeon Scalable family
    /// (Skylake-SP), so Haswell-EP has none. Without it an app's `mba_percent` below 100 throttles
    /// nothing: it is simulated as 100, with a warning. Unset in a platform file → true.
    #[serde(default = "default_mba")]
    pub mba: bool,
    /// Single-core memory bandwidth, GB/s, that MBA percentages below 100 scale: at `mba_percent`
    /// < 100 the core's requests leaving its L2 are spaced to that share of it; at 100 nothing
    /// is throttled and this value has no effect.
    #[serde(default = "default_core_bw")]
    pub core_memory_bandwidth_gbyte_s: f64,
    /// A line held Modified in a cache across the coherent link, moved to the other side, ns.
    /// Unset (a platform file that does not give it) → an on-socket L2-to-L2 transfer plus a UPI
    /// round trip (`c2c_latency_ns` + 2 × `upi_latency_ns`): a composition, not a measurement,
    /// that falls short of measured ones (104 ns with the Skylake preset's figures against the
    /// 114 ns MLC measured there), so every preset gives it. `hostio probe --platform-out` writes the line transfer it measured,
    /// the same one `hostio ringbench`'s coherent-link model uses.
    #[serde(default)]
    pub coherent_line_ns: Option<f64>,
    /// Socket-link bandwidth per direction, GB/s (UPI links × GT/s × 2 B).
    #[serde(default = "default_link_bw")]
    pub coherent_link_gbyte_s: f64,
    /// Address-to-slice map: `"skx"`, the map measured on Skylake-SP / Cascade Lake with 18
    /// slices of 2048 sets (a scenario whose geometry differs resolves to `"parity"`, and its
    /// record says so), or `"parity"` (the default), no processor's measured map but built the
    /// way Intel's are (`cache::SliceMap`): XOR parities for a power-of-two slice count, else a
    /// pseudo-random base sequence permuted by parities of the higher address bits.
    #[serde(default)]
    pub slice_hash: SliceHash,
}

/// A platform file's defaults for the keys `hostio probe --platform-out` cannot measure: the
/// Skylake-SP preset's `upi_latency_ns` and `core_memory_bandwidth_gbyte_s` (documented, with
/// their sources and estimates, on [`Platform::preset`]), except `coherent_link_gbyte_s`
/// (`default_link_bw`), which is not the Skylake-SP preset's.
fn default_upi_ns() -> f64 {
    27.0
}
fn default_mba() -> bool {
    true
}
fn default_core_bw() -> f64 {
    12.0
}
fn default_load_curve() -> Vec<[f64; 2]> {
    SKX_LOAD_CURVE.to_vec()
}

/// \[G\]'s MLC `--loaded_latency` (read-only traffic, both sockets loaded; see
/// [`Platform::preset`]) as `dram_load_curve` points: each point's bandwidth per socket over the
/// Skylake-SP preset's 102 GB/s, its latency over the lightest point's (91.66 ns at 1.0 GB/s per
/// socket, taken as idle: that point becomes [0, 1]), loads rounded to 0.001, made non-decreasing (a point below an earlier
/// one, the run's scatter, takes that one's value; of points at one load the highest is kept),
/// and points that change nothing (their factor equal to both neighbours', or the last one's
/// equal to the one before) dropped.
pub(crate) const SKX_LOAD_CURVE: [[f64; 2]; 17] = [
    [0.0, 1.0], [0.018, 1.009], [0.029, 1.009], [0.04, 1.037], [0.079, 1.037], [0.101, 1.041], [0.13, 1.05],
    [0.18, 1.118], [0.247, 1.118], [0.302, 1.132], [0.389, 1.153], [0.54, 1.269], [0.804, 1.404],
    [0.989, 1.782], [1.013, 1.813], [1.014, 1.827], [1.02, 1.94],
];
/// \[H\]'s MLC `--loaded_latency` as [`SKX_LOAD_CURVE`], over the Haswell-EP preset's 55 GB/s
/// and the lightest point's 98.21 ns (at 0.8 GB/s per socket).
const HSW_LOAD_CURVE: [[f64; 2]; 17] = [
    [0.0, 1.0], [0.026, 1.001], [0.042, 1.003], [0.058, 1.005], [0.078, 1.008], [0.111, 1.014], [0.142, 1.02],
    [0.181, 1.027], [0.252, 1.044], [0.341, 1.067], [0.416, 1.082], [0.533, 1.135], [0.736, 1.245],
    [0.993, 2.096], [1.041, 2.51], [1.049, 2.982], [1.05, 2.988],
];
/// Most points of a `dram_load_curve`.
pub const MAX_LOAD_CURVE_POINTS: usize = 64;

/// What a `dram_load_curve` must be, or why it is not.
fn check_load_curve(c: &[[f64; 2]]) -> Result<(), String> {
    let rule = format!(
        "2..={MAX_LOAD_CURVE_POINTS} points [load, factor]: the first [0, 1], loads rising up to 10 (shares of \
         memory_bandwidth_gbyte_s), factors (multiples of dram_latency_ns) not falling, up to 100"
    );
    if !(2..=MAX_LOAD_CURVE_POINTS).contains(&c.len()) {
        return Err(format!("{rule}; it has {} point(s)", c.len()));
    }
    if c[0] != [0.0, 1.0] {
        return Err(format!("{rule}; its first point is {}", point(c[0])));
    }
    for w in c.windows(2) {
        let ([r0, f0], [r1, f1]) = (w[0], w[1]);
        if !(r1.is_finite() && r1 > r0 && r1 <= 10.0 && f1.is_finite() && f1 >= f0 && f1 <= 100.0) {
            return Err(format!("{rule}; {} after {} is not", point(w[1]), point(w[0])));
        }
    }
    Ok(())
}

/// A curve point as errors show it: numbers of more than 20 characters in scientific notation.
fn point([r, f]: [f64; 2]) -> String {
    let num = |v: f64| {
        let s = v.to_string();
        if s.len() > 20 { format!("{v:e}") } else { s }
    };
    format!("[{}, {}]", num(r), num(f))
}

/// `dram_load_curve` as a platform file gives it: each point two numbers.
fn load_points<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<[f64; 2]>, D::Error> {
    let points: Vec<Vec<f64>> = serde::Deserialize::deserialize(d)?;
    points
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            <[f64; 2]>::try_from(p.as_slice())
                .map_err(|_| serde::de::Error::custom(format!("point {i} has {} number(s): each point is [load, factor]", p.len())))
        })
        .collect()
}
/// Two UPI links at 10.4 GT/s (the Ice Lake preset's figure, Intel ARK), not the Skylake-SP
/// preset's three links (62.4 GB/s) that `upi_latency_ns` and `core_memory_bandwidth_gbyte_s`
/// follow.
fn default_link_bw() -> f64 {
    41.6
}

/// Longest platform name (it heads summaries and report titles).
pub const MAX_PLATFORM_NAME_CHARS: usize = 100;

/// Largest core count per socket: the per-line directory stores an L2 owner in a byte (0xFF = none).
pub const MAX_CORES_PER_SOCKET: u32 = 254;
/// Largest L2, KiB (the simulator keeps every core's L2 in memory).
pub const MAX_L2_KIB: u32 = 8192;
/// Largest LLC of one socket, MiB (the simulator keeps its tags in memory).
pub const MAX_LLC_MIB: f64 = 512.0;
/// Largest platform file read, bytes (one is ~1 KiB).
pub const MAX_PLATFORM_FILE_BYTES: u64 = 1 << 20;
/// `O_NONBLOCK` of Linux on x86-64 and AArch64 (`include/uapi/asm-generic/fcntl.h`: 00004000).
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
const O_NONBLOCK: i32 = 0o4000;
/// Most sets per LLC slice (a power of two up to this).
pub const MAX_LLC_SETS_PER_SLICE: u32 = 1 << 15;
/// Largest latency a platform file may give, ns (1 ms).
pub const MAX_LATENCY_NS: f64 = 1e6;
/// Smallest latency a platform file may give, ns: a tenth of the fastest cache's (an L1 hit
/// takes ~1 ns at 4 GHz).
pub const MIN_LATENCY_NS: f64 = 0.1;
/// Largest memory bandwidth a platform file may give, GB/s.
pub const MAX_BANDWIDTH_GBYTE_S: f64 = 1e5;
/// Smallest: one channel of DDR-200 (1.6 GB/s peak) rounded down; the DRAM model does not cap
/// throughput, so far below the simulated traffic it would report what no memory carries.
pub const MIN_BANDWIDTH_GBYTE_S: f64 = 1.0;
/// Simulated physical memory: 32768 frames of 2 MiB (64 GiB) shared by every socket. A modelling
/// choice (the DDIO paper's testbed had 128 GiB) that bounds the directory's size; it sets which
/// 1 GiB frames can hold DPDK's memory, and so which high address bits the slice hash sees.
pub const PHYS_PAGES: u64 = 1 << 15;
/// 2 MiB frames per 1 GiB hugepage (where DPDK's memory lies, `memsys::AddressSpace`).
pub const PAGES_PER_HUGEPAGE: u64 = 512;
/// Bytes of one simulated page.
pub const PAGE_BYTES: u64 = 2 << 20;

/// Names of the built-in presets.
pub const PRESETS: &[&str] = &["skylake-gold-6140", "haswell-e5-2699v3", "icelake-silver-4314"];

impl Platform {
    /// A built-in preset by name.
    ///
    /// Where the numbers come from:
    /// * Clocks, cores and links: Intel ARK for each part. LLC and L2 ways and sizes: what the
    ///   parts report through CPUID leaf 4 (ways, sets, line size). LLC slices: one per core (on
    ///   these parts each core comes with one slice, so ARK's LLC size is cores × slice size). The
    ///   LLC ways, DDIO's default ways and the recycled-line ways as the DDIO paper (ATC'20) and
    ///   the studies named at those fields give them.
    /// * Intel Memory Latency Checker (MLC) runs published for dual-socket servers of these parts
    ///   (`--latency_matrix`, `--idle_latency`, `--c2c_latency`, `--bandwidth_matrix`):
    ///   - \[G\] 2 × Xeon Gold 6140 (the Skylake-SP preset's part), KU Leuven's Genius cluster, MLC
    ///     3.10 (github.com/hpcleuven/VscDocumentation, `source/leuven/old_hardware/genius/
    ///     skylake_mlc.txt`): local DRAM 89.1–90.2 ns, remote 143.2–144.3 ns, L2→L2 HITM 49.9 ns,
    ///     read-only bandwidth 104.4–106.0 GB/s per socket;
    ///   - \[H\] 2 × Xeon E5-2699 v3 (the Haswell-EP preset's part, 4 × DDR4-2133 per socket),
    ///     FD.io CSIT's calibration data, MLC 3.5 (github.com/FDio/csit, `docs/report/
    ///     introduction/test_environment_sut_calib_hsw.rst`): idle latency 96.7 ns (matrix
    ///     97.5–98.0), remote 132.8–139.6 ns, L2→L2 HITM 47.1 ns, read-only bandwidth 57.9 GB/s
    ///     per socket (stream-triad-like 99.4–105.3 GB/s for both);
    ///   - \[W\] 2 × Xeon Platinum 8360Y (Ice Lake-SP, a 36-core die: no run of the 16-core Silver
    ///     4314 was found), KU Leuven's wICE cluster, MLC 3.10 (same repository, `source/leuven/
    ///     tier2_hardware/icelake_mlc.txt`): local DRAM 89.0–89.2 ns, remote 142.7–142.9 ns,
    ///     L2→L2 HITM 64.2 ns (HIT 60.1).
    /// * L1 and L2 load-to-use latencies in core cycles at each base clock: Skylake-SP L1 4, L2 13
    ///   (AnandTech, "The Intel Skylake-X Review", 2017, p. 4, Skylake-SP caches: L1-D 4 cycles,
    ///   L2 11–13); Haswell L1 4, L2 12 (estimates: no primary source for the server part);
    ///   Sunny Cove L1 5, L2 13 (Chips and Cheese's measurements as compiled in
    ///   github.com/jiegec/cpu, `docs/sunny_cove.d2`).
    /// * `dram_latency_ns`: MLC's idle local latency (\[G\] 90 ns; \[H\] 97 ns; \[W\] 89 ns), the
    ///   "~100 ns" of the DDIO paper. `upi_latency_ns`, one hop: half of remote less local DRAM
    ///   in the same runs, since a remote read crosses twice (\[G\] +53–55 ns, so 27; \[H\] +35–42 ns,
    ///   so 19; \[W\] +53.5–53.9 ns, so 27).
    /// * `coherent_line_ns` (a line Modified in the other socket's L2): MLC's remote L2→L2 HITM,
    ///   writer-homed (\[G\] 114.0–114.6 ns, so 114; \[H\] 106.5–106.7, so 106.5); Ice Lake-SP: 114 ns
    ///   (CC-NIC, ASPLOS'24 §3).
    /// * `c2c_latency_ns`: MLC's local L2→L2 HITM (\[G\] 49.9, so 50; \[H\] 47.1, so 47; \[W\] 64.2
    ///   on the larger die, so 60 for the 16-core part, an estimate).
    /// * `llc_latency_ns`: estimates. Skylake-SP: AnandTech (as above) measured 77 core cycles on
    ///   a Skylake-X at ~4 GHz (~19 ns); at the 6140's 2.3 GHz the same count would be 33 ns, and
    ///   the mesh's own clock sets most of it, so 26 ns lies between. Haswell-EP's ring and Ice
    ///   Lake-SP's mesh: 20 and 32 ns, no published measurement found, below each part's L2→L2
    ///   transfer as an LLC hit must be.
    /// * `dram_load_curve`: MLC's `--loaded_latency` on \[G\] and \[H\] (`SKX_LOAD_CURVE`,
    ///   `HSW_LOAD_CURVE`: each point's bandwidth per socket over the preset's
    ///   `memory_bandwidth_gbyte_s`, its latency over the lightest-loaded point's). Skylake-SP:
    ///   +5 % at 13 % load, +27 % at 54 %, +40 % at 80 %, 1.78–1.94× idle at saturation (1.94×
    ///   from the last point on); Haswell-EP:
    ///   +13 % at 53 %, +25 % at 74 %, 2.1–3.0× at saturation. Ice Lake-SP takes Skylake-SP's
    ///   curve (an estimate: no loaded-latency run of an Ice Lake-SP part was found).
    /// * `memory_bandwidth_gbyte_s`: 80 % of the channels' peak, the share the two parts measured
    ///   sustain (ARK: 6 × DDR4-2666 = 128 GB/s, 102 GB/s = 80 %; 4 × DDR4-2133 = 68.3 GB/s,
    ///   55 GB/s = 81 %): against MLC's read-only bandwidth \[G\] 104–106 and \[H\] 58 GB/s per
    ///   socket, and its stream-triad-like mix \[H\] 50–53. Ice Lake-SP, with no Silver 4314 run
    ///   found, takes the same share of its 8 × DDR4-2666 = 170.6 GB/s: 136 GB/s.
    /// * `core_memory_bandwidth_gbyte_s`: one core's streaming bandwidth, the ceiling that MBA
    ///   percentages below 100 scale. Haswell-EP: 20 GB/s, single-thread STREAM Triad on an
    ///   E5-2690 v3 with DDR4-2133 (J. McCalpin, Intel Community forum, "single core bandwidth:
    ///   haswell vs. broadwell vs. skylake": "very close to 19.9 GB/s"). Skylake-SP 12 and Ice
    ///   Lake-SP 14 GB/s: estimates, no measurement found. One core's bandwidth is its
    ///   outstanding misses over the latency (Little's law, as McCalpin puts it in the same
    ///   thread): its ~10 L1 line-fill buffers alone give 10 × 64 B / 90 ns = 7.1 GB/s on
    ///   Skylake-SP, and the L2 prefetchers add to that (Haswell-EP's measured 19.9 GB/s is three
    ///   times its fill buffers' 10 × 64 B / 97 ns = 6.6 GB/s); the thread's opening post reports
    ///   one Skylake-SP core reading memory slower than one Haswell core. So 12 GB/s lies between
    ///   the fill-buffer bound and Haswell-EP's measurement; Ice Lake-SP's 14 is the same guess
    ///   at its lower latency. (The simulator overlaps a core's independent accesses over 10 fill
    ///   buffers on every preset.)
    pub fn preset(name: &str) -> Option<Platform> {
        match name {
            "skylake-gold-6140" => Some(Platform {
                name: "Intel Xeon Gold 6140 (Skylake-SP)".into(),
                clock_ghz: 2.3,
                cores_per_socket: 18,
                llc_ways: 11,
                llc_slices: 18,
                llc_mib_per_slice: 1.375,
                llc_inclusive: false,
                l2_kib: 1024,
                l2_ways: 16,
                ddio_default_mask: 0x600,
                ddio_mask_rule: MaskRule::Contiguous,
                l1_latency_ns: 1.7,
                l2_latency_ns: 5.7,
                llc_latency_ns: 26.0,
                dram_latency_ns: 90.0,
                c2c_latency_ns: 50.0,
                memory_bandwidth_gbyte_s: 102.0,
                dram_load_curve: SKX_LOAD_CURVE.to_vec(),
                upi_latency_ns: 27.0,
                recycled_io_mask: Some(0x3),
                ddio_ways_ignored: false,
                mba: true,
                core_memory_bandwidth_gbyte_s: 12.0,
                coherent_line_ns: Some(114.0),
                // Three UPI links at 10.4 GT/s (Intel ARK, Xeon Gold 6140).
                coherent_link_gbyte_s: 62.4,
                slice_hash: SliceHash::Skx,
            }),
            "haswell-e5-2699v3" => Some(Platform {
                name: "Intel Xeon E5-2699 v3 (Haswell-EP)".into(),
                clock_ghz: 2.3,
                cores_per_socket: 18,
                llc_ways: 20,
                llc_slices: 18,
                llc_mib_per_slice: 2.5,
                llc_inclusive: true,
                l2_kib: 256,
                l2_ways: 8,
                ddio_default_mask: 0x60000,
                ddio_mask_rule: MaskRule::Any,
                l1_latency_ns: 1.7,
                l2_latency_ns: 5.2,
                llc_latency_ns: 20.0,
                dram_latency_ns: 97.0,
                c2c_latency_ns: 47.0,
                memory_bandwidth_gbyte_s: 55.0,
                dram_load_curve: HSW_LOAD_CURVE.to_vec(),
                upi_latency_ns: 19.0,
                // No study measured recycled I/O lines on the inclusive Haswell LLC: none is an
                // assumption.
                recycled_io_mask: Some(0),
                ddio_ways_ignored: false,
                mba: false,
                core_memory_bandwidth_gbyte_s: 20.0,
                coherent_line_ns: Some(106.5),
                // Two QPI links at 9.6 GT/s (Intel ARK, Xeon E5-2699 v3).
                coherent_link_gbyte_s: 38.4,
                slice_hash: SliceHash::Parity,
            }),
            "icelake-silver-4314" => Some(Platform {
                name: "Intel Xeon Silver 4314 (Ice Lake-SP)".into(),
                clock_ghz: 2.4,
                cores_per_socket: 16,
                llc_ways: 12,
                llc_slices: 16,
                llc_mib_per_slice: 1.5,
                llc_inclusive: false,
                l2_kib: 1280,
                l2_ways: 20,
                // DDIO's two highest ways and the recycled ways 0x3 are assumed as measured on
                // Skylake-SP (no study hostio cites measured them on Ice Lake-SP); IIO LLC WAYS
                // writes are taken to have no effect, as the `ddio_ways_ignored` field says.
                ddio_default_mask: 0xC00,
                ddio_mask_rule: MaskRule::Contiguous,
                l1_latency_ns: 2.1,
                l2_latency_ns: 5.4,
                llc_latency_ns: 32.0,
                dram_latency_ns: 89.0,
                c2c_latency_ns: 60.0,
                memory_bandwidth_gbyte_s: 136.0,
                dram_load_curve: SKX_LOAD_CURVE.to_vec(),
                upi_latency_ns: 27.0,
                recycled_io_mask: Some(0x3),
                ddio_ways_ignored: true,
                mba: true,
                core_memory_bandwidth_gbyte_s: 14.0,
                // A line Modified in the remote socket's L2, writer-homed (CC-NIC, ASPLOS'24 §3).
                coherent_line_ns: Some(114.0),
                // Two UPI links at 10.4 GT/s (Intel ARK, Xeon Silver 4314).
                coherent_link_gbyte_s: 41.6,
                slice_hash: SliceHash::Parity,
            }),
            _ => None,
        }
    }

    /// Read a platform file (`file:PATH`): a regular file of at most `MAX_PLATFORM_FILE_BYTES`
    /// (a device such as `/dev/zero` or a FIFO is refused before it is read).
    pub fn from_file(path: &str) -> Result<Platform, ConfigError> {
        use std::io::Read;
        let err = |why: String| ConfigError::new("platform.preset", format!("file:{path}"), why);
        let not_regular = || err("a regular file (a platform file written by `hostio probe --platform-out`)".into());
        if path.is_empty() {
            return Err(err("file:PATH with the platform file's path after `file:`".into()));
        }
        // A relative path is the current directory's; a file not found there names where it looked
        // (the directory only: the path itself is in the value).
        let place = match std::path::Path::new(path).is_relative().then(std::env::current_dir) {
            Some(Ok(cwd)) => {
                let dir = cwd.display().to_string();
                format!(" (relative to the current directory, {})", cut_at(&dir, 60, dir.chars().count()))
            }
            _ => String::new(),
        };
        // Checked before opening: opening a FIFO would wait for a writer.
        let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read the platform file{place}: {e}")))?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let mut open = std::fs::OpenOptions::new();
        open.read(true);
        #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            // A path swapped for a FIFO after the check does not block the open either.
            use std::os::unix::fs::OpenOptionsExt;
            open.custom_flags(O_NONBLOCK);
        }
        let f = open.open(path).map_err(|e| err(format!("cannot read the platform file: {e}")))?;
        if !f.metadata().is_ok_and(|m| m.is_file()) {
            return Err(not_regular());
        }
        let mut bytes = Vec::new();
        f.take(MAX_PLATFORM_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| err(format!("cannot read the platform file: {e}")))?;
        if bytes.len() as u64 > MAX_PLATFORM_FILE_BYTES {
            return Err(err(format!("a platform file of at most {} KiB", MAX_PLATFORM_FILE_BYTES / 1024)));
        }
        let text = String::from_utf8(bytes).map_err(|_| err("a platform file in UTF-8 text".into()))?;
        Self::from_file_text(&text, path)
    }

    /// Parse and check the text of a platform file; `path` names it in errors.
    pub fn from_file_text(text: &str, path: &str) -> Result<Platform, ConfigError> {
        let value: toml::Value = toml::from_str(text).map_err(|e| {
            ConfigError::new("platform.preset", format!("file:{path}"), format!("not valid TOML: {}", one_line(&e.to_string())))
        })?;
        let p: Platform = deserialize_value(&value, &format!("platform file {path}: "))?;
        p.check(&format!("platform file {path}: "))?;
        Ok(p)
    }

    /// Check the facts (as `platform.preset = "file:..."` would).
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check("")
    }

    /// The platform-file text (what `hostio probe --platform-out` writes), with `header` lines as
    /// a leading comment. Checked first, so a file that is written is a file the simulator reads.
    pub fn to_file_toml(&self, header: &[String]) -> Result<String, ConfigError> {
        self.validate()?;
        let body = toml::to_string(self).map_err(|e| ConfigError::new("platform", "", format!("cannot be written as TOML: {e}")))?;
        let mut out: String = header.iter().map(|h| format!("# {h}\n")).collect();
        out.push_str(&body);
        Ok(out)
    }

    fn check(&self, prefix: &str) -> Result<(), ConfigError> {
        let k = |name: &str| format!("{prefix}{name}");
        // The name is printed in one-line summaries and reports.
        // Unicode's line and paragraph separators end a line too; bidirectional controls would
        // reorder the line it is printed in.
        let breaks = |c: char| c.is_control() || is_invisible(c);
        if self.name.trim().is_empty() || self.name.chars().any(breaks) || self.name.chars().count() > MAX_PLATFORM_NAME_CHARS {
            return Err(ConfigError::new(k("name"), basic_string(&self.name), format!("one line of 1..={MAX_PLATFORM_NAME_CHARS} characters, not blank, without control characters or invisible ones (zero-width, bidirectional, line separators)")));
        }
        if !(self.clock_ghz > 0.1 && self.clock_ghz < 10.0) {
            return Err(ConfigError::new(k("clock_ghz"), self.clock_ghz, "a clock in (0.1, 10) GHz"));
        }
        if !(1..=MAX_CORES_PER_SOCKET).contains(&self.cores_per_socket) {
            return Err(ConfigError::new(k("cores_per_socket"), self.cores_per_socket, format!("1..={MAX_CORES_PER_SOCKET} cores")));
        }
        if !(1..=32).contains(&self.llc_ways) {
            return Err(ConfigError::new(k("llc_ways"), self.llc_ways, "1..=32 ways"));
        }
        if !(1..=64).contains(&self.llc_slices) {
            return Err(ConfigError::new(k("llc_slices"), self.llc_slices, "1..=64 slices"));
        }
        if !(self.llc_mib_per_slice.is_finite() && self.llc_mib_per_slice > 0.0) {
            return Err(ConfigError::new(k("llc_mib_per_slice"), self.llc_mib_per_slice, "a finite positive size in MiB (e.g. 1.375)"));
        }
        let llc_mib = self.llc_slices as f64 * self.llc_mib_per_slice;
        if !(llc_mib <= MAX_LLC_MIB) {
            return Err(ConfigError::new(k("llc_mib_per_slice"), self.llc_mib_per_slice, format!("at most {MAX_LLC_MIB} MiB of LLC per socket in total ({} slices)", self.llc_slices)));
        }
        let sets = self.llc_sets_per_slice_exact();
        if sets.is_none() {
            return Err(ConfigError::new(
                k("llc_mib_per_slice"),
                self.llc_mib_per_slice,
                format!(
                    "a size giving a power-of-two number of sets per slice, at most {MAX_LLC_SETS_PER_SLICE}, with {} way(s) of 64 B (e.g. {} MiB = 2048 sets)",
                    self.llc_ways,
                    self.llc_ways as f64 / 8.0
                ),
            ));
        }
        if !(1..=32).contains(&self.l2_ways) {
            return Err(ConfigError::new(k("l2_ways"), self.l2_ways, "1..=32 ways"));
        }
        if !(16..=MAX_L2_KIB).contains(&self.l2_kib) {
            return Err(ConfigError::new(k("l2_kib"), self.l2_kib, format!("16..={MAX_L2_KIB} KiB")));
        }
        let l2_sets = (self.l2_kib as u64 * 1024) / (64 * self.l2_ways.max(1) as u64);
        if self.l2_ways == 0 || self.l2_ways > 32 || !l2_sets.is_power_of_two() || l2_sets * 64 * self.l2_ways as u64 != self.l2_kib as u64 * 1024 {
            return Err(ConfigError::new(k("l2_kib"), self.l2_kib, format!("an L2 size giving a power-of-two set count with {} ways", self.l2_ways)));
        }
        let full = full_mask(self.llc_ways);
        if self.ddio_default_mask & !full != 0 {
            return Err(ConfigError::new(k("ddio_default_mask"), format!("{:#x}", self.ddio_default_mask), format!("a mask within the {} LLC ways ({full:#x})", self.llc_ways)));
        }
        if let Some(m) = self.recycled_io_mask {
            if m & !full != 0 {
                return Err(ConfigError::new(k("recycled_io_mask"), format!("{m:#x}"), format!("a mask within the {} LLC ways ({full:#x}), or 0", self.llc_ways)));
            }
        }
        for (name, v, max) in [
            ("l1_latency_ns", self.l1_latency_ns, MAX_LATENCY_NS),
            ("l2_latency_ns", self.l2_latency_ns, MAX_LATENCY_NS),
            ("llc_latency_ns", self.llc_latency_ns, MAX_LATENCY_NS),
            ("dram_latency_ns", self.dram_latency_ns, MAX_LATENCY_NS),
            ("c2c_latency_ns", self.c2c_latency_ns, MAX_LATENCY_NS),
            ("upi_latency_ns", self.upi_latency_ns, MAX_LATENCY_NS),
        ] {
            if !(v.is_finite() && (MIN_LATENCY_NS..=max).contains(&v)) {
                return Err(ConfigError::new(k(name), v, format!("{MIN_LATENCY_NS}..={max} ns")));
            }
        }
        // The DRAM model raises latency with load (up to `dram_load_curve`'s last factor) but
        // does not cap throughput, so a bandwidth far below what the simulated traffic needs
        // would report demand it cannot carry: below one DDR channel of the oldest kind the
        // model is out of its range.
        for (name, v) in [
            ("memory_bandwidth_gbyte_s", self.memory_bandwidth_gbyte_s),
            ("core_memory_bandwidth_gbyte_s", self.core_memory_bandwidth_gbyte_s),
        ] {
            if !(v.is_finite() && (MIN_BANDWIDTH_GBYTE_S..=MAX_BANDWIDTH_GBYTE_S).contains(&v)) {
                return Err(ConfigError::new(k(name), v, format!("{MIN_BANDWIDTH_GBYTE_S}..={MAX_BANDWIDTH_GBYTE_S} GB/s")));
            }
        }
        check_load_curve(&self.dram_load_curve).map_err(|why| {
            let shown: Vec<String> = self.dram_load_curve.iter().take(4).map(|&p| point(p)).collect();
            let more = if self.dram_load_curve.len() > 4 { ", ..." } else { "" };
            ConfigError::new(k("dram_load_curve"), format!("[{}{more}]", shown.join(", ")), why)
        })?;
        if let Some(v) = self.coherent_line_ns {
            if !(v.is_finite() && (1.0..=MAX_LATENCY_NS).contains(&v)) {
                return Err(ConfigError::new(k("coherent_line_ns"), v, format!("1..={MAX_LATENCY_NS} ns")));
            }
        }
        let v = self.coherent_link_gbyte_s;
        if !(v.is_finite() && (0.1..=MAX_BANDWIDTH_GBYTE_S).contains(&v)) {
            return Err(ConfigError::new(k("coherent_link_gbyte_s"), v, format!("0.1..={MAX_BANDWIDTH_GBYTE_S} GB/s")));
        }
        Ok(())
    }
    fn llc_sets_per_slice_exact(&self) -> Option<u32> {
        let bytes = self.llc_mib_per_slice * 1024.0 * 1024.0;
        let sets = bytes / (64.0 * self.llc_ways as f64);
        let r = sets.round();
        if (sets - r).abs() < 1e-6 && r >= 1.0 && (r as u64).is_power_of_two() && r <= MAX_LLC_SETS_PER_SLICE as f64 {
            Some(r as u32)
        } else {
            None
        }
    }

    /// One line transfer across the coherent link, ns (see the field).
    pub fn coherent_line_ns(&self) -> f64 {
        self.coherent_line_ns.unwrap_or(self.c2c_latency_ns + 2.0 * self.upi_latency_ns)
    }

    pub fn llc_sets_per_slice(&self) -> u32 {
        self.llc_sets_per_slice_exact().expect("checked")
    }

    pub fn l2_sets(&self) -> u32 {
        (self.l2_kib * 1024 / (64 * self.l2_ways)) as u32
    }
}

pub fn full_mask(ways: u32) -> u32 {
    if ways >= 32 {
        u32::MAX
    } else {
        (1u32 << ways) - 1
    }
}

pub fn is_contiguous(mask: u32) -> bool {
    mask != 0 && {
        let shifted = mask >> mask.trailing_zeros();
        (shifted & (shifted + 1)) == 0
    }
}

/// Left-aligned contiguous mask of `n` ways: `((1<<n)-1) << (ways-n)` (a preset's default DDIO
/// ways when a new way count no longer holds them where they were).
pub fn left_aligned_mask(n: u32, ways: u32) -> u32 {
    full_mask(n) << (ways - n)
}

/// The default I/O mask `def` (nonzero) widened to `n` ways (at least its own) of `ways`: it
/// keeps `def`'s bits and adds the way just above its highest while there is one, then the way
/// just below its lowest, so a contiguous default stays contiguous (Skylake-SP's 0x600 of 11
/// gives 0x700, 0x780, ...; Haswell-EP's 0x60000 of 20 stays 0x60000 at two ways and gives
/// 0xE0000, 0xF0000, ...).
/// (A default with a gap, from a platform file, fills the highest free way once neither
/// neighbour is free.)
pub fn widened_mask(def: u32, n: u32, ways: u32) -> u32 {
    let full = full_mask(ways);
    let mut m = def & full;
    while m.count_ones() < n.min(ways) {
        let above = 32 - m.leading_zeros();
        m |= if m == 0 {
            1 << (ways - 1)
        } else if above < ways {
            1 << above
        } else if m.trailing_zeros() > 0 {
            1 << (m.trailing_zeros() - 1)
        } else {
            1 << (31 - (!m & full).leading_zeros())
        };
    }
    m
}

// ------------------------------------------------------------------------------------------------
// Parsing, overrides and validation
// ------------------------------------------------------------------------------------------------

/// `s` on one line, cut after `ONE_LINE_MAX` characters (a parser's message quotes the offending
/// source line, which may be a whole file).
fn one_line(s: &str) -> String {
    const ONE_LINE_MAX: usize = 300;
    let line = short_quotes(&s.split_ascii_whitespace().collect::<Vec<_>>().join(" "));
    match line.char_indices().nth(ONE_LINE_MAX) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

fn deserialize_value<T: serde::de::DeserializeOwned>(original: &toml::Value, prefix: &str) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(original.clone()).map_err(|e| {
        let path = dotted(e.path());
        // The whole message, on one line, for the type check (a huge number in it must not cut
        // off its "expected" part); cut short otherwise.
        let full = e.inner().to_string().split_ascii_whitespace().collect::<Vec<_>>().join(" ");
        let inner = one_line(&full);
        let key = if path == "." { prefix.trim_end_matches(": ").to_string() } else { format!("{prefix}{path}") };
        let node = value_at(original, e.path());
        if let Some(err) = node.and_then(|n| enum_type_error(n, &path, &key, &full).or_else(|| type_error(n, &key, &full))) {
            return err;
        }
        ConfigError::new(if key.is_empty() { "scenario".to_string() } else { key }, "", inner)
    })
}

/// The variants an enum-typed key accepts, as serde lists them ("`a` or `b`"), by the key's last part.
fn enum_variants(leaf: &str) -> Option<String> {
    fn listed<T: serde::de::DeserializeOwned>() -> Option<String> {
        let e = T::deserialize(toml::Value::String(String::new())).err()?.to_string();
        e.split_once("expected ").map(|(_, v)| one_line(v.trim_start_matches("one of ")))
    }
    match leaf {
        "tx_release" => listed::<TxRelease>(),
        "design" => listed::<NicDesign>(),
        "replacement" => listed::<Replacement>(),
        "ddio_insertion" => listed::<DdioInsertion>(),
        "size_mix" => listed::<SizeMix>(),
        "pcap_timing" => listed::<PcapTiming>(),
        "kind" => listed::<AppKind>(),
        "attachment" => listed::<Attach>(),
        "link" => listed::<CoherentLink>(),
        "signaling" => listed::<hostio_hw::coherent::Signaling>(),
        "layout" => listed::<hostio_hw::coherent::Layout>(),
        "homing" => listed::<Homing>(),
        "pool" => listed::<hostio_hw::coherent::Pool>(),
        "channel" => listed::<Channel>(),
        "clone" => listed::<CloneMode>(),
        "allocator" => listed::<Allocator>(),
        "ddio_mask_rule" => listed::<MaskRule>(),
        "slice_hash" => listed::<SliceHash>(),
        _ => None,
    }
}

/// serde's `path` as a TOML dotted key (`.` when empty), its table names quoted where needed.
fn dotted(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    if path.iter().next().is_none() {
        return ".".to_string();
    }
    let mut out = String::new();
    for seg in path.iter() {
        let part = match seg {
            Segment::Seq { index } => {
                out.push_str(&format!("[{index}]"));
                continue;
            }
            Segment::Map { key } => key_part(key),
            other => other.to_string(),
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(&part);
    }
    out
}

/// The value at serde's `path` inside `root`.
fn value_at<'a>(root: &'a toml::Value, path: &serde_path_to_error::Path) -> Option<&'a toml::Value> {
    use serde_path_to_error::Segment;
    path.iter().try_fold(root, |node, seg| match seg {
        Segment::Map { key } => node.get(key.as_str()),
        Segment::Seq { index } => node.get(*index),
        _ => None,
    })
}

/// `msg` with every `backquoted` part longer than 60 characters cut to its start and its length,
/// so that a long value a parser quotes does not push the rest of its message (what is expected)
/// past `one_line`'s cut; control and invisible characters (a parser quotes keys and values as
/// they were written) are escaped as `\uXXXX`.
fn short_quotes(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1024));
    for (i, part) in msg.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let n = part.chars().count();
        if i % 2 == 1 && n > 60 {
            out.push_str(&escaped(&part.chars().take(60).collect::<String>()));
            out.push_str(&format!("… ({n} characters)"));
        } else {
            out.push_str(&escaped(part));
        }
    }
    out
}

/// A value as a message shows it, on one line and at most 60 characters: strings quoted with
/// Rust's escapes (`"a\nb"`; a cut one gives the string's own length), other values in TOML
/// syntax.
fn shown(node: &toml::Value) -> String {
    let (s, n) = match node {
        toml::Value::String(s) => (format!("{s:?}"), Some(s.chars().count())),
        toml::Value::Datetime(d) => (d.to_string(), None),
        v => (one_line(&v.to_string()), None),
    };
    let n = n.unwrap_or_else(|| s.chars().count());
    cut_at(&s, 60, n)
}

/// An enum-typed key given a number, a boolean, an array or a table: serde says only "invalid type:
/// unit variant"; this names the key, the value and the variants.
fn enum_type_error(node: &toml::Value, path: &str, key: &str, inner: &str) -> Option<ConfigError> {
    let variants = enum_variants(path.rsplit('.').next()?)?;
    if node.is_str() {
        // A wrong name (serde's "unknown variant `x`, expected ..."), in the `key = value: allowed` form.
        return inner.starts_with("unknown variant").then(|| ConfigError::new(key, shown(node), format!("one of {variants}")));
    }
    Some(ConfigError::new(key, shown(node), format!("a string, one of {variants}")))
}

/// serde's "invalid type: string \"abc\", expected u32" (or "invalid value: integer `-4`, …") for a
/// number, boolean, string, array or table key, in the `key = value: allowed` form.
fn type_error(node: &toml::Value, key: &str, inner: &str) -> Option<ConfigError> {
    if !(inner.starts_with("invalid type:") || inner.starts_with("invalid value:")) {
        return None;
    }
    let expected = inner.rsplit_once(", expected ")?.1;
    // The TOML deserializer may append " in `key`"; the key is named anyway.
    let expected = expected.split(" in `").next()?;
    let int = |lo: i128, hi: i128| format!("an integer in {lo}..={hi}");
    let allowed = match expected {
        "u8" => int(0, u8::MAX.into()),
        "u16" => int(0, u16::MAX.into()),
        "u32" => int(0, u32::MAX.into()),
        "u64" | "usize" => int(0, i64::MAX.into()), // TOML integers are signed 64-bit
        "i32" => int(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => int(i64::MIN.into(), i64::MAX.into()),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" => "a string".to_string(),
        "a sequence" => "an array".to_string(),
        e if e.starts_with("struct ") || e == "a map" => "a table".to_string(),
        _ => return None,
    };
    // A seed TOML cannot hold as an integer (read as a float by `apply_override`) may still be a u64.
    let seed_hint = key == "run.seed" && node.as_float().is_some_and(|v| v.fract() == 0.0 && (i64::MAX as f64..=u64::MAX as f64).contains(&v));
    let allowed = if seed_hint { format!("{allowed}; seeds up to {}: `hostio run --seed` or `hostio.run(seed=)`", u64::MAX) } else { allowed };
    Some(ConfigError::new(key, shown(node), allowed))
}

/// Parse scenario text (TOML), apply `key.path=value` overrides, check and resolve it.
pub fn parse_scenario(text: &str, overrides: &[String]) -> Result<Scenario, ConfigError> {
    parse_scenario_at(text, overrides, None)
}

/// [`parse_scenario`] of a scenario file's text: relative file paths in `text` (captures, a
/// platform file) are read from `base` (the file's folder); those of overrides, and all when
/// `base` is None, from the working directory. The scenario holds them as absolute paths, so it
/// runs the same from anywhere.
pub fn parse_scenario_at(text: &str, overrides: &[String], base: Option<&std::path::Path>) -> Result<Scenario, ConfigError> {
    let mut value: toml::Value = toml::from_str(text)
        .map_err(|e| ConfigError::new("scenario", "", format!("not valid TOML: {}", one_line(&e.to_string()))))?;
    if let Some(base) = base {
        absolute_paths(&mut value, base, true)?;
    }
    for ov in overrides {
        apply_override(&mut value, ov)?;
    }
    if let Ok(cwd) = std::env::current_dir() {
        // A working directory that is not UTF-8 leaves the path relative: read from there anyway.
        absolute_paths(&mut value, &cwd, false)?;
    }
    require_tables(&value)?;
    fill_pcie_defaults(&mut value);
    check_scenario(&value).map_err(|e| with_key_rule(&value, e))
}

/// Join the relative file paths of `value` (the traffic sources' `pcap`, a `platform.preset` of
/// `file:PATH`) to `base`, making them absolute; returns whether any changed. A path that cannot
/// be written as text once joined (`base` is not valid UTF-8) is refused when `strict` (it would
/// be read from elsewhere), else left relative.
pub fn absolute_paths(value: &mut toml::Value, base: &std::path::Path, strict: bool) -> Result<bool, ConfigError> {
    let join = |key: String, shown: &str, p: &str| -> Result<Option<String>, ConfigError> {
        let path = std::path::Path::new(p);
        if p.trim().is_empty() || path.is_absolute() {
            return Ok(None);
        }
        match base.join(path).to_str() {
            Some(joined) => Ok(Some(joined.to_string())),
            None if !strict => Ok(None),
            None => Err(ConfigError::new(
                key,
                format!("{shown:?}"),
                format!("a path hostio can write as text once joined to the scenario's folder {base:?}, which is not valid UTF-8 (an absolute path, or the scenario in another folder)"),
            )),
        }
    };
    let mut changed = false;
    if let Some(toml::Value::String(p)) = value.get_mut("platform").and_then(|t| t.get_mut("preset")) {
        if let Some(rel) = p.strip_prefix("file:") {
            if let Some(joined) = join("platform.preset".into(), p, rel)? {
                *p = format!("file:{joined}");
                changed = true;
            }
        }
    }
    let Some(sources) = value.get_mut("traffic").and_then(|t| t.as_table_mut()) else { return Ok(changed) };
    for (name, t) in sources.iter_mut() {
        if let Some(toml::Value::String(p)) = t.get_mut("pcap") {
            if let Some(joined) = join(format!("{}.pcap", table_key("traffic", name)), p, p)? {
                *p = joined;
                changed = true;
            }
        }
    }
    Ok(changed)
}

fn check_scenario(value: &toml::Value) -> Result<Scenario, ConfigError> {
    let sc: Scenario = deserialize_value(value, "")?;
    sc.validate()?;
    Ok(sc)
}

/// An integer beyond its key's type (`rx_descriptors = 4294967296`, `cores = -1`) is answered with
/// the key's own rule where it has one: the scenario is checked again with the value at the type's
/// nearest bound, then at the other; the first check that refuses the same key gives its rule.
/// If both bounds pass, the key takes any value of its type and the type's range stands. A value
/// that is no integer at all (a fraction such as `llc_slices = 1.5`, a float such as `2.0` or
/// `nan`, a boolean, a string) gets the key's own rule the same way, as "an integer: rule".
fn with_key_rule(value: &toml::Value, err: ConfigError) -> ConfigError {
    let Some((lo, hi)) = err.allowed.strip_prefix("an integer in ").and_then(|r| r.split_once("..=")) else { return err };
    let (Ok(lo), Ok(hi)) = (lo.parse::<i64>(), hi.parse::<i64>()) else { return err };
    let mut probe = value.clone();
    let Some(node) = node_at_key(&mut probe, "", &err.key, &err.value) else { return err };
    // A whole number beyond TOML's integers is a float here (`apply_override`).
    let (below, fraction) = match *node {
        toml::Value::Integer(i) if i < lo || i > hi => (i < lo, false),
        toml::Value::Integer(_) => return err,
        // A whole number beyond the type's range (also an integer beyond TOML's): just the rule.
        toml::Value::Float(f) if f.fract() == 0.0 && (f < lo as f64 || f > hi as f64) => (f < lo as f64, false),
        // Not an integer at all: a fraction, a whole float inside the type's range, NaN, a boolean,
        // a string, an array.
        toml::Value::Float(f) if f.is_finite() => (f < (lo as f64 + hi as f64) / 2.0, true),
        // NaN is below and above nothing: the low bound's check, usually the key's whole range.
        toml::Value::Float(f) => (f.is_nan() || f.is_sign_negative(), true),
        _ => (true, true),
    };
    for bound in if below { [lo, hi] } else { [hi, lo] } {
        let mut probe = value.clone();
        let Some(node) = node_at_key(&mut probe, "", &err.key, &err.value) else { return err };
        *node = toml::Value::Integer(bound);
        if let Err(e) = check_scenario(&probe) {
            if e.key == err.key {
                let allowed = if fraction { format!("an integer: {}", e.allowed) } else { e.allowed };
                return ConfigError { allowed, ..err };
            }
        }
    }
    err
}

/// The value under the dotted `key` (table names may hold dots themselves) that a message shows
/// as `shown_as`.
fn node_at_key<'a>(node: &'a mut toml::Value, at: &str, key: &str, shown_as: &str) -> Option<&'a mut toml::Value> {
    let toml::Value::Table(t) = node else {
        return (at == key && ConfigError::new("", shown(node), "").value == shown_as).then_some(node);
    };
    t.iter_mut().find_map(|(k, v)| {
        let path = if at.is_empty() { key_part(k) } else { format!("{at}.{}", key_part(k)) };
        if key == path || key.starts_with(&format!("{path}.")) {
            node_at_key(v, &path, key, shown_as)
        } else {
            None
        }
    })
}

/// A `[nics.<name>.pcie]` table that names only some keys keeps the ConnectX-5 link's values for
/// the others, so `--set nics.nic0.pcie.gen=4` changes the generation and nothing else.
fn fill_pcie_defaults(root: &mut toml::Value) {
    let Some(nics) = root.get_mut("nics").and_then(|v| v.as_table_mut()) else { return };
    let Ok(toml::Value::Table(defaults)) = toml::Value::try_from(cx5_link()) else { return };
    for (_, nic) in nics.iter_mut() {
        if let Some(pcie) = nic.get_mut("pcie").and_then(|v| v.as_table_mut()) {
            for (k, v) in &defaults {
                pcie.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
}

/// Tables must be written as tables: serde would otherwise read an array such as
/// `run = [7, 300, 100]` positionally into the struct's fields.
fn require_tables(root: &toml::Value) -> Result<(), ConfigError> {
    fn table<'a>(v: &'a toml::Value, key: &str) -> Result<&'a toml::Table, ConfigError> {
        v.as_table().ok_or_else(|| {
            let t = v.type_str();
            let a = if t.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            ConfigError::new(key, shown(v), format!("a table ([{key}] with named keys), not {a} {t}"))
        })
    }
    let root = table(root, "scenario")?;
    for key in ["run", "platform"] {
        if let Some(v) = root.get(key) {
            table(v, key)?;
        }
    }
    for key in ["nics", "traffic", "apps"] {
        if let Some(v) = root.get(key) {
            for (name, child) in table(v, key)? {
                let child = table(child, &table_key(key, name))?;
                if key == "nics" {
                    nic_tables(name, child, &|v, k| table(v, k).map(|_| ()))?;
                }
            }
        }
    }
    Ok(())
}

/// A NIC's attachment-specific keys: each sub-table is a table, and only the attachment it belongs
/// to may have it (`pcie` and `design` for PCIe NICs, `coherent` for coherent ones, `netdimm` for
/// memory-channel ones), so nothing given is silently ignored.
fn nic_tables(
    name: &str,
    nic: &toml::Table,
    table: &dyn Fn(&toml::Value, &str) -> Result<(), ConfigError>,
) -> Result<(), ConfigError> {
    let attachment = match nic.get("attachment") {
        None => "pcie",
        Some(v) => match v.as_str() {
            Some(a) => a,
            None => return Ok(()), // not a string: the attachment's own error names it
        },
    };
    for (key, owner) in [("pcie", "pcie"), ("design", "pcie"), ("coherent", "coherent"), ("netdimm", "memory-channel")] {
        let Some(v) = nic.get(key) else { continue };
        if key != "design" {
            table(v, &format!("{}.{key}", table_key("nics", name)))?;
        }
        if attachment != owner && Attach::deserialize(toml::Value::String(attachment.into())).is_ok() {
            let shown = if key == "design" { one_line(&v.to_string()) } else { "a table".into() };
            return Err(ConfigError::new(
                format!("{}.{key}", table_key("nics", name)),
                shown,
                format!("only with attachment = \"{owner}\" (this NIC's is \"{attachment}\")"),
            ));
        }
    }
    Ok(())
}

/// One part of a TOML dotted key: bare when it is a bare key (letters, digits, `_`, `-`), else
/// quoted, so an error's key can be pasted back into `--set` or a scenario file.
fn key_part(name: &str) -> String {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        name.to_string()
    } else {
        basic_string(name)
    }
}

/// Characters that do not show themselves: Unicode's default-ignorable code points (zero-width
/// and bidirectional formatting characters — a name holding U+202E prints the rest of its line
/// reversed —, the soft hyphen, variation selectors, Hangul fillers, tag characters), the
/// interlinear annotation controls, and the line and paragraph separators.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}'..='\u{1160}' | '\u{17b4}'..='\u{17b5}' | '\u{180b}'..='\u{180f}'
        | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}' | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// `text` as a one-line TOML basic string, escaped as `hostio.sim.key_text` writes it (control
/// and invisible characters as `\uXXXX`).
fn basic_string(text: &str) -> String {
    let mut q = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            c if (c.is_control() || is_invisible(c)) && (c as u32) < 0x10000 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c if is_invisible(c) => q.push_str(&format!("\\U{:08x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Longest name of a NIC, traffic source or app, characters.
const MAX_NAME_CHARS: usize = 64;

/// Names of `section`'s tables: 1 to `MAX_NAME_CHARS` characters, none of them a control or
/// invisible character ([`is_invisible`]; names are printed in tables and progress lines, where
/// those would garble the terminal or disguise the name).
fn check_names<'a>(section: &str, names: impl Iterator<Item = &'a String>) -> Result<(), ConfigError> {
    // Shown escaped (no control character reaches the terminal), its first characters only: 24,
    // so that even six-character escapes stay within what an error shows (`MAX_SHOWN`).
    const SHOWN: usize = 24;
    for name in names {
        let n = name.chars().count();
        if name.trim().is_empty() || n > MAX_NAME_CHARS || name.chars().any(|c| c.is_control() || is_invisible(c)) {
            let head: String = name.chars().take(SHOWN).collect();
            let shown = if n > SHOWN { format!("{}… ({n} characters)", basic_string(&head)) } else { basic_string(&head) };
            return Err(ConfigError::new(section, shown, format!("table names of 1 to {MAX_NAME_CHARS} characters, not blank, without control characters or invisible ones (zero-width, bidirectional, line separators)")));
        }
    }
    Ok(())
}

/// `section.name` as a TOML dotted key ([`key_part`]).
fn table_key(section: &str, name: &str) -> String {
    format!("{section}.{}", key_part(name))
}

/// Apply one `a.b.c=value` override to a TOML tree. The key path is a TOML dotted key (bare or
/// quoted parts: `apps."fwd.1".cores`); the value is read as a TOML literal (`4096`, `true`,
/// `0x600`, `"text"`), or as a bare string when it is not one.
pub fn apply_override(root: &mut toml::Value, ov: &str) -> Result<(), ConfigError> {
    let (path, raw) = key_end(ov)
        .map(|i| (&ov[..i], &ov[i + 1..]))
        .ok_or_else(|| ConfigError::new("--set", ov, "KEY.PATH=VALUE, e.g. nics.nic0.rx_descriptors=4096"))?;
    // TOML's own whitespace (spaces, tabs) around the key and the value; other Unicode spaces
    // (U+2028, U+3000, ...) are part of what was written, and refused or kept as text.
    let toml_space = |c: char| c == ' ' || c == '\t';
    let raw = raw.trim_matches(toml_space);
    let parts = dotted_key(path.trim_matches(toml_space)).ok_or_else(|| {
        // TOML's parser refuses keys nested some 70 levels deep; a scenario's go 5 deep.
        let why = if path.matches('.').count() >= 32 { ", at most 32 of them (a scenario's keys have at most 5)" } else { "" };
        ConfigError::new("--set", ov, format!("KEY.PATH=VALUE with a TOML dotted key of non-empty parts (bare, or quoted when a part holds a dot){why}"))
    })?;
    let key_of = |parts: &[String]| parts.iter().map(|p| key_part(p)).collect::<Vec<_>>().join(".");
    // A number too large for an f64 (`1e400`) is neither text nor infinity.
    if raw.bytes().any(|b| b.is_ascii_digit()) && raw.replace('_', "").parse::<f64>().is_ok_and(f64::is_infinite) {
        return Err(ConfigError::new(key_of(&parts), raw, "a number within 64-bit floating point (at most ±1.7976931348623157e308)"));
    }
    let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        // More than `v`: a line break let a second key in (`3\nrun.seed = 4`).
        Ok(t) if t.len() > 1 => return Err(ConfigError::new("--set", ov, "KEY.PATH=VALUE with one TOML value (no second line)")),
        Ok(mut t) => t.remove("v").expect("key v"),
        // An integer beyond TOML's 64 bits is still a number (not text): a float, which a number
        // key takes and an integer key refuses with its own range.
        Err(_) if is_decimal(raw.strip_prefix(['+', '-']).unwrap_or(raw)) => {
            toml::Value::Float(raw.parse::<f64>().expect("decimal digits parse as f64"))
        }
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let mut cur = root;
    for (i, part) in parts.iter().enumerate() {
        let table = cur
            .as_table_mut()
            .ok_or_else(|| ConfigError::new(key_of(&parts[..i]), "", "is a value, not a table, so it has no sub-keys"))?;
        if i + 1 == parts.len() {
            table.insert(part.to_string(), parsed);
            return Ok(());
        }
        cur = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
    }
    unreachable!()
}

/// Byte index of the first `=` of `ov` outside a quoted key part.
fn key_end(ov: &str) -> Option<usize> {
    let (mut quote, mut escaped) = (None, false);
    for (i, c) in ov.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '=' => return Some(i),
            None => {}
        }
    }
    None
}

/// The parts of TOML dotted key `path`, each non-empty; `None` when it is not one. `path = 0` is
/// read as a TOML document, which is one key-value line only when `path` has no line break (so no
/// table header or second line can hide in it).
fn dotted_key(path: &str) -> Option<Vec<String>> {
    if path.contains(['\n', '\r']) {
        return None;
    }
    let mut t = toml::from_str::<toml::Table>(&format!("{path} = 0")).ok()?;
    let mut parts = Vec::new();
    loop {
        if t.len() != 1 {
            return None;
        }
        let (k, v) = t.into_iter().next()?;
        if k.is_empty() {
            return None;
        }
        parts.push(k);
        match v {
            toml::Value::Table(inner) => t = inner,
            toml::Value::Integer(0) => return Some(parts),
            _ => return None,
        }
    }
}

/// Digits only, the first not 0: an integer when TOML can hold it (TOML refuses leading zeros).
fn is_decimal(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit()) && s.bytes().next().is_some_and(|b| b != b'0')
}

/// A scenario checked and joined with its platform facts.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub scenario: Scenario,
    pub platform: Platform,
    /// Effective IIO LLC WAYS mask (0 when DDIO is unsupported).
    pub io_mask: u32,
    pub replacement: Replacement,
    pub warnings: Vec<String>,
    /// The captures of the sources that replay one, by source name ([`Resolved::load_captures`]).
    pub captures: BTreeMap<String, std::sync::Arc<crate::pcap::Capture>>,
}

impl Resolved {
    /// The scenario as it runs: `scenario` with the app defaults the engine applies written in
    /// ([`crate::engine::effective_app`]) and the platform's replacement policy. A run's identity
    /// (`scenario_hash`) uses it, so spelling out one of these defaults does not change it (other
    /// keys, e.g. `platform.ddio_ways`, count as given); `hostio check` shows what it adds under
    /// `defaults`. The values are this platform's and these apps' (a CAT mask of all its ways):
    /// written into a scenario, they stay under another platform or app kind.
    pub fn effective_scenario(&self) -> Scenario {
        let mut sc = self.scenario.clone();
        for a in sc.apps.values_mut() {
            let own_dram = a.nic.as_deref().and_then(|n| self.scenario.nics.get(n)).is_some_and(|n| n.attachment == Attach::MemoryChannel);
            *a = crate::engine::effective_app(a, self.platform.llc_ways, own_dram);
        }
        sc.platform.replacement = Some(self.replacement);
        sc
    }

    /// Read the capture of every source that replays one (once: a loaded one is kept). An error
    /// names the source's `pcap` key, the path and why the file cannot be replayed.
    pub fn load_captures(&mut self) -> Result<(), ConfigError> {
        for (name, t) in &self.scenario.traffic {
            let Some(path) = &t.pcap else { continue };
            if self.captures.contains_key(name) {
                continue;
            }
            let c = crate::pcap::load_cached(std::path::Path::new(path))
                .map_err(|e| ConfigError::new(format!("{}.pcap", table_key("traffic", name)), format!("{path:?}"), format!("a pcap or pcapng capture hostio can replay: {e}")))?;
            if let (Some(rate), PcapTiming::Capture, None) = (t.rate_gbps, t.pcap_timing, c.mean_gbps()) {
                return Err(ConfigError::new(
                    format!("{}.rate_gbps", table_key("traffic", name)),
                    rate,
                    "left out: the capture has no mean rate to scale (one frame, or all at one instant); pcap_timing = \"rate\" sends its frames at rate_gbps",
                ));
            }
            let largest = c.frames.iter().map(|f| f.len).max().unwrap_or(0);
            if let Some(nc) = self.scenario.nics.get(&t.nic) {
                pause_room(&t.nic, nc, name, largest)?;
            }
            self.captures.insert(name.clone(), c);
        }
        Ok(())
    }
}

/// With flow control the buffer of NIC `nic` past XOFF (its last quarter) must hold one more
/// frame of the largest size `largest` that source `source` sends, or a frame is dropped before
/// the sender is paused.
fn pause_room(nic: &str, nc: &NicCfg, source: &str, largest: u32) -> Result<(), ConfigError> {
    let largest = largest as u64;
    if nc.pause_frames && (nc.buffer_kib as u64 * 1024) / 4 < largest {
        return Err(ConfigError::new(
            format!("{}.buffer_kib", table_key("nics", nic)),
            nc.buffer_kib,
            format!(
                "at least {} KiB with pause_frames = true: 4 x the largest frame of {} ({largest} B), so the quarter above XOFF holds one",
                (4 * largest).div_ceil(1024),
                table_key("traffic", source)
            ),
        ));
    }
    Ok(())
}

impl Scenario {
    /// Upper bound of the simulated memory the apps lay out (working sets, app buffers, packet
    /// buffers, rings; not rounded to hugepages), MiB.
    pub fn simulated_memory_mib(&self) -> u64 {
        self.apps.values().map(|a| self.app_pages(a)).map(|(other, dpdk)| other + dpdk).sum::<u64>() * PAGE_BYTES >> 20
    }

    /// (pages outside DPDK, DPDK pages) of app `a`, upper bounds.
    fn app_pages(&self, a: &AppCfg) -> (u64, u64) {
        let largest = a.nic.as_deref().map_or(0, |n| crate::engine::largest_received(self, n, &BTreeMap::new()));
        crate::engine::app_pages_bound(a, a.nic.as_ref().and_then(|n| self.nics.get(n)), largest)
    }

    /// Where app `a`'s DPDK memory lives, as the engine places it: the DRAM of its memory-channel
    /// NIC, else its mempool's socket.
    fn dpdk_home(&self, a: &AppCfg) -> String {
        match a.nic.as_ref().and_then(|n| self.nics.get(n).map(|c| (n, c))) {
            Some((n, c)) if c.attachment == Attach::MemoryChannel => format!("nic {n}"),
            _ => format!("socket {}", a.mempool_socket.unwrap_or(a.socket)),
        }
    }

    /// Check every cross-table rule; the error names the key, value and what is allowed.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.resolve().map(|_| ())
    }

    /// Resolve the platform (preset + overrides), the I/O mask, and check everything.
    pub fn resolve(&self) -> Result<Resolved, ConfigError> {
        check_names("nics", self.nics.keys())?;
        check_names("traffic", self.traffic.keys())?;
        check_names("apps", self.apps.keys())?;
        let r = &self.run;
        if !(r.duration_us.is_finite() && r.duration_us >= 1.0 && r.duration_us <= 10_000_000.0) {
            return Err(ConfigError::new("run.duration_us", r.duration_us, "1 ≤ µs ≤ 1e7"));
        }
        if !(r.warmup_us.is_finite() && r.warmup_us >= 0.0 && r.warmup_us <= 10_000_000.0) {
            return Err(ConfigError::new("run.warmup_us", r.warmup_us, "0 ≤ µs ≤ 1e7"));
        }
        let p = &self.platform;
        let mut plat = if let Some(path) = p.preset.strip_prefix("file:") {
            Platform::from_file(path)?
        } else {
            Platform::preset(&p.preset).ok_or_else(|| {
                ConfigError::new("platform.preset", format!("{:?}", p.preset), format!("one of {} or file:PATH", PRESETS.join(", ")))
            })?
        };
        if let Some(w) = p.llc_ways {
            if !(1..=32).contains(&w) {
                return Err(ConfigError::new("platform.llc_ways", w, "1..=32"));
            }
            // Keep the default I/O ways as far from the highest way as they were (Skylake-SP's
            // are the highest, Haswell-EP's one below), left-aligned if they no longer fit, and
            // the recycled ways (the lowest) inside the new geometry.
            let (def, old) = (plat.ddio_default_mask, plat.llc_ways);
            let moved = if w >= old { (def as u64) << (w - old) } else { def as u64 >> (old - w) };
            let n = def.count_ones();
            plat.ddio_default_mask = if n == 0 {
                0
            } else if moved.count_ones() == n && moved < 1 << w {
                moved as u32
            } else {
                left_aligned_mask(n.min(w), w)
            };
            // A region of the lowest ways keeps as many as fit; any other is left for the check.
            plat.recycled_io_mask = plat.recycled_io_mask.map(|m| if m == full_mask(m.count_ones()) { full_mask(m.count_ones().min(w)) } else { m });
            plat.llc_ways = w;
        }
        if let Some(s) = p.llc_slices {
            if !(1..=64).contains(&s) {
                return Err(ConfigError::new("platform.llc_slices", s, "1..=64"));
            }
            plat.llc_slices = s;
        }
        if let Some(m) = p.llc_mib_per_slice {
            plat.llc_mib_per_slice = m;
        }
        plat.check("platform.").map_err(|e| match p.llc_ways {
            // Only the ways were changed: the preset's slice size no longer makes whole sets.
            Some(w) if p.llc_mib_per_slice.is_none() && e.key == "platform.llc_mib_per_slice" => ConfigError::new(
                "platform.llc_ways",
                w,
                format!("ways that split the preset's {} MiB slices into a power-of-two number of sets, or set platform.llc_mib_per_slice too ({})", plat.llc_mib_per_slice, e.allowed),
            ),
            _ => e,
        })?;
        if plat.recycled_io_mask.is_none() {
            // Set after the check: it must fit the ways here (a mask beyond them would pick ways
            // a set record does not have).
            plat.recycled_io_mask = Some(if !plat.llc_inclusive && plat.ddio_default_mask != 0 { 0x3 & full_mask(plat.llc_ways) } else { 0 });
        }
        if !(1..=2).contains(&p.sockets) {
            return Err(ConfigError::new("platform.sockets", p.sockets, "1 or 2"));
        }
        let full = full_mask(plat.llc_ways);
        let def = plat.ddio_default_mask;
        let mut warnings = Vec::new();
        let mut io_mask = def;
        if p.ddio_ways.is_some() && p.ddio_mask.is_some() {
            return Err(ConfigError::new("platform.ddio_mask", "", "give either platform.ddio_ways or platform.ddio_mask, not both"));
        }
        if def == 0 && (p.ddio_ways.is_some() || p.ddio_mask.is_some()) {
            return Err(ConfigError::new("platform.ddio_ways", "", format!("{} has no DDIO (its default I/O mask is 0)", plat.name)));
        }
        if let Some(n) = p.ddio_ways {
            let lo = def.count_ones();
            if n < lo || n > plat.llc_ways {
                return Err(ConfigError::new("platform.ddio_ways", n, format!("{lo}..={} (the default ways cannot be removed)", plat.llc_ways)));
            }
            io_mask = widened_mask(def, n, plat.llc_ways);
        }
        if let Some(m) = p.ddio_mask {
            if m & !full != 0 || m == 0 {
                return Err(ConfigError::new("platform.ddio_mask", format!("{m:#x}"), format!("a nonzero mask within {full:#x}")));
            }
            if m & def != def {
                return Err(ConfigError::new("platform.ddio_mask", format!("{m:#x}"), format!("a mask that keeps the default bits {def:#x}")));
            }
            if plat.ddio_mask_rule == MaskRule::Contiguous && !is_contiguous(m) {
                return Err(ConfigError::new("platform.ddio_mask", format!("{m:#x}"), format!("contiguous set bits on {}", plat.name)));
            }
            io_mask = m;
        }
        if def == 0 && p.ddio && self.nics.values().any(|n| matches!(n.attachment, Attach::Pcie | Attach::Integrated)) {
            warnings.push(format!(
                "{}: the platform has no DDIO (its ddio_default_mask is 0): every write of a PCIe or on-die NIC goes to DRAM and no PCIe write hit rate is measured",
                plat.name
            ));
        }
        if plat.ddio_ways_ignored && io_mask != def {
            warnings.push(format!(
                "{}: IIO LLC WAYS writes are accepted but have no measured effect on this generation; simulating the default mask {def:#x}",
                plat.name
            ));
            io_mask = def;
        }
        if plat.slice_hash == SliceHash::Skx && (plat.llc_slices, plat.llc_sets_per_slice()) != SKX_GEOMETRY {
            // The measured map covers 18 slices of 2048 sets only; the record says what is used.
            warnings.push(format!(
                "{}: the measured Skylake-SP slice map covers 18 slices of 2048 sets, not {} of {}; simulating the parity slice hash",
                plat.name,
                plat.llc_slices,
                plat.llc_sets_per_slice()
            ));
            plat.slice_hash = SliceHash::Parity;
        }
        let replacement = p.replacement.unwrap_or(Replacement::Lru);

        for (name, n) in &self.nics {
            let k = |f: &str| format!("{}.{f}", table_key("nics", name));
            if n.socket >= p.sockets {
                return Err(ConfigError::new(k("socket"), n.socket, format!("0..={} (platform.sockets = {})", p.sockets - 1, p.sockets)));
            }
            if !(n.line_rate_gbps >= 1.0 && n.line_rate_gbps <= 800.0) {
                return Err(ConfigError::new(k("line_rate_gbps"), n.line_rate_gbps, "1..=800 Gb/s"));
            }
            for (f, v) in [("rx_descriptors", n.rx_descriptors), ("tx_descriptors", n.tx_descriptors)] {
                if !(v.is_power_of_two() && (32..=65536).contains(&v)) {
                    return Err(ConfigError::new(k(f), v, "a power of two in 32..=65536"));
                }
            }
            if !(2..=1 << 16).contains(&n.tx_read_window_kib) {
                return Err(ConfigError::new(k("tx_read_window_kib"), n.tx_read_window_kib, "2..=65536 KiB (at least one 1500 B frame)"));
            }
            if !(16..=1 << 20).contains(&n.buffer_kib) {
                return Err(ConfigError::new(k("buffer_kib"), n.buffer_kib, "16..=1048576 KiB"));
            }
            n.pcie.validate().map_err(|e| ConfigError::new(k(&format!("pcie.{}", e.key)), e.value, e.allowed))?;
            if n.attachment != Attach::Coherent && n.coherent != CoherentCfg::default() {
                return Err(ConfigError::new(k("coherent"), "a table", format!("only with attachment = \"coherent\" (this NIC's is \"{}\")", n.attachment.name())));
            }
            if n.attachment != Attach::MemoryChannel && n.netdimm != NetdimmCfg::default() {
                return Err(ConfigError::new(k("netdimm"), "a table", format!("only with attachment = \"memory-channel\" (this NIC's is \"{}\")", n.attachment.name())));
            }
            if !(1..=1 << 16).contains(&n.netdimm.ncache_kib) {
                return Err(ConfigError::new(k("netdimm.ncache_kib"), n.netdimm.ncache_kib, "1..=65536 KiB"));
            }
            if n.netdimm.prefetch_lines > 64 {
                return Err(ConfigError::new(k("netdimm.prefetch_lines"), n.netdimm.prefetch_lines, "0..=64 lines"));
            }
            if n.ddio.is_some() && matches!(n.attachment, Attach::Coherent | Attach::MemoryChannel) {
                return Err(ConfigError::new(k("ddio"), n.ddio.unwrap_or(false), format!("unset: DDIO does not apply to a \"{}\" NIC", n.attachment.name())));
            }
            if n.ddio == Some(true) && def == 0 {
                return Err(ConfigError::new(k("ddio"), "true", format!("{} has no DDIO", plat.name)));
            }
            for (f, v) in [("ddio_lines", n.ddio_lines), ("stash_lines", n.stash_lines)] {
                if let Some(l) = v {
                    if !(1..=256).contains(&l) {
                        return Err(ConfigError::new(k(f), l, "1..=256 lines of 64 B (a 9018 B frame has 141)"));
                    }
                }
            }
            if let Some(m) = n.ddio_mask {
                if m == 0 || m & !full != 0 {
                    return Err(ConfigError::new(k("ddio_mask"), format!("{m:#x}"), format!("a nonzero mask within the {} LLC ways ({full:#x})", plat.llc_ways)));
                }
            }
            let ddio_on = n.ddio.unwrap_or(p.ddio) && io_mask != 0 && matches!(n.attachment, Attach::Pcie | Attach::Integrated);
            for (f, set) in [
                ("ddio_lines", n.ddio_lines.map(|l| l.to_string())),
                ("ddio_mask", n.ddio_mask.map(|m| format!("{m:#x}"))),
                ("stash_lines", n.stash_lines.map(|l| l.to_string())),
            ] {
                if let (Some(v), false) = (set, ddio_on) {
                    return Err(ConfigError::new(k(f), v, "unset: DDIO is off for this NIC (platform.ddio, its ddio, its attachment or the platform)"));
                }
            }
        }
        let channels = self.nics.values().filter(|n| n.attachment == Attach::MemoryChannel).count();
        if channels > 64 {
            return Err(ConfigError::new("nics", format!("{channels} memory-channel NICs"), "at most 64 memory-channel NICs"));
        }
        for (name, t) in &self.traffic {
            let k = |f: &str| format!("{}.{f}", table_key("traffic", name));
            let nic = self.nics.get(&t.nic).ok_or_else(|| {
                let (value, required) = if t.nic.is_empty() { (String::new(), "required: ") } else { (format!("{:?}", t.nic), "") };
                ConfigError::new(k("nic"), value, format!("{required}one of the NICs: {}", names(&self.nics)))
            })?;
            if let Some(rate) = t.rate_gbps {
                if !(rate > 0.0 && rate <= nic.line_rate_gbps) {
                    return Err(ConfigError::new(k("rate_gbps"), rate, format!("0 < rate ≤ the NIC's line rate {}", nic.line_rate_gbps)));
                }
            }
            // Overrides add keys to a table and cannot remove one: switching a scenario's source
            // of sizes takes the whole table, as the message says (its example names this table
            // and NIC where they need no quoting, placeholders otherwise).
            let bare = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let (tn, nn) = if bare(name) && bare(&t.nic) { (name.as_str(), t.nic.as_str()) } else { ("NAME", "NIC") };
            let whole = |kv: &str| format!("an override cannot remove a key: to switch, give the whole table with its other keys, e.g. --set 'traffic.{tn}={{nic=\"{nn}\", {kv}}}'");
            match (t.packet_size, t.size_mix, &t.pcap) {
                (Some(s), Some(m), _) => {
                    let m = format!("{m:?}").to_lowercase();
                    return Err(ConfigError::new(k("size_mix"), format!("{m:?}"), format!("not with packet_size = {s}: give one of packet_size, size_mix or pcap ({})", whole(&format!("size_mix=\"{m}\"")))))
                }
                (Some(_), _, Some(p)) | (_, Some(_), Some(p)) => {
                    let other = if t.packet_size.is_some() { "packet_size" } else { "size_mix" };
                    return Err(ConfigError::new(k("pcap"), format!("{p:?}"), format!("not with {other}: give one of packet_size, size_mix or pcap ({})", whole("pcap=\"FILE\""))));
                }
                (None, None, None) => return Err(ConfigError::new(k("packet_size"), "", "required: a frame size in 64..=9018 B, size_mix = \"imix\" | \"campus\", or pcap = \"FILE\"")),
                (Some(s), None, None) if !(64..=9018).contains(&s) => return Err(ConfigError::new(k("packet_size"), s, "64..=9018 B (Ethernet frame with FCS)")),
                _ => {}
            }
            if let Some(path) = &t.pcap {
                if path.trim().is_empty() || path.contains('\0') {
                    return Err(ConfigError::new(k("pcap"), format!("{path:?}"), "the path of a pcap or pcapng file"));
                }
                if t.flow_skew != 0.0 {
                    return Err(ConfigError::new(k("flow_skew"), t.flow_skew, "0 with pcap (the capture's frames carry their flows)"));
                }
                if t.imbalance != 1.0 {
                    return Err(ConfigError::new(k("imbalance"), t.imbalance, "1 with pcap (RSS hashes the capture's flows)"));
                }
                if t.flows != TrafficCfg::default().flows {
                    return Err(ConfigError::new(k("flows"), t.flows, format!("{} (the default) with pcap: the capture's frames carry their flows", TrafficCfg::default().flows)));
                }
                if t.pcap_timing == PcapTiming::Capture && t.train_packets != TrafficCfg::default().train_packets {
                    return Err(ConfigError::new(k("train_packets"), t.train_packets, format!("{} (the default) while pcap_timing = \"capture\": the capture's gaps time its frames (pcap_timing = \"rate\" sends them in trains)", TrafficCfg::default().train_packets)));
                }
            } else if t.pcap_timing != PcapTiming::Capture {
                return Err(ConfigError::new(k("pcap_timing"), "\"rate\"", "only with pcap: without a capture the generator always sends trains at rate_gbps, so leave pcap_timing out"));
            }
            if !(1..=1 << 24).contains(&t.flows) {
                return Err(ConfigError::new(k("flows"), t.flows, "1..=16777216"));
            }
            if !(t.flow_skew.is_finite() && (0.0..=4.0).contains(&t.flow_skew)) {
                return Err(ConfigError::new(k("flow_skew"), t.flow_skew, "0..=4 (Zipf exponent)"));
            }
            if !(t.imbalance.is_finite() && (1.0..=64.0).contains(&t.imbalance)) {
                // The same range as the check against the receiving app's cores below.
                let queues = self.apps.values().find(|a| a.nic.as_deref() == Some(t.nic.as_str())).map_or(64, |a| a.cores.min(64));
                return Err(ConfigError::new(k("imbalance"), t.imbalance, format!("1..={queues} (busiest queue's load ÷ the mean; at most the number of RX queues)")));
            }
            if !(1..=4096).contains(&t.train_packets) {
                return Err(ConfigError::new(k("train_packets"), t.train_packets, "1..=4096"));
            }
        }
        let mut cores_used = vec![0u32; p.sockets as usize];
        let mut nic_users: BTreeMap<&str, &str> = BTreeMap::new();
        for (name, a) in &self.apps {
            let k = |f: &str| format!("{}.{f}", table_key("apps", name));
            if a.socket >= p.sockets {
                return Err(ConfigError::new(k("socket"), a.socket, format!("0..={} (platform.sockets = {})", p.sockets - 1, p.sockets)));
            }
            if let Some(ms) = a.mempool_socket {
                if ms >= p.sockets {
                    return Err(ConfigError::new(k("mempool_socket"), ms, format!("0..={} (platform.sockets = {})", p.sockets - 1, p.sockets)));
                }
                if a.nic.as_deref().and_then(|n| self.nics.get(n)).is_some_and(|n| n.attachment == Attach::MemoryChannel) {
                    return Err(ConfigError::new(k("mempool_socket"), ms, "unset: a memory-channel NIC's buffers live in its own DRAM"));
                }
            }
            if a.cores == 0 {
                return Err(ConfigError::new(k("cores"), a.cores, format!("1..={} cores", plat.cores_per_socket)));
            }
            let used = &mut cores_used[a.socket as usize];
            *used = used.saturating_add(a.cores);
            if *used > plat.cores_per_socket {
                return Err(ConfigError::new(
                    k("cores"),
                    a.cores,
                    format!("at most {} cores per socket in total on {}", plat.cores_per_socket, plat.name),
                ));
            }
            if let Some(m) = a.cat_mask {
                if m == 0 || m & !full != 0 || !is_contiguous(m) {
                    return Err(ConfigError::new(k("cat_mask"), format!("{m:#x}"), format!("a nonzero contiguous mask within {full:#x}")));
                }
            }
            if !(10..=100).contains(&a.mba_percent) || a.mba_percent % 10 != 0 {
                return Err(ConfigError::new(k("mba_percent"), a.mba_percent, "10, 20, …, 100"));
            }
            if let Some(c) = a.cycles_per_packet {
                if c > 1_000_000 {
                    return Err(ConfigError::new(k("cycles_per_packet"), c, "0..=1000000"));
                }
            }
            if let Some(ws) = a.working_set_mib {
                if !(ws.is_finite() && ws > 0.0 && ws <= 4096.0) {
                    return Err(ConfigError::new(k("working_set_mib"), ws, "0 < MiB ≤ 4096"));
                }
            }
            if let Some(n) = a.accesses_per_packet {
                if n > 1024 {
                    return Err(ConfigError::new(k("accesses_per_packet"), n, "0..=1024"));
                }
            }
            match a.kind {
                AppKind::CacheHungry => {
                    if a.nic.is_some() {
                        return Err(ConfigError::new(k("nic"), format!("{:?}", a.nic.clone().unwrap()), "cache-hungry apps use no NIC; remove the key"));
                    }
                    // Keys of the packet path, which a co-runner does not run: refused rather than ignored.
                    for (f, v) in [("cycles_per_packet", a.cycles_per_packet), ("accesses_per_packet", a.accesses_per_packet), ("mempool_socket", a.mempool_socket)] {
                        if let Some(v) = v {
                            return Err(ConfigError::new(k(f), v, "only for apps on a NIC (kind = \"cache-hungry\" handles no packets); remove the key"));
                        }
                    }
                    if a.working_set_mib.is_none() {
                        return Err(ConfigError::new(k("working_set_mib"), "", "required for kind = \"cache-hungry\""));
                    }
                    match a.accesses_per_us {
                        Some(r) if r.is_finite() && r > 0.0 && r <= 10_000.0 => {}
                        Some(r) => return Err(ConfigError::new(k("accesses_per_us"), r, "0 < rate ≤ 10000 accesses/µs")),
                        None => return Err(ConfigError::new(k("accesses_per_us"), "", "required for kind = \"cache-hungry\"")),
                    }
                }
                _ => {
                    let nic = a.nic.as_deref().ok_or_else(|| ConfigError::new(k("nic"), "", format!("required: one of the NICs: {}", names(&self.nics))))?;
                    if !self.nics.contains_key(nic) {
                        return Err(ConfigError::new(k("nic"), format!("{nic:?}"), format!("one of the NICs: {}", names(&self.nics))));
                    }
                    if let Some(other) = nic_users.insert(nic, name) {
                        return Err(ConfigError::new(k("nic"), format!("{nic:?}"), format!("a NIC serves one app; {nic} is already used by {}", table_key("apps", other))));
                    }
                    if a.accesses_per_us.is_some() {
                        return Err(ConfigError::new(k("accesses_per_us"), "", "only for kind = \"cache-hungry\""));
                    }
                    if a.kind == AppKind::Compute && a.cycles_per_packet.is_none() {
                        return Err(ConfigError::new(k("cycles_per_packet"), "", "required for kind = \"compute\""));
                    }
                }
            }
        }
        // The clone keys decide how a `copy` app's frames are copied: given otherwise, they would
        // be silently ignored.
        for (name, n) in &self.nics {
            let d = &n.netdimm;
            let copied = nic_users.get(name.as_str()).is_some_and(|a| self.apps[*a].kind == AppKind::Copy);
            let k = |key: &str| format!("{}.netdimm.{key}", table_key("nics", name));
            if d.clone != CloneMode::default() && !copied {
                return Err(ConfigError::new(k("clone"), "\"copy\"", "only for a NIC whose app is of kind = \"copy\"; remove the key"));
            }
            if d.allocator != Allocator::default() && !(copied && d.clone == CloneMode::Rowclone) {
                return Err(ConfigError::new(k("allocator"), "\"any\"", "only with clone = \"rowclone\" for a NIC whose app is of kind = \"copy\"; remove the key"));
            }
        }
        // Physical memory: each home's DPDK pages in whole 1 GiB hugepages (`memsys::AddressSpace`),
        // and as many frames again outside them as there are other pages.
        let (mut other, mut dpdk) = (0u64, std::collections::BTreeMap::<String, u64>::new());
        for (name, a) in &self.apps {
            let (o, d) = self.app_pages(a);
            other += o;
            if d > 0 {
                *dpdk.entry(self.dpdk_home(a)).or_default() += d;
            }
            let hugepages: u64 = dpdk.values().map(|&d| d.div_ceil(PAGES_PER_HUGEPAGE)).sum();
            if other + hugepages * PAGES_PER_HUGEPAGE > PHYS_PAGES {
                let (key, value) = match a.working_set_mib {
                    Some(ws) => ("working_set_mib", ws.to_string()),
                    None => ("cores", a.cores.to_string()),
                };
                return Err(ConfigError::new(
                    format!("{}.{key}", table_key("apps", name)),
                    value,
                    format!(
                        "the apps' memory up to {} (working sets and app buffers {} MiB, packet buffers and rings in {hugepages} whole 1 GiB hugepages) must fit the {} GiB of simulated physical memory",
                        table_key("apps", name),
                        other * PAGE_BYTES >> 20,
                        PHYS_PAGES * PAGE_BYTES >> 30
                    ),
                ));
            }
        }
        for name in self.nics.keys() {
            if !nic_users.contains_key(name.as_str()) {
                return Err(ConfigError::new(
                    table_key("nics", name),
                    "",
                    format!("no app uses this NIC (set apps.<name>.nic = {}, or remove the table); NICs in use: {}", basic_string(name), {
                        let used: Vec<&str> = nic_users.keys().copied().collect();
                        if used.is_empty() { "(none)".to_string() } else { used.join(", ") }
                    }),
                ));
            }
        }
        for (tname, t) in &self.traffic {
            let Some(user) = nic_users.get(t.nic.as_str()) else {
                return Err(ConfigError::new(format!("{}.nic", table_key("traffic", tname)), format!("{:?}", t.nic), "a NIC that an app receives from (set apps.<name>.nic)"));
            };
            let nc = &self.nics[t.nic.as_str()];
            // With flow control the buffer past XOFF (its last quarter) must hold one more frame
            // of the largest size, or a frame is dropped before the sender is paused.
            // (A capture's frames are checked once it is read, `Resolved::load_captures`.)
            pause_room(&t.nic, nc, tname, crate::engine::largest_frame(t))?;
            let queues = self.apps[*user].cores;
            if t.imbalance > queues as f64 {
                return Err(ConfigError::new(
                    format!("{}.imbalance", table_key("traffic", tname)),
                    t.imbalance,
                    format!("1..={queues} (busiest queue's load ÷ the mean; at most the number of RX queues, {}.cores)", table_key("apps", user)),
                ));
            }
        }
        if self.apps.is_empty() {
            return Err(ConfigError::new("apps", "", "at least one [apps.<name>] table"));
        }
        // DDIO allocates only in the NIC's own socket: selective DCA and a NIC's own I/O ways
        // change nothing where every app on the NIC keeps its buffers on the other socket.
        for (name, n) in &self.nics {
            let users: Vec<u32> = self.apps.values().filter(|a| a.nic.as_deref() == Some(name.as_str())).map(|a| a.mempool_socket.unwrap_or(a.socket)).collect();
            if (n.ddio_lines.is_some() || n.ddio_mask.is_some() || n.stash_lines.is_some()) && !users.is_empty() && users.iter().all(|&s| s != n.socket) {
                warnings.push(format!(
                    "{}: ddio_lines, ddio_mask and stash_lines have no effect: its apps' buffers are on socket {}, and DDIO allocates only on the NIC's socket {}",
                    table_key("nics", name),
                    users[0],
                    n.socket
                ));
            }
        }
        // The mlx5 PMD raises a TX ring of MLX5_TX_COMP_THRESH (32) descriptors or fewer to 33,
        // then to the next power of two (`mlx5_tx_queue_pre_setup`): it asks for a completion
        // every 32 frames and needs more slots than that.
        let mut scenario = self.clone();
        for (name, n) in scenario.nics.iter_mut() {
            if matches!(n.attachment, Attach::Pcie | Attach::Integrated) && n.tx_descriptors <= 32 {
                warnings.push(format!(
                    "{}: tx_descriptors = {} is raised to 64, as the mlx5 PMD does (it asks for a TX completion every 32 frames and needs more slots than that)",
                    table_key("nics", name),
                    n.tx_descriptors
                ));
                n.tx_descriptors = 64;
            }
        }
        // A part without MBA throttles nothing, whatever an app asks for.
        if !plat.mba {
            for (name, a) in scenario.apps.iter_mut().filter(|(_, a)| a.mba_percent < 100) {
                warnings.push(format!(
                    "{}: mba_percent = {} has no effect on {}, which has no Memory Bandwidth Allocation; simulating 100",
                    table_key("apps", name),
                    a.mba_percent,
                    plat.name
                ));
                a.mba_percent = 100;
            }
        }
        // A NIC an app polls but no traffic reaches: the run is valid and forwards nothing.
        for name in self.nics.keys() {
            let polled = self.apps.values().any(|a| a.nic.as_deref() == Some(name.as_str()));
            if polled && !self.traffic.values().any(|t| t.nic == *name) {
                warnings.push(format!("{}: no [traffic.<name>] table sends to it: its apps receive and forward nothing", table_key("nics", name)));
            }
        }
        Ok(Resolved { scenario, platform: plat, io_mask, replacement, warnings, captures: BTreeMap::new() })
    }
}

fn names<T>(m: &BTreeMap<String, T>) -> String {
    if m.is_empty() {
        "(none defined)".into()
    } else {
        m.keys().cloned().collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
[nics.nic0]
[traffic.t0]
nic = "nic0"
packet_size = 1500
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
"#;

    #[test]
    fn minimal_scenario_resolves_with_skylake_defaults() {
        let sc = parse_scenario(BASE, &[]).unwrap();
        let r = sc.resolve().unwrap();
        assert_eq!(r.io_mask, 0x600);
        assert_eq!(r.platform.llc_sets_per_slice(), 2048);
        assert_eq!(r.platform.l2_sets(), 1024);
    }

    #[test]
    fn unknown_key_names_the_path() {
        let e = parse_scenario(&format!("{BASE}\n[run]\nsed = 3\n"), &[]).unwrap_err();
        assert_eq!(e.key, "run.sed");
        assert!(e.allowed.contains("unknown field `sed`") && e.allowed.contains("duration_us"), "{e}");
        let e = parse_scenario(BASE, &["nics.nic0.rx_desc=4".into()]).unwrap_err();
        assert!(e.to_string().contains("nics.nic0") && e.to_string().contains("rx_descriptors"), "{e}");
    }

    #[test]
    fn overrides_reach_any_key_and_parse_literals() {
        let sc = parse_scenario(BASE, &["nics.nic0.rx_descriptors=4096".into(), "platform.ddio_mask=0x700".into()]).unwrap();
        assert_eq!(sc.nics["nic0"].rx_descriptors, 4096);
        assert_eq!(sc.resolve().unwrap().io_mask, 0x700);
        let sc = parse_scenario(BASE, &["platform.preset=haswell-e5-2699v3".into()]).unwrap();
        assert_eq!(sc.resolve().unwrap().io_mask, 0x60000);
    }

    #[test]
    fn error_keys_quote_table_names_that_are_not_bare_keys() {
        let err = |ovs: &[String]| match parse_scenario(BASE, ovs) {
            Ok(sc) => sc.resolve().map(|_| ()).expect_err("a bad scenario"),
            Err(e) => e,
        };
        // A key with a dot or a space is shown as the TOML key that reaches it again.
        let e = err(&["nics.\"a.b\".line_rate_gbps=5".into()]);
        assert_eq!(e.key, "nics.\"a.b\"", "{e}");
        let e = err(&["apps.\"x y\".kind=\"l2fwd\"".into(), "apps.\"x y\".nic=\"nic0\"".into(), "apps.\"x y\".cores=0".into()]);
        assert_eq!(e.key, "apps.\"x y\".cores", "{e}");
        // serde's own errors (a wrong type inside such a table) too.
        let e = err(&["apps.\"x.y\".cores=\"two\"".into()]);
        assert_eq!(e.key, "apps.\"x.y\".cores", "{e}");
        // ... and the key's own rule is still found under such a name.
        let e = err(&["nics.\"a.b\".rx_descriptors=\"x\"".into(), "nics.\"a.b\".line_rate_gbps=100".into()]);
        assert_eq!((e.key.as_str(), e.allowed.as_str()), ("nics.\"a.b\".rx_descriptors", "an integer: a power of two in 32..=65536"), "{e}");
        // A name with a line break (refused) or a quote stays one line of valid TOML.
        let e = err(&["apps.\"a\\nb\\\"c\".cores=0".into()]);
        assert_eq!((e.key.as_str(), e.value.as_str()), ("apps", "\"a\\nb\\\"c\""), "{e}");
        assert!(e.allowed.contains("without control characters"), "{e}");
        let e = err(&["apps.\"a b\\\"c\".cores=0".into()]);
        assert_eq!(e.key, "apps.\"a b\\\"c\".cores", "{e}");
        assert!(toml::from_str::<toml::Table>(&format!("{} = 0", e.key)).is_ok(), "{e}");
        // Override errors use the same spelling, however the user wrote the key.
        let e = err(&["apps.'a.b'.kind=\"l2fwd\"".into(), "apps . 'a.b' . kind.x=1".into()]);
        assert_eq!(e.key, "apps.\"a.b\".kind", "{e}");
        // Bare names stay bare.
        let e = err(&["apps.fwd.cores=0".into()]);
        assert_eq!(e.key, "apps.fwd.cores", "{e}");
    }

    #[test]
    fn an_override_beyond_f64_is_a_number_out_of_range_not_text() {
        let huge = "9".repeat(400);
        for v in ["1e400", "-1e400", "1.5E+999", huge.as_str()] {
            let e = parse_scenario(BASE, &[format!("run . 'duration_us'={v}")]).unwrap_err();
            // A value beyond MAX_SHOWN characters is shown by its start and its length.
            let shown = if v.len() > MAX_SHOWN { format!("{}… ({} characters)", &v[..MAX_SHOWN], v.len()) } else { v.to_string() };
            assert_eq!((e.key.as_str(), e.value.as_str()), ("run.duration_us", shown.as_str()), "{e}");
            assert!(e.allowed.contains("64-bit floating point"), "{e}");
        }
        // A number that f64 holds but an integer key does not still gets the key's type.
        let e = parse_scenario(BASE, &["apps.fwd.cores=1e250".into()]).unwrap_err();
        assert_eq!(e.key, "apps.fwd.cores", "{e}");
        assert!(e.to_string().len() < 250 && e.allowed.contains("cores") && !e.allowed.contains("invalid type"), "{e}");
        // Text that merely contains digits is still text (and is refused by the key's type).
        let e = parse_scenario(BASE, &["run.duration_us=12abc".into()]).unwrap_err();
        assert!(!e.allowed.contains("64-bit floating point"), "{e}");
    }

    #[test]
    fn ddio_masks_follow_the_microarchitecture() {
        let e = parse_scenario(BASE, &["platform.ddio_mask=0x500".into()]).unwrap_err();
        assert!(e.allowed.contains("default bits"), "{e}");
        let e = parse_scenario(BASE, &["platform.ddio_mask=0x603".into()]).unwrap_err();
        assert!(e.allowed.contains("contiguous"), "{e}");
        // Haswell accepts non-contiguous values that keep the default bits.
        let sc = parse_scenario(BASE, &["platform.preset=haswell-e5-2699v3".into(), "platform.ddio_mask=0x60003".into()]).unwrap();
        assert_eq!(sc.resolve().unwrap().io_mask, 0x60003);
        let sc = parse_scenario(BASE, &["platform.ddio_ways=4".into()]).unwrap();
        assert_eq!(sc.resolve().unwrap().io_mask, 0x780);
        // Haswell's default ways (17 and 18) are kept; more ways come from the top.
        let ways = |n: u32| {
            let sc = parse_scenario(BASE, &["platform.preset=haswell-e5-2699v3".into(), format!("platform.ddio_ways={n}")]).unwrap();
            sc.resolve().unwrap().io_mask
        };
        assert_eq!((ways(2), ways(3), ways(4)), (0x60000, 0xE0000, 0xF0000));
        // Changing the way count keeps the default ways' distance from the highest way.
        let def = |preset: &str, w: u32| {
            let sc = parse_scenario(BASE, &[format!("platform.preset={preset}"), format!("platform.llc_ways={w}"), "platform.llc_mib_per_slice=1.25".into()]).unwrap();
            sc.resolve().unwrap().platform.ddio_default_mask
        };
        assert_eq!(def("haswell-e5-2699v3", 20), 0x60000);
        assert_eq!(def("haswell-e5-2699v3", 10), 0x180);
        assert_eq!(def("skylake-gold-6140", 10), 0x300);
        assert_eq!(widened_mask(0x18, 4, 8), 0x78, "above first, contiguous");
        assert_eq!(widened_mask(0xC0, 4, 8), 0xF0, "then below");
        assert_eq!(widened_mask(0x81, 3, 8), 0xC1, "a gap fills from the top");
        assert_eq!(widened_mask(0x81, 8, 8), 0xFF);
        let e = parse_scenario(BASE, &["platform.ddio_ways=1".into()]).unwrap_err();
        assert_eq!(e.key, "platform.ddio_ways");
    }

    #[test]
    fn platform_files_round_trip_and_deny_unknown_keys() {
        let p = Platform::preset("haswell-e5-2699v3").unwrap();
        let text = p.to_file_toml(&["measured by a test".into()]).unwrap();
        assert!(text.starts_with("# measured by a test\n"));
        let back: Platform = toml::from_str(&text).unwrap();
        assert_eq!(back, p);
        assert!(toml::from_str::<Platform>(&format!("{text}extra = 1\n")).is_err());
        let mut bad = p.clone();
        bad.llc_mib_per_slice = 2.4;
        assert!(bad.to_file_toml(&[]).unwrap_err().to_string().starts_with("llc_mib_per_slice = 2.4"));
    }

    #[test]
    fn icelake_warns_that_ways_have_no_effect() {
        let sc = parse_scenario(BASE, &["platform.preset=icelake-silver-4314".into(), "platform.ddio_ways=4".into()]).unwrap();
        let r = sc.resolve().unwrap();
        assert_eq!(r.io_mask, 0xC00);
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn bad_values_name_key_value_and_allowed() {
        let e = parse_scenario(BASE, &["nics.nic0.rx_descriptors=1000".into()]).unwrap_err();
        assert_eq!(e.to_string(), "nics.nic0.rx_descriptors = 1000: a power of two in 32..=65536");
        let e = parse_scenario(BASE, &["platform.preset=pentium".into()]).unwrap_err();
        assert!(e.allowed.contains("skylake-gold-6140"));
        let e = parse_scenario(BASE, &["apps.fwd.kind=router".into()]).unwrap_err();
        assert!(e.to_string().contains("apps.fwd.kind") && e.to_string().contains("l2fwd"), "{e}");
        let e = parse_scenario(BASE, &["traffic.t0.nic=nic9".into()]).unwrap_err();
        assert_eq!(e.key, "traffic.t0.nic");
        let e = parse_scenario("[run\n", &[]).unwrap_err();
        assert!(e.allowed.starts_with("not valid TOML"));
    }
}
