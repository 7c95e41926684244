//! How a NIC is attached to the host. Every attachment is one module behind one interface,
//! [`Attachment`]; the NIC's rings, buffer, PAUSE and TX ordering ([`crate::engine`]) and the
//! memory system ([`crate::memsys`]) are shared.
//!
//! An attachment decides:
//! * **receive DMA** ([`Attachment::receive`]): how a frame and its completion reach host-visible
//!   memory, what that costs on the link, and when the core can see the completion;
//! * **transmit DMA** ([`Attachment::fetch`]): how the NIC reads a posted descriptor and its
//!   packet, and when the last byte is at the NIC;
//! * **signaling and ring shape** ([`Rings`]): which lines hold descriptors and completions, and
//!   whether the host must flush lines it hands over;
//! * **link accounting**: its own resource (a PCIe direction, a coherent link, a DDR channel) and
//!   its own metrics ([`Attachment::report`]);
//! * **where device data is allocated** (the engine puts buffers and rings in a memory-channel
//!   NIC's zone) and whether the NIC copies frames into apps' buffers
//!   ([`Attachment::clone_frame`]).
//!
//! The attachments: [`pcie`] (a discrete NIC behind a root port, the default), [`integrated`] (the
//! NIC on the die, on the mesh), [`coherent`] (CC-NIC: the NIC as a caching agent over UPI or
//! CXL) and [`memchan`] (NetDIMM: the NIC in a DIMM's buffer device on a DDR channel).
pub(crate) mod coherent;
pub(crate) mod integrated;
pub(crate) mod memchan;
pub(crate) mod pcie;

use crate::config::{Attach, NicCfg, Platform};
use crate::memsys::MemSys;
use std::collections::BTreeMap;

/// The measured interval, ps.
#[derive(Clone, Copy)]
pub(crate) struct Window {
    pub warm: u64,
    pub end: u64,
}

impl Window {
    /// Bytes of a transfer that occupies a link over [start, end) ps, counted for the part inside
    /// the window: bytes cross the link while it is busy, not when the transfer is issued, so a
    /// link's measured utilisation cannot exceed 1.
    pub fn bytes_in(&self, start: u64, end: u64, ps_per_byte: f64) -> f64 {
        let busy = end.min(self.end).saturating_sub(start.max(self.warm));
        busy as f64 / ps_per_byte
    }
}

/// The NIC's view of itself that every attachment needs.
#[derive(Clone, Copy)]
pub(crate) struct Dev {
    /// Socket of the I/O hub (or coherent link, or memory controller) the NIC is attached to.
    pub socket: usize,
    /// DDIO allocates this port's writes in the LLC.
    pub ddio: bool,
    /// The LLC ways its write-allocations go to (`nics.<name>.ddio_mask`, else the platform's).
    pub io_mask: u32,
    /// Leading lines of a received frame DDIO may allocate (`nics.<name>.ddio_lines`; `u32::MAX`:
    /// all); the rest go to DRAM.
    pub ddio_lines: u32,
    /// Leading lines of a received frame stashed into the polling core's L2
    /// (`nics.<name>.stash_lines`; 0: none).
    pub stash_lines: u32,
}

/// One frame the NIC moves into posted RX slot `pos` (ring of `n`).
pub(crate) struct RxDma {
    pub queue: usize,
    /// The queue's index lines (RX tail, then TX tail) for doorbell signaling in memory.
    pub idx_line: u32,
    pub pos: u64,
    pub n: u64,
    /// First line of the RX descriptor ring and of the completion ring.
    pub desc_line: u32,
    pub cq_line: u32,
    pub data_line: u32,
    /// Bytes the NIC writes (the frame without its FCS).
    pub payload: u64,
    /// The polling core's index on the NIC's socket, when it is there (for stashing).
    pub stash_core: Option<usize>,
    pub now: u64,
}

/// One posted TX packet the NIC fetches from slot `pos`.
pub(crate) struct TxDma {
    pub queue: usize,
    pub idx_line: u32,
    /// When the core's doorbell made the descriptor visible.
    pub posted_at: u64,
    pub pos: u64,
    pub n: u64,
    pub wqe_line: u32,
    pub cq_line: u32,
    pub data_line: u32,
    pub payload: u64,
    /// The driver copied the frame into the descriptor: the NIC reads no buffer line.
    pub inline: bool,
    /// eMPW rings: the packet's first 16 B WQE segment (absolute) and its segment count (its data
    /// segment or inlined frame, plus the session title when it opens one).
    pub seg: u64,
    pub segs: u64,
    /// The line of the TX completion ring the NIC writes after this frame (the frame closes a
    /// block of slots, [`crate::engine`]'s `TxRing::close_burst`); `None`: no completion.
    pub completion: Option<u32>,
    pub now: u64,
}

/// Where descriptors and completions sit and how the two sides signal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rings {
    /// RX completions per 64 B line (the core reads them to find received packets).
    pub cq_per_line: u64,
    /// RX descriptors per line (the core writes them to post buffers); 0 = the core posts none
    /// (the NIC allocates from a shared pool).
    pub rx_desc_per_line: u64,
    /// TX descriptors per line.
    pub tx_desc_per_line: u64,
    /// The NIC writes a TX completion once at least this many packets were posted since the
    /// last one, checked at the end of each TX burst (on its last frame); 0 = none.
    pub tx_completion_every: u64,
    /// The consumer reads an index line (head/tail in memory) before the entries, per burst.
    pub index_line: bool,
    /// The host writes back and drops lines it hands to the NIC, and invalidates completion lines
    /// before reading them (a NIC that cannot snoop).
    pub flush_handover: bool,
    /// TX descriptors are eMPW WQE segments (16 B units, variable per packet) filling a ring of
    /// `tx_descriptors` 64 B lines, instead of `tx_desc_per_line` fixed descriptors per line.
    pub empw: bool,
}

/// Lines (64 B CQEs) of a TX completion queue, written in turn. The DPDK mlx5 PMD asks for
/// `desc / MLX5_TX_COMP_THRESH + 1 + MLX5_TX_COMP_THRESH_INLINE_DIV` CQEs (32 + 1 + 8 for the
/// 1024-descriptor TX rings of the DDIO experiments), which the verbs layer rounds up to a power
/// of two: 64. hostio keeps 64 whatever the ring size, and for the coherent and memory-channel
/// NICs' completion lines too.
pub(crate) const TX_CQ_LINES: u32 = 64;

/// The ConnectX-5-like rings: 16 B RX descriptors (four per line), compressed RX completions (one
/// 64 B block of mini-CQEs per this many packets), eMPW TX WQEs (a 16 B data segment per packet,
/// or its inlined frame, and a 32 B title per session of up to `pcie::EMPW_MAX_PACKETS` packets,
/// fewer when inlined frames fill the largest WQE first: `pcie::empw_session`) and a TX
/// completion on the last frame of a burst once `TX_COMPLETION_EVERY` packets were posted since
/// the last (or inlined frames fill an eighth of the ring), written into a ring of `TX_CQ_LINES`
/// lines.
pub(crate) const CX5_RINGS: Rings = Rings {
    cq_per_line: pcie::CQE_COMPRESSION,
    rx_desc_per_line: 4,
    tx_desc_per_line: 1,
    tx_completion_every: pcie::TX_COMPLETION_EVERY,
    index_line: false,
    flush_handover: false,
    empw: true,
};

/// What an attachment reports beyond the common NIC metrics.
#[derive(Default)]
pub(crate) struct Report {
    /// PCIe only: (d2h, h2d) link utilisation.
    pub pcie: Option<(f64, f64)>,
    /// Attachment-specific figures, named with their unit.
    pub extra: BTreeMap<String, crate::result::Figure>,
}

pub(crate) enum Attachment {
    Pcie(pcie::Pcie),
    Integrated(integrated::Integrated),
    Coherent(coherent::Coherent),
    MemoryChannel(memchan::MemChannel),
}

impl Attachment {
    /// The attachment of NIC `n` with `queues` queues. `slot` numbers it among the NICs of its
    /// kind that [`MemSys`] keeps state for: a coherent NIC's cache, a memory-channel NIC's zone.
    pub fn new(n: &NicCfg, plat: &Platform, queues: usize, slot: usize) -> Attachment {
        match n.attachment {
            Attach::Pcie => Attachment::Pcie(pcie::Pcie::new(n, queues)),
            Attach::Integrated => Attachment::Integrated(integrated::Integrated::new(plat)),
            Attach::Coherent => Attachment::Coherent(coherent::Coherent::new(n, plat, queues, slot)),
            Attach::MemoryChannel => Attachment::MemoryChannel(memchan::MemChannel::new(n, slot)),
        }
    }

    pub fn rings(&self) -> Rings {
        match self {
            Attachment::Pcie(_) | Attachment::Integrated(_) => CX5_RINGS,
            Attachment::Coherent(a) => a.rings(),
            Attachment::MemoryChannel(_) => memchan::RINGS,
        }
    }

    /// Can the DMA engine take another frame out of the NIC buffer at `now`?
    #[inline]
    pub fn accepts(&self, now: u64) -> bool {
        match self {
            Attachment::Pcie(a) => a.accepts(now),
            Attachment::Coherent(a) => a.accepts(now),
            Attachment::MemoryChannel(a) => a.accepts(now),
            Attachment::Integrated(_) => true,
        }
    }

    /// When [`Attachment::accepts`] turns true again (only asked after it returned false).
    pub fn room_at(&self) -> u64 {
        match self {
            Attachment::Pcie(a) => a.room_at(),
            Attachment::Coherent(a) => a.room_at(),
            Attachment::MemoryChannel(a) => a.room_at(),
            Attachment::Integrated(_) => 0,
        }
    }

    /// Move one frame into host-visible memory; returns (when the core can see its completion,
    /// the line the core reads to find it).
    pub fn receive(&mut self, m: &mut MemSys, d: Dev, f: &RxDma, w: Window) -> (u64, u32) {
        let cx5_cq = f.cq_line + ((f.pos % f.n) / CX5_RINGS.cq_per_line) as u32;
        match self {
            Attachment::Pcie(a) => (a.receive(m, d, f, w), cx5_cq),
            Attachment::Integrated(a) => (a.receive(m, d, f), cx5_cq),
            Attachment::Coherent(a) => a.receive(m, f, w),
            Attachment::MemoryChannel(a) => a.receive(m, f),
        }
    }

    /// Read one posted TX descriptor and its packet; returns when the last byte is at the NIC.
    pub fn fetch(&mut self, m: &mut MemSys, d: Dev, f: &TxDma, w: Window) -> u64 {
        match self {
            Attachment::Pcie(a) => a.fetch(m, d, f, w),
            Attachment::Integrated(a) => a.fetch(m, d, f),
            Attachment::Coherent(a) => a.fetch(m, f, w),
            Attachment::MemoryChannel(a) => a.fetch(m, f),
        }
    }

    /// From the core's doorbell until the NIC has the burst's descriptors and starts reading
    /// packets, ps: a posted MMIO write plus a descriptor read round trip behind PCIe; two LLC
    /// accesses on the die; nothing for a coherent NIC (it polls the descriptor lines, paid in
    /// [`Attachment::fetch`]) or a memory-channel NIC (the flushed descriptors are in its DRAM).
    pub fn tx_notice_ps(&self, m: &MemSys) -> u64 {
        match self {
            Attachment::Pcie(a) => a.tx_notice_ps(),
            Attachment::Integrated(_) => 2 * m.t.llc_ps,
            Attachment::Coherent(_) | Attachment::MemoryChannel(_) => 0,
        }
    }

    /// Largest frame the driver copies into a TX descriptor (bytes without FCS; 0: none).
    pub fn tx_inline_max(&self) -> u64 {
        match self {
            Attachment::Pcie(a) => a.tx_inline_max(),
            _ => 0,
        }
    }

    /// A core of socket `s` has a frame of `lines` lines at `src` cloned into `dst`; returns the
    /// latency, or `None` when the attachment does not clone (the core copies).
    pub fn clone_frame(&mut self, m: &mut MemSys, s: usize, src: u32, dst: u32, lines: u32, now: u64) -> Option<u64> {
        match self {
            Attachment::MemoryChannel(a) if a.clones() => Some(a.clone_frame(m, s, src, dst, lines, now)),
            _ => None,
        }
    }

    /// The host flushed a line it handed over.
    pub fn count_flush(&mut self) {
        if let Attachment::MemoryChannel(a) = self {
            a.count_flush();
        }
    }

    /// Forget counts taken before the warm-up ends (link bytes are already windowed).
    pub fn reset(&mut self, m: &mut MemSys) {
        match self {
            Attachment::Pcie(_) | Attachment::Integrated(_) => {}
            Attachment::Coherent(a) => a.reset(m),
            Attachment::MemoryChannel(a) => a.reset(m),
        }
    }

    pub fn report(&self, m: &MemSys, dur_s: f64, rx_packets: u64) -> Report {
        match self {
            Attachment::Pcie(a) => a.report(dur_s),
            Attachment::Integrated(_) => Report::default(),
            Attachment::Coherent(a) => a.report(m, dur_s, rx_packets),
            Attachment::MemoryChannel(a) => a.report(m, dur_s),
        }
    }
}

/// The I/O hub's side of receiving one frame into the ConnectX-5-like rings: the descriptor line
/// is read (PCIeRdCur) once per four descriptors, each payload line is an ItoM (allocating under
/// DDIO when the buffer is homed on the NIC's socket, into the port's I/O ways; with selective
/// DCA only the first `ddio_lines` lines, the rest written to DRAM), and a compressed completion
/// block is written once per `CQE_COMPRESSION` packets. Returns (buffer homed on the NIC's
/// socket, the whole frame allocated in the LLC).
pub(crate) fn hub_receive(m: &mut MemSys, d: Dev, f: &RxDma) -> (bool, bool) {
    let slot = f.pos % f.n;
    if f.pos % CX5_RINGS.rx_desc_per_line == 0 {
        m.dev_read_lines(d.socket, f.desc_line + (slot / CX5_RINGS.rx_desc_per_line) as u32, 1, f.now);
    }
    let home = m.home(f.data_line).expect("DMA through an I/O hub targets socket memory");
    let lines = f.payload.div_ceil(64) as u32;
    // Fine-grained placement: the first `stash_lines` lines into the polling core's L2, where
    // DDIO would allocate (the buffer homed on the NIC's socket, the core there too).
    let stashed = match f.stash_core {
        Some(_) if d.ddio && home == d.socket => lines.min(d.stash_lines),
        _ => 0,
    };
    if stashed > 0 {
        m.dev_stash_lines(d.socket, f.stash_core.expect("matched"), d.io_mask, f.data_line, stashed, f.now);
    }
    // Selective DCA: only the frame's first `ddio_lines` lines may allocate.
    let cached = if d.ddio { lines.min(d.ddio_lines).max(stashed) } else { lines };
    m.dev_write_lines(d.socket, d.ddio, d.io_mask, f.data_line + stashed, cached - stashed, f.now);
    if cached < lines {
        m.dev_write_lines(d.socket, false, d.io_mask, f.data_line + cached, lines - cached, f.now);
    }
    if f.pos % CX5_RINGS.cq_per_line == CX5_RINGS.cq_per_line - 1 {
        m.dev_write_lines(d.socket, d.ddio, d.io_mask, f.cq_line + (slot / CX5_RINGS.cq_per_line) as u32, 1, f.now);
    }
    // The frame is ready when its last line is written: in the LLC only if all of it allocated.
    (home == d.socket, d.ddio && home == d.socket && cached == lines)
}

/// The I/O hub's side of fetching one TX packet: the WQE lines that begin within the packet's
/// segments and every payload line are read (PCIeRdCur, looked up now; no payload line when the
/// frame was inlined into the WQE), and a completion is written after each frame that closes a
/// block of slots (`TxDma::completion`). Returns whether the frame was served on the NIC's
/// socket (its buffer homed there, and no line of it or of its WQE found only in the other
/// socket's caches,
/// which a snoop across UPI reaches), and, when some line missed, the loaded latency of the
/// packet buffer's home DRAM (the misses' reads counted; a WQE line that missed is taken to cost
/// the same, wherever it is homed), ps.
pub(crate) fn hub_fetch(m: &mut MemSys, d: Dev, f: &TxDma) -> (bool, Option<u64>) {
    let (mut all_hit, mut far) = (true, 0);
    let mut read = |first: u32, n: u32| {
        let (h, f_) = m.dev_read_lines(d.socket, first, n, f.now);
        all_hit &= h == n;
        far += f_;
    };
    for l in f.seg.div_ceil(4)..(f.seg + f.segs).div_ceil(4) {
        read(f.wqe_line + (l % f.n) as u32, 1);
    }
    if !f.inline {
        read(f.data_line, f.payload.div_ceil(64) as u32);
    }
    if let Some(c) = f.completion {
        m.dev_write_lines(d.socket, d.ddio, d.io_mask, f.cq_line + c, 1, f.now);
    }
    let home = m.home(f.data_line).expect("DMA through an I/O hub targets socket memory");
    (home == d.socket && far == 0, (!all_hit).then(|| m.sockets[home].mem.loaded_latency(f.now)))
}
