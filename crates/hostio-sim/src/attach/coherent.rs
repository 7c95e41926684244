//! A cache-coherent NIC (CC-NIC, Schuh et al., ASPLOS'24): the NIC is a caching agent on a
//! coherent link (UPI, or CXL.cache), so descriptors and buffers move between the host's caches
//! and the NIC's as 64 B line transfers; nothing is DMA'd and DDIO does not apply.
//!
//! # Mechanism
//! * **Ownership.** A line the NIC writes goes to its own cache, Modified
//!   ([`MemSys::dev_own`]); host copies are invalidated. If a host cache held it, the write first
//!   takes ownership: one line transfer. A core that then reads the line takes it from the NIC:
//!   one line transfer, paid by the core ([`MemSys::core_access`]). So a forwarder's payload
//!   lines never cross: only the lines a core touches (the header, descriptors) do.
//! * **Reads.** The NIC reads a host-written line (a TX descriptor, a rewritten header) by
//!   snooping the host's caches: one transfer; lines it still holds cost nothing; lines in no cache
//!   come from the home socket's DRAM over the link. A TX descriptor line is read again for each
//!   descriptor unless the NIC's last read of that line already found it (posted in the same
//!   burst): four descriptors per line save transfers only when the host posts them together.
//! * **Latency.** Transfers that depend on each other cost `T` (the platform's
//!   `coherent_line_ns`, a line Modified in the far side's L2: 114 ns on Ice Lake, CC-NIC §3)
//!   each; independent ones overlap `MLP` at a time (the same count as `hostio ringbench`'s
//!   coherent-link model). CXL.cache adds `CXL_EXTRA_NS` per transfer. On receive the NIC
//!   already knows the next buffer and ring slot, so none of the ownership transfers of their
//!   lines waits for another: they overlap, each adding `T / MLP` (and any backlog of the
//!   queue's agents) to when the frame is visible, where a dependent transfer adds `T`; a tail
//!   index (doorbell signaling) is written after the descriptor and costs a full `T` when a host
//!   cache has taken its line since the last write (when none polled it, the NIC still holds it).
//! * **Throughput.** The link carries `LINE_WIRE_BYTES` per line the NIC transfers at the
//!   platform's `coherent_link_gbyte_s` over UPI (its links × their rate), or `CXL_GBYTE_S` over
//!   CXL, one queue for both directions on either link (a conservative simplification). The NIC
//!   takes a frame from its buffer only while the link's backlog is within `LINK_SLACK_PS` (a
//!   busy link backs frames up in the buffer, then drops or PAUSEs as the PCIe NIC does). The
//!   NIC's agents overlap `MLP` transfers per queue, and a queue's agent backlog delays when its
//!   frames become visible rather than stopping the NIC from taking them: a queue whose agents
//!   saturate fills its RX ring, and its further frames are dropped as out of buffer. Lines
//!   cores take from the NIC are paid in the cores' latency and counted in the link's
//!   utilisation, not queued on it. Taking a line a host cache holds clean costs a full transfer
//!   like a dirty one (an invalidation alone would do for a full-line write: not modelled). The
//!   NIC's own cache has no capacity limit: lines it owns stay there until a host core takes
//!   them (the prototype's NIC, a CPU socket, has a finite LLC).
//! * **Signaling.** `inline`: the completion is the descriptor itself, found by polling its line;
//!   `doorbell`: the consumer first reads a tail index on its own line (one more serial transfer
//!   each way, the round trip inline signaling removes, CC-NIC §4.1).
//! * **Layout.** 16 B descriptors: `padded` one per line; `packed` four per line back to back, so
//!   a producer writing into a line the consumer already read takes it back (the ping-pong of
//!   CC-NIC §4.4); `grouped` up to four per line, but a producer whose current line was taken by
//!   the consumer starts a new line (blank slots are skipped), keeping padded's latency. Grouping
//!   applies to the RX ring the NIC writes; the host's TX ring is laid out as `packed`.
//! * **Pool.** `shared`: the NIC allocates RX buffers from the pool the host frees into, so the
//!   host posts no RX descriptors and the NIC writes no TX completions (the pool's own shared
//!   state, its free list, costs no line transfers: not modelled); `queues`: PCIe style, a free
//!   queue of 8 B buffer pointers (eight per line) and a TX completion line at the end of a
//!   transmit burst once at least eight packets were posted since the last (one per 32-packet
//!   burst).
//! * **Homing.** `writer`: each ring is homed at its producer (CC-NIC's choice); `reader`: at its
//!   consumer, so every line a core takes from the NIC (ring and packet-buffer lines alike) also
//!   triggers a useless speculative read of its home memory (CC-NIC §3), charged to that
//!   socket's DRAM bandwidth but not to latency, on the view that it runs in parallel with the
//!   snoop: CC-NIC measures a reader-homed transfer slightly slower (MLC on the Skylake preset's
//!   part: 114.0–123.2 ns against 114.0–114.6 ns writer-homed), which hostio does not charge. The
//!   NIC-side homes (the NIC's own memory) are not modelled, so homing only changes the host's
//!   memory traffic.
use super::{Report, Rings, RxDma, TxDma, Window};
use crate::config::{CoherentLink, Homing, NicCfg, Platform};
use crate::memsys::MemSys;
use crate::result::Figure;
use hostio_hw::coherent::{Layout, Pool, Signaling};

/// Independent line transfers one agent overlaps (the default of `hostio ringbench`'s
/// coherent-link model, `hostio_hw::coherent::LinkParams::mlp`). An estimate: CC-NIC publishes
/// no overlap figure; a core's own loads overlap far more (~10 line-fill buffers), a
/// descriptor ring's dependent flag-then-data reads far less.
const MLP: u64 = 4;
/// Wire bytes of one 64 B line transfer on the coherent link: the data plus a header/CRC flit
/// (an estimate for UPI and CXL.cache; both move a line in a few 16–20 B flits).
const LINE_WIRE_BYTES: f64 = 80.0;
/// Extra latency of a CXL.cache line transfer over UPI's, ns: two CXL port traversals. An
/// estimate with no published measurement behind it (CXL adds tens of ns per direction over a
/// native socket link); the reproduction runs UPI only.
const CXL_EXTRA_NS: f64 = 40.0;
/// Link bandwidth of one CXL 2.0 x16 port, GB/s per direction: the PCIe Gen5 x16 raw rate
/// (32 GT/s × 16 lanes); CXL's flit overhead is not deducted (it is part of `LINE_WIRE_BYTES`).
const CXL_GBYTE_S: f64 = 64.0;
/// Link backlog the NIC may queue before it stops taking frames from its buffer, ps: the same
/// modelling choice as the PCIe link's (it only moves where a frame waits when the link is the
/// bottleneck), not a published figure.
const LINK_SLACK_PS: u64 = 1_000_000;

pub(crate) struct Coherent {
    /// This NIC's number among the coherent devices of [`MemSys`].
    dev: usize,
    signaling: Signaling,
    layout: Layout,
    pool: Pool,
    homing: Homing,
    /// One dependent line transfer, ps.
    t_ps: u64,
    /// What a read of the home's DRAM from the NIC's side adds to the DRAM's load-to-use latency:
    /// a link round trip (two UPI hops, and CXL's extra), ps.
    cross_ps: u64,
    ps_per_byte: f64,
    /// When the link drains (both directions share one queue: transfers are request/response).
    link_free: u64,
    link_bytes: f64,
    /// Per queue: the NIC's agents are busy until then (`MLP` transfers overlap).
    agent_free: Vec<u64>,
    /// Per queue, grouped layout: (line the NIC is filling, descriptors in it).
    group: Vec<(u32, u64)>,
    /// Per queue: the TX descriptor line the NIC read last, and when.
    wqe_seen: Vec<(u32, u64)>,
    /// Per queue: when the NIC last read the TX tail line (doorbell signaling).
    tail_seen: Vec<u64>,
    /// Line transfers the NIC made (ownership or reads of host lines) since the warm-up.
    nic_lines: u64,
}

impl Coherent {
    pub fn new(n: &NicCfg, plat: &Platform, queues: usize, dev: usize) -> Coherent {
        let c = &n.coherent;
        let (extra, gbyte_s) = match c.link {
            CoherentLink::Upi => (0.0, plat.coherent_link_gbyte_s),
            CoherentLink::Cxl => (CXL_EXTRA_NS, CXL_GBYTE_S),
        };
        Coherent {
            dev,
            signaling: c.signaling,
            layout: c.layout,
            pool: c.pool,
            homing: c.homing,
            t_ps: ((plat.coherent_line_ns() + extra) * 1000.0) as u64,
            // A round trip to the NIC's side: two socket-link hops, over CXL too (an assumption:
            // a CXL port's own traversal is the `extra` above).
            cross_ps: ((2.0 * plat.upi_latency_ns + extra) * 1000.0) as u64,
            ps_per_byte: 1000.0 / gbyte_s,
            link_free: 0,
            link_bytes: 0.0,
            agent_free: vec![0; queues],
            group: vec![(u32::MAX, 0); queues],
            wqe_seen: vec![(u32::MAX, 0); queues],
            tail_seen: vec![0; queues],
            nic_lines: 0,
        }
    }

    /// The transfer latency the core pays for a line the NIC holds (the memory facade's part).
    pub fn line_ps(&self) -> u64 {
        self.t_ps
    }

    pub fn dev(&self) -> usize {
        self.dev
    }

    pub fn reader_homed(&self) -> bool {
        self.homing == Homing::Reader
    }

    pub fn rings(&self) -> Rings {
        let per_line = if self.layout == Layout::Padded { 1 } else { 4 };
        // Without the shared pool the host posts buffers and takes completions back through
        // per-queue rings: 8 B buffer pointers, eight to a line, and one TX completion per eight
        // packets (a line of 8 B entries). Estimates of a conventional driver's rings in the same
        // 64 B lines; the CC-NIC paper describes the shared pool, not this baseline's layout.
        // (`tx_completion_every`: one completion at the end of a burst once that many were posted.)
        let queues = self.pool == Pool::Queues;
        Rings {
            cq_per_line: per_line,
            rx_desc_per_line: if queues { 8 } else { 0 },
            tx_desc_per_line: per_line,
            tx_completion_every: if queues { 8 } else { 0 },
            index_line: self.signaling == Signaling::Doorbell,
            flush_handover: false,
            empw: false,
        }
    }

    #[inline]
    pub fn accepts(&self, now: u64) -> bool {
        self.link_free <= now + LINK_SLACK_PS
    }

    pub fn room_at(&self) -> u64 {
        self.link_free - LINK_SLACK_PS.min(self.link_free)
    }

    /// Put `lines` transfers on the link and on queue `q`'s agents from `now`; `serial` of them
    /// depend on each other. Returns when the last completes.
    fn transfer(&mut self, q: usize, lines: u64, serial: u64, now: u64, w: Window) -> u64 {
        if lines == 0 {
            return now;
        }
        if now >= w.warm && now < w.end {
            self.nic_lines += lines;
        }
        let start = self.link_free.max(now);
        self.link_free = start + (lines as f64 * LINE_WIRE_BYTES * self.ps_per_byte) as u64;
        self.link_bytes += w.bytes_in(start, self.link_free, self.ps_per_byte);
        let a = self.agent_free[q].max(now);
        self.agent_free[q] = a + lines * self.t_ps / MLP;
        let overlapped = (lines - serial.min(lines)) * self.t_ps / MLP;
        (a + serial * self.t_ps + overlapped).max(self.link_free)
    }

    /// The line of the NIC-written RX ring that slot `pos` lands in.
    fn rx_line(&mut self, m: &MemSys, q: usize, f: &RxDma) -> u32 {
        let slot = f.pos % f.n;
        match self.layout {
            Layout::Padded => f.cq_line + slot as u32,
            Layout::Packed => f.cq_line + (slot / 4) as u32,
            Layout::Grouped => {
                let (line, fill) = self.group[q];
                if line != u32::MAX && fill < 4 && m.holder(line) == Some(self.dev) {
                    self.group[q].1 += 1;
                    line
                } else {
                    // Start a new line (the rest of the old one stays blank).
                    let next = if line == u32::MAX { f.cq_line } else { f.cq_line + ((line - f.cq_line + 1) % f.n as u32) };
                    self.group[q] = (next, 1);
                    next
                }
            }
        }
    }

    /// Receive into queue `q`'s slot: the NIC allocates (shared pool) or reads a posted pointer,
    /// writes the payload into its own cache and the descriptor (with its flag, or then the tail
    /// index). Returns (when the core can see it, the line the core polls for it).
    pub fn receive(&mut self, m: &mut MemSys, f: &RxDma, w: Window) -> (u64, u32) {
        let (q, idx_line) = (f.queue, f.idx_line);
        let mut lines = 0;
        let mut serial = 0;
        let per_line = self.rings().rx_desc_per_line;
        if per_line > 0 && f.pos % per_line == 0 {
            // The free queue's next line of 8 B buffer pointers (host-written): it crosses the
            // link from a host cache or the home's DRAM; read ahead of the frame, so a DRAM read's
            // latency is hidden.
            m.snoop_read(f.desc_line + ((f.pos % f.n) / per_line) as u32, f.now);
            lines += 1;
        }
        // The NIC knows the next buffer and slot before the frame arrives (it allocates from
        // the pool, or has read the free queue), so the ownership transfers of their lines do
        // not wait for each other: they overlap (`T / MLP` each). A tail index is written after
        // the descriptor (ordering) and the host polls it, so it is a dependent transfer.
        for l in 0..f.payload.div_ceil(64) as u32 {
            lines += m.dev_own(self.dev, f.data_line + l) as u64;
        }
        let cq = self.rx_line(m, q, f);
        lines += m.dev_own(self.dev, cq) as u64;
        if self.signaling == Signaling::Doorbell {
            let took = m.dev_own(self.dev, idx_line);
            lines += took as u64;
            serial += took as u64;
        }
        (self.transfer(q, lines, serial, f.now, w), cq)
    }

    /// Fetch queue `q`'s TX slot: read the tail (doorbell), the descriptor line, then the payload
    /// lines the NIC does not hold (the first from a host cache depends on the descriptor; the
    /// rest overlap). Each crosses the link; one that no host cache had waits for its home's DRAM.
    pub fn fetch(&mut self, m: &mut MemSys, f: &TxDma, w: Window) -> u64 {
        let (q, idx_line) = (f.queue, f.idx_line);
        let slot = f.pos % f.n;
        let per_line = if self.layout == Layout::Padded { 1 } else { 4 };
        let mut serial = 0;
        let mut lines = 0;
        // Whether a line came from the home's DRAM (it crosses the link after the DRAM read).
        let mut from_mem = false;
        // A doorbell in memory: the NIC reads the tail line once per posting it has not seen.
        if self.signaling == Signaling::Doorbell && (f.pos == 0 || f.posted_at > self.tail_seen[q]) {
            from_mem |= !m.snoop_read(idx_line + 1, f.now);
            lines += 1;
            serial += 1;
            self.tail_seen[q] = f.now;
        }
        // The descriptor's line: read again unless the NIC's last read of that line already
        // found this descriptor (posted in the same burst).
        let line = f.wqe_line + (slot / per_line) as u32;
        let (seen, at) = self.wqe_seen[q];
        if !(seen == line && f.posted_at <= at) {
            from_mem |= !m.snoop_read(line, f.now);
            lines += 1;
            serial += 1;
            self.wqe_seen[q] = (line, f.now);
        }
        let mut payload_host = 0;
        let mut payload_mem = 0;
        for l in 0..f.payload.div_ceil(64) as u32 {
            let line = f.data_line + l;
            if m.holder(line) == Some(self.dev) {
                continue;
            }
            if m.snoop_read(line, f.now) {
                payload_host += 1;
            } else {
                payload_mem += 1;
            }
        }
        // Lines from the home's DRAM cross the link too; they wait for the DRAM (below), not
        // for each other.
        lines += payload_host + payload_mem;
        serial += (payload_host > 0) as u64;
        from_mem |= payload_mem > 0;
        if let Some(c) = f.completion {
            lines += m.dev_own(self.dev, f.cq_line + c) as u64;
        }
        let mut done = self.transfer(q, lines, serial, f.now, w);
        // An approximation: a line from DRAM is ready one remote DRAM read (the payload's home's
        // load-to-use latency and a link round trip) after the fetch, however it sits in the
        // dependent chain.
        if from_mem {
            let home = m.home(f.data_line).unwrap_or(0);
            done = done.max(f.now + m.sockets[home].mem.loaded_latency(f.now) + self.cross_ps);
        }
        done
    }

    pub fn reset(&mut self, m: &mut MemSys) {
        self.nic_lines = 0;
        m.to_host[self.dev] = 0;
    }

    pub fn report(&self, m: &MemSys, dur_s: f64, rx_packets: u64) -> Report {
        let mut r = Report::default();
        let gbps = |b: f64| b * 8.0 / dur_s / 1e9;
        // Lines cores take from the NIC cross the link too (their latency is the core's; they
        // are counted here, not queued on the link).
        let to_host = m.to_host[self.dev];
        let bytes = self.link_bytes + to_host as f64 * LINE_WIRE_BYTES;
        r.extra.insert("coherent_link_utilization".into(), Figure::Value((gbps(bytes) / (8000.0 / self.ps_per_byte)).min(1.0)));
        if rx_packets > 0 {
            let pkts = rx_packets as f64;
            r.extra.insert("nic_line_transfers_per_packet".into(), Figure::Value(self.nic_lines as f64 / pkts));
            r.extra.insert("host_line_transfers_per_packet".into(), Figure::Value(to_host as f64 / pkts));
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{HierParams, Hierarchy, SliceHash};
    use crate::config::Replacement;
    use crate::mem::Memory;
    use crate::memsys::{Socket, Timing, LINES_PER_PAGE};

    const ICX: &str = "icelake-silver-4314";

    fn window() -> Window {
        Window { warm: 0, end: u64::MAX }
    }

    /// A coherent NIC (device 0) on the Ice Lake preset with the given signaling, one queue.
    fn nic(signaling: Signaling) -> Coherent {
        let plat = Platform::preset(ICX).expect("preset");
        let mut n = NicCfg::default();
        n.coherent.signaling = signaling;
        Coherent::new(&n, &plat, 1, 0)
    }

    /// One socket with one core and one 2 MiB page of memory homed on it; device 0 coherent.
    fn memsys() -> MemSys {
        let p = HierParams {
            slices: 1,
            sets_per_slice: 128,
            ways: 11,
            l2_sets: 64,
            l2_ways: 8,
            cores: 1,
            inclusive: false,
            io_mask: 0x600,
            recycled_mask: 0,
            policy: Replacement::Lru,
            seed: 1,
            hash: SliceHash::Parity,
            adaptive_io: true,
        };
        let pa: Vec<u64> = (0..LINES_PER_PAGE as u64).collect();
        let s = Socket { hier: Hierarchy::new(&p, &pa), mem: Memory::new(95.0, 136.0, &crate::config::SKX_LOAD_CURVE), used: true };
        let t = Timing { cycle_ps: 417.0, l2_ps: 5_800, llc_ps: 32_000, c2c_ps: 60_000, upi_ps: 55_000, remote_cache_ps: 110_000 };
        MemSys::new(vec![s], vec![0], Vec::new(), 1, t)
    }

    /// TX slot 0 of a 256-slot ring: descriptor line 100, a `payload` B frame from line 1000.
    fn tx(payload: u64, now: u64) -> TxDma {
        TxDma {
            queue: 0,
            idx_line: 10,
            posted_at: now,
            pos: 0,
            n: 256,
            wqe_line: 100,
            cq_line: 200,
            data_line: 1000,
            payload,
            inline: false,
            seg: 0,
            segs: 1,
            completion: None,
            now,
        }
    }

    /// Dependent line transfers are serial: three lines of which two depend on each other take
    /// two full transfers (`T` each) plus the third's overlapped share (`T / MLP`) on an idle
    /// link and agent; four independent ones overlap (`MLP` at a time: one `T`). Guards the
    /// `serial * t_ps` term of `transfer`: overlapping everything gives the three lines
    /// `3 T / MLP` (~0.75 T).
    #[test]
    fn dependent_line_transfers_are_serial() {
        let now = 1_000_000;
        let mut c = nic(Signaling::Inline);
        let t = c.t_ps;
        assert_eq!(t, 114_000, "Ice Lake's coherent line transfer");
        let dep = c.transfer(0, 3, 2, now, window()) - now;
        assert!(dep >= 2 * t, "3 lines, 2 dependent: {dep} ps, T = {t} ps");
        assert!(dep <= 2 * t + t / MLP + 10_000, "3 lines, 2 dependent: {dep} ps, T = {t} ps");
        let mut c = nic(Signaling::Inline);
        let indep = c.transfer(0, 4, 0, now, window()) - now;
        assert!(indep.abs_diff(t) <= 10_000, "4 independent lines: {indep} ps, T = {t} ps");
    }

    /// Without the shared pool the NIC reads the host's free queue of buffer pointers, a line per
    /// eight buffers: that line crosses the link whether a host cache or the home's DRAM has it.
    /// Guards the unconditional `lines += 1` of `receive`: counting only host-cache hits makes a
    /// free-queue line in DRAM free (one transfer fewer for the first frame of each eight).
    #[test]
    fn the_free_queue_line_crosses_the_link_from_dram_too() {
        let now = 5_000_000;
        let count = |pos: u64| {
            let mut m = memsys();
            let mut n = NicCfg::default();
            n.coherent.pool = Pool::Queues;
            let mut c = Coherent::new(&n, &Platform::preset(ICX).expect("preset"), 1, 0);
            let f = RxDma { queue: 0, idx_line: 10, pos, n: 256, desc_line: 300, cq_line: 400, data_line: 1000, payload: 60, stash_core: None, now };
            c.receive(&mut m, &f, window());
            c.nic_lines
        };
        // Slot 0 starts a free-queue line (in no cache here); slot 1 shares it.
        assert_eq!(count(0), count(1) + 1, "the free-queue line from DRAM: {} vs {} transfers", count(0), count(1));
    }

    /// TX lines no host cache holds come from the home's DRAM and still cross the coherent link:
    /// the descriptor (or tail) line counts one transfer whether a host cache had it or not, and
    /// every payload line the NIC does not hold counts one, from a host cache or from DRAM. A
    /// 1500 B frame (24 lines) none of which is cached, behind a descriptor the core wrote, is
    /// 25 transfers on the link (26 with a doorbell's tail line, also from DRAM). Guards
    /// `lines += payload_host + payload_mem` and the unconditional `lines += 1` of the descriptor
    /// and tail reads: counting only lines a host cache had leaves 1 transfer (0 with the
    /// descriptor from DRAM too), and the DRAM-served lines would not occupy the link.
    #[test]
    fn tx_lines_served_from_dram_cross_the_link() {
        let now = 5_000_000;
        let lines_of = |c: &Coherent| (c.nic_lines, (c.link_free.saturating_sub(now) as f64 / (LINE_WIRE_BYTES * c.ps_per_byte)).round() as u64);
        // The core wrote the descriptor (in its L2); the payload is in no cache.
        let mut m = memsys();
        m.sockets[0].hier.core_access(0, 100, true);
        let mut c = nic(Signaling::Inline);
        let done = c.fetch(&mut m, &tx(1500, now), window());
        assert_eq!(lines_of(&c), (25, 25), "(line transfers counted, lines on the link): descriptor + 24 payload lines");
        assert!(done > now);
        // A 64 B frame from DRAM behind a cached descriptor: its transfers alone take
        // T + T / MLP (~143 ns); the line is a remote DRAM read: this fixture's DRAM (95 ns) and a
        // link round trip (two UPI hops).
        let mut m = memsys();
        m.sockets[0].hier.core_access(0, 100, true);
        let mut c = nic(Signaling::Inline);
        let done = c.fetch(&mut m, &tx(64, now), window()) - now;
        assert!(done >= 95_000 + c.cross_ps, "waits for the DRAM and the link: {done} ps, round trip {} ps", c.cross_ps);
        // Half the payload in the core's cache, half in DRAM: all 24 lines cross.
        let mut m = memsys();
        m.sockets[0].hier.core_access(0, 100, true);
        for l in 0..12 {
            m.sockets[0].hier.core_access(0, 1000 + 2 * l, true);
        }
        let mut c = nic(Signaling::Inline);
        c.fetch(&mut m, &tx(1500, now), window());
        assert_eq!(lines_of(&c), (25, 25), "12 payload lines from the core's cache, 12 from DRAM");
        // Doorbell signaling with the tail, the descriptor and the payload all in DRAM.
        let mut m = memsys();
        let mut c = nic(Signaling::Doorbell);
        c.fetch(&mut m, &tx(1500, now), window());
        assert_eq!(lines_of(&c), (26, 26), "tail + descriptor + 24 payload lines, all from DRAM");
        // Lines the NIC holds itself do not cross.
        let mut m = memsys();
        for l in 0..24 {
            m.dev_own(0, 1000 + l);
        }
        let mut c = nic(Signaling::Doorbell);
        c.fetch(&mut m, &tx(1500, now), window());
        assert_eq!(lines_of(&c), (2, 2), "tail + descriptor; the payload is the NIC's");
    }
}
