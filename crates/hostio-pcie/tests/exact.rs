//! Exact values and refusals of the PCIe models at points the other tests do not reach: tie
//! rules, bounds, remote and IO-TLB paths, sizes that are not whole lines, and which stage
//! bounds a pcie-bench experiment. Each value was computed by the model as it stands; each
//! assertion fails if the term it names is dropped or changed.
use hostio_pcie::bench::*;
use hostio_pcie::latency::*;
use hostio_pcie::link::*;
use hostio_pcie::nic::*;

fn exp(test: BenchTest, size: u64, window: u64, cache: CacheState) -> Experiment {
    Experiment { test, size, window, cache, numa_remote: false, iommu: false, superpages: true, engine: Engine::Dma }
}

fn close(a: f64, b: f64, tol: f64) {
    assert!(((a - b) / b).abs() <= tol, "{a} vs {b}");
}

fn link() -> PcieLink {
    PcieLink::default()
}

fn simple64() -> NicQuery {
    NicQuery { design: NicDesign::Simple, frame: 64, vlan: false, compat: false, eth_gbps: 40.0 }
}

/// `link_for` takes the lowest raw rate, and on a tie the fewer lanes: gen 2 x1 (4 Gb/s raw)
/// before gen 1 x2.
#[test]
fn link_for_prefers_fewer_lanes_on_a_tie() {
    let c = link_for(&link(), DmaOp::Write, 3.0, 1500).unwrap().unwrap();
    assert_eq!((c.gen, c.lanes), (2, 1));
}

#[test]
fn link_for_and_bandwidth_refuse_bad_input() {
    for rate in [-1.0, f64::NAN] {
        assert_eq!(link_for(&link(), DmaOp::Write, rate, 64).unwrap_err().key, "rate_gbps");
    }
    assert_eq!(PcieLink { mps: 192, ..link() }.bandwidth(64).unwrap_err().key, "mps");
    assert!(check_size("size", MAX_SIZE).is_ok());
    assert!(check_size("size", MAX_SIZE + 1).is_err());
}

/// Transactions per second of reads and of reads with writes, from pcie-bench's published
/// bandwidths (gen 3 x8, MPS 256, MRRS 512) at 64 B.
#[test]
fn read_and_read_write_transactions_per_second() {
    let b = link().bandwidth(64).unwrap();
    close(b.read_tps, 44.102678573e9 / 8.0 / 64.0, 1e-9);
    close(b.read_write_tps, 33.077008930e9 / 8.0 / 64.0, 1e-9);
}

/// The simple NIC's TX bytes per 64 B frame in each direction (descriptor read completion to the
/// device, tail write headers).
#[test]
fn a_simple_nics_transmit_bytes_by_direction() {
    let r = nic_throughput(&link(), &simple64()).unwrap();
    assert_eq!((r.tx_h2d_bytes, r.tx_d2h_bytes), (168.0, 100.0));
}

/// pcie-bench compatibility: no VLAN tag, 60 B of DMA for a 64 B frame, and the Ethernet rate
/// of a frame padded to 64 B with 20 B of framing.
#[test]
fn compat_mode_ignores_the_vlan_and_pads_the_frame() {
    for vlan in [false, true] {
        let r = nic_throughput(&link(), &NicQuery { vlan, compat: true, ..simple64() }).unwrap();
        assert_eq!(r.dma_bytes, 60);
        close(r.line_rate_gbps, 40.0 * 60.0 / 84.0, 1e-12);
    }
    for e in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(nic_throughput(&link(), &NicQuery { eth_gbps: e, ..simple64() }).unwrap_err().key, "eth_gbps");
    }
}

/// A window one byte over 64 pages of 4 KiB touches 65 pages: one IO-TLB miss in 65.
#[test]
fn iotlb_pages_of_a_window_round_up() {
    let mut p = PcieLatencyParams::default();
    p.iommu.enabled = true;
    p.iommu.superpages = false;
    close(p.iommu.miss_probability((256 << 10) + 1), 1.0 / 65.0, 1e-9);
}

#[test]
fn latency_parameters_refuse_fewer_than_one_walk_and_dram_faster_than_the_llc() {
    let mut p = PcieLatencyParams::default();
    p.iommu.concurrent_walks = 0.5;
    assert_eq!(p.validate().unwrap_err().key, "iommu.concurrent_walks");
    assert_eq!(PcieLatencyParams { dram_ns: 20.0, ..Default::default() }.validate().unwrap_err().key, "dram_ns");
}

/// Remote writes: a partial line pays the larger of the read-for-ownership and the UPI hop
/// (153 ns), a whole line the UPI hop (100 ns); a write-then-read reads back from the remote
/// LLC (100 + 125 ns); with an IO-TLB miss the walk is paid once.
#[test]
fn remote_and_iotlb_paths_of_writes_and_write_reads() {
    let d = PcieLatencyParams::default();
    assert_eq!(d.dma_write_parts(8, MemLocation::RemoteDram, Engine::Dma, false).memory_ns, 153.0);
    assert_eq!(d.dma_write_parts(64, MemLocation::RemoteDram, Engine::Dma, false).memory_ns, 100.0);
    assert_eq!(d.wrrd_parts(64, MemLocation::RemoteDram, Engine::Dma, false).memory_ns, 225.0);
    let mut p = PcieLatencyParams::default();
    p.iommu.enabled = true;
    assert_eq!(p.wrrd_parts(64, MemLocation::Dram, Engine::Dma, true).iommu_ns, 227.0);
}

/// An MMIO read serialises its request and its completion (24 + 28 B of TLP overhead around
/// 8 B); a 100 B read is two lines at the root complex, 10 ns more than one.
#[test]
fn mmio_serialisation_and_partial_lines() {
    let d = PcieLatencyParams::default();
    close(d.mmio_read_parts(8).serialisation_ns, (24.0 + 28.0) * 8.0 / d.link.tlp_bandwidth_gbps(), 1e-12);
    let a = d.dma_read_parts(64, MemLocation::Llc, Engine::Dma, false);
    let b = d.dma_read_parts(100, MemLocation::Llc, Engine::Dma, false);
    close(b.root_complex_ns - a.root_complex_ns, 10.0, 1e-12);
}

/// A window of twice the LLC hits with probability exactly one half: the median is the hit's.
#[test]
fn a_median_at_even_odds_is_the_llc_hit() {
    let p = BenchPlatform::default();
    let r = p.run(&exp(BenchTest::LatRd, 64, 2 * p.llc_bytes, CacheState::Warm)).unwrap();
    assert_eq!(r.llc_hit_probability, 0.5);
    assert!((r.median_ns.unwrap() - 546.93).abs() < 0.01, "{:?}", r.median_ns);
}

#[test]
fn ddio_cannot_exceed_the_llc() {
    assert_eq!(BenchPlatform { ddio_bytes: 16 << 20, ..Default::default() }.validate().unwrap_err().key, "ddio_bytes");
}

/// With 4 KiB IOMMU pages over 64 MiB, reads are bound by the page walks (their concurrency
/// included); other stages bound other experiments.
#[test]
fn the_stage_that_bounds_each_experiment() {
    let p = BenchPlatform::default();
    let mut e = exp(BenchTest::BwRd, 64, 64 << 20, CacheState::Warm);
    e.iommu = true;
    e.superpages = false;
    let r = p.run(&e).unwrap();
    close(r.bw_gbps.unwrap(), 10.05858165657723, 1e-9);
    assert_eq!(r.bottleneck.as_deref(), Some("page_walk"));
    let b = |t, s| p.run(&exp(t, s, 8192, CacheState::Warm)).unwrap().bottleneck.unwrap();
    assert_eq!(b(BenchTest::BwRd, 64), "outstanding");
    assert_eq!(b(BenchTest::BwWr, 64), "issue");
    assert_eq!(b(BenchTest::BwRdwr, 64), "engine");
    assert_eq!(b(BenchTest::BwRd, 512), "link");
}
