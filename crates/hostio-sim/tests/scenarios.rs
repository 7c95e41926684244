//! Whole-simulator behaviour: determinism and the mechanisms' visible effects on short scenarios.
use hostio_sim::{run_text, SimResult};

mod common;

fn base(extra: &str) -> String {
    common::minimal(400, 400, extra)
}

fn run(extra: &str, ov: &[&str]) -> SimResult {
    let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
    run_text(&base(extra), &ov, None).expect("valid scenario")
}

fn metrics_json(r: &SimResult) -> String {
    serde_json::to_string(&r.metrics).unwrap()
}

#[test]
fn same_seed_same_metrics_different_seed_differs() {
    let text = base("").replace("packet_size = 1500", "size_mix = \"imix\"");
    let a = run_text(&text, &[], Some(7)).unwrap();
    let b = run_text(&text, &[], Some(7)).unwrap();
    let c = run_text(&text, &[], Some(8)).unwrap();
    assert_eq!(metrics_json(&a), metrics_json(&b));
    assert_eq!(a.events, b.events);
    assert_eq!(a.scenario_hash, b.scenario_hash);
    assert_ne!(metrics_json(&a), metrics_json(&c));
}

#[test]
fn more_descriptors_lower_the_write_hit_rate() {
    let small = run("", &["nics.nic0.rx_descriptors=128", "run.warmup_us=1500"]);
    let large = run("", &["nics.nic0.rx_descriptors=4096", "run.warmup_us=1500"]);
    let s = small.metrics.pcie_write_hit_rate.unwrap();
    let l = large.metrics.pcie_write_hit_rate.unwrap();
    assert!(s > 0.7, "{s}");
    assert!(l < s - 0.2, "128: {s}, 4096: {l}");
}

#[test]
fn more_ddio_ways_raise_the_write_hit_rate() {
    let two = run("", &["nics.nic0.rx_descriptors=4096", "run.warmup_us=1500"]);
    let eight = run("", &["nics.nic0.rx_descriptors=4096", "run.warmup_us=1500", "platform.ddio_ways=8"]);
    assert!(eight.metrics.pcie_write_hit_rate.unwrap() > two.metrics.pcie_write_hit_rate.unwrap() + 0.2);
    assert_eq!(eight.ddio_mask, "0x7f8");
}

#[test]
fn remote_socket_nic_does_not_allocate_in_the_llc() {
    let r = run("", &["nics.nic0.socket=1"]);
    let m = &r.metrics;
    assert_eq!(m.ddio_allocations, 0);
    assert!(m.pcie_write_hit_rate.is_none(), "no allocating writes");
    assert!(m.dma_write_bypass_lines > 0);
    let local = run("", &[]);
    let miss = |r: &SimResult| r.metrics.apps["fwd"].llc_misses as f64 / r.metrics.apps["fwd"].rx_packets.max(1) as f64;
    assert!(miss(&r) > 0.9, "every header comes from DRAM: {}", miss(&r));
    assert!(miss(&local) < 0.1, "{}", miss(&local));
}

#[test]
fn ddio_off_sends_packets_to_dram() {
    let r = run("", &["platform.ddio=false"]);
    assert_eq!(r.metrics.ddio_allocations, 0);
    assert!(r.metrics.memory_write_gbps > 50.0, "{}", r.metrics.memory_write_gbps);
    // Per-port override: the port keeps DDIO although the platform default is off.
    let r = run("", &["platform.ddio=false", "nics.nic0.ddio=true"]);
    assert!(r.metrics.ddio_allocations > 0);
}

#[test]
fn overload_drops_or_pauses() {
    let drop = run("", &["traffic.t0.packet_size=64"]);
    assert!(drop.metrics.dropped_packets > 0);
    assert_eq!(drop.metrics.pause_frames, 0);
    let pause = run("", &["traffic.t0.packet_size=64", "nics.nic0.pause_frames=true"]);
    assert!(pause.metrics.pause_frames > 0);
    assert_eq!(pause.metrics.dropped_packets, 0);
    assert!(pause.metrics.offered_gbps < drop.metrics.offered_gbps, "PAUSE throttles the sender");
}

/// Without flow control a frame whose queue has no posted descriptor is dropped when it arrives
/// (out of buffer), not held in the NIC buffer. Guards that drop in the NIC's arrival path:
/// without it frames wait in the buffer behind its backlog, and the latency's NIC part
/// grows from a few ns to µs.
#[test]
fn without_flow_control_a_queue_out_of_descriptors_drops_at_once() {
    // One core, 64 descriptors, offered 64 B frames far beyond its rate: each frame that finds no
    // posted descriptor is dropped (out of buffer), so a packet waits at most for the ring ahead
    // of it (64 × ~0.1 µs), not for a NIC buffer full of frames (64 KiB ≈ 1000 of them, ~90 µs).
    let drop = run("", &["traffic.t0.packet_size=64", "nics.nic0.rx_descriptors=64", "nics.nic0.buffer_kib=64"]);
    let m = &drop.metrics;
    assert!(m.dropped_packets > 0);
    assert_eq!(m.nics["nic0"].out_of_buffer_packets, m.dropped_packets, "the link keeps up: every drop is out of buffer");
    let p99 = m.latency_ns.p99.unwrap();
    assert!(p99 < 40_000.0, "p99 {p99} ns: frames waited in the NIC buffer");
    // A frame that finds a descriptor is written at once: the latency's NIC part (the wait in the
    // NIC buffer) stays a few ns. Held instead of dropped at arrival, each frame waits behind the
    // buffer's backlog (µs).
    let nic = m.apps["fwd"].latency_breakdown_ns["nic"].unwrap();
    assert!(nic < 100.0, "NIC part {nic} ns: frames waited in the NIC buffer");
    // Flow control on: the port is lossless, frames wait in the buffer and nothing is dropped.
    let pause = run("", &["traffic.t0.packet_size=64", "nics.nic0.rx_descriptors=64", "nics.nic0.buffer_kib=64", "nics.nic0.pause_frames=true"]);
    assert_eq!(pause.metrics.nics["nic0"].out_of_buffer_packets, 0);
    assert!(pause.metrics.latency_ns.p99.unwrap() > 5.0 * p99, "{} vs {p99}", pause.metrics.latency_ns.p99.unwrap());
    // Lossless needs room above XOFF (3/4) for one frame: 9018 B frames need a 36 KiB buffer.
    let jumbo = |kib: u32| {
        let ov = ["traffic.t0.packet_size=9018".to_string(), "nics.nic0.pause_frames=true".to_string(), format!("nics.nic0.buffer_kib={kib}")];
        run_text(&base(""), &ov, None)
    };
    let err = jumbo(32).err().expect("refused");
    assert_eq!(err.key, "nics.nic0.buffer_kib");
    assert!(err.allowed.contains("at least 36 KiB"), "{}", err.allowed);
    assert_eq!(jumbo(36).expect("valid").metrics.dropped_packets, 0);
}

#[test]
fn frames_waiting_for_the_link_are_dropped_when_their_queue_runs_out() {
    // A Gen3 x1 link (~7 Gb/s) backs frames up in the NIC buffer, and a core busy 20 000 cycles
    // per packet (~0.1 Mpps) runs its 64 descriptors out: frames the link takes for the empty
    // ring are dropped then (out of buffer), the rest overflow the buffer. The run's packet
    // ledger (`Run::check_invariants`) accounts for every frame and the buffer's bytes.
    let ov = [
        "nics.nic0.pcie.lanes=1",
        "nics.nic0.rx_descriptors=64",
        "nics.nic0.buffer_kib=64",
        "traffic.t0.rate_gbps=20",
        "apps.fwd.kind=\"compute\"",
        "apps.fwd.cycles_per_packet=20000",
    ];
    let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
    let mut run = hostio_sim::Run::new(&base(""), &ov, None).expect("valid scenario");
    while !run.step(1e9).0 {}
    let bad = run.check_invariants();
    assert!(bad.is_empty(), "{bad:?}");
    let r = run.finish();
    let n = &r.metrics.nics["nic0"];
    assert!(n.out_of_buffer_packets > 0, "{n:?}");
    assert!(n.dropped_packets > n.out_of_buffer_packets, "the buffer overflows too: {n:?}");
}

/// Each PCIe direction is a bounded resource: a transfer waits for the link to drain. A simple
/// NIC's per-packet descriptor reads, completions and doorbells on a Gen3 x8 link carry only
/// ~0.42 of 40 Gb/s of 64 B frames. Guards the queue in `Pcie::occupy`: a transfer that starts
/// at `now` whatever the link's backlog lets it carry ~0.9.
#[test]
fn pcie_gen3_x8_cannot_carry_40g_of_64b_frames_with_a_simple_nic() {
    let extra = "cores = 8";
    let ov = [
        "nics.nic0.line_rate_gbps=40",
        "nics.nic0.design=\"simple\"",
        "nics.nic0.pcie.lanes=8",
        "traffic.t0.packet_size=64",
    ];
    let r = run(extra, &ov);
    let nic = &r.metrics.nics["nic0"];
    // The link's per-packet descriptor and doorbell traffic holds the NIC to ~0.42 of the offered
    // load; an unbounded link (no queue behind each direction) would carry ~0.9 of it.
    assert!(r.metrics.throughput_gbps < 0.6 * r.metrics.offered_gbps, "{} of {}", r.metrics.throughput_gbps, r.metrics.offered_gbps);
    assert!(nic.pcie_d2h_utilization.unwrap() > 0.9 || nic.pcie_h2d_utilization.unwrap() > 0.9, "{nic:?}");
    let dpdk = run(extra, &["nics.nic0.line_rate_gbps=40", "nics.nic0.design=\"dpdk\"", "nics.nic0.pcie.lanes=8", "traffic.t0.packet_size=64"]);
    assert!(dpdk.metrics.throughput_gbps > r.metrics.throughput_gbps, "batching descriptors helps");
}

#[test]
fn leaky_dma_slows_the_core_and_raises_latency() {
    let fast = run("", &["traffic.t0.rate_gbps=60", "nics.nic0.rx_descriptors=128"]);
    let remote = run("", &["traffic.t0.rate_gbps=60", "nics.nic0.rx_descriptors=128", "nics.nic0.socket=1"]);
    assert!(remote.metrics.latency_ns.p50.unwrap() > fast.metrics.latency_ns.p50.unwrap());
}

#[test]
fn corunner_in_the_io_ways_misses_more() {
    let co = |mask: &str| {
        let extra = format!(
            "cat_mask = 0x0C0\n[apps.co]\nkind = \"cache-hungry\"\ncat_mask = {mask}\nworking_set_mib = 3\naccesses_per_us = 100\n"
        );
        let r = run(&extra, &["nics.nic0.rx_descriptors=2048", "traffic.t0.rate_gbps=80"]);
        r.metrics.apps["co"].llc_misses as f64 / r.metrics.apps["co"].accesses.max(1) as f64
    };
    let in_io = co("0x600");
    let apart = co("0x030");
    assert!(in_io > apart * 1.2, "0x600: {in_io}, 0x030: {apart}");
}

/// Two sources offer 130 Gb/s to a 100 Gb/s NIC: its TX wire is the bottleneck and is booked
/// tens of µs ahead (its TX rings fill with fetched frames). Frames fetched before the
/// warm-up ends but sent after it belong to the window: throughput is the wire's rate whatever
/// the window's length.
#[test]
fn a_backlogged_wire_is_counted_at_its_rate_in_any_window() {
    let extra = "cores = 4\n[traffic.t1]\nnic = \"nic0\"\npacket_size = 1500\nrate_gbps = 30\n";
    let wire = 1500.0 * 8.0 * 100.0 / (1520.0 * 8.0);
    for dur in ["run.duration_us=100", "run.duration_us=1000"] {
        let r = run(extra, &["run.warmup_us=1500", dur]);
        let m = &r.metrics;
        assert!(m.latency_ns.p50.unwrap() > 20_000.0, "{dur}: the wire is backlogged: {:?}", m.latency_ns);
        assert!((m.throughput_gbps - wire).abs() < 0.01 * wire, "{dur}: {} Gb/s, the wire carries {wire:.2}", m.throughput_gbps);
    }
}

/// Lazy TX release on an eMPW ring (eight queues inline small frames): the driver frees completed
/// buffers until the burst's WQE segments fit, not only its slots, so a ring whose slots are free
/// but whose segments are all held by inlined frames still takes the burst. (Counting slots alone,
/// the core retried every picosecond and the run never finished.)
#[test]
fn lazy_tx_release_frees_wqe_segments_on_an_empw_ring() {
    let text = r#"
[run]
duration_us = 300
warmup_us = 200
[nics.nic0]
rx_descriptors = 256
tx_descriptors = 64
[traffic.t0]
nic = "nic0"
packet_size = 272
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
cores = 8
"#;
    let run_with = |release: &'static str| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let ov = vec![format!("nics.nic0.tx_release=\"{release}\"")];
            tx.send(run_text(text, &ov, None).expect("valid scenario")).ok();
        });
        rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap_or_else(|_| panic!("tx_release = {release}: the run did not finish in 60 s"))
    };
    let lazy = run_with("threshold");
    let eager = run_with("completion");
    let (l, e) = (lazy.metrics.throughput_gbps, eager.metrics.throughput_gbps);
    assert!(lazy.metrics.tx_packets > 0 && (l - e).abs() < 0.1 * e, "threshold {l} Gb/s, completion {e} Gb/s");
}

/// Selective DCA (`nics.<name>.ddio_lines`, the DDIO paper's §8 proposal): only the first lines
/// of each frame are written into the cache, the others to DRAM, so the NIC's transmit reads of
/// those miss. Unset, the whole frame is cached.
#[test]
fn selective_dca_caches_only_the_leading_lines() {
    let light = ["nics.nic0.rx_descriptors=128", "traffic.t0.rate_gbps=50"];
    let all = run("", &light);
    let two = run("", &[&light[..], &["nics.nic0.ddio_lines=2"]].concat());
    let (a, t) = (&all.metrics, &two.metrics);
    assert_eq!(a.dma_write_bypass_lines, 0);
    assert!(a.pcie_read_hit_rate.unwrap() > 0.99, "{:?}", a.pcie_read_hit_rate);
    // A 1500 B frame (1496 B without its FCS) is 24 lines: 22 go to DRAM, 2 (and the
    // completions) allocate.
    let per_alloc = t.dma_write_bypass_lines as f64 / t.pcie_write_lines as f64;
    assert!((9.0..=11.0).contains(&per_alloc), "{per_alloc}");
    assert!(t.pcie_read_hit_rate.unwrap() < 0.15, "{:?}", t.pcie_read_hit_rate);
    assert!(t.memory_write_gbps > 30.0 && a.memory_write_gbps < 1.0, "{} vs {}", t.memory_write_gbps, a.memory_write_gbps);
    // A frame is ready once its last line is written: from DRAM's side as soon as one line
    // goes there, so the receive part of the DMA latency rises. 256 B frames on 8 queues are
    // inlined into their TX descriptors, so no transmit read of the payload adds to it; a limit
    // of all 4 lines is no limit.
    let inl = ["nics.nic0.rx_descriptors=128", "traffic.t0.rate_gbps=20", "traffic.t0.packet_size=256", "apps.fwd.cores=8"];
    let link = |ov: &[&str]| {
        let r = run("", &[&inl[..], ov].concat());
        assert_eq!(r.metrics.pcie_read_hit_rate, Some(1.0), "no payload read to miss");
        (r.metrics.apps["fwd"].latency_breakdown_ns["link"].expect("packets"), serde_json::to_string(&r.metrics).unwrap())
    };
    let (whole, whole_json) = link(&[]);
    assert_eq!(link(&["nics.nic0.ddio_lines=4"]).1, whole_json);
    let (last_out, _) = link(&["nics.nic0.ddio_lines=3"]);
    assert!(last_out > whole + 25.0, "{last_out} vs {whole}");
}

/// Fine-grained placement (`nics.<name>.stash_lines`, the paper's third §8 proposal): the
/// header line goes into the polling core's L2, so the core's read of it no longer reaches the
/// LLC (one LLC access per packet fewer).
#[test]
fn stashed_headers_are_read_from_the_cores_l2() {
    let light = ["nics.nic0.rx_descriptors=128", "traffic.t0.rate_gbps=50"];
    let plain = run("", &light);
    let stash = run("", &[&light[..], &["nics.nic0.stash_lines=1"]].concat());
    let per = |r: &SimResult| r.metrics.apps["fwd"].llc_accesses as f64 / r.metrics.apps["fwd"].rx_packets as f64;
    assert!(per(&plain) - per(&stash) > 0.9, "{} vs {}", per(&plain), per(&stash));
    // Each queue's header goes to its own core: with 8 cores, and with NIC and cores on the
    // second socket (core numbers there differ from the engine's), each core still reads its
    // header from its own L2.
    let second = [
        "platform.sockets=2", "nics.nic0.socket=1", "apps.fwd.socket=1", "apps.fwd.cores=4",
        // Cores on the first socket before the forwarder's, so its cores' numbers differ.
        "apps.aaa.kind=\"cache-hungry\"", "apps.aaa.cores=2", "apps.aaa.working_set_mib=1", "apps.aaa.accesses_per_us=1",
    ];
    for extra in [&["apps.fwd.cores=8"][..], &second[..]] {
        let plain = run("", &[&light[..], extra].concat());
        let stash = run("", &[&light[..], extra, &["nics.nic0.stash_lines=1"]].concat());
        assert!(per(&plain) - per(&stash) > 0.9, "{extra:?}: {} vs {}", per(&plain), per(&stash));
    }
    assert_eq!(stash.metrics.dma_write_bypass_lines, 0);
    assert!(stash.metrics.pcie_write_hit_rate.unwrap() > 0.99);
    // With selective DCA below it, the stashed lines still count as cached: 2 stashed, 22 of
    // the 24 lines to DRAM.
    let both = run("", &[&light[..], &["nics.nic0.stash_lines=2", "nics.nic0.ddio_lines=1"]].concat()).metrics;
    let nic = &both.nics["nic0"];
    assert_eq!(nic.dma_write_bypass_lines, 22 * nic.rx_packets);
    // Buffers homed on the other socket are not stashed (nor allocated): the same run.
    let remote = ["platform.sockets=2", "apps.fwd.mempool_socket=1"];
    let json = |ov: &[&str]| serde_json::to_string(&run("", &[&light[..], &remote[..], ov].concat()).metrics).unwrap();
    assert_eq!(json(&[]), json(&["nics.nic0.stash_lines=1"]));
    for (ov, key) in [("nics.nic0.stash_lines=0", "nics.nic0.stash_lines"), ("platform.ddio=false", "nics.nic0.stash_lines")] {
        let e = run_text(&base(""), &[ov.to_string(), "nics.nic0.stash_lines=1".to_string()], None);
        let e = if ov.ends_with("=0") { run_text(&base(""), &[ov.to_string()], None) } else { e };
        assert!(e.unwrap_err().to_string().starts_with(key), "{ov}");
    }
}

/// A platform without DDIO (a platform file's `ddio_default_mask = 0`) takes neither key.
#[test]
fn selective_dca_and_io_ways_need_a_platform_with_ddio() {
    let dir = std::env::temp_dir().join(format!("hostio-noddio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = hostio_sim::config::Platform::preset("skylake-gold-6140").unwrap().to_file_toml(&[]).unwrap();
    let text: String = base.lines().map(|l| if l.starts_with("ddio_default_mask = ") { "ddio_default_mask = 0\n".to_string() } else { format!("{l}\n") }).collect();
    let path = dir.join("noddio.toml");
    std::fs::write(&path, text).unwrap();
    let preset = format!("platform.preset=\"file:{}\"", path.display());
    let r = run_text(&base_text(), &[preset.clone()], None).unwrap();
    assert!(r.warnings.iter().any(|w| w.contains("has no DDIO")), "{:?}", r.warnings);
    assert_eq!(r.metrics.pcie_write_hit_rate, None);
    // A coherent NIC writes into its own cache, not through DDIO: no warning.
    let r = run_text(&base_text(), &[preset.clone(), "nics.nic0.attachment=\"coherent\"".to_string()], None).unwrap();
    assert!(!r.warnings.iter().any(|w| w.contains("has no DDIO")), "{:?}", r.warnings);
    for key in ["ddio_lines=2", "ddio_mask=0x600"] {
        let e = run_text(&base_text(), &[preset.clone(), format!("nics.nic0.{key}")], None).unwrap_err().to_string();
        assert!(e.starts_with(&format!("nics.nic0.{}", key.split('=').next().unwrap())) && e.contains("DDIO is off"), "{e}");
    }
}

/// A platform file counts in the scenario hash by its facts: two spellings of its path give the
/// same hash, and changed facts a different one; a relative path that is not there is named as
/// the whole path it was looked for at.
#[test]
fn a_platform_file_is_hashed_by_its_facts_not_its_path() {
    let dir = std::env::temp_dir().join(format!("hostio-hash-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let base = hostio_sim::config::Platform::preset("skylake-gold-6140").unwrap().to_file_toml(&[]).unwrap();
    std::fs::write(dir.join("p.toml"), &base).unwrap();
    let hash = |path: String| {
        let ov = [format!("platform.preset=\"file:{path}\""), "run.duration_us=5".to_string(), "run.warmup_us=0".to_string()];
        run_text(&base_text(), &ov, None).unwrap().scenario_hash
    };
    let plain = hash(dir.join("p.toml").display().to_string());
    assert_eq!(plain, hash(dir.join("sub/../p.toml").display().to_string()));
    let changed: String = base.lines().map(|l| if l.starts_with("dram_latency_ns = ") { "dram_latency_ns = 95.0\n".to_string() } else { format!("{l}\n") }).collect();
    assert_ne!(changed, base);
    std::fs::write(dir.join("p.toml"), changed).unwrap();
    assert_ne!(plain, hash(dir.join("p.toml").display().to_string()));
    let e = run_text(&base_text(), &["platform.preset=\"file:no-such-platform.toml\"".to_string()], None).unwrap_err().to_string();
    // A relative path is the working directory's (for an override), shown whole.
    let whole = std::env::current_dir().unwrap().join("no-such-platform.toml");
    assert!(e.contains(&format!("file:{}: cannot read", whole.display())), "{e}");
    let e = run_text(&base_text(), &["platform.preset=\"file:\"".to_string()], None).unwrap_err().to_string();
    assert!(e.ends_with("file:PATH with the platform file's path after `file:`"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn base_text() -> String {
    base("")
}

/// I/O isolation (`nics.<name>.ddio_mask`, the paper's other §8 proposal): Fig. 14's two NICs
/// contend for the same two I/O ways; given ways of its own, the other NIC no longer evicts the
/// first one's buffers, whose write hits are then those it has alone. Naming the platform's ways
/// explicitly changes nothing.
#[test]
fn a_nic_with_its_own_io_ways_keeps_the_hits_it_has_alone() {
    let go = |text: &str, ov: &[&str]| {
        let mut all = vec!["run.duration_us=500".to_string(), "run.warmup_us=1500".to_string()];
        all.extend(ov.iter().map(|s| s.to_string()));
        run_text(text, &all, None).expect("valid scenario").metrics
    };
    let two = include_str!("../../../python/hostio/scenarios/ddio/isolation.toml");
    let alone = go(include_str!("../../../python/hostio/scenarios/ddio/isolation_alone.toml"), &[]);
    let shared = go(two, &[]);
    let same = go(two, &["nics.hp.ddio_mask=0x600", "nics.lp.ddio_mask=0x600"]);
    let apart = go(two, &["nics.lp.ddio_mask=0x180"]);
    assert_eq!(serde_json::to_string(&shared).unwrap(), serde_json::to_string(&same).unwrap());
    let hp = |m: &hostio_sim::result::Metrics| m.nics["hp"].pcie_write_hit_rate.unwrap();
    assert!(hp(&shared) < hp(&alone) - 0.1, "shared {} vs alone {}", hp(&shared), hp(&alone));
    assert!((hp(&apart) - hp(&alone)).abs() < 0.01, "isolated {} vs alone {}", hp(&apart), hp(&alone));
    // The NICs' own counts add up to the socket's, and stay each NIC's.
    let part = go(two, &["nics.lp.ddio_lines=2"]);
    assert!(part.nics["lp"].dma_write_bypass_lines > 0 && part.nics["hp"].dma_write_bypass_lines == 0);
    assert_eq!(part.nics.values().map(|n| n.dma_write_bypass_lines).sum::<u64>(), part.dma_write_bypass_lines);
}

#[test]
fn selective_dca_and_io_ways_are_checked() {
    for (ov, key) in [
        ("nics.nic0.ddio_lines=0", "nics.nic0.ddio_lines"),
        ("nics.nic0.ddio_lines=257", "nics.nic0.ddio_lines"),
        ("nics.nic0.ddio_mask=0", "nics.nic0.ddio_mask"),
        ("nics.nic0.ddio_mask=0x800", "nics.nic0.ddio_mask"),
        ("platform.ddio=false", ""),
        ("nics.nic0.attachment=\"coherent\"", ""),
    ] {
        let mut all = vec![ov.to_string()];
        if key.is_empty() {
            // Allowed values, on a NIC without DDIO: refused as such.
            all.push("nics.nic0.ddio_lines=2".to_string());
        }
        let e = run_text(&base(""), &all, None).unwrap_err().to_string();
        let want = if key.is_empty() { "nics.nic0.ddio_lines" } else { key };
        assert!(e.starts_with(want), "{ov}: {e}");
    }
    let e = run_text(&base(""), &["nics.nic0.ddio=false".to_string(), "nics.nic0.ddio_mask=0x180".to_string()], None).unwrap_err().to_string();
    assert!(e.starts_with("nics.nic0.ddio_mask") && e.contains("DDIO is off"), "{e}");
}

/// Haswell-EP has no Memory Bandwidth Allocation: an app's `mba_percent` below 100 is simulated as
/// 100 (the same run), with a warning; on Skylake-SP it throttles.
#[test]
fn mba_throttles_only_on_a_part_that_has_it() {
    let text = common::minimal(300, 200, "mba_percent = 10");
    let run = |preset: &str, mba: &str| run_text(&text.replace("mba_percent = 10", mba), &[format!("platform.preset=\"{preset}\"")], None).unwrap();
    let (hsw, hsw_full) = (run("haswell-e5-2699v3", "mba_percent = 10"), run("haswell-e5-2699v3", ""));
    assert!(hsw.warnings.iter().any(|w| w.contains("apps.fwd: mba_percent = 10 has no effect")), "{:?}", hsw.warnings);
    assert_eq!((hsw.metrics.throughput_gbps, hsw.metrics.latency_ns.p99), (hsw_full.metrics.throughput_gbps, hsw_full.metrics.latency_ns.p99));
    let (skx, skx_full) = (run("skylake-gold-6140", "mba_percent = 10"), run("skylake-gold-6140", ""));
    assert!(!skx.warnings.iter().any(|w| w.contains("mba_percent")), "{:?}", skx.warnings);
    assert!(skx.metrics.latency_ns.p99 != skx_full.metrics.latency_ns.p99, "MBA at 10 % changes nothing on Skylake-SP");
}
