//! A discrete NIC behind a PCIe root port (the default attachment).
//!
//! Each direction of the link is a bounded resource at its TLP bandwidth (pcie-bench's model,
//! [`hostio_pcie::PcieLink`]): a transfer occupies it for its wire bytes (payload plus TLP
//! headers, descriptor fetches, completions and doorbells, amortised per packet by the NIC's
//! `design`), and a DMA's latency beyond serialisation (the link queue accounts for that) comes
//! from hostio's PCIe latency model (device issue, link flight, root complex, memory part) with
//! its default parameters on this NIC's link ([`hostio_pcie::PcieLatencyParams::with_link`]):
//! those fitted to pcie-bench's NFP-6000 on a Haswell Xeon E5-2620 v3 (`hostio_pcie::latency`).
//! For the ConnectX-5 these are an estimate: no per-DMA latency of that NIC is published, so its
//! device issue, root-complex and flight parts are the NFP-6000's; the NIC's `tx_read_window_kib`
//! was fitted on top of them (its transmit reads' latency sets how much a window carries), so a
//! change to either needs the other refitted.
//! It is memoised by (payload, location, direction), the location being the buffer's home (local
//! or remote socket; a read is remote too when some line of the packet or of its WQE was only in
//! the other socket's caches) and, for a write, LLC or DRAM (whether it allocates). A read that missed
//! (some line of the packet or of its WQE was in no host cache; an inlined frame's WQE read is
//! taken as an LLC hit, in the TX notice) pays the memory model's DRAM
//! instead of the fit's: its latency is the fit's LLC-hit read with the fit's host LLC part
//! (`llc_ns`) replaced by the loaded read latency of the buffer's home DRAM at the fetch
//! ([`crate::mem::Memory`]), worked out at every such fetch. Like the on-die NIC
//! ([`crate::attach::integrated`]) it so pays the preset's DRAM under the DRAM's load
//! (co-runners, DMA that bypasses the LLC) in place of an LLC access, as the fit's own miss costs
//! `dram_ns` in place of `llc_ns`: on the Haswell preset (97 ns, MLC's load-to-use latency of
//! that part) a miss costs 72 ns more than the fit's 25 ns hit, where pcie-bench measured 53 ns
//! on its E5-2620 v3 (a load-to-use latency counts the core's own path to the LLC, which a
//! device's read does not take). The LLC and UPI parts stay the fit's. A write that does not allocate (DDIO off, a
//! buffer homed on the other socket, or a frame longer than the NIC's `ddio_lines`) and covers
//! part of a line still pays the fit's fixed
//! read-for-ownership, not the memory model's DRAM: `dram_ns − llc_ns` for a local buffer, the
//! fit's remote DRAM and UPI parts for one homed on the other socket (`hostio_pcie::latency`).
//! Device writes are ItoMs through the I/O hub of the NIC's socket (DDIO rules,
//! [`crate::memsys::MemSys::dev_write_lines`]); device reads are PCIeRdCur, looked up when the
//! NIC reads.
//!
//! ConnectX-5 costs (`design = "cx5"`, the default), with their sources:
//! * RX completions compressed, `CQE_COMPRESSION` mini-CQEs per 64 B block (Linux
//!   `MLX5_MINI_CQE_ARRAY_SIZE`; the DPDK mlx5 PMD enables it by default, `rxq_cqe_comp_en`);
//! * one TX completion per `TX_COMPLETION_EVERY` packets (DPDK mlx5 PMD `MLX5_TX_COMP_THRESH`);
//! * RX descriptors read a 64 B line (four 16 B descriptors) at a time; one 8 B doorbell per TX
//!   burst (no doorbell bytes are counted for posting RX descriptors). Per-burst and
//!   per-session bytes are amortised as if every burst were full (`BURST` packets), as
//!   pcie-bench's model does: shorter bursts come at low load, where the link is far from full;
//! * TX by enhanced multi-packet send (eMPW, on by default on ConnectX-5: DPDK mlx5 `txq_mpw_en`):
//!   one WQE session carries up to `EMPW_MAX_PACKETS` packets behind a 32 B title (control and
//!   Ethernet segments), each packet a 16 B data segment that points at its buffer; each
//!   session's WQE bytes are read with one request after the doorbell;
//! * TX inlining: with at least `INLINE_MIN_TXQS` TX queues the PMD copies frames of up to
//!   `EMPW_INLINE_MAX` bytes into the WQE (a 4 B byte count, then the data, in 16 B segments), so
//!   the NIC reads them with the WQE and issues no read of the buffer (DPDK mlx5
//!   `txqs_min_inline`, default 8, and `txq_inline_mpw`, default `MLX5_EMPW_DEF_INLINE_LEN` =
//!   4 × 64 + 12 = 268 B). The core pays the copy ([`Pcie::tx_inline_max`]).
//!
//! TX notice: a burst's packets become visible to the NIC one MMIO write (the doorbell) plus one
//! descriptor read round trip after the core rings; the payload reads follow (and only they
//! count against the queue's read window).
use super::{Dev, Report, RxDma, TxDma, Window};
use crate::config::{NicCfg, NicDesign};
use crate::memsys::MemSys;

/// Mini-CQEs per 64 B compressed completion block of a ConnectX-4/5 RX queue under load.
pub(crate) const CQE_COMPRESSION: u64 = 8;
/// A TX completion is requested on the last frame of the first burst that brings the packets
/// posted since the last one to at least this many (DPDK mlx5 `MLX5_TX_COMP_THRESH`).
pub(crate) const TX_COMPLETION_EVERY: u64 = 32;
/// A completion entry (ConnectX `mlx5_cqe64`, PRM "Completion Queue Entry Format").
pub(crate) const CQE_BYTES: u64 = 64;
/// A WQE basic block: the unit the TX ring is sized in (`tx_descriptors` of them) and the first
/// read after a doorbell.
pub(crate) const TX_WQE_BYTES: u64 = 64;
/// An RX descriptor: one 16 B data segment (`mlx5_wqe_data_seg`: byte count, key, address).
pub(crate) const RX_DESC_BYTES: u64 = 16;
/// Packets per eMPW session (DPDK mlx5 `MLX5_EMPW_MAX_PACKETS` = `MLX5_TX_COMP_THRESH`).
pub(crate) const EMPW_MAX_PACKETS: u64 = 32;
/// The eMPW session's title: a 16 B control and a 16 B Ethernet segment.
pub(crate) const EMPW_TITLE_BYTES: u64 = 32;
/// A WQE data segment (a pointer, or the unit inline data is padded to).
pub(crate) const WQE_SEG_BYTES: u64 = 16;
/// Frames up to this many bytes are inlined (DPDK mlx5 `MLX5_EMPW_DEF_INLINE_LEN`).
pub(crate) const EMPW_INLINE_MAX: u64 = 268;
/// Room for segments in one eMPW session: the largest WQE (`MLX5_WQE_SIZE_MAX`, 60 × 16 B) less
/// its title.
const EMPW_ROOM_BYTES: u64 = 960 - EMPW_TITLE_BYTES;
/// Inlining is on only with at least this many TX queues (DPDK mlx5 `txqs_min_inline` default;
/// DPDK counts one port's queues in one process, hostio the NIC's queues, which one app owns).
const INLINE_MIN_TXQS: usize = 8;
/// A TX doorbell: the mlx5 PMD rings it with one 64-bit store to the queue's UAR doorbell
/// register (`__mlx5_uar_write64_relaxed` in DPDK's mlx5 driver), an 8 B MMIO write.
const DOORBELL_BYTES: u64 = 8;
/// Packets per doorbell / descriptor read burst (the engine's RX and TX burst, DPDK's
/// `MAX_PKT_BURST`).
const BURST: u64 = 32;
/// Link backlog the NIC's DMA engine may queue ahead of the wire before it stops taking frames
/// out of its buffer, ps (1 µs ≈ 14 KB at Gen3 x16, a few maximum-size write bursts). A modelling
/// choice, not a published figure: it only moves where a frame waits (NIC buffer or link queue)
/// when the link is the bottleneck.
const LINK_SLACK_PS: u64 = 1_000_000;

pub(crate) struct Pcie {
    design: NicDesign,
    link: hostio_pcie::PcieLink,
    lat: hostio_pcie::PcieLatencyParams,
    ps_per_byte: f64,
    /// When each direction's queue drains.
    d2h_free: u64,
    h2d_free: u64,
    /// Wire bytes inside the measured window.
    d2h_bytes: f64,
    h2d_bytes: f64,
    /// Memo by payload size: (d2h, h2d) wire bytes of receiving / transmitting one packet.
    rx_bytes: Vec<Option<(f64, f64)>>,
    tx_bytes: Vec<Option<(f64, f64)>>,
    /// Memo by (payload, location, write): DMA latency without serialisation, ps (`u64::MAX` =
    /// not yet computed).
    dma_ps: Vec<u64>,
    /// From the doorbell write to the burst's descriptors at the NIC, ps.
    notice_ps: u64,
    /// The latency fit's host LLC part of a DMA read (`llc_ns`), ps: what a read that missed
    /// pays the home's DRAM instead of.
    llc_ps: u64,
    /// Largest frame the driver inlines into the TX descriptor, bytes (0: none).
    inline_max: u64,
}

impl Pcie {
    /// The NIC of `n` with `queues` queue pairs.
    pub fn new(n: &NicCfg, queues: usize) -> Pcie {
        let inline_max = if n.design == NicDesign::Cx5 && queues >= INLINE_MIN_TXQS { EMPW_INLINE_MAX } else { 0 };
        let lat = hostio_pcie::PcieLatencyParams::with_link(n.pcie.clone());
        Pcie {
            design: n.design,
            link: n.pcie.clone(),
            llc_ps: (lat.llc_ns * 1000.0) as u64,
            lat,
            ps_per_byte: n.pcie.ps_per_wire_byte(),
            d2h_free: 0,
            h2d_free: 0,
            d2h_bytes: 0.0,
            h2d_bytes: 0.0,
            rx_bytes: Vec::new(),
            tx_bytes: Vec::new(),
            dma_ps: Vec::new(),
            notice_ps: 0,
            inline_max,
        }
        .with_notice()
    }

    /// Largest frame (bytes, without FCS) the driver copies into the TX descriptor instead of
    /// pointing at its buffer; 0 when it inlines none.
    pub fn tx_inline_max(&self) -> u64 {
        self.inline_max
    }

    /// The TX doorbell is a posted MMIO write that reaches the NIC after its one-way latency; the
    /// NIC then reads the burst's WQE from the host (one DMA read round trip of its first 64 B
    /// block, in the LLC where the core just wrote it; the rest streams behind it on the link).
    /// Both from hostio's PCIe latency model on this link.
    fn with_notice(mut self) -> Pcie {
        // The design's own doorbell: the mlx5 PMD's 64-bit store, pcie-bench's NICs' 4 B tail.
        let bell_bytes = if self.design == NicDesign::Cx5 { DOORBELL_BYTES } else { hostio_pcie::nic::PTR_BYTES };
        let bell = self.lat.mmio_write_parts(bell_bytes).total_ns;
        let wqe = self.lat.dma_read_parts(TX_WQE_BYTES, hostio_pcie::MemLocation::Llc, hostio_pcie::Engine::Dma, false).total_ns;
        self.notice_ps = ((bell + wqe) * 1000.0) as u64;
        self
    }

    pub fn tx_notice_ps(&self) -> u64 {
        self.notice_ps
    }

    #[inline]
    pub fn accepts(&self, now: u64) -> bool {
        self.d2h_free <= now + LINK_SLACK_PS
    }

    pub fn room_at(&self) -> u64 {
        self.d2h_free - LINK_SLACK_PS.min(self.d2h_free)
    }

    /// Occupy both directions with one transfer's wire bytes; returns when each drains.
    fn occupy(&mut self, d2h: f64, h2d: f64, now: u64, w: Window) -> (u64, u64) {
        let start = self.d2h_free.max(now);
        self.d2h_free = start + (d2h * self.ps_per_byte) as u64;
        let h_start = self.h2d_free.max(now);
        self.h2d_free = h_start + (h2d * self.ps_per_byte) as u64;
        self.d2h_bytes += w.bytes_in(start, self.d2h_free, self.ps_per_byte);
        self.h2d_bytes += w.bytes_in(h_start, self.h2d_free, self.ps_per_byte);
        (self.d2h_free, self.h2d_free)
    }

    pub fn receive(&mut self, m: &mut MemSys, d: Dev, f: &RxDma, w: Window) -> u64 {
        let (local, allocating) = super::hub_receive(m, d, f);
        let (d2h, h2d) = self.link_bytes(f.payload, true);
        let wr_ps = self.dma_latency_ps(f.payload, location(local, allocating), true);
        let (d2h_done, _) = self.occupy(d2h, h2d, f.now, w);
        d2h_done + wr_ps
    }

    pub fn fetch(&mut self, m: &mut MemSys, d: Dev, f: &TxDma, w: Window) -> u64 {
        let (local, dram_ps) = super::hub_fetch(m, d, f);
        let (d2h, h2d) = self.link_bytes(f.payload, false);
        // An inlined frame came with the WQE (its read round trip is in the TX notice).
        let rd_ps = if f.inline {
            0
        } else {
            let hit_ps = self.dma_latency_ps(f.payload, location(local, true), false);
            match dram_ps {
                None => hit_ps,
                Some(dram) => hit_ps.saturating_sub(self.llc_ps) + dram,
            }
        };
        let (_, h2d_done) = self.occupy(d2h, h2d, f.now, w);
        h2d_done + rd_ps
    }

    /// PCIe wire bytes (d2h, h2d) of receiving (`rx`) or transmitting one packet of `payload`
    /// bytes, amortised per packet, by the NIC's design.
    fn link_bytes(&mut self, payload: u64, rx: bool) -> (f64, f64) {
        let memo = if rx { &self.rx_bytes } else { &self.tx_bytes };
        if let Some(&Some(v)) = memo.get(payload as usize) {
            return v;
        }
        use NicDesign as D;
        let l = &self.link;
        let v = match self.design {
            D::Cx5 => {
                let bell = (DOORBELL_BYTES + l.mwr_hdr_bytes()) as f64 / BURST as f64;
                if rx {
                    // Payload + a compressed completion (one 64 B block carries
                    // CQE_COMPRESSION mini-CQEs); a 64 B line of four RX descriptors is read per
                    // four packets.
                    let (dreq, dcpl) = l.dma_read_wire_bytes(64);
                    let cqe = l.dma_write_wire_bytes(CQE_BYTES) as f64 / CQE_COMPRESSION as f64;
                    let d2h = l.dma_write_wire_bytes(payload) as f64 + cqe + dreq as f64 / 4.0;
                    (d2h, dcpl as f64 / 4.0)
                } else {
                    // Each eMPW session's WQE (title, then a data segment or the inlined frame per
                    // packet) is fetched with one read after the doorbell; a pointed-at payload
                    // with ceil(payload / MRRS) reads; one completion per TX_COMPLETION_EVERY
                    // packets.
                    let inline = payload <= self.inline_max;
                    let (seg, per_session) = empw_session(payload, self.inline_max);
                    let (wreq, wcpl) = l.dma_read_wire_bytes(seg * per_session + EMPW_TITLE_BYTES);
                    let (req, cpl) = if inline { (0, 0) } else { l.dma_read_wire_bytes(payload) };
                    let per = |b: u64| b as f64 / per_session as f64;
                    let d2h = req as f64 + per(wreq) + l.dma_write_wire_bytes(CQE_BYTES) as f64 / TX_COMPLETION_EVERY as f64;
                    (d2h, cpl as f64 + per(wcpl) + bell)
                }
            }
            D::Simple | D::Kernel | D::Dpdk => {
                let d = match self.design {
                    D::Simple => hostio_pcie::NicDesign::Simple,
                    D::Kernel => hostio_pcie::NicDesign::Kernel,
                    _ => hostio_pcie::NicDesign::Dpdk,
                };
                let txns = if rx { d.rx_packet_txns(l, payload, false) } else { d.tx_packet_txns(l, payload, false) };
                txns.iter().fold((0.0, 0.0), |(a, b), t| match t.dir {
                    hostio_pcie::Dir::D2h => (a + t.wire_bytes, b),
                    hostio_pcie::Dir::H2d => (a, b + t.wire_bytes),
                })
            }
        };
        let memo = if rx { &mut self.rx_bytes } else { &mut self.tx_bytes };
        if memo.len() <= payload as usize {
            memo.resize(payload as usize + 1, None);
        }
        memo[payload as usize] = Some(v);
        v
    }

    /// DMA latency without the serialisation part (the link queue accounts for that).
    fn dma_latency_ps(&mut self, payload: u64, loc: hostio_pcie::MemLocation, write: bool) -> u64 {
        use hostio_pcie::MemLocation as L;
        let l = match loc {
            L::Llc => 0,
            L::Dram => 1,
            L::RemoteLlc => 2,
            L::RemoteDram => 3,
        };
        let key = (payload as usize * 4 + l) * 2 + write as usize;
        if self.dma_ps.len() <= key {
            self.dma_ps.resize(key + 8, u64::MAX);
        }
        if self.dma_ps[key] != u64::MAX {
            return self.dma_ps[key];
        }
        let parts = if write {
            self.lat.dma_write_parts(payload, loc, hostio_pcie::Engine::Dma, false)
        } else {
            self.lat.dma_read_parts(payload, loc, hostio_pcie::Engine::Dma, false)
        };
        let v = ((parts.total_ns - parts.serialisation_ns).max(0.0) * 1000.0) as u64;
        self.dma_ps[key] = v;
        v
    }

    pub fn report(&self, dur_s: f64) -> Report {
        let link_gbps = 8000.0 / self.ps_per_byte;
        let gbps = |b: f64| b * 8.0 / dur_s / 1e9;
        // Bytes are counted only while a direction is busy; the clamp drops float rounding.
        let util = |b: f64| (gbps(b) / link_gbps).min(1.0);
        Report { pcie: Some((util(self.d2h_bytes), util(self.h2d_bytes))), ..Report::default() }
    }
}

/// One packet's bytes in an eMPW WQE (its 16 B data segment, or its inlined frame: a 4 B byte
/// count and the data, padded to 16 B) and how many such packets share a session's title (up to
/// `EMPW_MAX_PACKETS`, as many as the largest WQE holds).
pub(crate) fn empw_session(payload: u64, inline_max: u64) -> (u64, u64) {
    let seg = if payload <= inline_max { (4 + payload).next_multiple_of(WQE_SEG_BYTES) } else { WQE_SEG_BYTES };
    (seg, (EMPW_ROOM_BYTES / seg).clamp(1, EMPW_MAX_PACKETS))
}

/// Host-side location of a DMA for the latency model.
fn location(local: bool, cached: bool) -> hostio_pcie::MemLocation {
    use hostio_pcie::MemLocation as L;
    match (local, cached) {
        (true, true) => L::Llc,
        (true, false) => L::Dram,
        (false, true) => L::RemoteLlc,
        (false, false) => L::RemoteDram,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hostio_pcie::MemLocation as L;

    /// The DMA latency memo is keyed by payload, location and direction: one `Pcie` asked for
    /// every (payload, location, direction) in a mixed order answers what a fresh one computes
    /// for each. Guards the memo key: keyed by payload and direction only, the first
    /// location asked for a payload answers for all four (a remote or DRAM latency for an LLC
    /// access, or the reverse).
    #[test]
    fn memoised_dma_latency_is_keyed_by_location_and_direction() {
        let n = NicCfg::default();
        let locs = [L::Llc, L::Dram, L::RemoteLlc, L::RemoteDram];
        let mut shared = Pcie::new(&n, 1);
        let mut wrong = Vec::new();
        for (i, payload) in [64u64, 256, 1024, 1500].into_iter().enumerate() {
            // Each payload starts from another location and direction; every pair once.
            for j in 0..8 {
                let loc = locs[(i + 3 * j) % 4];
                let write = (i + j / 4) % 2 == 0;
                let got = shared.dma_latency_ps(payload, loc, write);
                let want = Pcie::new(&n, 1).dma_latency_ps(payload, loc, write);
                if got != want {
                    wrong.push((payload, loc, write, got, want));
                }
            }
            // The locations differ in each direction (reads at all four; writes at least local vs
            // remote, and a partial line's read-for-ownership in DRAM), so a memo that mixes
            // them shows.
            for (write, distinct) in [(false, 4), (true, 2)] {
                let mut v: Vec<u64> = locs.iter().map(|&l| Pcie::new(&n, 1).dma_latency_ps(payload, l, write)).collect();
                v.sort();
                v.dedup();
                assert!(v.len() >= distinct, "{payload} B, write {write}: {v:?}");
            }
        }
        assert!(wrong.is_empty(), "(payload, location, write, memoised ps, fresh ps): {wrong:?}");
    }
}
