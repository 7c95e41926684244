//! Property-based fuzzing of the scenario and platform-file parsers (proptest).
//!
//! Generated inputs: any key of the scenario schema (and unknown ones) set to integers, floats
//! (NaN, ±inf, extremes), strings, booleans, arrays or tables; platform files with fields replaced
//! the same way; and raw text cut or spliced at random. Properties: parsing never panics; an
//! accepted scenario is shortened and simulated, and every run keeps the invariants of
//! `hostio_sim::invariants`. `PROPTEST_CASES` sets the number of inputs per property
//! (`make fuzz CASES=N`).
use hostio_sim::config::Platform;
use hostio_sim::{parse_scenario, ConfigError, Run};
use proptest::prelude::*;

mod common;

static BASE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| common::minimal(30, 10, ""));

const KEYS: &[&str] = &[
    "run.seed", "run.duration_us", "run.warmup_us", "run", "platform",
    "platform.preset", "platform.ddio", "platform.ddio_ways", "platform.ddio_mask", "platform.llc_ways",
    "platform.llc_slices", "platform.llc_mib_per_slice", "platform.replacement", "platform.sockets",
    "nics.nic0.socket", "nics.nic0.line_rate_gbps", "nics.nic0.rx_descriptors", "nics.nic0.tx_descriptors",
    "nics.nic0.pause_frames", "nics.nic0.ddio", "nics.nic0.ddio_lines", "nics.nic0.ddio_mask", "nics.nic0.stash_lines", "nics.nic0.buffer_kib", "nics.nic0.design", "nics.nic0.pcie",
    "nics.nic0.pcie.gen", "nics.nic0.pcie.lanes", "nics.nic0.pcie.mps", "nics.nic0.pcie.mrrs", "nics.nic0.pcie.rcb",
    "nics.nic0.pcie.addr_bits", "nics.nic0.pcie.ecrc", "nics.nic0.pcie.rcb_chunks", "nics.nic1.socket",
    "traffic.t0.nic", "traffic.t0.rate_gbps", "traffic.t0.packet_size", "traffic.t0.size_mix", "traffic.t0.flows",
    "traffic.t0.flow_skew", "traffic.t1.nic", "apps.fwd.kind", "apps.fwd.nic", "apps.fwd.cores", "apps.fwd.socket",
    "apps.fwd.mempool_socket", "apps.fwd.cat_mask", "apps.fwd.cycles_per_packet", "apps.fwd.working_set_mib",
    "apps.fwd.accesses_per_us", "apps.fwd.accesses_per_packet", "apps.fwd.mba_percent", "apps.hog.kind",
    "apps.hog.working_set_mib", "apps.hog.accesses_per_us", "apps.hog.cores", "apps.hog.socket", "apps.two.nic",
    "apps.two.kind", "traffic.t0.imbalance", "traffic.t0.train_packets", "nics.nic0.tx_release",
    "nics.nic0.tx_read_window_kib", "junk", "run.junk", "nics.nic0.pcie.junk", "nics.nic0.attachment",
    "nics.nic0.coherent", "nics.nic0.coherent.link", "nics.nic0.coherent.signaling", "nics.nic0.coherent.layout",
    "nics.nic0.coherent.homing", "nics.nic0.coherent.pool", "nics.nic0.netdimm", "nics.nic0.netdimm.ncache_kib",
    "nics.nic0.netdimm.prefetch_lines", "nics.nic0.netdimm.channel", "nics.nic0.coherent.junk",
];

const WORDS: &[&str] = &[
    "\"nic0\"", "\"nic1\"", "\"l2fwd\"", "\"compute\"", "\"cache-hungry\"", "\"stateful-chain\"", "\"copy\"", "\"rowclone\"", "\"any\"", "\"imix\"",
    "\"campus\"", "\"skylake-gold-6140\"", "\"haswell-e5-2699v3\"", "\"icelake-silver-4314\"", "\"file:/nonexistent\"",
    "\"\"", "\"lru\"", "\"plru\"", "\"qlru\"", "\"random\"", "\"cx5\"", "\"simple\"", "\"kernel\"", "\"dpdk\"", "\"é\\u0000\"",
    "\"pcie\"", "\"integrated\"", "\"coherent\"", "\"memory-channel\"", "\"cxl\"", "\"doorbell\"", "\"packed\"",
    "\"reader\"", "\"queues\"", "\"ddr5-4800\"",
];

/// A TOML literal (or a bare word, which `--set` reads as a string).
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![0i64, 1, 2, 3, -1, 4, 8, 16, 32, 64, 100, 1500, 4096, 65536, 1 << 20, 1 << 32, i64::MAX, i64::MIN])
            .prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        (0u32..3000).prop_map(|v| v.to_string()),
        prop::sample::select(vec!["nan", "inf", "-inf", "0.0", "-0.0", "1e300", "1e-300", "0.5", "2.5", "1.375", "100.0", "4096.0"])
            .prop_map(str::to_string),
        (-1e4f64..1e4).prop_map(|v| format!("{v:?}")),
        prop::sample::select(WORDS.to_vec()).prop_map(str::to_string),
        any::<bool>().prop_map(|b| b.to_string()),
        prop::sample::select(vec!["[]", "[1, 2, 3]", "{}", "{ a = 1 }", "0x600", "0xFFFFFFFF", "0x7ff", "garbage words", "[[", "\"unterminated"])
            .prop_map(str::to_string),
    ]
}

/// A `dram_load_curve` as TOML: from [0, 1] (or another first point), loads that rise, stay or
/// jump past 10, factors that rise, fall or pass 100: about one in five valid.
fn curve() -> impl Strategy<Value = String> {
    let first = prop_oneof![4 => Just((0.0, 1.0)), 1 => Just((0.5, 1.0)), 1 => Just((0.0, 0.9))];
    let step = (prop_oneof![8 => 0.0f64..3.0, 1 => Just(0.0), 1 => Just(11.0)], prop_oneof![8 => 0.0f64..2.0, 1 => Just(-0.5), 1 => Just(150.0)]);
    (first, prop::collection::vec(step, 0..6)).prop_map(|((r0, f0), steps)| {
        let (mut r, mut f) = (r0, f0);
        let mut pts = vec![format!("[{r:?}, {f:?}]")];
        for (dr, df) in steps {
            r += dr;
            f += df;
            pts.push(format!("[{r:?}, {f:?}]"));
        }
        format!("[{}]", pts.join(", "))
    })
}

fn overrides() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec((prop::sample::select(KEYS.to_vec()), value()).prop_map(|(k, v)| format!("{k}={v}")), 0..5)
}

/// Simulate an accepted scenario briefly and check its invariants.
fn simulate_short(text: &str, ov: &[String]) {
    let Ok(sc) = parse_scenario(text, ov) else { return };
    // Host memory grows with the simulated memory: keep generated runs small.
    if sc.simulated_memory_mib() > 512 {
        return;
    }
    let mut ov = ov.to_vec();
    ov.push("run.duration_us=20".into());
    ov.push("run.warmup_us=5".into());
    let mut run = Run::new(text, &ov, None).expect("a valid scenario stays valid when shortened");
    while !run.step(1e9).0 {}
    let bad = run.check_invariants();
    assert!(bad.is_empty(), "invariants violated for {ov:?}:\n{}", bad.join("\n"));
}

fn one_line(e: &ConfigError) {
    let s = e.to_string();
    assert!(!s.contains('\n'), "error spans lines: {s}");
    assert!(!e.key.is_empty(), "error without a key: {s}");
}

proptest! {
    #[test]
    fn scenario_overrides_never_panic(ov in overrides()) {
        if let Err(e) = parse_scenario(&BASE, &ov) {
            one_line(&e);
        }
        simulate_short(&BASE, &ov);
    }

    #[test]
    fn scenario_text_mutations_never_panic(cut in 0usize..BASE.len(), insert in "[\\[\\]={}\"\\.a-z0-9 \n#-]{0,12}", ov in overrides()) {
        let mut text = BASE.to_string();
        let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.insert_str(cut, &insert);
        if let Err(e) = parse_scenario(&text, &ov) {
            one_line(&e);
        }
        simulate_short(&text, &ov);
    }

    #[test]
    fn platform_files_never_panic(
        preset in prop::sample::select(hostio_sim::config::PRESETS.to_vec()),
        edits in prop::collection::vec((prop::sample::select(vec![
            "clock_ghz", "cores_per_socket", "llc_ways", "llc_slices", "llc_mib_per_slice", "llc_inclusive", "l2_kib",
            "l2_ways", "ddio_default_mask", "ddio_mask_rule", "l1_latency_ns", "l2_latency_ns", "llc_latency_ns",
            "dram_latency_ns", "c2c_latency_ns", "memory_bandwidth_gbyte_s", "upi_latency_ns", "recycled_io_mask",
            "ddio_ways_ignored", "core_memory_bandwidth_gbyte_s", "dram_load_curve", "name", "junk",
        ]), value()), 0..4),
        load_curve in prop::option::of(curve()),
    ) {
        let mut fields: Vec<(String, String)> = Platform::preset(preset).unwrap().to_file_toml(&[]).unwrap()
            .lines().filter_map(|l| l.split_once(" = ").map(|(k, v)| (k.to_string(), v.to_string()))).collect();
        let curve_edit = load_curve.map(|c| ("dram_load_curve".to_string(), c));
        for (k, v) in edits.iter().map(|(k, v)| (k.to_string(), v.clone())).chain(curve_edit) {
            match fields.iter_mut().find(|f| f.0 == k) {
                Some(f) => f.1 = v,
                None => fields.push((k, v)),
            }
        }
        let text: String = fields.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
        match Platform::from_file_text(&text, "fuzz.toml") {
            Err(e) => one_line(&e),
            Ok(p) if p.cores_per_socket <= 64 && p.llc_slices as f64 * p.llc_mib_per_slice <= 128.0 => {
                let dir = std::env::temp_dir().join(format!("hostio-fuzz-{}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                let path = dir.join("platform.toml");
                std::fs::write(&path, &text).unwrap();
                simulate_short(&BASE, &[format!("platform.preset=\"file:{}\"", path.display())]);
            }
            Ok(_) => {}
        }
    }
}
