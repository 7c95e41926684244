//! The discrete-event engine: traffic → NIC → PCIe → I/O hub/DDIO → LLC → cores → TX.
//!
//! # Time and order
//! Integer picoseconds; a binary heap ordered by (time, sequence number) so ties are broken in
//! insertion order; one RNG. Events are per packet: `Arrival` (a frame has fully arrived at a
//! NIC), `Core` (a poll-mode core finishes its current step), `CoRunner` (1 µs of a co-runner's
//! accesses), `PauseRefresh` and `Warmup`. Cache work inside an event runs line by line.
//!
//! # Traffic
//! A generator sends trains of `train_packets` frames back to back at the NIC's line rate, then
//! pauses so that the average is the offered rate. RSS hashes each flow to a queue, or
//! flow-director rules load the first queue `imbalance` × the mean.
//!
//! # The receive path
//! A frame arrives; the queue is chosen as above. If the queue has a posted descriptor and no backlog, the
//! NIC DMA-writes it at once: the d2h PCIe direction is a bounded resource (payload + 24 B per
//! TLP + a compressed completion entry), each payload line is an ItoM into the hierarchy of the
//! buffer's home socket (allocating only if DDIO is on for the port and the NIC is on that
//! socket), and the descriptor becomes visible `dma_write_latency` after the last byte. Without a
//! descriptor the frame waits in the on-NIC buffer; a full buffer drops it, or with flow control
//! the NIC sends PAUSE at 3/4 full (refreshed every half pause time) and XON below 1/2.
//!
//! # Cores (run to completion, poll mode)
//! A core takes bursts of up to 32 ready descriptors: it reads each completion entry, replaces the
//! buffer with one from its mempool cache (LIFO) and writes the RX descriptor, then processes the
//! packets one per event: mbuf metadata, the header line, the app's own work and cycles, the
//! header write (MAC swap). At the end of the burst it transmits: it frees completed TX buffers
//! (at every burst, as the mlx5 PMD does, or — `tx_release = "threshold"` — only once fewer
//! than 32 TX slots are free, so transmitted buffers stay in flight), writes a 64 B TX
//! descriptor per packet and rings the doorbell. Every access costs its level's latency (L2,
//! LLC, another L2, local or remote DRAM with queueing); MBA spaces every request that leaves
//! the L2. So leaky DMA slows the core and queues grow. Programs start warm: working sets, mbuf
//! metadata and descriptor rings are touched once before traffic starts.
//!
//! # The transmit path
//! After the doorbell the NIC fetches the queue's descriptors in order (a `TxFetch` event) and
//! DMA-reads each packet, looking its lines up when it reads them (PCIeRdCur per line: hits in
//! LLC or L2, else DRAM), paying h2d PCIe bytes, the DMA read latency (DRAM or LLC) and then the
//! wire. A queue keeps at most `tx_read_window_kib` of reads in flight, so one queue transmits at
//! most that window over the read latency: when reads come from DRAM the queue slows, its TX
//! ring holds processed packets longer and they are evicted before the NIC reads them (the
//! paper's "TX buffering"). A packet's latency is NIC arrival → last bit on the TX wire.
use crate::cache::{HierParams, Hierarchy, Src};
use crate::config::{full_mask, AppKind, Resolved, SizeMix};
use crate::hist::Histogram;
use crate::mem::{Mba, Memory};
use crate::mempool::Mempool;
use crate::rng::{mix64, Rng};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

const PS_PER_US: u64 = 1_000_000;
const LINES_PER_PAGE: u32 = 1 << 15; // 2 MiB pages of 64 B lines
const BURST: usize = 32;
const TX_FREE_THRESH: u64 = 32;
/// DPDK mbuf object: 64 B mempool header + 128 B rte_mbuf + 128 B headroom + 2048 B data room.
const MBUF_STRIDE: u64 = 2368;
const MBUF_META_OFF: u64 = 64;
const MBUF_DATA_OFF: u64 = 320;
const MEMPOOL_CACHE: usize = 256;
const CQE_BYTES: u64 = 64;
/// Mini-CQEs per 64 B compressed completion block of a ConnectX-4/5 RX queue under load
/// (Linux `MLX5_MINI_CQE_ARRAY_SIZE`; the DPDK mlx5 PMD enables RX CQE compression by default,
/// `rxq_cqe_comp_en`).
const CQE_COMPRESSION: u64 = 8;
/// A TX completion is requested every this many packets (DPDK mlx5 PMD, `MLX5_TX_COMP_THRESH`).
const TX_COMPLETION_EVERY: u64 = 32;
const TX_WQE_BYTES: u64 = 64;
const RX_DESC_BYTES: u64 = 16;
/// A doorbell: a 4 B MMIO write.
const DOORBELL_BYTES: u64 = 4;
/// Link backlog the NIC's DMA engine may queue ahead of the wire before it stops taking frames
/// out of its buffer, ps (1 µs ≈ 14 KB at Gen3 x16, a few maximum-size write bursts). A modelling
/// choice, not a published figure: it only moves where a frame waits (NIC buffer or link queue)
/// when the link is the bottleneck.
const LINK_SLACK_PS: u64 = 1_000_000;
/// PAUSE quanta 0xFFFF × 512 bit times.
const PAUSE_QUANTA_BITS: f64 = 65535.0 * 512.0;

/// A forwarder's own code and data (FastClick's element graph and per-element state, the PMD's
/// queue structures), MiB: twice the Skylake-SP L2, so part of it lives in the LLC within the
/// app's CAT ways. An estimate; the DDIO paper's Fig. 3 shows the I/O app's misses rising when a
/// co-runner shares its CAT ways, so its working set does reach the LLC.
const FORWARDER_WS_MIB: f64 = 2.0;

/// Per-packet work of the application kinds, in core cycles, beyond the memory accesses that are
/// simulated explicitly. Calibrated on the DDIO paper's testbed: one 2.3 GHz Skylake core running
/// FastClick L2 forwarding receives 1024 B frames at ~82 Gb/s with 4096 RX descriptors (§4.1;
/// Fig. 5's caption: 82–86 Gb/s), i.e. ~10 Mpps; with 40 cycles plus its simulated accesses
/// (header, metadata, rings, two lookups in its own working set) hostio's forwarder gets
/// ~83 Gb/s there (~100 ns per packet). The 90 Gb/s one-core ceiling at 1500 B is the NIC's, not
/// the core's (see `tx_read_window_kib`). The stateful chain (router + NAPT + load balancer):
/// 240 cycles plus its flow-table accesses, an estimate (its per-packet cost is not published).
fn base_cycles(kind: AppKind) -> u64 {
    match kind {
        AppKind::L2fwd | AppKind::Compute => 40,
        AppKind::StatefulChain => 240,
        AppKind::CacheHungry => 0,
    }
}
/// Fixed cost of one `rte_eth_rx_burst` / `rte_eth_tx_burst` call (loop, ring indices, doorbell
/// write), cycles: estimates; over a burst of 32 they add < 2 cycles per packet, so results do not
/// depend on them.
const RX_BURST_CYCLES: u64 = 40;
const TX_BURST_CYCLES: u64 = 60;

/// Independent accesses a core issues back to back (a burst's completion entries, buffer headers
/// and descriptor writes): they overlap in the core's line fill buffers, so a batch costs its
/// slowest access or its total divided by the number of buffers, whichever is larger.
#[derive(Default)]
struct Overlap {
    sum: u64,
    max: u64,
}

/// L1D line fill buffers of a Skylake/Haswell core (Intel optimization manual).
const FILL_BUFFERS: u64 = 10;

impl Overlap {
    #[inline]
    fn add(&mut self, lat: u64) {
        self.sum += lat;
        self.max = self.max.max(lat);
    }
    fn cost(&self) -> u64 {
        self.max.max(self.sum / FILL_BUFFERS)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Ev {
    Warmup,
    Arrival(u16),
    Core(u16),
    CoRunner(u16),
    PauseRefresh(u16),
    NicDrain(u16),
    /// The NIC fetches posted TX descriptors of (nic, queue).
    TxFetch(u16, u16),
}

#[derive(Clone, Copy, Default)]
struct Mbuf {
    meta_line: u32,
    data_line: u32,
    arrival_ps: u64,
    len: u32,
    flow: u32,
}

struct RxRing {
    n: u64,
    mbuf: Vec<u32>,
    ready: Vec<u64>,
    /// Next slot the NIC fills.
    nic_pos: u64,
    /// Next slot the core consumes.
    sw_pos: u64,
    /// Slots below this are posted to the NIC (hold a buffer).
    posted: u64,
    desc_line: u32,
    cq_line: u32,
}

struct TxRing {
    n: u64,
    mbuf: Vec<u32>,
    /// When the slot's frame left the wire (`u64::MAX` until the NIC has fetched it).
    done: Vec<u64>,
    /// When the slot's doorbell made it visible to the NIC.
    ready: Vec<u64>,
    head: u64,
    /// Next slot the NIC fetches (`clean ≤ fetch ≤ head`).
    fetch: u64,
    clean: u64,
    /// The queue's DMA reads in flight: (completion time, bytes), in issue order.
    reads: VecDeque<(u64, u64)>,
    read_bytes: u64,
    /// Time of the live `TxFetch` event of this queue (`u64::MAX`: none).
    fetch_at: u64,
    wqe_line: u32,
    cq_line: u32,
}

#[derive(Clone, Copy)]
struct Pkt {
    arrival_ps: u64,
    len: u32,
    flow: u32,
}

struct Queue {
    core: usize,
    rx: RxRing,
    tx: TxRing,
    backlog: VecDeque<Pkt>,
}

#[derive(Default, Clone)]
struct NicStats {
    rx_packets: u64,
    dropped: u64,
    pause_frames: u64,
    d2h_bytes: f64,
    h2d_bytes: f64,
}

struct Nic {
    name: String,
    socket: usize,
    ddio: bool,
    line_rate_gbps: f64,
    ps_per_pcie_byte: f64,
    design: crate::config::NicDesign,
    tx_release: crate::config::TxRelease,
    /// Bytes of packet reads one TX queue may have in flight.
    tx_read_window: u64,
    link: hostio_pcie::PcieLink,
    lat: hostio_pcie::PcieLatencyParams,
    /// Memo by payload size: (d2h, h2d) wire bytes of receiving / transmitting one packet.
    rx_bytes: Vec<Option<(f64, f64)>>,
    tx_bytes: Vec<Option<(f64, f64)>>,
    /// Memo by (payload, location, write): DMA latency without serialisation, ps (`u64::MAX` =
    /// not yet computed).
    dma_ps: Vec<u64>,
    queues: Vec<Queue>,
    buf_bytes: u64,
    buf_cap: u64,
    pause: bool,
    xoff: u64,
    xon: u64,
    pausing: bool,
    pause_until: u64,
    refresh_at: u64,
    drain_at: u64,
    quanta_ps: u64,
    d2h_free: u64,
    h2d_free: u64,
    wire_free: u64,
    stats: NicStats,
    /// Frames that reached the NIC and frames it dropped since the start (not reset at warm-up),
    /// for the conservation check.
    arrived_all: u64,
    dropped_all: u64,
}

enum Sizes {
    Fixed(u32),
    Mix(Vec<(f64, u32)>),
}

/// A traffic source: trains of `train` frames back to back at line rate, spaced so that the
/// average is the offered rate.
struct Gen {
    nic: usize,
    /// At the offered rate and at the NIC's line rate.
    ps_per_wire_byte: f64,
    ps_per_line_byte: f64,
    sizes: Sizes,
    flows: u32,
    zipf: Option<Vec<f64>>,
    /// Flow-director steering: cumulative queue shares (None = RSS's uniform hash).
    queue_cdf: Option<Vec<f64>>,
    salt: u64,
    train: u32,
    train_pos: u32,
    /// Offered-rate clock: where the next train starts.
    rate_clock: f64,
    train_start: f64,
    /// Line-rate time of the frames sent so far in this train.
    line_off: f64,
    /// Time of the one live Arrival event (others are stale after an XON reschedule).
    next_at: u64,
    /// Holding a frame back because the NIC sent PAUSE (an XON releases it at once).
    held: bool,
}

impl Gen {
    /// Account a sent frame of `len` bytes; returns the next frame's arrival time.
    fn advance(&mut self, len: u32) -> f64 {
        let wire = (len + 20) as f64;
        self.rate_clock += wire * self.ps_per_wire_byte;
        self.line_off += wire * self.ps_per_line_byte;
        self.train_pos += 1;
        if self.train_pos >= self.train {
            self.train_pos = 0;
            self.line_off = 0.0;
            self.train_start = self.rate_clock;
        }
        self.train_start + self.line_off
    }

    /// Resume sending at `at` (after a PAUSE), with a new train.
    fn restart(&mut self, at: u64) {
        self.rate_clock = at as f64;
        self.train_start = at as f64;
        self.line_off = 0.0;
        self.train_pos = 0;
        self.next_at = at;
    }
}

#[derive(Default, Clone)]
struct AppStats {
    rx_packets: u64,
    tx_packets: u64,
    tx_bytes: u64,
    latency: Histogram,
    llc_accesses: u64,
    llc_misses: u64,
    accesses: u64,
}

struct App {
    name: String,
    kind: AppKind,
    nic: Option<usize>,
    cycles_ps: u64,
    ws_base: u32,
    ws_lines: u32,
    accesses_per_packet: u32,
    accesses_per_us: f64,
    stats: AppStats,
}

struct Core {
    socket: usize,
    local: usize,
    app: usize,
    pool: usize,
    pool_slot: usize,
    nic: usize,
    queue: usize,
    mba: Mba,
    idle: bool,
    burst: Vec<u32>,
    burst_pos: usize,
    tx_pending: Vec<u32>,
    rate_acc: f64,
    /// Co-runner: time its issued accesses complete.
    busy_until: u64,
}

struct Socket {
    hier: Hierarchy,
    mem: Memory,
    /// Some core, NIC or memory region lives here (otherwise its caches stay empty and coherence
    /// checks against it are skipped).
    used: bool,
}

#[derive(Default, Clone)]
struct Counters {
    wr_hit: u64,
    wr_miss: u64,
    wr_bypass: u64,
    rd_hit: u64,
    rd_miss: u64,
    offered_bytes: u64,
    offered_packets: u64,
}

/// Lays simulated memory out in 2 MiB pages homed on a socket, each at a random physical frame.
struct AddressSpace {
    next_page: u32,
    page_home: Vec<u8>,
    /// Per socket: (page, next free line in it) for small allocations.
    open: Vec<Option<(u32, u32)>>,
}

impl AddressSpace {
    fn alloc(&mut self, bytes: u64, socket: usize) -> u32 {
        let lines = bytes.div_ceil(64).max(1) as u32;
        if lines >= LINES_PER_PAGE / 4 {
            let pages = lines.div_ceil(LINES_PER_PAGE);
            let first = self.next_page;
            self.next_page += pages;
            self.page_home.extend(std::iter::repeat(socket as u8).take(pages as usize));
            return first * LINES_PER_PAGE;
        }
        // Small regions (rings) are packed into an open page, 4 KiB aligned.
        let lines = lines.div_ceil(64) * 64;
        match self.open[socket] {
            Some((page, used)) if used + lines <= LINES_PER_PAGE => {
                self.open[socket] = Some((page, used + lines));
                page * LINES_PER_PAGE + used
            }
            _ => {
                let page = self.next_page;
                self.next_page += 1;
                self.page_home.push(socket as u8);
                self.open[socket] = Some((page, lines));
                page * LINES_PER_PAGE
            }
        }
    }
}

/// An upper bound of the 2 MiB pages [`Engine::new`] lays out for one app (working set, mempool
/// and per-core rings, each rounded up to whole pages), so that a scenario can be refused before
/// the 64 GiB of simulated physical memory run out.
pub(crate) fn app_pages_bound(a: &crate::config::AppCfg, nic: Option<&crate::config::NicCfg>) -> u64 {
    let pages = |bytes: u64| bytes.div_ceil(LINES_PER_PAGE as u64 * 64) + 1;
    let mut n = 0;
    if let Some(ws) = a.working_set_mib.filter(|&w| w > 0.0) {
        n += pages((ws * 1024.0 * 1024.0) as u64);
    } else if a.kind == AppKind::StatefulChain {
        n += pages(16 << 20);
    }
    if let Some(nc) = nic {
        let (q, rx, tx) = (a.cores as u64, nc.rx_descriptors as u64, nc.tx_descriptors as u64);
        let count = (q * (rx + tx + 2 * BURST as u64) + q * (MEMPOOL_CACHE as u64 * 3 / 2)).max(8192);
        n += pages(count * MBUF_STRIDE);
        n += q * (pages(rx * RX_DESC_BYTES) + pages(rx * CQE_BYTES) + pages(tx * TX_WQE_BYTES) + pages(4096));
    }
    n
}

/// Link bytes of a transfer that occupies the link over [start, end) ps, counted for the part of
/// that interval inside the measured `window`: bytes cross the link while it is busy, not when
/// the transfer is issued, so a link's measured utilisation cannot exceed 1.
fn link_bytes_in(window: (u64, u64), start: u64, end: u64, ps_per_byte: f64) -> f64 {
    let busy = end.min(window.1).saturating_sub(start.max(window.0));
    busy as f64 / ps_per_byte
}

/// Timing constants in ps.
struct Timing {
    cycle_ps: f64,
    l2_ps: u64,
    llc_ps: u64,
    c2c_ps: u64,
    upi_ps: u64,
}

/// Simulator state for one run.
pub struct Engine {
    now: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    rng: Rng,
    warm_ps: u64,
    end_ps: u64,
    /// Where the current `advance` call stops.
    stop: u64,
    pub events: u64,
    t: Timing,
    sockets: Vec<Socket>,
    page_home: Vec<u8>,
    nics: Vec<Nic>,
    gens: Vec<Gen>,
    cores: Vec<Core>,
    apps: Vec<App>,
    mbufs: Vec<Mbuf>,
    pools: Vec<Mempool>,
    c: Counters,
    resolved: Resolved,
}

fn mix_table(m: SizeMix) -> Vec<(f64, u32)> {
    let raw: &[(f64, u32)] = match m {
        // 7:4:1 simple IMIX.
        SizeMix::Imix => &[(7.0, 64), (4.0, 576), (1.0, 1500)],
        // Campus-like: ACK-heavy small frames and MTU-sized data; mean ≈ 981 B.
        SizeMix::Campus => &[(0.265, 64), (0.04, 128), (0.03, 256), (0.03, 512), (0.035, 1024), (0.60, 1500)],
    };
    let total: f64 = raw.iter().map(|r| r.0).sum();
    let mut acc = 0.0;
    raw.iter()
        .map(|&(w, s)| {
            acc += w / total;
            (acc, s)
        })
        .collect()
}

impl Engine {
    pub fn new(r: Resolved) -> Engine {
        let sc = &r.scenario;
        let plat = &r.platform;
        let nsock = sc.platform.sockets as usize;
        let mut rng = Rng::new(sc.run.seed);
        let mut space = AddressSpace { next_page: 0, page_home: Vec::new(), open: vec![None; nsock] };
        let nic_index: BTreeMap<&str, usize> = sc.nics.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect();

        // ---- apps, cores, mempools and rings (address layout first) --------------------------
        let mut apps = Vec::new();
        let mut cores: Vec<Core> = Vec::new();
        let mut pools = Vec::new();
        let mut mbufs: Vec<Mbuf> = Vec::new();
        let mut per_socket_cores = vec![0usize; nsock];
        let mut nic_queues: Vec<Vec<Queue>> = sc.nics.keys().map(|_| Vec::new()).collect();
        let mut cat_of_core = Vec::new();
        for (ai, (name, a)) in sc.apps.iter().enumerate() {
            let home = a.mempool_socket.unwrap_or(a.socket) as usize;
            let mut ws_base = 0;
            let mut ws_lines = 0;
            let ws_mib = a.working_set_mib.unwrap_or(match a.kind {
                AppKind::StatefulChain => 16.0,
                AppKind::L2fwd | AppKind::Compute => FORWARDER_WS_MIB,
                AppKind::CacheHungry => 0.0,
            });
            let per_packet_default = if a.kind == AppKind::StatefulChain { 4 } else { 2 };
            if ws_mib > 0.0 {
                let bytes = (ws_mib * 1024.0 * 1024.0) as u64;
                ws_base = space.alloc(bytes, a.socket as usize);
                ws_lines = bytes.div_ceil(64) as u32;
            }
            let nic = a.nic.as_deref().map(|n| nic_index[n]);
            let mut pool_idx = usize::MAX;
            if nic.is_some() {
                let nc = &sc.nics[a.nic.as_deref().unwrap()];
                let q = a.cores as u64;
                let count = (q * (nc.rx_descriptors as u64 + nc.tx_descriptors as u64 + 2 * BURST as u64)
                    + q * (MEMPOOL_CACHE as u64 * 3 / 2))
                    .max(8192);
                let base = space.alloc(count * MBUF_STRIDE, home) as u64 * 64;
                let first = mbufs.len() as u32;
                for i in 0..count {
                    let obj = base + i * MBUF_STRIDE;
                    mbufs.push(Mbuf { meta_line: ((obj + MBUF_META_OFF) / 64) as u32, data_line: ((obj + MBUF_DATA_OFF) / 64) as u32, ..Default::default() });
                }
                pool_idx = pools.len();
                pools.push(Mempool::new(first, count as u32, a.cores as usize, MEMPOOL_CACHE));
            }
            let mut app_cores = Vec::new();
            for k in 0..a.cores as usize {
                let s = a.socket as usize;
                let local = per_socket_cores[s];
                per_socket_cores[s] += 1;
                let ci = cores.len();
                app_cores.push(ci);
                cat_of_core.push((s, local, a.cat_mask.unwrap_or(full_mask(plat.llc_ways))));
                let mut queue = 0;
                if let Some(ni) = nic {
                    let nc = &sc.nics[a.nic.as_deref().unwrap()];
                    let rxn = nc.rx_descriptors as u64;
                    let txn = nc.tx_descriptors as u64;
                    let desc_line = space.alloc(rxn * RX_DESC_BYTES, home);
                    let cq_line = space.alloc(rxn * CQE_BYTES, home);
                    let wqe_line = space.alloc(txn * TX_WQE_BYTES, home);
                    let txcq_line = space.alloc(4096, home);
                    queue = nic_queues[ni].len();
                    nic_queues[ni].push(Queue {
                        core: ci,
                        rx: RxRing { n: rxn, mbuf: vec![0; rxn as usize], ready: vec![0; rxn as usize], nic_pos: 0, sw_pos: 0, posted: 0, desc_line, cq_line },
                        tx: TxRing {
                            n: txn,
                            mbuf: vec![0; txn as usize],
                            done: vec![0; txn as usize],
                            ready: vec![0; txn as usize],
                            head: 0,
                            fetch: 0,
                            clean: 0,
                            reads: VecDeque::new(),
                            read_bytes: 0,
                            fetch_at: u64::MAX,
                            wqe_line,
                            cq_line: txcq_line,
                        },
                        backlog: VecDeque::new(),
                    });
                }
                cores.push(Core {
                    socket: s,
                    local,
                    app: ai,
                    pool: pool_idx,
                    pool_slot: k,
                    nic: nic.unwrap_or(usize::MAX),
                    queue,
                    mba: Mba::new(a.mba_percent, plat.core_memory_bandwidth_gbyte_s),
                    idle: true,
                    burst: Vec::with_capacity(BURST),
                    burst_pos: 0,
                    tx_pending: Vec::with_capacity(BURST * 2),
                    rate_acc: 0.0,
                    busy_until: 0,
                });
            }
            let cycles = base_cycles(a.kind) + a.cycles_per_packet.unwrap_or(0) as u64;
            apps.push(App {
                name: name.clone(),
                kind: a.kind,
                nic,
                cycles_ps: (cycles as f64 * 1000.0 / plat.clock_ghz) as u64,
                ws_base,
                ws_lines,
                accesses_per_packet: a.accesses_per_packet.unwrap_or(per_packet_default),
                accesses_per_us: a.accesses_per_us.unwrap_or(0.0),
                stats: AppStats::default(),
            });
        }

        // ---- physical placement and hierarchies -----------------------------------------------
        let pages = space.next_page as usize;
        let mut frames = Vec::with_capacity(pages);
        let mut used = std::collections::HashSet::new();
        assert!(pages <= 1 << 15, "scenario validation bounds the simulated memory to 64 GiB");
        while frames.len() < pages {
            // 64 GiB of physical memory: 32768 frames of 2 MiB.
            let f = rng.below(1 << 15);
            if used.insert(f) {
                frames.push(f);
            }
        }
        let total_lines = pages * LINES_PER_PAGE as usize;
        let pa_lines: Vec<u64> = (0..total_lines).map(|l| frames[l >> 15] * LINES_PER_PAGE as u64 + (l as u64 & (LINES_PER_PAGE as u64 - 1))).collect();
        let mut sockets: Vec<Socket> = (0..nsock)
            .map(|s| (s, space.page_home.contains(&(s as u8))
                    || cat_of_core.iter().any(|c| c.0 == s)
                    || sc.nics.values().any(|n| n.socket as usize == s)))
            .map(|(s, used)| Socket {
                hier: Hierarchy::new(
                    &HierParams {
                        slices: plat.llc_slices,
                        sets_per_slice: plat.llc_sets_per_slice(),
                        ways: plat.llc_ways,
                        l2_sets: plat.l2_sets(),
                        l2_ways: plat.l2_ways,
                        cores: plat.cores_per_socket,
                        inclusive: plat.llc_inclusive,
                        io_mask: r.io_mask,
                        recycled_mask: plat.recycled_io_mask.unwrap_or(0),
                        policy: r.replacement,
                        seed: sc.run.seed.wrapping_add(s as u64),
                    },
                    // A socket nothing uses gets no directory (and its arrays stay untouched).
                    if used { &pa_lines } else { &[] },
                ),
                mem: Memory::new(plat.dram_latency_ns, plat.memory_bandwidth_gbyte_s),
                used,
            })
            .collect();
        drop(pa_lines);
        for &(s, local, cat) in &cat_of_core {
            sockets[s].hier.set_cat(local, cat);
        }

        // ---- NICs and traffic ------------------------------------------------------------------
        let mut nics = Vec::new();
        let nic_queues_len: Vec<usize> = nic_queues.iter().map(|q| q.len()).collect();
        for (ni, (name, n)) in sc.nics.iter().enumerate() {
            let cap = n.buffer_kib as u64 * 1024;
            nics.push(Nic {
                name: name.clone(),
                socket: n.socket as usize,
                ddio: n.ddio.unwrap_or(sc.platform.ddio) && r.io_mask != 0,
                line_rate_gbps: n.line_rate_gbps,
                ps_per_pcie_byte: n.pcie.ps_per_wire_byte(),
                design: n.design,
                tx_release: n.tx_release,
                tx_read_window: n.tx_read_window_kib as u64 * 1024,
                link: n.pcie.clone(),
                lat: hostio_pcie::PcieLatencyParams::with_link(n.pcie.clone()),
                rx_bytes: Vec::new(),
                tx_bytes: Vec::new(),
                dma_ps: Vec::new(),
                queues: std::mem::take(&mut nic_queues[ni]),
                buf_bytes: 0,
                buf_cap: cap,
                pause: n.pause_frames,
                xoff: cap * 3 / 4,
                xon: cap / 2,
                pausing: false,
                pause_until: 0,
                refresh_at: 0,
                drain_at: u64::MAX,
                quanta_ps: (PAUSE_QUANTA_BITS / n.line_rate_gbps * 1000.0) as u64,
                d2h_free: 0,
                h2d_free: 0,
                wire_free: 0,
                stats: NicStats::default(),
                arrived_all: 0,
                dropped_all: 0,
            });
        }
        let mut gens = Vec::new();
        for (gi, t) in sc.traffic.values().enumerate() {
            let ni = nic_index[t.nic.as_str()];
            let rate = t.rate_gbps.unwrap_or(sc.nics[&t.nic].line_rate_gbps);
            let zipf = (t.flow_skew > 0.0).then(|| {
                let mut acc = 0.0;
                let mut cdf: Vec<f64> = (1..=t.flows).map(|k| {
                    acc += 1.0 / (k as f64).powf(t.flow_skew);
                    acc
                }).collect();
                for v in &mut cdf {
                    *v /= acc;
                }
                cdf
            });
            let nq = nic_queues_len[ni];
            let queue_cdf = (t.imbalance > 1.0 && nq > 1).then(|| {
                let hot = t.imbalance / nq as f64;
                let rest = (1.0 - hot) / (nq - 1) as f64;
                (0..nq).map(|q| hot + rest * q as f64).collect::<Vec<f64>>()
            });
            let start = (gi as u64 * 997) as f64;
            gens.push(Gen {
                nic: ni,
                ps_per_wire_byte: 8000.0 / rate,
                ps_per_line_byte: 8000.0 / sc.nics[&t.nic].line_rate_gbps,
                sizes: match (t.packet_size, t.size_mix) {
                    (Some(s), _) => Sizes::Fixed(s),
                    (None, Some(m)) => Sizes::Mix(mix_table(m)),
                    _ => unreachable!("validated"),
                },
                flows: t.flows,
                zipf,
                queue_cdf,
                salt: mix64(sc.run.seed ^ (gi as u64 + 1)),
                train: t.train_packets,
                train_pos: 0,
                rate_clock: start,
                train_start: start,
                line_off: 0.0,
                next_at: gi as u64 * 997,
                held: false,
            });
        }

        let t = Timing {
            cycle_ps: 1000.0 / plat.clock_ghz,
            l2_ps: (plat.l2_latency_ns * 1000.0) as u64,
            llc_ps: (plat.llc_latency_ns * 1000.0) as u64,
            c2c_ps: (plat.c2c_latency_ns * 1000.0) as u64,
            upi_ps: (plat.upi_latency_ns * 1000.0) as u64,
        };
        let warm_ps = (sc.run.warmup_us * PS_PER_US as f64) as u64;
        let end_ps = warm_ps + (sc.run.duration_us * PS_PER_US as f64) as u64;
        let mut e = Engine {
            now: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            rng,
            warm_ps,
            end_ps,
            stop: 0,
            events: 0,
            t,
            sockets,
            page_home: space.page_home,
            nics,
            gens,
            cores,
            apps,
            mbufs,
            pools,
            c: Counters::default(),
            resolved: r,
        };
        e.prefill_rings();
        e.prewarm_working_sets();
        e.schedule(warm_ps, Ev::Warmup);
        for g in 0..e.gens.len() {
            let at = e.gens[g].next_at;
            e.schedule(at, Ev::Arrival(g as u16));
        }
        for c in 0..e.cores.len() {
            if e.apps[e.cores[c].app].kind == AppKind::CacheHungry {
                e.cores[c].idle = false;
                e.schedule(c as u64 * 13, Ev::CoRunner(c as u16));
            }
        }
        e
    }

    fn prefill_rings(&mut self) {
        for ni in 0..self.nics.len() {
            for q in 0..self.nics[ni].queues.len() {
                let core = self.nics[ni].queues[q].core;
                let (pool, slot) = (self.cores[core].pool, self.cores[core].pool_slot);
                let n = self.nics[ni].queues[q].rx.n;
                for i in 0..n {
                    let m = self.pools[pool].alloc(slot).expect("mempool sized for the rings");
                    self.nics[ni].queues[q].rx.mbuf[i as usize] = m;
                }
                self.nics[ni].queues[q].rx.posted = n;
            }
        }
    }

    /// Programs have been running before the measured traffic starts: each app's working set,
    /// its mbufs' metadata and its queues' descriptor rings are touched once by its cores
    /// (round-robin), so they start where the cores and CAT ways would hold them rather than cold
    /// in DRAM. (Packet data stays cold: the NIC writes it.)
    fn prewarm_working_sets(&mut self) {
        for a in 0..self.apps.len() {
            let cores: Vec<usize> = (0..self.cores.len()).filter(|&c| self.cores[c].app == a).collect();
            if cores.is_empty() {
                continue;
            }
            // Touching more lines than the caches hold only leaves the last ones: start there.
            let plat = &self.resolved.platform;
            let cached = plat.llc_slices as u64 * plat.llc_sets_per_slice() as u64 * plat.llc_ways as u64
                + plat.l2_sets() as u64 * plat.l2_ways as u64 * cores.len() as u64;
            let ws = self.apps[a].ws_lines;
            let first = ws.saturating_sub(cached.min(u32::MAX as u64) as u32);
            let mut lines: Vec<u32> = (first..ws).map(|l| self.apps[a].ws_base + l).collect();
            let pool = self.cores[cores[0]].pool;
            if pool != usize::MAX {
                lines.extend(self.pools[pool].objects().map(|m| self.mbufs[m as usize].meta_line));
            }
            let mut by_core: Vec<Vec<u32>> = vec![Vec::new(); cores.len()];
            for (i, l) in lines.into_iter().enumerate() {
                by_core[i % cores.len()].push(l);
            }
            for (k, &c) in cores.iter().enumerate() {
                let (ni, q) = (self.cores[c].nic, self.cores[c].queue);
                if ni != usize::MAX {
                    let qu = &self.nics[ni].queues[q];
                    let rx_lines = (qu.rx.n * RX_DESC_BYTES).div_ceil(64) as u32;
                    let cq_lines = qu.rx.n.div_ceil(CQE_COMPRESSION) as u32;
                    let wqe_lines = qu.tx.n as u32;
                    by_core[k].extend((0..rx_lines).map(|l| qu.rx.desc_line + l));
                    by_core[k].extend((0..cq_lines).map(|l| qu.rx.cq_line + l));
                    by_core[k].extend((0..wqe_lines).map(|l| qu.tx.wqe_line + l));
                }
                let (s, local) = (self.cores[c].socket, self.cores[c].local);
                for &l in &by_core[k] {
                    self.sockets[s].hier.core_access(local, l, false);
                    self.sockets[s].hier.take_writebacks();
                }
            }
        }
    }

    #[inline]
    fn schedule(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    #[inline]
    fn in_window(&self, t: u64) -> bool {
        t >= self.warm_ps && t < self.end_ps
    }

    #[inline]
    fn home(&self, line: u32) -> usize {
        self.page_home[(line >> 15) as usize] as usize
    }

    /// Run until simulated time `until_ps` (or the end). Returns true when the run is finished.
    pub fn advance(&mut self, until_ps: u64) -> bool {
        let stop = until_ps.min(self.end_ps);
        self.stop = stop;
        while let Some(&Reverse((t, _, ev))) = self.heap.peek() {
            if t >= stop {
                break;
            }
            self.heap.pop();
            self.now = t;
            self.events += 1;
            match ev {
                Ev::Arrival(g) => self.on_arrival(g as usize),
                Ev::Core(c) => self.on_core(c as usize),
                Ev::CoRunner(c) => self.on_corunner(c as usize),
                Ev::PauseRefresh(n) => self.on_pause_refresh(n as usize),
                Ev::NicDrain(n) => {
                    if self.nics[n as usize].drain_at == t {
                        self.nic_drain(n as usize, t);
                    }
                }
                Ev::TxFetch(n, q) => {
                    if self.nics[n as usize].queues[q as usize].tx.fetch_at == t {
                        self.on_tx_fetch(n as usize, q as usize);
                    }
                }
                Ev::Warmup => self.on_warmup(),
            }
        }
        self.now = self.now.max(stop);
        stop >= self.end_ps || self.heap.is_empty()
    }

    pub fn now(&self) -> u64 {
        self.now
    }

    pub fn end_ps(&self) -> u64 {
        self.end_ps
    }

    fn on_warmup(&mut self) {
        self.c = Counters::default();
        for n in &mut self.nics {
            // Link bytes are already counted only where they cross the link inside the window,
            // including transfers issued before it: keep them.
            let (d2h, h2d) = (n.stats.d2h_bytes, n.stats.h2d_bytes);
            n.stats = NicStats { d2h_bytes: d2h, h2d_bytes: h2d, ..NicStats::default() };
        }
        for a in &mut self.apps {
            a.stats = AppStats::default();
        }
        for s in &mut self.sockets {
            s.hier.stats = Default::default();
            s.mem.reset_counters();
        }
    }

    // -------------------------------------------------------------------------------------------
    // Memory-side helpers
    // -------------------------------------------------------------------------------------------

    /// A core access; returns its latency in ps and accounts LLC statistics to the core's app.
    fn core_mem(&mut self, c: usize, line: u32, write: bool, now: u64) -> u64 {
        let (s, local, app) = (self.cores[c].socket, self.cores[c].local, self.cores[c].app);
        let src = self.sockets[s].hier.core_access(local, line, write);
        let wb = self.sockets[s].hier.take_writebacks();
        self.sockets[s].mem.write(now, wb);
        if src == Src::L2 {
            return self.t.l2_ps;
        }
        // MBA throttles every request that leaves the L2 (LLC hits too), not only DRAM reads.
        let mba = self.cores[c].mba.delay(now);
        mba + match src {
            Src::L2 => unreachable!("returned above"),
            Src::OtherL2 => {
                self.apps[app].stats.llc_accesses += 1;
                self.t.c2c_ps
            }
            Src::Llc => {
                self.apps[app].stats.llc_accesses += 1;
                self.t.llc_ps
            }
            Src::Mem => {
                let st = &mut self.apps[app].stats;
                st.llc_accesses += 1;
                st.llc_misses += 1;
                if self.sockets.len() > 1 && self.sockets[1 - s].used {
                    let o = 1 - s;
                    if self.sockets[o].hier.is_cached(line) {
                        // Served by the other socket's caches over UPI.
                        if write {
                            self.sockets[o].hier.invalidate(line);
                        }
                        return mba + 2 * self.t.llc_ps + 2 * self.t.upi_ps;
                    }
                }
                let home = self.home(line);
                let lat = self.sockets[home].mem.read(now + mba);
                let remote = if home != s { 2 * self.t.upi_ps } else { 0 };
                self.t.llc_ps + lat + remote
            }
        }
    }

    /// A NIC's full-line DMA write; returns true on an ItoM hit.
    fn dev_write(&mut self, nic_socket: usize, ddio: bool, line: u32, now: u64) -> bool {
        let home = self.home(line);
        if self.sockets.len() > 1 && self.sockets[1 - home].used {
            self.sockets[1 - home].hier.invalidate(line);
        }
        let allocating = ddio && home == nic_socket;
        let hit = self.sockets[home].hier.dev_write(line, allocating);
        let wb = self.sockets[home].hier.take_writebacks();
        self.sockets[home].mem.write(now, wb + (!allocating) as u32);
        if !allocating {
            self.c.wr_bypass += 1;
        } else if hit {
            self.c.wr_hit += 1;
        } else {
            self.c.wr_miss += 1;
        }
        hit
    }

    /// A NIC's DMA read of one line (PCIeRdCur); returns true on a hit.
    fn dev_read(&mut self, line: u32, now: u64) -> bool {
        let home = self.home(line);
        let hit = self.sockets.iter().any(|s| s.used && s.hier.dev_read(line));
        if hit {
            self.c.rd_hit += 1;
        } else {
            self.c.rd_miss += 1;
            self.sockets[home].mem.device_read(now);
        }
        hit
    }

    // -------------------------------------------------------------------------------------------
    // Traffic and the NIC receive side
    // -------------------------------------------------------------------------------------------

    /// A frame arrives. Frames that arrive before any other pending event are handled here in a
    /// loop rather than through the heap: the order of events, and so every result, is the same
    /// (each still counts as an event), and a saturated NIC's drops cost little.
    fn on_arrival(&mut self, g: usize) {
        if self.gens[g].next_at != self.now {
            return; // superseded by an XON
        }
        loop {
            self.arrive(g);
            let at = self.gens[g].next_at;
            let next = self.heap.peek().map_or(u64::MAX, |r| r.0 .0);
            if at < next && at < self.stop {
                self.now = at;
                self.events += 1;
            } else {
                self.schedule(at, Ev::Arrival(g as u16));
                return;
            }
        }
    }

    /// One frame of generator `g` at `self.now`; sets the generator's next arrival time.
    fn arrive(&mut self, g: usize) {
        let now = self.now;
        let ni = self.gens[g].nic;
        if self.nics[ni].pause_until > now {
            // The link partner honours PAUSE: the next frame leaves when the pause ends.
            let at = self.nics[ni].pause_until;
            self.gens[g].restart(at);
            self.gens[g].held = true;
            return;
        }
        self.gens[g].held = false;
        let len = match &self.gens[g].sizes {
            Sizes::Fixed(s) => *s,
            Sizes::Mix(cdf) => {
                let u = self.rng.unit();
                cdf.iter().find(|(p, _)| u < *p).map(|x| x.1).unwrap_or(cdf.last().unwrap().1)
            }
        };
        let flow = match &self.gens[g].zipf {
            None => self.rng.below(self.gens[g].flows as u64) as u32,
            Some(cdf) => {
                let u = self.rng.unit();
                cdf.partition_point(|&p| p < u).min(cdf.len() - 1) as u32
            }
        };
        let h = mix64(flow as u64 ^ self.gens[g].salt);
        let q = match &self.gens[g].queue_cdf {
            None => (h % self.nics[ni].queues.len() as u64) as usize,
            Some(cdf) => {
                // Rules map each flow to one queue; the hash places flows by the queues' shares.
                let u = (h >> 11) as f64 / (1u64 << 53) as f64;
                cdf.partition_point(|&p| p <= u).min(cdf.len() - 1)
            }
        };
        if self.in_window(now) {
            self.c.offered_bytes += len as u64;
            self.c.offered_packets += 1;
        }
        self.nic_receive(ni, q, Pkt { arrival_ps: now, len, flow }, now);
        let gen = &mut self.gens[g];
        let at = (gen.advance(len) as u64).max(now + 1);
        gen.next_at = at;
    }

    fn nic_receive(&mut self, ni: usize, q: usize, p: Pkt, now: u64) {
        let nic = &mut self.nics[ni];
        nic.arrived_all += 1;
        let qu = &nic.queues[q];
        let link_ok = nic.d2h_free <= now + LINK_SLACK_PS;
        if qu.backlog.is_empty() && qu.rx.nic_pos < qu.rx.posted && link_ok {
            self.dma_in(ni, q, p, now);
            return;
        }
        if nic.buf_bytes + p.len as u64 > nic.buf_cap {
            nic.dropped_all += 1;
            if self.in_window(now) {
                self.nics[ni].stats.dropped += 1;
            }
            return;
        }
        nic.buf_bytes += p.len as u64;
        nic.queues[q].backlog.push_back(p);
        if nic.pause && !nic.pausing && nic.buf_bytes >= nic.xoff {
            nic.pausing = true;
            nic.pause_until = now + nic.quanta_ps;
            nic.refresh_at = now + nic.quanta_ps / 2;
            let at = nic.refresh_at;
            if self.in_window(now) {
                self.nics[ni].stats.pause_frames += 1;
            }
            self.schedule(at, Ev::PauseRefresh(ni as u16));
        }
        if !link_ok {
            self.schedule_drain(ni);
        }
    }

    /// Wake the NIC when its d2h link has room again.
    fn schedule_drain(&mut self, ni: usize) {
        let at = self.nics[ni].d2h_free - LINK_SLACK_PS.min(self.nics[ni].d2h_free);
        if self.nics[ni].drain_at != at {
            self.nics[ni].drain_at = at;
            self.schedule(at, Ev::NicDrain(ni as u16));
        }
    }

    fn on_pause_refresh(&mut self, ni: usize) {
        let now = self.now;
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        if !nic.pausing || nic.refresh_at != now {
            return;
        }
        nic.pause_until = now + nic.quanta_ps;
        nic.refresh_at = now + nic.quanta_ps / 2;
        let at = nic.refresh_at;
        if in_win {
            nic.stats.pause_frames += 1;
        }
        self.schedule(at, Ev::PauseRefresh(ni as u16));
    }

    /// Move backlogged frames into posted descriptors while the d2h link has room, visiting the
    /// queues round-robin.
    fn nic_drain(&mut self, ni: usize, now: u64) {
        let nq = self.nics[ni].queues.len();
        let mut blocked_by_link = false;
        loop {
            let mut moved = false;
            for q in 0..nq {
                let nic = &self.nics[ni];
                if nic.d2h_free > now + LINK_SLACK_PS {
                    blocked_by_link = !nic.queues.iter().all(|qu| qu.backlog.is_empty());
                    break;
                }
                let qu = &nic.queues[q];
                if qu.rx.nic_pos >= qu.rx.posted || qu.backlog.is_empty() {
                    continue;
                }
                let p = self.nics[ni].queues[q].backlog.pop_front().expect("non-empty");
                self.nics[ni].buf_bytes -= p.len as u64;
                self.dma_in(ni, q, p, now);
                moved = true;
            }
            if !moved || blocked_by_link {
                break;
            }
        }
        if blocked_by_link {
            self.schedule_drain(ni);
        }
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        if nic.pausing && nic.buf_bytes <= nic.xon {
            // XON: a PAUSE frame with zero quanta.
            nic.pausing = false;
            nic.pause_until = now;
            if in_win {
                nic.stats.pause_frames += 1;
            }
            // Senders held by the pause resume now.
            for g in 0..self.gens.len() {
                if self.gens[g].nic == ni && self.gens[g].held && self.gens[g].next_at > now {
                    self.gens[g].held = false;
                    self.gens[g].restart(now);
                    self.schedule(now, Ev::Arrival(g as u16));
                }
            }
        }
    }

    /// DMA one frame into the next posted RX buffer of queue `q`.
    fn dma_in(&mut self, ni: usize, q: usize, p: Pkt, now: u64) {
        let (sock, ddio) = (self.nics[ni].socket, self.nics[ni].ddio);
        let rx = &self.nics[ni].queues[q].rx;
        let pos = rx.nic_pos;
        let slot = (pos % rx.n) as usize;
        let m = rx.mbuf[slot];
        let desc_line = rx.desc_line + (pos % rx.n / 4) as u32;
        let cq_line = rx.cq_line + (slot as u64 / CQE_COMPRESSION) as u32;
        let payload = (p.len - 4) as u64; // the NIC strips the FCS
        // Descriptor fetch: one read per line of four 16 B descriptors.
        if pos % 4 == 0 {
            self.dev_read(desc_line, now);
        }
        let data = self.mbufs[m as usize].data_line;
        let home = self.home(data);
        let allocating = ddio && home == sock;
        let lines = payload.div_ceil(64) as u32;
        // Start loading the frame's LLC set records together, so their host cache misses overlap.
        for l in 0..lines {
            self.sockets[home].hier.prefetch(data + l);
        }
        for l in 0..lines {
            self.dev_write(sock, ddio, data + l, now);
        }
        if pos % CQE_COMPRESSION == CQE_COMPRESSION - 1 {
            self.dev_write(sock, ddio, cq_line, now);
        }
        let (d2h, h2d) = self.link_bytes(ni, payload, true);
        let loc = self.location(sock, data, allocating);
        let wr_ps = self.dma_latency_ps(ni, payload, loc, true);
        let in_win = self.in_window(now);
        let window = (self.warm_ps, self.end_ps);
        let nic = &mut self.nics[ni];
        let start = nic.d2h_free.max(now);
        nic.d2h_free = start + (d2h * nic.ps_per_pcie_byte) as u64;
        let h_start = nic.h2d_free.max(now);
        nic.h2d_free = h_start + (h2d * nic.ps_per_pcie_byte) as u64;
        nic.stats.d2h_bytes += link_bytes_in(window, start, nic.d2h_free, nic.ps_per_pcie_byte);
        nic.stats.h2d_bytes += link_bytes_in(window, h_start, nic.h2d_free, nic.ps_per_pcie_byte);
        let ready = nic.d2h_free + wr_ps;
        if in_win {
            nic.stats.rx_packets += 1;
        }
        let rx = &mut nic.queues[q].rx;
        rx.ready[slot] = ready;
        rx.nic_pos += 1;
        let mb = &mut self.mbufs[m as usize];
        mb.arrival_ps = p.arrival_ps;
        mb.len = p.len;
        mb.flow = p.flow;
        let core = self.nics[ni].queues[q].core;
        if self.cores[core].idle {
            self.cores[core].idle = false;
            self.schedule(ready.max(now), Ev::Core(core as u16));
        }
    }

    /// PCIe wire bytes (d2h, h2d) of receiving (`rx`) or transmitting one packet of `payload`
    /// bytes, amortised per packet, by the NIC's design.
    fn link_bytes(&mut self, ni: usize, payload: u64, rx: bool) -> (f64, f64) {
        let nic = &mut self.nics[ni];
        let memo = if rx { &nic.rx_bytes } else { &nic.tx_bytes };
        if let Some(&Some(v)) = memo.get(payload as usize) {
            return v;
        }
        use crate::config::NicDesign as D;
        let l = &nic.link;
        let v = match nic.design {
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
                    // The burst's descriptors are fetched with one read after the doorbell; the
                    // payload with ceil(payload / MRRS) reads; one completion per
                    // TX_COMPLETION_EVERY packets.
                    let (req, cpl) = l.dma_read_wire_bytes(payload);
                    let (wreq, wcpl) = l.dma_read_wire_bytes(TX_WQE_BYTES * BURST as u64);
                    let d2h = (req as f64) + wreq as f64 / BURST as f64
                        + l.dma_write_wire_bytes(CQE_BYTES) as f64 / TX_COMPLETION_EVERY as f64;
                    (d2h, cpl as f64 + wcpl as f64 / BURST as f64 + bell)
                }
            }
            D::Simple | D::Kernel | D::Dpdk => {
                let d = match nic.design {
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
        let memo = if rx { &mut nic.rx_bytes } else { &mut nic.tx_bytes };
        if memo.len() <= payload as usize {
            memo.resize(payload as usize + 1, None);
        }
        memo[payload as usize] = Some(v);
        v
    }

    /// Host-side location of a DMA for the latency model.
    fn location(&self, nic_socket: usize, line: u32, cached: bool) -> hostio_pcie::MemLocation {
        use hostio_pcie::MemLocation as L;
        match (self.home(line) == nic_socket, cached) {
            (true, true) => L::Llc,
            (true, false) => L::Dram,
            (false, true) => L::RemoteLlc,
            (false, false) => L::RemoteDram,
        }
    }

    /// DMA latency without the serialisation part (the link queue accounts for that).
    fn dma_latency_ps(&mut self, ni: usize, payload: u64, loc: hostio_pcie::MemLocation, write: bool) -> u64 {
        use hostio_pcie::MemLocation as L;
        let l = match loc {
            L::Llc => 0,
            L::Dram => 1,
            L::RemoteLlc => 2,
            L::RemoteDram => 3,
        };
        let key = (payload as usize * 4 + l) * 2 + write as usize;
        let memo = &mut self.nics[ni].dma_ps;
        if memo.len() <= key {
            memo.resize(key + 8, u64::MAX);
        }
        if memo[key] != u64::MAX {
            return memo[key];
        }
        let lat = &self.nics[ni].lat;
        let parts = if write {
            lat.dma_write_parts(payload, loc, hostio_pcie::Engine::Dma, false)
        } else {
            lat.dma_read_parts(payload, loc, hostio_pcie::Engine::Dma, false)
        };
        let v = ((parts.total_ns - parts.serialisation_ns).max(0.0) * 1000.0) as u64;
        self.nics[ni].dma_ps[key] = v;
        v
    }

    // -------------------------------------------------------------------------------------------
    // Cores
    // -------------------------------------------------------------------------------------------

    fn on_core(&mut self, c: usize) {
        let now = self.now;
        let mut t = now;
        if self.cores[c].burst_pos >= self.cores[c].burst.len() {
            if !self.cores[c].tx_pending.is_empty() {
                match self.tx_burst(c, t) {
                    Ok(t2) => t = t2,
                    Err(until) => {
                        self.schedule(until.max(now + 1), Ev::Core(c as u16));
                        return;
                    }
                }
            }
            if !self.rx_burst(c, &mut t) {
                return;
            }
        }
        // Process one packet.
        let core = &mut self.cores[c];
        let m = core.burst[core.burst_pos];
        core.burst_pos += 1;
        let app = core.app;
        let mb = self.mbufs[m as usize];
        t += self.core_mem(c, mb.data_line, false, t);
        if self.apps[app].ws_lines > 0 {
            // Dependent lookups: the stateful chain's per-flow state (addressed by the flow), or a
            // forwarder's own code and data (anywhere in its working set).
            let (base, lines, k) = (self.apps[app].ws_base, self.apps[app].ws_lines as u64, self.apps[app].accesses_per_packet);
            let per_flow = self.apps[app].kind == AppKind::StatefulChain;
            for i in 0..k {
                let off = if per_flow { mix64(((mb.flow as u64) << 8) | i as u64) % lines } else { self.rng.below(lines) };
                t += self.core_mem(c, base + off as u32, i % 2 == 1, t);
            }
        }
        t += self.apps[app].cycles_ps;
        t += self.core_mem(c, mb.data_line, true, t);
        self.cores[c].tx_pending.push(m);
        self.schedule(t.max(now + 1), Ev::Core(c as u16));
    }

    /// Poll the RX ring; returns false if the core went idle (or waits for an in-flight DMA).
    fn rx_burst(&mut self, c: usize, t: &mut u64) -> bool {
        let (ni, q) = (self.cores[c].nic, self.cores[c].queue);
        let rx = &self.nics[ni].queues[q].rx;
        let avail = (rx.nic_pos - rx.sw_pos) as usize;
        let mut n = 0;
        while n < avail.min(BURST) && rx.ready[((rx.sw_pos + n as u64) % rx.n) as usize] <= *t {
            n += 1;
        }
        if n == 0 {
            if avail > 0 {
                let at = rx.ready[(rx.sw_pos % rx.n) as usize];
                self.schedule(at.max(*t + 1), Ev::Core(c as u16));
            } else {
                self.cores[c].idle = true;
            }
            return false;
        }
        *t += (RX_BURST_CYCLES as f64 * self.t.cycle_ps) as u64;
        self.cores[c].burst.clear();
        self.cores[c].burst_pos = 0;
        let (pool, slot_k) = (self.cores[c].pool, self.cores[c].pool_slot);
        let sw = self.nics[ni].queues[q].rx.sw_pos;
        // Completion entries and mbuf fields of the whole burst (independent accesses). Packet
        // headers are read when each packet is processed, as run-to-completion forwarders do.
        let mut batch = Overlap::default();
        let now = *t;
        for i in 0..n as u64 {
            let rx = &self.nics[ni].queues[q].rx;
            let slot = ((sw + i) % rx.n) as usize;
            let cq = rx.cq_line + (slot as u64 / CQE_COMPRESSION) as u32;
            let m = rx.mbuf[slot];
            self.cores[c].burst.push(m);
            let mb = self.mbufs[m as usize];
            batch.add(self.core_mem(c, cq, false, now));
            batch.add(self.core_mem(c, mb.meta_line, true, now));
        }
        if self.in_window(now) {
            let app = self.cores[c].app;
            self.apps[app].stats.rx_packets += n as u64;
        }
        *t += batch.cost();
        self.nics[ni].queues[q].rx.sw_pos += n as u64;
        // Replenish consumed slots, in order, from the mempool cache (LIFO).
        let mut batch = Overlap::default();
        let now = *t;
        loop {
            let rx = &self.nics[ni].queues[q].rx;
            if rx.posted >= rx.sw_pos + rx.n {
                break;
            }
            let Some(m) = self.pools[pool].alloc(slot_k) else { break };
            let rx = &mut self.nics[ni].queues[q].rx;
            let pos = rx.posted;
            let slot = (pos % rx.n) as usize;
            rx.mbuf[slot] = m;
            rx.posted += 1;
            let desc = rx.desc_line + (slot / 4) as u32;
            let meta = self.mbufs[m as usize].meta_line;
            batch.add(self.core_mem(c, meta, true, now));
            if pos % 4 == 3 {
                batch.add(self.core_mem(c, desc, true, now));
            }
        }
        *t += batch.cost();
        self.nic_drain(ni, *t);
        true
    }

    /// Transmit the pending packets. Err(t) = the TX ring is full until `t`.
    fn tx_burst(&mut self, c: usize, mut t: u64) -> Result<u64, u64> {
        let (ni, q, pool, slot_k) = (self.cores[c].nic, self.cores[c].queue, self.cores[c].pool, self.cores[c].pool_slot);
        let need = self.cores[c].tx_pending.len() as u64;
        // Free the buffers of completed descriptors (see `TxRelease`).
        let eager = self.nics[ni].tx_release == crate::config::TxRelease::Completion;
        let mut batch = Overlap::default();
        let now = t;
        loop {
            let tx = &self.nics[ni].queues[q].tx;
            let free = tx.n - (tx.head - tx.clean);
            if (!eager && free >= need + TX_FREE_THRESH) || tx.clean == tx.head || tx.done[(tx.clean % tx.n) as usize] > t {
                break;
            }
            let m = tx.mbuf[(tx.clean % tx.n) as usize];
            self.nics[ni].queues[q].tx.clean += 1;
            let meta = self.mbufs[m as usize].meta_line;
            batch.add(self.core_mem(c, meta, true, now));
            self.pools[pool].free(slot_k, m);
        }
        t += batch.cost();
        let tx = &self.nics[ni].queues[q].tx;
        let free = tx.n - (tx.head - tx.clean);
        if free == 0 {
            return Err(self.tx_slot_free_at(ni, q).max(t + 1));
        }
        let k = free.min(need) as usize;
        let doorbell = t + (TX_BURST_CYCLES as f64 * self.t.cycle_ps) as u64;
        let mut batch = Overlap::default();
        let now = t;
        for i in 0..k {
            let m = self.cores[c].tx_pending[i];
            let tx = &mut self.nics[ni].queues[q].tx;
            let slot = (tx.head % tx.n) as usize;
            tx.mbuf[slot] = m;
            tx.ready[slot] = doorbell;
            tx.done[slot] = u64::MAX;
            tx.head += 1;
            let wqe = tx.wqe_line + slot as u32;
            batch.add(self.core_mem(c, wqe, true, now));
        }
        self.schedule_tx_fetch(ni, q, doorbell);
        self.cores[c].tx_pending.drain(..k);
        t = (now + batch.cost()).max(doorbell);
        if self.cores[c].tx_pending.is_empty() {
            Ok(t)
        } else {
            Err(self.tx_slot_free_at(ni, q).max(t))
        }
    }

    /// When the oldest TX slot of a queue may free: its frame's wire time, or — not fetched yet —
    /// the NIC's next fetch.
    fn tx_slot_free_at(&self, ni: usize, q: usize) -> u64 {
        let tx = &self.nics[ni].queues[q].tx;
        let done = tx.done[(tx.clean % tx.n) as usize];
        if done != u64::MAX {
            done
        } else {
            tx.fetch_at.min(self.end_ps)
        }
    }

    fn schedule_tx_fetch(&mut self, ni: usize, q: usize, at: u64) {
        let tx = &mut self.nics[ni].queues[q].tx;
        if at < tx.fetch_at {
            tx.fetch_at = at;
            self.schedule(at, Ev::TxFetch(ni as u16, q as u16));
        }
    }

    /// The NIC takes posted TX descriptors in order: it reads the descriptor and the packet
    /// (PCIeRdCur per line, looked up now, when it reads them), pays h2d link bytes and the DMA
    /// read latency, then the wire. A queue keeps at most `tx_read_window_kib` of packet reads in
    /// flight, so one queue's transmit rate is bounded by that window over the read latency.
    fn on_tx_fetch(&mut self, ni: usize, q: usize) {
        let now = self.now;
        let sock = self.nics[ni].socket;
        let window_bytes = self.nics[ni].tx_read_window;
        self.nics[ni].queues[q].tx.fetch_at = u64::MAX;
        loop {
            let tx = &mut self.nics[ni].queues[q].tx;
            if tx.fetch == tx.head {
                break;
            }
            let pos = tx.fetch;
            let slot = (pos % tx.n) as usize;
            if tx.ready[slot] > now {
                let at = tx.ready[slot];
                self.schedule_tx_fetch(ni, q, at);
                break;
            }
            while let Some(&(end, b)) = tx.reads.front() {
                if end > now {
                    break;
                }
                tx.reads.pop_front();
                tx.read_bytes -= b;
            }
            let m = tx.mbuf[slot];
            let mb = self.mbufs[m as usize];
            let payload = (mb.len - 4) as u64;
            if tx.read_bytes > 0 && tx.read_bytes + payload > window_bytes {
                let at = tx.reads.front().expect("reads in flight").0;
                self.schedule_tx_fetch(ni, q, at);
                break;
            }
            tx.fetch += 1;
            let wqe = tx.wqe_line + slot as u32;
            let cq = tx.cq_line + ((pos / TX_COMPLETION_EVERY) % 64) as u32;
            let mut all_hit = self.dev_read(wqe, now);
            for l in 0..payload.div_ceil(64) as u32 {
                all_hit &= self.dev_read(mb.data_line + l, now);
            }
            if pos % TX_COMPLETION_EVERY == TX_COMPLETION_EVERY - 1 {
                self.dev_write(sock, self.nics[ni].ddio, cq, now);
            }
            let (d2h, h2d) = self.link_bytes(ni, payload, false);
            let loc = self.location(sock, mb.data_line, all_hit);
            let rd_ps = self.dma_latency_ps(ni, payload, loc, false);
            let window = (self.warm_ps, self.end_ps);
            let nic = &mut self.nics[ni];
            let d_start = nic.d2h_free.max(now);
            nic.d2h_free = d_start + (d2h * nic.ps_per_pcie_byte) as u64;
            let start = nic.h2d_free.max(now);
            nic.h2d_free = start + (h2d * nic.ps_per_pcie_byte) as u64;
            nic.stats.d2h_bytes += link_bytes_in(window, d_start, nic.d2h_free, nic.ps_per_pcie_byte);
            nic.stats.h2d_bytes += link_bytes_in(window, start, nic.h2d_free, nic.ps_per_pcie_byte);
            let data_at = nic.h2d_free + rd_ps;
            let wire_start = data_at.max(nic.wire_free);
            nic.wire_free = wire_start + ((mb.len + 20) as f64 * 8000.0 / nic.line_rate_gbps) as u64;
            let done = nic.wire_free;
            let tx = &mut nic.queues[q].tx;
            tx.done[slot] = done;
            tx.reads.push_back((data_at, payload));
            tx.read_bytes += payload;
            let app = self.cores[nic.queues[q].core].app;
            if done >= self.warm_ps && done < self.end_ps {
                let st = &mut self.apps[app].stats;
                st.tx_packets += 1;
                st.tx_bytes += mb.len as u64;
                if mb.arrival_ps >= self.warm_ps {
                    st.latency.record(done - mb.arrival_ps);
                }
            }
        }
    }

    /// One µs of a co-runner: it issues its accesses in sequence, each taking its latency over the
    /// core's fill buffers, so a co-runner that misses a lot issues fewer accesses (closed loop).
    fn on_corunner(&mut self, c: usize) {
        let now = self.now;
        let app = self.cores[c].app;
        let (base, lines, rate) = (self.apps[app].ws_base, self.apps[app].ws_lines as u64, self.apps[app].accesses_per_us);
        self.cores[c].rate_acc += rate;
        let want = self.cores[c].rate_acc.floor();
        self.cores[c].rate_acc -= want;
        let mut t = self.cores[c].busy_until.max(now);
        let mut issued = 0u64;
        while issued < want as u64 && t < now + PS_PER_US {
            let line = base + self.rng.below(lines) as u32;
            let write = self.rng.below(4) == 0;
            t += self.core_mem(c, line, write, t) / FILL_BUFFERS;
            issued += 1;
        }
        self.cores[c].busy_until = t;
        if self.in_window(now) {
            self.apps[app].stats.accesses += issued;
        }
        self.schedule(now + PS_PER_US, Ev::CoRunner(c as u16));
    }

    // -------------------------------------------------------------------------------------------
    // Results
    // -------------------------------------------------------------------------------------------

    pub fn metrics(&self) -> crate::result::Metrics {
        use crate::result::*;
        let dur_s = (self.end_ps - self.warm_ps) as f64 * 1e-12;
        let gbps = |bytes: f64| bytes * 8.0 / dur_s / 1e9;
        let rate = |h: u64, m: u64| if h + m == 0 { None } else { Some(h as f64 / (h + m) as f64) };
        let mut all = Histogram::default();
        let mut apps = BTreeMap::new();
        let (mut tx_p, mut tx_b, mut rx_p) = (0u64, 0u64, 0u64);
        for a in &self.apps {
            let s = &a.stats;
            all.merge(&s.latency);
            let (dropped, pause) = a.nic.map(|n| (self.nics[n].stats.dropped, self.nics[n].stats.pause_frames)).unwrap_or((0, 0));
            if a.kind != AppKind::CacheHungry {
                tx_p += s.tx_packets;
                tx_b += s.tx_bytes;
                rx_p += s.rx_packets;
            }
            apps.insert(
                a.name.clone(),
                AppMetrics {
                    kind: a.kind,
                    throughput_gbps: gbps(s.tx_bytes as f64),
                    throughput_mpps: s.tx_packets as f64 / dur_s / 1e6,
                    rx_packets: s.rx_packets,
                    tx_packets: s.tx_packets,
                    dropped_packets: dropped,
                    pause_frames: pause,
                    latency_ns: LatencyNs::from_hist(&s.latency),
                    llc_accesses: s.llc_accesses,
                    llc_misses: s.llc_misses,
                    llc_miss_rate: (s.llc_accesses > 0).then(|| s.llc_misses as f64 / s.llc_accesses as f64),
                    llc_misses_per_us: s.llc_misses as f64 / (dur_s * 1e6),
                    accesses: s.accesses,
                },
            );
        }
        let mut nics = BTreeMap::new();
        for n in &self.nics {
            let link = 8000.0 / n.ps_per_pcie_byte; // Gb/s
            nics.insert(
                n.name.clone(),
                NicMetrics {
                    rx_packets: n.stats.rx_packets,
                    dropped_packets: n.stats.dropped,
                    pause_frames: n.stats.pause_frames,
                    pcie_d2h_utilization: gbps(n.stats.d2h_bytes) / link,
                    pcie_h2d_utilization: gbps(n.stats.h2d_bytes) / link,
                    ddio: n.ddio,
                },
            );
        }
        let mem_r: u64 = self.sockets.iter().map(|s| s.mem.read_lines).sum();
        let mem_w: u64 = self.sockets.iter().map(|s| s.mem.write_lines).sum();
        Metrics {
            pcie_write_hit_rate: rate(self.c.wr_hit, self.c.wr_miss),
            pcie_read_hit_rate: rate(self.c.rd_hit, self.c.rd_miss),
            pcie_write_lines: self.c.wr_hit + self.c.wr_miss,
            pcie_read_lines: self.c.rd_hit + self.c.rd_miss,
            dma_write_bypass_lines: self.c.wr_bypass,
            offered_gbps: gbps(self.c.offered_bytes as f64),
            offered_mpps: self.c.offered_packets as f64 / dur_s / 1e6,
            throughput_gbps: gbps(tx_b as f64),
            throughput_mpps: tx_p as f64 / dur_s / 1e6,
            rx_packets: rx_p,
            tx_packets: tx_p,
            dropped_packets: self.nics.iter().map(|n| n.stats.dropped).sum(),
            pause_frames: self.nics.iter().map(|n| n.stats.pause_frames).sum(),
            latency_ns: LatencyNs::from_hist(&all),
            memory_read_gbps: gbps(mem_r as f64 * 64.0),
            memory_write_gbps: gbps(mem_w as f64 * 64.0),
            ddio_allocations: self.sockets.iter().map(|s| s.hier.stats.io_allocations).sum(),
            ddio_evictions: self.sockets.iter().map(|s| s.hier.stats.io_evictions).sum(),
            apps,
            nics,
        }
    }

    pub fn resolved(&self) -> &Resolved {
        &self.resolved
    }

    /// Where every frame is now, per NIC, for [`crate::invariants`].
    pub(crate) fn ledger(&self) -> Vec<crate::invariants::NicLedger> {
        self.nics
            .iter()
            .map(|n| crate::invariants::NicLedger {
                name: n.name.clone(),
                arrived: n.arrived_all,
                dropped: n.dropped_all,
                buffered: n.queues.iter().map(|q| q.backlog.len() as u64).sum(),
                buffered_bytes: n.queues.iter().flat_map(|q| q.backlog.iter().map(|p| p.len as u64)).sum(),
                buf_bytes: n.buf_bytes,
                buf_cap: n.buf_cap,
                queues: n
                    .queues
                    .iter()
                    .map(|q| {
                        let core = &self.cores[q.core];
                        crate::invariants::QueueLedger {
                            rx_n: q.rx.n,
                            rx_nic_pos: q.rx.nic_pos,
                            rx_sw_pos: q.rx.sw_pos,
                            rx_posted: q.rx.posted,
                            at_core: (core.burst.len() - core.burst_pos.min(core.burst.len()) + core.tx_pending.len()) as u64,
                            tx_n: q.tx.n,
                            tx_head: q.tx.head,
                            tx_clean: q.tx.clean,
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}
