//! The discrete-event engine: traffic → NIC → attachment (PCIe, on-die, coherent link or memory
//! channel) → memory system (I/O hub, DDIO, LLC, DRAM) → cores → TX.
//!
//! # Time and order
//! Integer picoseconds; a binary heap ordered by (time, sequence number) so ties are broken in
//! insertion order; every random draw of the model comes from RNGs derived from the run seed (the engine's,
//! each socket's cache hierarchy's, each memory-channel zone's); the generic slice maps are
//! shuffled once with a fixed seed, as a processor's hash is fixed (`cache::SEQ_SEED`). Events are per packet: `Arrival` (a frame has fully arrived at a
//! NIC), `Core` (a poll-mode core finishes its current step), `TxFetch` (the NIC reads posted TX
//! descriptors), `Posted` (RX descriptors a core wrote reach a NIC whose frames wait for them), `CoRunner` (1 µs of a
//! co-runner's accesses), `NicDrain`, `PauseRefresh` and `Warmup`. Cache work inside an event
//! runs line by line.
//!
//! # Parts
//! * `traffic`: generators, trains, captures replayed, RSS and flow-director steering;
//! * `nic`: rings, the NIC buffer, drops and PAUSE, the TX fetch window;
//! * `attach`: how frames cross to the host and back;
//! * `memsys`: every access to simulated memory;
//! * `cores`: poll-mode forwarders and co-runners, and where a packet's time goes.
//!
//! Programs start warm: working sets, mbuf metadata and the descriptor rings the host keeps
//! (not those it flushes to the NIC) are touched once before traffic starts; of a working set
//! larger than the caches, only its last lines.
mod cores;
mod nic;
mod traffic;

use crate::attach::{Attachment, Window};
use crate::cache::{HierParams, Hierarchy};
use crate::config::{full_mask, Attach, AppKind, PcapTiming, Resolved};
use crate::ConfigError;
use crate::hist::Histogram;
use crate::mem::{Mba, Memory};
use crate::attach::pcie::{CQE_BYTES, RX_DESC_BYTES, TX_WQE_BYTES};
use crate::memsys::{AddressSpace, MemSys, Region, Socket, Timing, LINES_PER_PAGE, ZONE_BASE};
use crate::mempool::Mempool;
use crate::rng::{mix64, Rng};
use cores::{App, AppStats, Core};
use nic::{Nic, NicStats, Queue, RxRing, TxRing};
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use traffic::{Gen, Sizes};

const PS_PER_US: u64 = 1_000_000;
/// Packets per `rte_eth_rx_burst` call and per TX burst (DPDK's sample applications'
/// `MAX_PKT_BURST` = 32, e.g. `examples/l2fwd/main.c`).
const BURST: usize = 32;
/// DPDK mbuf object: 64 B mempool header + 128 B rte_mbuf + 128 B headroom, then the data room
/// ([`mbuf_stride`]).
const MBUF_META_OFF: u64 = 64;
const MBUF_DATA_OFF: u64 = 320;
/// The largest frame any source sends, bytes (FCS included): a 9000 B jumbo MTU plus the 14 B
/// Ethernet header and 4 B FCS. A capture's frames are not known before it is read.
const MAX_FRAME: u32 = 9018;

/// Bytes per mbuf object of a pool whose NIC receives frames of up to `largest` bytes (FCS
/// included; a buffer holds the frame without it): the data room is DPDK's default 2048 B
/// (`RTE_MBUF_DEFAULT_DATAROOM`), or, for larger frames, the frame rounded up to 1 KiB (9 KiB for
/// 9018 B), as jumbo-frame setups size their mbufs (testpmd's `--mbuf-size`), so that each frame
/// stays in its own buffer. Receiving a jumbo frame scattered over chained 2 KiB mbufs, DPDK's
/// other way, is not simulated.
fn mbuf_stride(largest: u32) -> u64 {
    let data = largest.saturating_sub(4) as u64;
    let room = if data <= 2048 { 2048 } else { data.div_ceil(1024) * 1024 };
    MBUF_DATA_OFF + room
}
/// Per-core mempool cache, buffers: DPDK's l2fwd example (`MEMPOOL_CACHE_SIZE 256`).
const MEMPOOL_CACHE: usize = 256;
/// A `copy` app's own buffers per core: one per packet of a burst, reused burst after burst (a
/// socket reader's receive buffers), each as large as the largest frame (9018 B) allows, rounded
/// up to 9 KiB (whole lines, like the 9 KiB receive buffers of jumbo-frame setups).
const COPY_SLOTS: u32 = BURST as u32;
const COPY_SLOT_BYTES: u64 = 9216;
/// PAUSE quanta 0xFFFF × 512 bit times: the largest an 802.3x PAUSE frame carries. An estimate,
/// as is refreshing it every half pause (`engine::nic`): ConnectX-5's firmware quanta and refresh
/// policy are not published.
const PAUSE_QUANTA_BITS: f64 = 65535.0 * 512.0;

/// A forwarder's own code and data (FastClick's element graph and per-element state, the PMD's
/// queue structures), MiB: twice the Skylake-SP L2, so part of it lives in the LLC within the
/// app's CAT ways. An estimate; the DDIO paper's Fig. 3 shows the I/O app's misses rising when a
/// co-runner shares its CAT ways, so its working set does reach the LLC. It is the software's
/// size, so it is the same on every platform (8× Haswell-EP's 256 KiB L2, 1.6× Ice Lake-SP's
/// 1.25 MiB): sized against the Skylake-SP testbed's L2, where the DDIO paper observed it.
const FORWARDER_WS_MIB: f64 = 2.0;

/// Per-packet work of the application kinds, in core cycles, beyond the memory accesses that are
/// simulated explicitly. Calibrated on the DDIO paper's testbed: one 2.3 GHz Skylake core running
/// FastClick L2 forwarding receives 1024 B frames at ~82 Gb/s with 4096 RX descriptors (§4.1;
/// Fig. 5's caption: 82–86 Gb/s), i.e. ~10 Mpps; with 88 cycles plus its simulated accesses
/// (completions, metadata, rings, its header's prefetch, the header, two accesses to its own
/// working set: a load, then a store, the MAC write) hostio's forwarder gets ~85 Gb/s there
/// (84.8–84.9 Gb/s over five seeds, ~96 ns per packet), measured as `scenarios/ddio/single_core.toml` does (6 ms of warm-up,
/// 3 ms measured; a 1 ms warm-up leaves the 4096-descriptor ring still filling: ~83 Gb/s).
/// The 90 Gb/s one-core ceiling at 1500 B is the NIC's, not the core's
/// (see `tx_read_window_kib`). A doubt on that attribution at 1024 B: the paper's artifact, whose
/// DUT ran at 3 GHz, forwards 1024 B frames at about the same rate (84.4–86.9 Gb/s counting
/// 24 B of framing, 10.1–10.4 Mpps, `hostio.testbed`) while its one core forwards 512 B frames at
/// 15.6 Mpps, and at 1024 B the generator's latency less its own queue grows by ~100 µs more than
/// one RX ring's (a full software TX queue, 1024 packets): so at 1024 B the testbed's core may be
/// held by its transmit side, and hostio's 88 cycles then overstate its per-packet work. The
/// stateful chain (router + NAPT + load balancer; the paper
/// offloads the router's table to the NIC, so the cores run NAPT and the load balancer): 1780
/// cycles plus its flow-table accesses, calibrated on the DDIO paper's Fig. 12, whose caption
/// gives the forwarded rate: 94 Gb/s of the 100 Gb/s campus mix on 18 cores under load-aware
/// rules (2.78× imbalance), so the busiest core was saturated. Read as a share of the offered
/// (94 %), as the paper's generator counts both rates alike (the artifact's FastClick counts
/// 24 B of framing per packet, `hostio.testbed`; for Fig. 12 this is an inference), while
/// hostio's throughput counts frame bytes. With 1780 cycles hostio's chain forwards 94.1 % of
/// what it is offered there (`scenarios/ddio/stateful_chain.toml`, five seeds: 93.5–95.1 %).
/// Under round-robin rules (1.69×; 97 Gb/s in the paper) the busiest queue then sits just
/// within a core's capacity (hostio's imbalance has one hot queue and spreads the rest evenly),
/// so almost nothing is lost and that point's p99 swings with the seed.
fn base_cycles(kind: AppKind) -> u64 {
    match kind {
        AppKind::L2fwd | AppKind::Compute | AppKind::Copy => 88,
        AppKind::StatefulChain => 1780,
        AppKind::CacheHungry => 0,
    }
}
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ev {
    Warmup,
    Arrival(u16),
    Core(u16),
    CoRunner(u16),
    PauseRefresh(u16),
    NicDrain(u16),
    /// The NIC fetches posted TX descriptors of (nic, queue).
    TxFetch(u16, u16),
    /// RX descriptors a core posted reach the NIC of (nic, queue), where frames wait for them.
    Posted(u16, u16),
}

/// An event in the heap at time `key >> 64`, scheduled `key as u64`-th: the key orders by time,
/// then by scheduling order (ties in insertion order), with one comparison. `BinaryHeap` is a
/// max-heap, so the order is reversed.
#[derive(Clone, Copy)]
struct Scheduled {
    key: u128,
    ev: Ev,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.cmp(&self.key)
    }
}

#[derive(Clone, Copy, Default)]
struct Mbuf {
    meta_line: u32,
    data_line: u32,
    arrival_ps: u64,
    len: u32,
    flow: u32,
    /// When the NIC took the frame out of its buffer, and when its completion became visible.
    t_dma: u64,
    t_ready: u64,
    /// When its header line, prefetched by its RX burst, is in the core's L2.
    hdr_at: u64,
    /// The core's memory accesses (from waiting for its prefetched header on) and cycles for it.
    mem_ps: u64,
    cyc_ps: u64,
    /// The host's flushes of handed-over lines its TX doorbell waited for, and the invalidations
    /// of completion lines its RX burst waited for.
    flush_ps: u64,
    /// Copying it into the app's buffer (`copy` apps).
    copy_ps: u64,
}

/// An app's own code and data, MiB: its `working_set_mib`, else its kind's default: the
/// forwarders' `FORWARDER_WS_MIB`, and 16 MiB of flow state for the stateful chain (an estimate:
/// NAPT and load-balancer tables for the campus trace's flows, which the paper does not size).
pub(crate) fn app_ws_mib(a: &crate::config::AppCfg) -> f64 {
    a.working_set_mib.unwrap_or(match a.kind {
        AppKind::StatefulChain => 16.0,
        AppKind::L2fwd | AppKind::Compute | AppKind::Copy => FORWARDER_WS_MIB,
        AppKind::CacheHungry => 0.0,
    })
}

/// Lines an I/O app accesses per packet: its `accesses_per_packet`, else its kind's default,
/// estimates: the chain's NAPT and load-balancer state (four lines; the router's table is in the
/// NIC); a forwarder's element graph and port tables (two).
pub(crate) fn app_accesses_per_packet(a: &crate::config::AppCfg) -> u32 {
    a.accesses_per_packet.unwrap_or(if a.kind == AppKind::StatefulChain { 4 } else { 2 })
}

/// `a` with the defaults the engine applies written in
/// ([`crate::config::Resolved::effective_scenario`]): its CAT mask (all `llc_ways` ways), and for
/// the I/O kinds its mempool's socket (unless its buffers live in its NIC's own DRAM,
/// `own_dram`: a memory-channel NIC, where the key stays unset), working set, accesses and extra
/// cycles per packet.
pub fn effective_app(a: &crate::config::AppCfg, llc_ways: u32, own_dram: bool) -> crate::config::AppCfg {
    let mut e = a.clone();
    e.cat_mask = Some(a.cat_mask.unwrap_or(full_mask(llc_ways)));
    if a.kind != AppKind::CacheHungry {
        if !own_dram {
            e.mempool_socket = Some(a.mempool_socket.unwrap_or(a.socket));
        }
        e.working_set_mib = Some(app_ws_mib(a));
        e.accesses_per_packet = Some(app_accesses_per_packet(a));
        e.cycles_per_packet = Some(a.cycles_per_packet.unwrap_or(0));
    }
    e
}

/// Packet buffers in an app's mempool: every RX and TX slot of its cores, two bursts each and
/// the per-core caches' flush thresholds, at least 8192 (DPDK's sample applications size their
/// pools at 8191 mbufs, `NUM_MBUFS` in `examples/skeleton/basicfwd.c`; rounded up to 8192).
/// FastClick, which the DDIO paper's testbed ran, defaults to 65536 (`DPDKDevice::NB_MBUF`);
/// hostio keeps the sample applications' sizing, an assumption: buffers pass through the pool's
/// shared ring only when a core's cache overflows or runs dry, and how much the larger pool would
/// move the reproduction's hit rates is not measured.
fn mempool_count(cores: u64, rx: u64, tx: u64) -> u64 {
    (cores * (rx + tx + 2 * BURST as u64) + cores * (MEMPOOL_CACHE as u64 * 3 / 2)).max(8192)
}

/// The largest frame of a traffic source, bytes: its fixed size, or its mix's largest (0 for a
/// capture: see [`largest_received`]).
pub(crate) fn largest_frame(t: &crate::config::TrafficCfg) -> u32 {
    match (t.packet_size, t.size_mix) {
        (Some(s), _) => s,
        (None, Some(m)) => traffic::mix_table(m).iter().map(|&(_, s)| s).max().unwrap_or(0),
        (None, None) => 0,
    }
}

/// The largest frame NIC `nic` receives from the scenario's sources: a capture's largest frame
/// when `captures` holds it (by source name), else [`MAX_FRAME`] for a capture.
pub(crate) fn largest_received(
    sc: &crate::config::Scenario,
    nic: &str,
    captures: &BTreeMap<String, std::sync::Arc<crate::pcap::Capture>>,
) -> u32 {
    let of = |(name, t): (&String, &crate::config::TrafficCfg)| match (&t.pcap, captures.get(name)) {
        (Some(_), Some(c)) => c.frames.iter().map(|f| f.len).max().unwrap_or(0),
        (Some(_), None) => MAX_FRAME,
        _ => largest_frame(t),
    };
    sc.traffic.iter().filter(|(_, t)| t.nic == nic).map(of).max().unwrap_or(0)
}

/// Upper bounds of the 2 MiB pages [`Engine::new`] lays out for one app (each region rounded up
/// to whole pages): (pages outside DPDK: working set and a `copy` app's buffers; DPDK pages:
/// mempool and per-core rings). Validation checks the sum against the 64 GiB of simulated
/// physical memory, with each home's DPDK pages in whole 1 GiB hugepages (see [`AddressSpace`]).
/// `largest`: the largest frame the app's NIC receives ([`mbuf_stride`]).
pub(crate) fn app_pages_bound(a: &crate::config::AppCfg, nic: Option<&crate::config::NicCfg>, largest: u32) -> (u64, u64) {
    let pages = |bytes: u64| bytes.div_ceil(LINES_PER_PAGE as u64 * 64) + 1;
    let ws = app_ws_mib(a);
    let mut other = if ws > 0.0 { pages((ws * 1024.0 * 1024.0) as u64) } else { 0 };
    let mut dpdk = 0;
    if let Some(nc) = nic {
        let (q, rx, tx) = (a.cores as u64, nc.rx_descriptors as u64, nc.tx_descriptors as u64);
        dpdk = pages(mempool_count(q, rx, tx) * mbuf_stride(largest)) + q * (pages(rx * RX_DESC_BYTES) + pages(rx * CQE_BYTES) + pages(tx * TX_WQE_BYTES) + 2 * pages(4096));
        if a.kind == AppKind::Copy {
            other += q * pages(COPY_SLOTS as u64 * COPY_SLOT_BYTES);
        }
    }
    (other, dpdk)
}

/// Traffic offered to the NICs since the warm-up.
#[derive(Default, Clone)]
struct Offered {
    offered_bytes: u64,
    offered_packets: u64,
}

/// Simulator state for one run.
pub struct Engine {
    now: u64,
    seq: u64,
    heap: BinaryHeap<Scheduled>,
    rng: Rng,
    warm_ps: u64,
    end_ps: u64,
    /// Where the current `advance` call stops.
    stop: u64,
    pub events: u64,
    /// Drop arrivals in a loop while no queue can take them ([`traffic`]'s `drop_until`); off only
    /// in the test that checks the loop against handling every arrival in full.
    pub(crate) drop_loop: bool,
    mem: MemSys,
    nics: Vec<Nic>,
    gens: Vec<Gen>,
    cores: Vec<Core>,
    apps: Vec<App>,
    mbufs: Vec<Mbuf>,
    pools: Vec<Mempool>,
    c: Offered,
    resolved: Resolved,
}

/// The error of a scenario whose state the host's memory cannot hold (`what`, for example
/// "4.2 GiB of simulated memory").
fn host_short(what: String) -> ConfigError {
    ConfigError::new("apps", what, "as much as this host's memory holds; use smaller working sets, fewer or smaller rings, or fewer cores")
}

/// `n` zeroed ring entries, or [`host_short`] when the host's memory cannot hold them.
fn zeroed<T: Clone + Default>(n: u64) -> Result<Vec<T>, ConfigError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n as usize).map_err(|_| host_short(format!("rings of {n} descriptors")))?;
    v.resize(n as usize, T::default());
    Ok(v)
}

impl Engine {
    /// Fails when the host's memory cannot hold the simulated lines' state (8 B per line for
    /// their physical addresses while building, and 8 B per line for each socket in use), the
    /// packet buffers' records or the rings.
    /// Captures not loaded yet ([`Resolved::load_captures`]) are read here.
    pub fn new(mut r: Resolved) -> Result<Engine, ConfigError> {
        r.load_captures()?;
        let sc = &r.scenario;
        let plat = &r.platform;
        let nsock = sc.platform.sockets as usize;
        let mut rng = Rng::new(sc.run.seed);
        let mut space = AddressSpace::new();
        let nic_index: BTreeMap<&str, usize> = sc.nics.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
        // Memory-channel NICs bring their DRAM as memory zones and coherent NICs their caches,
        // each numbered in NIC order.
        let mut zone_of_nic = vec![usize::MAX; sc.nics.len()];
        let mut slot_of_nic = vec![0; sc.nics.len()];
        let mut zones = Vec::new();
        let mut coherent = 0;
        for (ni, n) in sc.nics.values().enumerate() {
            if n.attachment == Attach::MemoryChannel {
                zone_of_nic[ni] = zones.len();
                slot_of_nic[ni] = zones.len();
                zones.push(crate::attach::memchan::Zone::new(n, plat, mix64(mix64(sc.run.seed ^ 0x6e63) ^ ni as u64)));
            } else if n.attachment == Attach::Coherent {
                slot_of_nic[ni] = coherent;
                coherent += 1;
            }
        }

        // ---- apps, cores, mempools and rings (address layout first) --------------------------
        let mut apps = Vec::new();
        let mut cores: Vec<Core> = Vec::new();
        let mut pools = Vec::new();
        let mut mbufs: Vec<Mbuf> = Vec::new();
        let mut per_socket_cores = vec![0usize; nsock];
        let mut nic_queues: Vec<Vec<Queue>> = sc.nics.keys().map(|_| Vec::new()).collect();
        let mut cat_of_core = Vec::new();
        for (ai, (name, a)) in sc.apps.iter().enumerate() {
            let nic = a.nic.as_deref().map(|n| nic_index[n]);
            // Packet buffers and rings: in the app's (or its mempool's) socket memory, or in the
            // DRAM of a memory-channel NIC.
            let home = match nic.map(|ni| zone_of_nic[ni]) {
                Some(z) if z != usize::MAX => ZONE_BASE + z as u8,
                _ => a.mempool_socket.unwrap_or(a.socket) as u8,
            };
            let mut ws_base = 0;
            let mut ws_lines = 0;
            let ws_mib = app_ws_mib(a);
            // Every second access per packet is a store (an estimate: the app updates its state,
            // e.g. counters or flow entries, as often as it reads it).
            if ws_mib > 0.0 {
                let bytes = (ws_mib * 1024.0 * 1024.0) as u64;
                ws_base = space.alloc(bytes, a.socket as u8, Region::Other);
                ws_lines = bytes.div_ceil(64) as u32;
            }
            let mut pool_idx = usize::MAX;
            if nic.is_some() {
                let nc = &sc.nics[a.nic.as_deref().unwrap()];
                let q = a.cores as u64;
                let count = mempool_count(q, nc.rx_descriptors as u64, nc.tx_descriptors as u64);
                let stride = mbuf_stride(largest_received(sc, a.nic.as_deref().unwrap(), &r.captures));
                let base = space.alloc(count * stride, home, Region::Dpdk) as u64 * 64;
                let first = mbufs.len() as u32;
                mbufs.try_reserve_exact(count as usize).map_err(|_| host_short(format!("{} packet buffers", mbufs.len() as u64 + count)))?;
                for i in 0..count {
                    let obj = base + i * stride;
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
                let mut copy_line = 0;
                if let Some(ni) = nic {
                    let nc = &sc.nics[a.nic.as_deref().unwrap()];
                    let rxn = nc.rx_descriptors as u64;
                    let txn = nc.tx_descriptors as u64;
                    let desc_line = space.alloc(rxn * RX_DESC_BYTES, home, Region::Dpdk);
                    let cq_line = space.alloc(rxn * CQE_BYTES, home, Region::Dpdk);
                    let wqe_line = space.alloc(txn * TX_WQE_BYTES, home, Region::Dpdk);
                    let txcq_line = space.alloc(crate::attach::TX_CQ_LINES as u64 * 64, home, Region::Dpdk);
                    let idx_line = if nc.attachment == Attach::Coherent { space.alloc(128, home, Region::Dpdk) } else { 0 };
                    // A `copy` app's buffers: in the NIC's DRAM when the NIC clones into them,
                    // else in the app's socket memory.
                    if a.kind == AppKind::Copy {
                        copy_line = space.alloc(COPY_SLOTS as u64 * COPY_SLOT_BYTES, if nc.clones() { home } else { a.socket as u8 }, Region::Other);
                    }
                    queue = nic_queues[ni].len();
                    nic_queues[ni].push(Queue {
                        core: ci,
                        idx_line,
                        rx: RxRing {
                            n: rxn,
                            mbuf: zeroed(rxn)?,
                            ready: zeroed(rxn)?,
                            nic_pos: 0,
                            sw_pos: 0,
                            posted: 0,
                            visible: 0,
                            posts: VecDeque::new(),
                            post_event_at: u64::MAX,
                            desc_line,
                            cq_line,
                            cq: zeroed(rxn)?,
                        },
                        tx: TxRing {
                            n: txn,
                            mbuf: zeroed(txn)?,
                            done: zeroed(txn)?,
                            ready: zeroed(txn)?,
                            head: 0,
                            fetch: 0,
                            clean: 0,
                            reads: VecDeque::new(),
                            read_bytes: 0,
                            fetch_at: u64::MAX,
                            wire_ready: zeroed(txn)?,
                            last_ready: 0,
                            wqe_line,
                            cq_line: txcq_line,
                            seg_next: 0,
                            seg: zeroed(txn)?,
                            segs: zeroed(txn)?,
                            comp_ends: VecDeque::new(),
                            block_start: 0,
                            block_segs: 0,
                            comps: 0,
                            cqe: zeroed(txn)?,
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
                    copy_line,
                    copy_slot: 0,
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
                accesses_per_packet: app_accesses_per_packet(a),
                accesses_per_us: a.accesses_per_us.unwrap_or(0.0),
                stats: AppStats::default(),
            });
        }

        // ---- physical placement and hierarchies -----------------------------------------------
        let pages = space.next_page as usize;
        assert!(pages as u64 <= crate::config::PHYS_PAGES, "scenario validation bounds the simulated memory to 64 GiB");
        let lines = pages * LINES_PER_PAGE as usize;
        let too_big = || {
            let gb = lines as f64 * 8.0 / 1e9;
            host_short(format!(
                "{:.1} GiB of simulated memory ({gb:.1} GB of host memory per socket in use, {gb:.1} GB more while building)",
                lines as f64 * 64.0 / (1u64 << 30) as f64
            ))
        };
        let pa_lines = space.pa_lines(&mut rng).map_err(|_| too_big())?;
        let used_sockets: Vec<bool> = (0..nsock)
            .map(|s| space.page_home.contains(&(s as u8))
                || cat_of_core.iter().any(|c| c.0 == s)
                || sc.nics.values().any(|n| n.socket as usize == s))
            .collect();
        let mut sockets: Vec<Socket> = Vec::with_capacity(nsock);
        for (s, &used) in used_sockets.iter().enumerate() {
            let mut hier = Hierarchy::new(
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
                    hash: plat.slice_hash,
                    adaptive_io: sc.platform.ddio_insertion == crate::config::DdioInsertion::Adaptive,
                },
                &[],
            );
            // A socket nothing uses gets no directory (and its arrays stay untouched).
            if used {
                hier.try_reserve_lines(pa_lines.len()).map_err(|_| too_big())?;
                hier.add_lines(&pa_lines);
            }
            sockets.push(Socket { hier, mem: Memory::new(plat.dram_latency_ns, plat.memory_bandwidth_gbyte_s, &plat.dram_load_curve), used });
        }
        drop(pa_lines);
        for &(s, local, cat) in &cat_of_core {
            sockets[s].hier.set_cat(local, cat);
        }

        // ---- NICs and traffic ------------------------------------------------------------------
        let mut nics = Vec::new();
        let nic_queues_len: Vec<usize> = nic_queues.iter().map(|q| q.len()).collect();
        for (ni, (name, n)) in sc.nics.iter().enumerate() {
            let cap = n.buffer_kib as u64 * 1024;
            let attach = Attachment::new(n, plat, nic_queues_len[ni], slot_of_nic[ni]);
            nics.push(Nic {
                name: name.clone(),
                kind: n.attachment.name(),
                socket: n.socket as usize,
                // A coherent or memory-channel NIC's writes do not go through the I/O hub.
                ddio: n.ddio.unwrap_or(sc.platform.ddio) && r.io_mask != 0 && matches!(n.attachment, Attach::Pcie | Attach::Integrated),
                io_mask: n.ddio_mask.unwrap_or(r.io_mask),
                ddio_lines: n.ddio_lines.unwrap_or(u32::MAX),
                stash_lines: n.stash_lines.unwrap_or(0),
                line_rate_gbps: n.line_rate_gbps,
                tx_release: n.tx_release,
                tx_read_window: n.tx_read_window_kib as u64 * 1024,
                rings: attach.rings(),
                attach,
                queues: std::mem::take(&mut nic_queues[ni]),
                buf_bytes: 0,
                buf_cap: cap,
                pause: n.pause_frames,
                // PAUSE thresholds: estimates (the NIC's firmware thresholds are not published):
                // XOFF with a quarter of the buffer left, which holds what a 100 GbE link still
                // delivers while the PAUSE travels (a few KiB at ~100 m of fibre and the
                // partner's frame in flight) many times over; XON at half, a hysteresis so that
                // a draining buffer does not toggle PAUSE frame by frame.
                xoff: cap * 3 / 4,
                xon: cap / 2,
                pausing: false,
                pause_until: 0,
                refresh_at: 0,
                drain_at: u64::MAX,
                drain_next: 0,
                quanta_ps: (PAUSE_QUANTA_BITS / n.line_rate_gbps * 1000.0) as u64,
                wire_free: 0,
                wire_waiting: std::collections::BinaryHeap::new(),
                wire_seq: 0,
                stats: NicStats::default(),
                arrived_all: 0,
                dropped_all: 0,
            });
        }
        let mut gens = Vec::new();
        for (gi, (tname, t)) in sc.traffic.iter().enumerate() {
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
            // Arbitrary start staggers (997 ps apart) so that sources do not start in lockstep.
            let start = (gi as u64 * 997) as f64;
            gens.push(Gen {
                nic: ni,
                ps_per_wire_byte: 8000.0 / rate,
                ps_per_line_byte: 8000.0 / sc.nics[&t.nic].line_rate_gbps,
                sizes: match (t.packet_size, t.size_mix, r.captures.get(tname)) {
                    (Some(s), _, _) => Sizes::Fixed(s),
                    (None, Some(m), _) => Sizes::Mix(traffic::mix_table(m)),
                    (None, None, Some(cap)) => {
                        // With its own timing, a rate scales the capture's gaps to it (checked: the
                        // capture has a mean rate).
                        let timed = t.pcap_timing == PcapTiming::Capture;
                        let scale = t.rate_gbps.filter(|_| timed).and_then(|r| cap.mean_gbps().map(|m| m / r)).unwrap_or(1.0);
                        Sizes::Capture { cap: cap.clone(), pos: 0, timed, scale }
                    }
                    _ => unreachable!("validated, captures loaded"),
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
                next_len: 0,
                next_at: start as u64,
                held: false,
            });
        }

        let t = Timing::of(plat);
        let mut mem = MemSys::new(sockets, space.page_home, zones, coherent, t);
        for n in &nics {
            if let Attachment::Coherent(a) = &n.attach {
                mem.line_ps[a.dev()] = a.line_ps();
                mem.reader_homed[a.dev()] = a.reader_homed();
                mem.dev_socket[a.dev()] = n.socket;
            }
        }
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
            drop_loop: true,
            mem,
            nics,
            gens,
            cores,
            apps,
            mbufs,
            pools,
            c: Offered::default(),
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
                // An arbitrary start stagger (13 ps per core) so that co-runners do not run in lockstep.
                e.schedule(c as u64 * 13, Ev::CoRunner(c as u16));
            }
        }
        Ok(e)
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
                self.nics[ni].queues[q].rx.visible = n;
            }
        }
    }

    /// Programs have been running before the measured traffic starts: each app's working set,
    /// its mbufs' metadata and its queues' descriptor rings are touched once by its cores
    /// (round-robin), so they start where the cores and CAT ways would hold them rather than cold
    /// in DRAM. (Packet data stays cold: the NIC writes it.) Rings a host flushes to its NIC
    /// after writing them (`Rings::flush_handover`) are not touched: in steady state every line
    /// of them was flushed one lap before, so each lap's first write fetches it again.
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
                    let rings = self.nics[ni].rings;
                    // Rings flushed to the NIC start out of the caches (see above).
                    let handed = rings.flush_handover;
                    // The flushes follow one descriptor per slot; eMPW's segments are not flushed.
                    debug_assert!(!(handed && rings.empw), "a flushed ring with eMPW WQEs");
                    let rx_lines = if handed || rings.rx_desc_per_line == 0 { 0 } else { qu.rx.n.div_ceil(rings.rx_desc_per_line) as u32 };
                    let cq_lines = qu.rx.n.div_ceil(rings.cq_per_line) as u32;
                    let wqe_lines = if handed { 0 } else { qu.tx.n.div_ceil(rings.tx_desc_per_line) as u32 };
                    by_core[k].extend((0..rx_lines).map(|l| qu.rx.desc_line + l));
                    by_core[k].extend((0..cq_lines).map(|l| qu.rx.cq_line + l));
                    by_core[k].extend((0..wqe_lines).map(|l| qu.tx.wqe_line + l));
                }
                let (s, local) = (self.cores[c].socket, self.cores[c].local);
                for &l in &by_core[k] {
                    self.mem.sockets[s].hier.core_access(local, l, false);
                    self.mem.sockets[s].hier.take_writebacks();
                }
            }
        }
    }

    #[inline]
    fn schedule(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Scheduled { key: (t as u128) << 64 | self.seq as u128, ev });
    }

    /// Time of the earliest pending event (`u64::MAX`: none).
    #[inline]
    fn next_event_at(&self) -> u64 {
        self.heap.peek().map_or(u64::MAX, |r| (r.key >> 64) as u64)
    }

    #[inline]
    fn in_window(&self, t: u64) -> bool {
        t >= self.warm_ps && t < self.end_ps
    }

    #[inline]
    fn window(&self) -> Window {
        Window { warm: self.warm_ps, end: self.end_ps }
    }

    /// Run until simulated time `until_ps` (or the end). Returns true when the run is finished.
    pub fn advance(&mut self, until_ps: u64) -> bool {
        let stop = until_ps.min(self.end_ps);
        self.stop = stop;
        while let Some(&Scheduled { key, ev }) = self.heap.peek() {
            let t = (key >> 64) as u64;
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
                Ev::Posted(n, q) => self.on_posted(n as usize, q as usize),
                Ev::Warmup => self.on_warmup(),
            }
        }
        self.now = self.now.max(stop);
        for ni in 0..self.nics.len() {
            self.settle_wire(ni, stop);
        }
        stop >= self.end_ps || self.heap.is_empty()
    }

    pub fn now(&self) -> u64 {
        self.now
    }

    pub fn end_ps(&self) -> u64 {
        self.end_ps
    }

    fn on_warmup(&mut self) {
        self.mem.c = Default::default();
        self.c = Offered::default();
        for n in &mut self.nics {
            n.stats = NicStats::default();
            n.attach.reset(&mut self.mem);
        }
        for a in &mut self.apps {
            // A transmitted frame is counted when its wire time is booked (when the NIC fetches
            // it, or on a multi-queue NIC once its data has arrived: `settle_wire`), if it leaves
            // the wire inside the window: frames booked before warm-up that leave after it (a TX
            // backlog books the wire hundreds of µs ahead) are the window's and stay counted.
            let (tx_packets, tx_bytes) = (a.stats.tx_packets, a.stats.tx_bytes);
            a.stats = AppStats { tx_packets, tx_bytes, ..AppStats::default() };
        }
        for s in &mut self.mem.sockets {
            s.hier.stats = Default::default();
            s.mem.reset_counters();
        }
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
                    latency_breakdown_ns: [
                        ("nic", &s.parts.nic),
                        ("link", &s.parts.link),
                        ("memory", &s.parts.memory),
                        ("core", &s.parts.core),
                        ("flush", &s.parts.flush),
                        ("copy", &s.parts.copy),
                        ("queueing", &s.parts.queueing),
                    ]
                    .into_iter()
                    .map(|(k, h)| (k.to_string(), LatencyNs::from_hist(h).p50))
                    .collect(),
                },
            );
        }
        let mut nics = BTreeMap::new();
        for n in &self.nics {
            let rep = n.attach.report(&self.mem, dur_s, n.stats.rx_packets);
            nics.insert(
                n.name.clone(),
                NicMetrics {
                    rx_packets: n.stats.rx_packets,
                    dropped_packets: n.stats.dropped,
                    out_of_buffer_packets: n.stats.out_of_buffer,
                    pause_frames: n.stats.pause_frames,
                    attachment: n.kind,
                    pcie_d2h_utilization: rep.pcie.map(|p| p.0),
                    pcie_h2d_utilization: rep.pcie.map(|p| p.1),
                    pcie_write_hit_rate: rate(n.stats.dma.wr_hit, n.stats.dma.wr_miss),
                    pcie_read_hit_rate: rate(n.stats.dma.rd_hit, n.stats.dma.rd_miss),
                    dma_write_bypass_lines: n.stats.dma.wr_bypass,
                    ddio: n.ddio,
                    attachment_metrics: rep.extra,
                },
            );
        }
        let mem_r: u64 = self.mem.sockets.iter().map(|s| s.mem.read_lines).sum();
        let mem_w: u64 = self.mem.sockets.iter().map(|s| s.mem.write_lines).sum();
        let dma = &self.mem.c;
        Metrics {
            pcie_write_hit_rate: rate(dma.wr_hit, dma.wr_miss),
            pcie_read_hit_rate: rate(dma.rd_hit, dma.rd_miss),
            pcie_write_lines: dma.wr_hit + dma.wr_miss,
            pcie_read_lines: dma.rd_hit + dma.rd_miss,
            dma_write_bypass_lines: dma.wr_bypass,
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
            ddio_allocations: self.mem.sockets.iter().map(|s| s.hier.stats.io_allocations).sum(),
            ddio_evictions: self.mem.sockets.iter().map(|s| s.hier.stats.io_evictions).sum(),
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
                            rx_visible: q.rx.visible,
                            at_core: (core.burst.len() - core.burst_pos.min(core.burst.len()) + core.tx_pending.len()) as u64,
                            tx_n: q.tx.n,
                            tx_head: q.tx.head,
                            tx_clean: q.tx.clean,
                            tx_comp_ends: q.tx.comp_ends.iter().copied().collect(),
                            tx_open: q.tx.head - q.tx.block_start,
                            tx_open_segs: q.tx.block_segs,
                            tx_comp_every: n.attach.rings().tx_completion_every,
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}
