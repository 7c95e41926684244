//! Bad and extreme input: each case is refused with the key it concerns (never a panic, an abort
//! or a hang), and valid runs keep the simulator's invariants.
use hostio_sim::config::Platform;
use hostio_sim::{parse_scenario, run_text, Run};

mod common;

static BASE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| common::minimal(60, 20, ""));

fn err_key(text: &str, ov: &[&str]) -> String {
    let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
    parse_scenario(text, &ov).expect_err("must be refused").key
}

/// Zero-width and bidirectional formatting characters and line separators.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{feff}' | '\u{e0000}'..='\u{e0fff}')
}

fn platform_with(field: &str, value: &str) -> Result<Platform, hostio_sim::ConfigError> {
    let text = Platform::preset("skylake-gold-6140").unwrap().to_file_toml(&[]).unwrap();
    let line = format!("{field} = {value}");
    let text: String = if text.contains(&format!("\n{field} = ")) || text.starts_with(&format!("{field} = ")) {
        text.lines().map(|l| if l.starts_with(&format!("{field} = ")) { line.clone() } else { l.to_string() }).collect::<Vec<_>>().join("\n")
    } else {
        format!("{line}\n{text}")
    };
    Platform::from_file_text(&text, "p.toml")
}

#[test]
fn platform_file_fields_have_ranges() {
    for (field, value) in [
        ("l2_kib", "4194304"),
        ("cores_per_socket", "100000"),
        ("cores_per_socket", "0"),
        ("l2_ways", "0"),
        ("recycled_io_mask", "0x1000"),
        ("l1_latency_ns", "-1.0"),
        ("dram_latency_ns", "1e300"),
        ("memory_bandwidth_gbyte_s", "nan"),
        ("memory_bandwidth_gbyte_s", "0.001"),
        ("core_memory_bandwidth_gbyte_s", "0.5"),
        ("dram_load_curve", "[]"),
        ("dram_load_curve", "[[0.0, 1.0]]"),
        ("dram_load_curve", "[[0.1, 1.0], [1.0, 2.0]]"),
        ("dram_load_curve", "[[0.0, 1.0], [0.5, 0.9]]"),
        ("dram_load_curve", "[[0.0, 1.0], [0.5, 1.2], [0.5, 1.3]]"),
        ("dram_load_curve", "[[0.0, 1.0], [20.0, 2.0]]"),
        ("dram_load_curve", "[[0.0, 1.0], [1.0, 1e9]]"),
        ("dram_load_curve", "[[0.0, 1.0], [1.0, nan]]"),
        ("dram_load_curve", "[[0.0, 1.0], [inf, 2.0]]"),
        ("dram_load_curve", "[[0.0, 1.0, 3.0], [1.0, 2.0, 4.0]]"),
        ("dram_latency_ns", "1e-300"),
    ] {
        let e = platform_with(field, value).expect_err(field);
        assert_eq!(e.key, format!("platform file p.toml: {field}"), "{field} = {value}: {e}");
    }
    // The curve's errors say what is wrong, with numbers short enough to read.
    let why = |v: &str| platform_with("dram_load_curve", v).unwrap_err().to_string();
    assert!(why("[[0.0, 1.0], [1e-300, 1.5], [1e-300, 2.0]]").ends_with("[1e-300, 2] after [1e-300, 1.5] is not"), "{}", why("[[0.0, 1.0], [1e-300, 1.5], [1e-300, 2.0]]"));
    assert!(why("[[0.0, 1.0], [1e-300, 1.5], [1e-300, 2.0]]").len() < 400);
    let many: Vec<String> = (0..65).map(|i| format!("[{}, {}]", i as f64 / 10.0, 1.0 + i as f64)).collect();
    assert!(why(&format!("[{}]", many.join(", "))).ends_with("it has 65 point(s)"));
    assert!(why("[[0.5, 1.0], [1.0, 2.0]]").ends_with("its first point is [0.5, 1]"));
    assert!(why("[[0.0, 1.0, 3.0], [1.0, 2.0]]").contains("point 0 has 3 number(s): each point is [load, factor]"), "{}", why("[[0.0, 1.0, 3.0], [1.0, 2.0]]"));
    // The presets themselves pass.
    for name in hostio_sim::config::PRESETS {
        Platform::preset(name).unwrap().validate().unwrap();
    }
}

#[test]
fn memory_beyond_the_address_space_is_refused_not_hung() {
    let mut text = String::from("[run]\nduration_us = 10\nwarmup_us = 0\n");
    for i in 0..17 {
        text += &format!("[apps.hog{i:02}]\nkind = \"cache-hungry\"\nsocket = {}\nworking_set_mib = 4096\naccesses_per_us = 10\n", i % 2);
    }
    let e = parse_scenario(&text, &[]).unwrap_err();
    // The bound rounds every region up to whole pages, so the 16th app of 4 GiB is the first over.
    assert_eq!(e.key, "apps.hog15.working_set_mib", "{e}");
    assert!(e.allowed.contains("64 GiB"), "{e}");
    // 15 of them fit.
    let few: String = text.split("[apps.hog15]").next().unwrap().to_string();
    let sc = parse_scenario(&few, &[]).unwrap();
    assert!(sc.simulated_memory_mib() <= 64 << 10);
}

/// DPDK memory takes whole 1 GiB hugepages per home (socket or memory-channel NIC), and the rest
/// must fit beside them: a forwarder (its 2 MiB working set and one hugepage of buffers) next to
/// co-runners that leave exactly the frames they need fits; 2 MiB more does not.
#[test]
fn hugepages_and_the_rest_must_fit_together() {
    let text = |last_mib: u64| {
        let mut t = String::from(
            "[run]\nduration_us = 10\nwarmup_us = 0\n[nics.nic0]\n[traffic.t0]\nnic = \"nic0\"\npacket_size = 1500\n[apps.fwd]\nkind = \"l2fwd\"\nnic = \"nic0\"\n",
        );
        for i in 0..16 {
            let ws = if i == 15 { last_mib } else { 4096 };
            t += &format!("[apps.hog{i:02}]\nkind = \"cache-hungry\"\nworking_set_mib = {ws}\naccesses_per_us = 10\n");
        }
        t
    };
    // 64 GiB = 32768 frames: 512 for the hugepage, 2 for the forwarder's working set, 2049 for
    // each 4 GiB co-runner (pages are rounded up with one to spare), 1519 left for the last.
    let fits = 1518 * 2;
    let sc = parse_scenario(&text(fits), &[]).unwrap();
    assert!(sc.simulated_memory_mib() < 64 << 10, "the bound counts pages, not whole hugepages: {}", sc.simulated_memory_mib());
    let e = parse_scenario(&text(fits + 2), &[]).unwrap_err();
    assert_eq!(e.key, "apps.hog15.working_set_mib", "{e}");
    assert!(e.allowed.contains("in 1 whole 1 GiB hugepages") && e.allowed.contains("64 GiB"), "{e}");
}

#[test]
fn arrays_are_not_read_as_tables() {
    let no_run = BASE.replace("[run]\nduration_us = 60\nwarmup_us = 20\n", "");
    assert_eq!(err_key(&format!("run = [7, 300, 100]\n{no_run}"), &[]), "run");
    assert_eq!(err_key(&format!("platform = []\n{}", *BASE), &[]), "platform");
    assert_eq!(err_key(&BASE, &["apps.fwd=[1, 2]"]), "apps.fwd");
    assert_eq!(err_key(&BASE, &["nics.nic0.pcie=[3, 16]"]), "nics.nic0.pcie");
}

#[test]
fn a_nic_nobody_uses_is_refused() {
    let e = parse_scenario(&BASE, &["nics.nic1.rx_descriptors=4096".into()]).unwrap_err();
    assert_eq!(e.key, "nics.nic1");
    assert!(e.allowed.contains("no app uses this NIC") && e.allowed.contains("nic0"), "{e}");
}

#[test]
fn seeds_span_u64() {
    let r = run_text(&BASE, &[], Some(u64::MAX)).unwrap();
    assert_eq!(r.seed, u64::MAX);
    assert_eq!(r.scenario.run.seed, u64::MAX);
}

#[test]
fn latency_is_null_when_no_packet_completed() {
    // 435 µs of compute per packet: nothing leaves within 10 µs.
    let text = BASE.replace("kind = \"l2fwd\"", "kind = \"compute\"\ncycles_per_packet = 1000000").replace("duration_us = 60\nwarmup_us = 20", "duration_us = 10\nwarmup_us = 0");
    let r = run_text(&text, &[], None).unwrap();
    assert_eq!(r.metrics.tx_packets, 0);
    assert_eq!(r.metrics.latency_ns.p50, None);
    assert_eq!(r.metrics.apps["fwd"].latency_ns.max, None);
    let j = serde_json::to_value(&r.metrics).unwrap();
    assert!(j["latency_ns"]["p99"].is_null());
}

fn run_checked(text: &str, ov: &[&str]) -> hostio_sim::SimResult {
    let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
    let mut run = Run::new(text, &ov, None).unwrap();
    while !run.step(1e9).0 {}
    let bad = run.check_invariants();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    run.finish()
}

#[test]
fn invariants_hold_under_overload_pause_and_a_saturated_link() {
    // 64 B frames at line rate drop at the NIC; PAUSE backs up the buffer; a x4 link saturates.
    let drops = run_checked(&BASE, &["traffic.t0.packet_size=64"]);
    assert!(drops.metrics.dropped_packets > 0);
    run_checked(&BASE, &["traffic.t0.packet_size=64", "nics.nic0.pause_frames=true"]);
    let sat = run_checked(&BASE, &["nics.nic0.pcie.lanes=4"]);
    let u = sat.metrics.nics["nic0"].pcie_d2h_utilization.unwrap();
    assert!(u > 0.95 && u <= 1.0, "a saturated x4 link: {u}");
}

#[test]
fn table_names_are_short_and_printable() {
    let text = |name: &str| {
        format!(
            "[nics.nic0]\n[traffic.t0]\nnic = \"nic0\"\npacket_size = 64\n[apps.{name}]\nkind = \"l2fwd\"\nnic = \"nic0\"\n"
        )
    };
    // Controls, an empty or long name, and invisible characters: a right-to-left override
    // (U+202E) would print the rest of the line reversed, a zero-width space hides a difference.
    for bad in ["\"\\u001b[31mRED\"", "\"a\\nb\"", "\"\"", "\"a\\u0085b\"", &format!("\"{}\"", "x".repeat(65)), "\"fwd\\u202edcba\"", "\"fw\\u200bd\"", "\"a\\u2066b\"", "\"\\ufefffwd\"", "\"f\\u206aw\"", "\"\\U000e0041\"", "\"a\\u3164b\"", "\" \"", "\"\\u3000\""] {
        let e = parse_scenario(&text(bad), &[]).expect_err(bad);
        assert!(e.key == "apps" && e.to_string().contains("table names of 1 to 64 characters, not blank, without control characters"), "{bad}: {e}");
        assert!(!e.to_string().chars().any(|c| c.is_control() || invisible(c)), "{bad}: the error itself prints no control or invisible character: {e:?}");
    }
    // A long name is shown by its start and its length in characters (not of its escapes).
    let e = parse_scenario(&text(&format!("\"{}\"", "\\u0007".repeat(300))), &[]).unwrap_err();
    assert!(e.value.ends_with("… (300 characters)") && e.value.matches("\\u0007").count() == 24, "{e}");
    for good in ["fwd", "\"fw d\"", "\"é-ü\"", &"y".repeat(64)] {
        parse_scenario(&text(good), &[]).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
}

#[test]
fn a_long_value_is_cut_to_its_start_and_length_and_the_rest_of_the_message_stays() {
    let long = "x".repeat(250);
    let e = parse_scenario(&BASE, &[format!("apps.fwd.kind=\"{long}\"")]).unwrap_err();
    assert!(e.to_string().contains("(250 characters)") && e.to_string().contains("l2fwd"), "{e}");
    let e = parse_scenario(&BASE, &[format!("run.duration_us=\"{}\"", "z".repeat(300))]).unwrap_err();
    assert!(e.value.contains("(300 characters)") && e.key == "run.duration_us", "{e}");
    // The length is the value's own, not that of its escapes.
    let e = parse_scenario(&BASE, &[format!("run.duration_us=\"{}\"", "\\u0007".repeat(100))]).unwrap_err();
    assert!(e.value.contains("(100 characters)") && e.value.contains("\\u{7}"), "{e}");
    let e = parse_scenario(&BASE, &[format!("run.{long}=1")]).unwrap_err();
    assert!(e.key.ends_with("… (254 characters)") && e.key.chars().count() < 230, "{e}");
}

#[test]
fn a_parser_message_quoting_a_key_shows_its_control_and_invisible_characters_escaped() {
    // serde names the unknown field as written; the message escapes what would reach the
    // terminal raw (an escape sequence) or disguise the key (a right-to-left override).
    for (key, shown) in [("\\u001b[31mX", "`\\u001b[31mX`"), ("ab\\u202ecd", "`ab\\u202ecd`"), ("a\\u200bb", "`a\\u200bb`"),
                         ("\\u2028", "`\\u2028`"), ("n\\u0085l", "`n\\u0085l`"), ("t\\U000e0041", "`t\\U000e0041`")] {
        let e = parse_scenario(&BASE, &[format!("run.\"{key}\"=1")]).unwrap_err();
        let text = e.to_string();
        assert!(text.contains(&format!("unknown field {shown}")), "{key}: {text}");
        assert!(!text.chars().any(|c| c.is_control() || invisible(c)), "{key}: {text:?}");
    }
}

#[test]
fn a_long_value_or_key_is_cut_before_an_escape_not_inside_it() {
    let rlo = "\\u202e".repeat(100);
    let e = parse_scenario(&BASE, &[format!("run.\"{rlo}\"=1")]).unwrap_err();
    let e2 = parse_scenario(&BASE, &[format!("nics.nic0.rx_descriptors=\"{}{}\"", "x".repeat(58), "\\u202e".repeat(40))]).unwrap_err();
    for shown in [&e.key, &e.value, &e2.value] {
        let head = shown.split('…').next().unwrap();
        let last = head.rsplit('\\').next().unwrap();
        assert!(!head.contains('\\') || last.len() >= 5, "cut inside an escape: {shown}");
        assert!(!shown.chars().any(|c| c.is_control() || invisible(c)), "{shown:?}");
    }
}

#[test]
fn unicode_spaces_around_an_override_are_not_trimmed_away() {
    for ov in ["run.seed=1\u{2028}", "run.seed=1\u{3000}", "run.seed=\u{2028}1", "run.seed\u{3000}=1"] {
        let e = parse_scenario(&BASE, &[ov.to_string()]).expect_err(ov);
        assert!(!e.to_string().chars().any(|c| c.is_control() || invisible(c)), "{ov:?}: {e}");
    }
    // TOML's own spaces and tabs are.
    parse_scenario(&BASE, &[" run.seed \t= \t7 ".to_string()]).expect("spaces and tabs around key and value");
}

#[test]
fn a_co_runner_refuses_the_packet_paths_keys() {
    // A cache-hungry app handles no packets: these keys would be accepted and ignored.
    let base = "[run]\nduration_us = 100\n[nics.nic0]\n[traffic.t0]\nnic = \"nic0\"\npacket_size = 64\n[apps.fwd]\nnic = \"nic0\"\n[apps.hog]\nkind = \"cache-hungry\"\nworking_set_mib = 4\naccesses_per_us = 10\n";
    for key in ["cycles_per_packet", "accesses_per_packet", "mempool_socket"] {
        let e = parse_scenario(base, &[format!("apps.hog.{key}=0")]).expect_err(key);
        assert_eq!(e.key, format!("apps.hog.{key}"), "{e}");
        assert!(e.to_string().contains("only for apps on a NIC"), "{e}");
    }
    assert!(parse_scenario(base, &[]).is_ok());
}
