//! Probes of every formula: one assertion per mechanism, with the number it must produce.
use hostio_pcie::bench::median_ps;
use hostio_pcie::link::{lane_gbps, LANES, MPS_VALUES};
use hostio_pcie::*;

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}
fn close(a: f64, b: f64, tol: f64) {
    assert!(rel(a, b) <= tol, "{a} vs {b} (rel {})", rel(a, b));
}
fn link() -> PcieLink {
    PcieLink::default()
}

// ---- ACK / FC tables: every entry, transcribed from the design brief (PCIe 5.0 tables) -------

/// (gen, lanes) → six entries for MPS 128..4096, as listed in BRIEF §4.
const ACK_BRIEF: &str = "
gen3 x1 333/512/655/1167/2191/4239; x2 224/313/385/641/1153/2177; x4 169/214/250/378/634/1146;
gen3 x8 163/203/182/246/374/630; x16 144/168/182/246/374/630; x32 129/141/148/180/244/372
gen1 x1 237/416/559/1071/2095/4143; x2 128/217/289/545/1057/2081; x4 73/118/154/282/538/1050;
gen1 x8 67/107/86/150/278/534; x16 48/72/86/150/278/534; x32 33/45/52/84/148/276
gen2 x1 288/467/610/1122/2146/4194; x2 179/268/340/596/1108/2132; x4 124/169/205/333/589/1101;
gen2 x8 118/158/137/201/329/585; x16 99/123/137/201/329/585; x32 84/96/103/135/199/237";

fn brief_table() -> Vec<(u8, u32, [u32; 6])> {
    let mut out = Vec::new();
    for line in ACK_BRIEF.lines().filter(|l| !l.trim().is_empty()) {
        let line = line.trim();
        let gen: u8 = line[3..4].parse().unwrap();
        for cell in line[5..].split(';').map(str::trim).filter(|c| !c.is_empty()) {
            let (lanes, vals) = cell.split_once(' ').unwrap();
            let lanes: u32 = lanes[1..].parse().unwrap();
            let v: Vec<u32> = vals.split('/').map(|x| x.parse().unwrap()).collect();
            out.push((gen, lanes, v.try_into().unwrap()));
        }
    }
    out
}

#[test]
fn every_ack_entry_matches_the_spec_tables() {
    let t = brief_table();
    assert_eq!(t.len(), 18);
    for (gen, lanes, vals) in t {
        for (i, mps) in MPS_VALUES.iter().enumerate() {
            assert_eq!(ack_limit(gen, lanes, *mps), Some(vals[i]), "ACK gen{gen} x{lanes} MPS {mps}");
            // gen 4..7 reuse the gen 3 table
            if gen == 3 {
                for g in 4..=7 {
                    assert_eq!(ack_limit(g, lanes, *mps), Some(vals[i]));
                    assert_eq!(fc_interval(g, lanes, *mps), Some(vals[i]));
                }
            }
        }
    }
}

#[test]
fn every_fc_entry_matches_and_the_two_fc_exceptions_hold() {
    for (gen, lanes, vals) in brief_table() {
        for (i, mps) in MPS_VALUES.iter().enumerate() {
            let want = match (gen, lanes, *mps) {
                (1, 32, 2048) => 248,
                (2, 32, 4096) => 327,
                _ => vals[i],
            };
            assert_eq!(fc_interval(gen, lanes, *mps), Some(want), "FC gen{gen} x{lanes} MPS {mps}");
        }
    }
    assert_eq!(ack_limit(1, 32, 2048), Some(148));
    assert_eq!(ack_limit(2, 32, 4096), Some(237));
    assert_eq!(ack_limit(8, 8, 256), None);
    assert_eq!(ack_limit(3, 3, 256), None);
    assert_eq!(ack_limit(3, 8, 192), None);
}

#[test]
fn the_fc_exceptions_change_the_tlp_rate() {
    let l = PcieLink { gen: 1, lanes: 32, mps: 2048, ..link() };
    close(l.tlp_bandwidth_gbps(), 58.309574477, 1e-9);
    let l = PcieLink { gen: 2, lanes: 32, mps: 4096, ..link() };
    close(l.tlp_bandwidth_gbps(), 120.214926554, 1e-9);
}

// ---- rates ------------------------------------------------------------------------------------

#[test]
fn lane_rates_follow_encoding() {
    close(lane_gbps(1).unwrap(), 2.0, 1e-15);
    close(lane_gbps(2).unwrap(), 4.0, 1e-15);
    close(lane_gbps(3).unwrap(), 8.0 * 128.0 / 130.0, 1e-15);
    close(lane_gbps(5).unwrap(), 32.0 * 128.0 / 130.0, 1e-15);
    close(lane_gbps(7).unwrap(), 128.0 * 242.0 / 256.0, 1e-15);
    for lanes in LANES {
        let l = PcieLink { gen: 4, lanes, ..link() };
        close(l.raw_gbps(), 16.0 * 128.0 / 130.0 * lanes as f64, 1e-15);
    }
}

#[test]
fn reference_values_gen3_x8() {
    let l = link();
    close(l.tlp_bandwidth_gbps(), 57.884765627, 1e-9);
    close(l.write_gbps(64), 42.098011365, 1e-9); // "a 64 B write at gen3 x8 is 42.098011 Gb/s"
    close(l.read_gbps(64), 44.102678573, 1e-9);
    close(l.read_write_gbps(64), 33.077008930, 1e-9);
    close(l.write_gbps(1500), 52.814567178, 1e-9);
    close(l.read_gbps(1500), 53.597005210, 1e-9);
    let p = l.bandwidth(64).unwrap();
    close(p.write_tps, 42.098011365e9 / 8.0 / 64.0, 1e-9);
}

#[test]
fn gen6_uses_flit_encoding_and_gen3_tables() {
    let l = PcieLink { gen: 6, lanes: 16, mps: 512, ..link() };
    close(l.tlp_bandwidth_gbps(), 880.383543635, 1e-9);
}

// ---- wire bytes -------------------------------------------------------------------------------

#[test]
fn header_sizes_by_addressing_and_ecrc() {
    let l = link();
    assert_eq!((l.mwr_hdr_bytes(), l.mrd_hdr_bytes(), l.cpld_hdr_bytes()), (24, 24, 20));
    let l32 = PcieLink { addr_bits: 32, ..link() };
    assert_eq!((l32.mwr_hdr_bytes(), l32.cpld_hdr_bytes()), (20, 20));
    let le = PcieLink { ecrc: true, ..link() };
    assert_eq!((le.mwr_hdr_bytes(), le.cpld_hdr_bytes()), (28, 24));
}

#[test]
fn writes_split_at_mps() {
    let l = link();
    assert_eq!(l.dma_write_wire_bytes(256), 280);
    assert_eq!(l.dma_write_wire_bytes(257), 257 + 48);
    assert_eq!(l.dma_write_wire_bytes(1500), 1500 + 6 * 24);
}

#[test]
fn reads_split_requests_at_mrrs_and_completions_at_mps_or_rcb() {
    let l = link();
    assert_eq!(l.dma_read_wire_bytes(1500), (3 * 24, 1500 + 6 * 20));
    let r = PcieLink { rcb_chunks: true, ..link() };
    assert_eq!(r.dma_read_wire_bytes(1500), (3 * 24, 1500 + 24 * 20));
    // 64 B read with RCB chunks of 64: one completion
    assert_eq!(r.dma_read_wire_bytes(64), (24, 84));
}

#[test]
fn read_bound_switches_direction_when_requests_dominate() {
    // 4 B reads: completion 24 B h2d, request 24 B d2h: tie; 1 B: request (24) > completion (21)
    let l = link();
    close(l.read_gbps(1), 1.0 * l.tlp_bandwidth_gbps() / 24.0, 1e-12);
}

#[test]
fn ps_per_wire_byte_is_serialisation_at_tlp_rate() {
    let l = link();
    close(l.ps_per_wire_byte(), 8000.0 / 57.884765627, 1e-9);
}

#[test]
fn link_for_finds_the_smallest_link() {
    let c = link_for(&link(), DmaOp::Write, 40.0, 64).unwrap().unwrap();
    // gen3 x8 (63.0 Gb/s raw) gives 42.1 at 64 B, but gen6 x1 (60.5 raw, x1 DLLP table) suffices
    assert_eq!((c.gen, c.lanes), (6, 1));
    let c = link_for(&link(), DmaOp::Write, 40.0, 64).unwrap().unwrap();
    assert!(PcieLink { gen: 5, lanes: 2, ..link() }.write_gbps(64) >= 40.0 && c.raw_gbps < PcieLink { gen: 5, lanes: 2, ..link() }.raw_gbps());
    assert!(c.achieved_gbps >= 40.0);
    assert!(link_for(&link(), DmaOp::Write, 1e6, 64).unwrap().is_none());
}

// ---- bad input --------------------------------------------------------------------------------

#[test]
fn invalid_configs_name_key_value_and_allowed() {
    let e = PcieLink { mps: 192, ..link() }.validate().unwrap_err();
    assert_eq!(e.to_string(), "mps = 192: one of 128, 256, 512, 1024, 2048, 4096");
    let e = PcieLink { gen: 8, ..link() }.validate().unwrap_err();
    assert_eq!(e.to_string(), "gen = 8: one of 1, 2, 3, 4, 5, 6, 7");
    let e = PcieLink { lanes: 3, ..link() }.validate().unwrap_err();
    assert_eq!(e.to_string(), "lanes = 3: one of 1, 2, 4, 8, 16, 32");
    assert_eq!(PcieLink { rcb: 32, ..link() }.validate().unwrap_err().key, "rcb");
    assert_eq!(PcieLink { mrrs: 8192, ..link() }.validate().unwrap_err().key, "mrrs");
    assert_eq!(PcieLink { addr_bits: 48, ..link() }.validate().unwrap_err().key, "addr_bits");
    assert_eq!(link().bandwidth(0).unwrap_err().key, "size");
}

#[test]
fn link_serde_rejects_unknown_fields_and_fills_defaults() {
    let l: PcieLink = serde_json::from_str(r#"{"gen": 4}"#).unwrap();
    assert_eq!((l.gen, l.lanes, l.mps), (4, 8, 256));
    assert!(serde_json::from_str::<PcieLink>(r#"{"speed": 4}"#).is_err());
}

// ---- NIC transaction lists --------------------------------------------------------------------

fn names(v: &[Txn]) -> Vec<&'static str> {
    v.iter().map(|t| t.name).collect()
}

#[test]
fn simple_nic_lists_every_step_per_packet() {
    let l = link();
    let rx = NicDesign::Simple.rx_packet_txns(&l, 60, false);
    assert_eq!(
        names(&rx),
        ["rx_tail_write", "rx_desc_read_req", "rx_desc_read_cpl", "rx_data_write", "rx_desc_writeback", "rx_msi", "rx_head_read_req", "rx_head_read_cpl"]
    );
    let b: Vec<u64> = rx.iter().map(|t| t.bytes_per_occurrence).collect();
    assert_eq!(b, [28, 24, 36, 84, 40, 28, 24, 24]);
    assert!(rx.iter().all(|t| t.every_packets == 1));
    let tx = NicDesign::Simple.tx_packet_txns(&l, 60, false);
    assert_eq!(names(&tx), ["tx_tail_write", "tx_desc_read_req", "tx_desc_read_cpl", "tx_data_read_req", "tx_data_read_cpl", "tx_msi", "tx_head_read_req", "tx_head_read_cpl"]);
}

#[test]
fn compat_drops_only_the_rx_descriptor_read_request() {
    let l = link();
    for d in NicDesign::ALL {
        let ok = d.rx_packet_txns(&l, 1000, false);
        let compat = d.rx_packet_txns(&l, 1000, true);
        assert_eq!(ok.len(), compat.len() + 1);
        let missing: Vec<_> = ok.iter().filter(|t| !compat.contains(t)).collect();
        assert_eq!(missing.len(), 1);
        assert_eq!((missing[0].name, missing[0].dir, missing[0].bytes_per_occurrence), ("rx_desc_read_req", Dir::D2h, 24));
        assert_eq!(d.tx_packet_txns(&l, 1000, false), d.tx_packet_txns(&l, 1000, true));
    }
}

#[test]
fn kernel_nic_batches_like_the_82599() {
    let l = link();
    let tx = NicDesign::Kernel.tx_packet_txns(&l, 60, false);
    let get = |v: &[Txn], n: &str| v.iter().find(|t| t.name == n).cloned().unwrap();
    let fetch = get(&tx, "tx_desc_read_cpl");
    // 40 × 16 B = 640 B in ceil(640/256) = 3 completions
    assert_eq!((fetch.every_packets, fetch.bytes_per_occurrence), (40, 640 + 3 * 20));
    assert_eq!(get(&tx, "tx_desc_read_req").bytes_per_occurrence, 2 * 24); // MRRS 512
    assert_eq!(get(&tx, "tx_desc_writeback").every_packets, 8);
    assert_eq!(get(&tx, "tx_msi").every_packets, 32);
    assert_eq!(get(&tx, "tx_tail_write").every_packets, 1);
    let rx = NicDesign::Kernel.rx_packet_txns(&l, 60, false);
    assert_eq!(get(&rx, "rx_tail_write").every_packets, 32);
    assert_eq!(get(&rx, "rx_head_read_req").every_packets, 8);
    close(get(&rx, "rx_msi").wire_bytes, 28.0 / 32.0, 1e-15);
}

#[test]
fn dpdk_nic_has_no_interrupts_or_head_reads() {
    let l = link();
    let tx = NicDesign::Dpdk.tx_packet_txns(&l, 60, false);
    let rx = NicDesign::Dpdk.rx_packet_txns(&l, 60, false);
    assert!(tx.iter().chain(rx.iter()).all(|t| !t.name.contains("msi") && !t.name.contains("head")));
    assert_eq!(tx.iter().find(|t| t.name == "tx_tail_write").unwrap().every_packets, 32);
}

#[test]
fn nic_throughput_is_bounded_by_the_busier_direction() {
    let l = link();
    let q = NicQuery { design: NicDesign::Simple, frame: 64, vlan: false, compat: false, eth_gbps: 40.0 };
    let r = nic_throughput(&l, &q).unwrap();
    // RX d2h: 24 + 84 + 40 + 28 + 24 = 200 B per packet of 60 B
    close(r.rx_d2h_bytes, 200.0, 1e-15);
    close(r.rx_gbps, 60.0 * l.tlp_bandwidth_gbps() / 200.0, 1e-12);
    // line rate: 64 B frames + 20 B framing, 60 B DMA'd
    close(r.line_rate_gbps, 40.0 * 60.0 / 84.0, 1e-12);
    let qv = NicQuery { vlan: true, ..q.clone() };
    let rv = nic_throughput(&l, &qv).unwrap();
    assert_eq!(rv.dma_bytes, 64);
    close(rv.line_rate_gbps, 40.0 * 64.0 / 88.0, 1e-12);
}

#[test]
fn compat_line_rate_reproduces_the_public_four_byte_slip() {
    let q = NicQuery { design: NicDesign::Dpdk, frame: 1500, vlan: false, compat: true, eth_gbps: 40.0 };
    let r = nic_throughput(&link(), &q).unwrap();
    close(r.line_rate_gbps, 40.0 * 1496.0 / 1516.0, 1e-12);
}

#[test]
fn nic_bad_input() {
    let q = NicQuery { design: NicDesign::Dpdk, frame: 60, vlan: false, compat: false, eth_gbps: 40.0 };
    assert_eq!(nic_throughput(&link(), &q).unwrap_err().key, "frame");
    assert_eq!(NicDesign::parse("smart").unwrap_err().to_string(), "design = \"smart\": one of \"simple\", \"kernel\", \"dpdk\"");
    let d: NicDesign = serde_json::from_str("\"dpdk\"").unwrap();
    assert_eq!(d, NicDesign::Dpdk);
}

// ---- latency parts ----------------------------------------------------------------------------

#[test]
fn read_latency_is_the_sum_of_its_parts() {
    let p = PcieLatencyParams::default();
    let parts = p.dma_read_parts(64, MemLocation::Llc, Engine::Dma, false);
    let ser = (24.0 + 84.0) * 8.0 / p.link.tlp_bandwidth_gbps();
    close(parts.serialisation_ns, ser, 1e-12);
    close(parts.flight_ns, 2.0 * p.link_flight_ns, 1e-15);
    close(parts.total_ns, p.device_dma_issue_ns + ser + 2.0 * p.link_flight_ns + p.rc_read_ns + p.llc_ns, 1e-12);
    assert_eq!(p.dma_read_latency_ps(64, MemLocation::Llc), (parts.total_ns * 1000.0).round() as u64);
}

#[test]
fn calibrated_64b_read_is_547ns_warm_and_about_53ns_more_cold() {
    let p = PcieLatencyParams::default();
    let warm = p.dma_read_latency_ps(64, MemLocation::Llc) as f64 / 1000.0;
    let cold = p.dma_read_latency_ps(64, MemLocation::Dram) as f64 / 1000.0;
    assert!((warm - 546.7).abs() < 3.0, "{warm}");
    assert!((cold - warm - 53.0).abs() < 1.0);
    let remote = p.dma_read_latency_ps(64, MemLocation::RemoteDram) as f64 / 1000.0;
    close(remote - cold, 100.0, 1e-6);
}

#[test]
fn larger_reads_add_serialisation_and_per_line_cost() {
    let p = PcieLatencyParams::default();
    let a = p.dma_read_parts(64, MemLocation::Llc, Engine::Dma, false);
    let b = p.dma_read_parts(128, MemLocation::Llc, Engine::Dma, false);
    close(b.root_complex_ns - a.root_complex_ns, p.rc_read_per_line_ns, 1e-12);
    close(b.serialisation_ns - a.serialisation_ns, 64.0 * 8.0 / p.link.tlp_bandwidth_gbps(), 1e-9);
}

#[test]
fn full_line_writes_allocate_without_reading_partial_writes_read_first() {
    let p = PcieLatencyParams::default();
    let full_llc = p.dma_write_parts(64, MemLocation::Llc, Engine::Dma, false).total_ns;
    let full_dram = p.dma_write_parts(64, MemLocation::Dram, Engine::Dma, false).total_ns;
    assert_eq!(full_llc, full_dram);
    let part_llc = p.dma_write_parts(8, MemLocation::Llc, Engine::Dma, false).total_ns;
    let part_dram = p.dma_write_parts(8, MemLocation::Dram, Engine::Dma, false).total_ns;
    close(part_dram - part_llc, p.dram_ns - p.llc_ns, 1e-9);
}

#[test]
fn wrrd_is_write_then_dependent_read() {
    let p = PcieLatencyParams::default();
    let w = p.wrrd_parts(64, MemLocation::Dram, Engine::Dma, false).total_ns;
    assert!((w - 773.3).abs() < 3.0, "{w}");
    let c = p.wrrd_parts(64, MemLocation::Dram, Engine::Cmd, false).total_ns;
    assert!((c - 560.0).abs() < 3.0, "{c}");
}

#[test]
fn iommu_miss_adds_a_page_walk() {
    let mut p = PcieLatencyParams::default();
    assert_eq!(p.iotlb_miss_penalty_ps(), 0);
    p.iommu.enabled = true;
    assert_eq!(p.iotlb_miss_penalty_ps(), 227_000);
    let hit = p.dma_read_parts(64, MemLocation::Llc, Engine::Dma, false).total_ns;
    let miss = p.dma_read_parts(64, MemLocation::Llc, Engine::Dma, true).total_ns;
    close(miss - hit, p.iommu.walk_ns, 1e-9);
    p.iommu.superpages = false;
    assert_eq!(p.iommu.miss_probability(256 << 10), 0.0);
    close(p.iommu.miss_probability(512 << 10), 0.5, 1e-15);
    p.iommu.superpages = true;
    assert_eq!(p.iommu.miss_probability(64 << 20), 0.0);
}

#[test]
fn mmio_read_is_a_round_trip_write_is_posted() {
    let p = PcieLatencyParams::default();
    let r = p.mmio_read_latency_ps(8) as f64 / 1000.0;
    assert!((r - 980.0).abs() < 10.0, "{r}");
    assert!(p.mmio_write_latency_ps(8) < p.mmio_read_latency_ps(8) / 3);
}

#[test]
fn latency_params_reject_bad_values() {
    let p = PcieLatencyParams { llc_ns: -1.0, ..Default::default() };
    assert_eq!(p.validate().unwrap_err().key, "llc_ns");
    let mut p = PcieLatencyParams::default();
    p.iommu.page_bytes = 3000;
    assert_eq!(p.validate().unwrap_err().key, "iommu.page_bytes");
    assert!(serde_json::from_str::<PcieLatencyParams>(r#"{"llc_latency": 3}"#).is_err());
}

// ---- pcie-bench experiments -------------------------------------------------------------------

fn exp(test: BenchTest, size: u64, window: u64, cache: CacheState) -> Experiment {
    Experiment { test, size, window, cache, numa_remote: false, iommu: false, superpages: true, engine: Engine::Dma }
}

#[test]
fn warm_reads_are_faster_until_the_window_exceeds_the_llc() {
    let p = BenchPlatform::default();
    let lat = |w, c| p.run(&exp(BenchTest::LatRd, 64, w, c)).unwrap().median_ns.unwrap();
    let gap = lat(8192, CacheState::Cold) - lat(8192, CacheState::Warm);
    assert!(gap > 40.0 && gap < 80.0, "{gap}");
    assert_eq!(lat(16 << 20, CacheState::Warm), lat(8192, CacheState::Warm));
    assert_eq!(lat(32 << 20, CacheState::Warm), lat(32 << 20, CacheState::Cold));
}

#[test]
fn partial_writes_slow_down_once_the_window_exceeds_the_ddio_share() {
    let p = BenchPlatform::default();
    let mut e = exp(BenchTest::LatWrrd, 8, 1 << 20, CacheState::Cold);
    e.engine = Engine::Cmd;
    let small = p.run(&e).unwrap().median_ns.unwrap();
    e.window = 4 << 20;
    let big = p.run(&e).unwrap().median_ns.unwrap();
    assert!((big - small - 53.0).abs() < 1.0);
    let mut f = exp(BenchTest::LatWrrd, 64, 64 << 20, CacheState::Cold);
    let flat = p.run(&f).unwrap().median_ns;
    f.window = 8192;
    assert_eq!(p.run(&f).unwrap().median_ns, flat);
}

#[test]
fn numa_remote_costs_64b_read_bandwidth_but_not_512b() {
    let p = BenchPlatform::default();
    let bw = |size, remote| {
        let mut e = exp(BenchTest::BwRd, size, 8192, CacheState::Warm);
        e.numa_remote = remote;
        p.run(&e).unwrap().bw_gbps.unwrap()
    };
    let loss64 = 1.0 - bw(64, true) / bw(64, false);
    let loss512 = 1.0 - bw(512, true) / bw(512, false);
    assert!(loss64 > 0.10 && loss64 < 0.30, "{loss64}");
    assert!(loss512 < 0.02, "{loss512}");
}

#[test]
fn iommu_cliff_past_256kib_without_superpages() {
    let p = BenchPlatform::default();
    let bw = |w, sp| {
        let mut e = exp(BenchTest::BwRd, 64, w, CacheState::Warm);
        e.iommu = true;
        e.superpages = sp;
        p.run(&e).unwrap().bw_gbps.unwrap()
    };
    assert_eq!(bw(256 << 10, false), bw(256 << 10, true));
    let drop = 1.0 - bw(64 << 20, false) / bw(64 << 20, true);
    assert!(drop > 0.5, "{drop}");
    let mut e = exp(BenchTest::LatRd, 64, 64 << 20, CacheState::Cold);
    e.iommu = true;
    e.superpages = false;
    let r = p.run(&e).unwrap();
    assert!(r.iotlb_miss_probability > 0.99);
    assert_eq!(median_ps(&r).unwrap(), (r.parts.unwrap().total_ns * 1000.0).round() as u64);
}

#[test]
fn bandwidth_tests_never_beat_the_link() {
    let p = BenchPlatform::default();
    for size in [16, 64, 128, 256, 512, 1024, 2048] {
        let l = &p.latency.link;
        let r = p.run(&exp(BenchTest::BwWr, size, 8192, CacheState::Warm)).unwrap();
        assert!(r.bw_gbps.unwrap() <= l.write_gbps(size) + 1e-9);
        let r = p.run(&exp(BenchTest::BwRd, size, 8192, CacheState::Warm)).unwrap();
        assert!(r.bw_gbps.unwrap() <= l.read_gbps(size) + 1e-9);
    }
}

#[test]
fn experiment_bad_input() {
    let p = BenchPlatform::default();
    assert_eq!(p.run(&exp(BenchTest::LatRd, 64, 32, CacheState::Cold)).unwrap_err().key, "window");
    assert_eq!(p.run(&exp(BenchTest::LatRd, 0, 4096, CacheState::Cold)).unwrap_err().key, "size");
    assert_eq!(BenchTest::parse("LAT_XX").unwrap_err().key, "test");
    assert_eq!(CacheState::parse("hot").unwrap_err().key, "cache");
    let e: Experiment = serde_json::from_str(r#"{"test":"BW_RD","size":64,"window":8192,"cache":"warm"}"#).unwrap();
    assert_eq!(e.engine, Engine::Dma);
}

#[test]
fn latency_serialisation_follows_the_link() {
    let slow = PcieLatencyParams::with_link(PcieLink { gen: 1, lanes: 1, ..link() });
    let fast = PcieLatencyParams::default();
    let d = slow.dma_read_parts(1024, MemLocation::Llc, Engine::Dma, false).serialisation_ns
        - fast.dma_read_parts(1024, MemLocation::Llc, Engine::Dma, false).serialisation_ns;
    let (req, cpl) = fast.link.dma_read_wire_bytes(1024);
    close(d, (req + cpl) as f64 * 8.0 / slow.link.tlp_bandwidth_gbps() - (req + cpl) as f64 * 8.0 / fast.link.tlp_bandwidth_gbps(), 1e-9);
    let round: PcieLatencyParams = serde_json::from_str(&serde_json::to_string(&fast).unwrap()).unwrap();
    assert_eq!(round, fast);
}

#[test]
fn amortised_wire_bytes_add_up_to_the_per_packet_totals() {
    let l = link();
    for d in NicDesign::ALL {
        let q = NicQuery { design: d, frame: 512, vlan: false, compat: false, eth_gbps: 100.0 };
        let r = nic_throughput(&l, &q).unwrap();
        let tx = d.tx_packet_txns(&l, r.dma_bytes, false);
        let sum = |v: &[Txn], dir| v.iter().filter(|t| t.dir == dir).map(|t| t.bytes_per_occurrence as f64 / t.every_packets as f64).sum::<f64>();
        close(sum(&tx, Dir::H2d), r.tx_h2d_bytes, 1e-12);
        close(sum(&tx, Dir::D2h), r.tx_d2h_bytes, 1e-12);
        close(r.bidir_mpps * 1e6, l.bound_tps(r.tx_d2h_bytes + r.rx_d2h_bytes, r.tx_h2d_bytes + r.rx_h2d_bytes), 1e-12);
    }
}

#[test]
fn bw_rdwr_counts_both_transfers_and_pays_both_engine_times() {
    let p = BenchPlatform::default();
    let one = |t| p.run(&exp(t, 512, 8192, CacheState::Warm)).unwrap().transfers_per_s.unwrap();
    let (rd, wr, rdwr) = (one(BenchTest::BwRd), one(BenchTest::BwWr), one(BenchTest::BwRdwr));
    // a shared engine: the pair takes at least a read's plus a write's time
    assert!(2.0 / rdwr >= 1.0 / rd + 1.0 / wr - 1e-15);
    let mut q = p.clone();
    q.device.shared_engine = false;
    assert!(q.run(&exp(BenchTest::BwRdwr, 512, 8192, CacheState::Warm)).unwrap().transfers_per_s.unwrap() > rdwr);
}

#[test]
fn a_read_holds_its_tag_for_the_round_trip_after_its_issue_whatever_the_engine() {
    // Where the outstanding reads bound a bandwidth test, the issue path (descriptor engine or
    // direct command) changes when a read leaves the device, not how long its tag is held.
    let p = BenchPlatform::default();
    let mut e = exp(BenchTest::BwRd, 64, 64 << 20, CacheState::Cold);
    let dma = p.run(&e).unwrap();
    e.engine = Engine::Cmd;
    let cmd = p.run(&e).unwrap();
    assert_eq!(dma.bottleneck.as_deref(), Some("outstanding"));
    assert_eq!(dma.bw_gbps, cmd.bw_gbps);
}
