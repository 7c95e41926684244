//! hostio's discrete-event simulator of the host network I/O path.
//!
//! * [`config`] — the scenario schema (TOML), platform presets and validation.
//! * [`cache`] — one socket's L2s and sliced LLC with DDIO and CAT.
//! * [`mem`] — DRAM with load-dependent latency and MBA.
//! * [`mempool`] — DPDK-style packet buffers with per-core LIFO caches.
//! * [`pcap`] — packet captures (pcap, pcapng) read for replay as traffic.
//! * [`engine`] — the event loop: traffic, NIC, cores, TX.
//! * `attach` — how a NIC reaches the host: PCIe, on-die, a coherent link or a memory channel.
//! * `memsys` — the memory system as one facade (core and device accesses, page homes, device
//!   caches and memory zones).
//! * [`invariants`] — conservation and range checks of a finished run.
//! * [`result`] — what a run returns; [`hist`] — its latency histograms.
//! * [`rng`] — the seeded random streams every component draws from.
//! * `slice_map` — Skylake-SP's measured address-to-slice map.
//!
//! ```
//! let text = r#"
//! [run]
//! duration_us = 50
//! warmup_us = 10
//! [nics.nic0]
//! [traffic.t0]
//! nic = "nic0"
//! packet_size = 1500
//! [apps.fwd]
//! kind = "l2fwd"
//! nic = "nic0"
//! "#;
//! let r = hostio_sim::run_text(text, &[], None).unwrap();
//! assert!(r.metrics.throughput_gbps > 50.0);
//! ```
pub(crate) mod attach;
pub mod cache;
pub mod config;
pub mod engine;
pub mod hist;
pub mod invariants;
pub mod mem;
pub mod mempool;
pub mod pcap;
pub(crate) mod memsys;
pub mod result;
pub mod rng;
mod slice_map;

pub use config::{parse_scenario, ConfigError, Scenario};
pub use result::SimResult;

/// A prepared run that can be advanced in slices (so callers can report progress and honour
/// interrupts between slices).
pub struct Run {
    engine: engine::Engine,
    seed: u64,
    hash: String,
    started: std::time::Instant,
}

impl Run {
    /// Parse, override, validate and build. `seed` overrides `run.seed`.
    pub fn new(text: &str, overrides: &[String], seed: Option<u64>) -> Result<Run, ConfigError> {
        Self::new_at(text, overrides, seed, None)
    }

    /// [`Run::new`] of a scenario file's text, its relative file paths read from `base`
    /// ([`config::parse_scenario_at`]).
    pub fn new_at(text: &str, overrides: &[String], seed: Option<u64>, base: Option<&std::path::Path>) -> Result<Run, ConfigError> {
        let mut sc = config::parse_scenario_at(text, overrides, base)?;
        // Set directly: a TOML integer cannot hold seeds above i64::MAX.
        if let Some(s) = seed {
            sc.run.seed = s;
        }
        Self::from_scenario(sc)
    }

    pub fn from_scenario(sc: Scenario) -> Result<Run, ConfigError> {
        let mut resolved = sc.resolve()?;
        resolved.load_captures()?;
        // A platform file counts by its facts and a capture by its bytes, not by where they are.
        let mut sc = resolved.effective_scenario();
        for t in sc.traffic.values_mut() {
            t.pcap = t.pcap.as_ref().map(|_| "capture".into());
        }
        let mut canon = serde_json::to_string(&sc).expect("serialisable");
        if sc.platform.preset.starts_with("file:") {
            sc.platform.preset = "file".into();
            canon = serde_json::to_string(&(&sc, &resolved.platform)).expect("serialisable");
        }
        if !resolved.captures.is_empty() {
            let digests: Vec<String> = resolved.captures.values().map(|c| format!("{:016x}", c.digest)).collect();
            canon = serde_json::to_string(&(canon, digests)).expect("serialisable");
        }
        let hash = format!("{:016x}", result::fnv1a64(canon.as_bytes()));
        let seed = resolved.scenario.run.seed;
        let started = std::time::Instant::now();
        Ok(Run { engine: engine::Engine::new(resolved)?, seed, hash, started })
    }

    /// Simulate up to `slice_us` more; returns (done, fraction of simulated time completed).
    pub fn step(&mut self, slice_us: f64) -> (bool, f64) {
        let until = self.engine_now() + (slice_us * 1e6) as u64;
        let done = self.engine.advance(until);
        (done, (self.engine_now() as f64 / self.engine.end_ps() as f64).min(1.0))
    }

    fn engine_now(&self) -> u64 {
        self.engine.now()
    }

    /// Violated invariants of the run so far (see [`invariants`]); empty when consistent.
    pub fn check_invariants(&self) -> Vec<String> {
        invariants::check(&self.engine.ledger(), &self.engine.metrics())
    }

    /// The result. Debug builds check the invariants first and panic on a violation.
    pub fn finish(self) -> SimResult {
        if cfg!(debug_assertions) {
            let bad = self.check_invariants();
            assert!(bad.is_empty(), "simulator invariants violated:\n{}", bad.join("\n"));
        }
        let r = self.engine.resolved();
        SimResult {
            version: env!("CARGO_PKG_VERSION"),
            seed: self.seed,
            scenario_hash: self.hash.clone(),
            scenario: r.scenario.clone(),
            platform: r.platform.clone(),
            ddio_mask: format!("{:#x}", r.io_mask),
            warnings: r.warnings.clone(),
            simulated_us: (r.scenario.run.duration_us + r.scenario.run.warmup_us),
            events: self.engine.events,
            wall_seconds: self.started.elapsed().as_secs_f64(),
            metrics: self.engine.metrics(),
        }
    }
}

#[cfg(test)]
mod drop_loop_tests {
    use super::Run;

    /// Metrics JSON and event count of a run, with or without the arrival drop loop.
    fn metrics(text: &str, ov: &[&str], drop_loop: bool) -> (String, u64) {
        let ov: Vec<String> = ov.iter().map(|s| s.to_string()).collect();
        let mut r = Run::new(text, &ov, None).expect("valid scenario");
        r.engine.drop_loop = drop_loop;
        while !r.step(1e9).0 {}
        assert!(r.check_invariants().is_empty(), "{:?}", r.check_invariants());
        let res = r.finish();
        (serde_json::to_string(&res.metrics).unwrap(), res.events)
    }

    /// The drop loop gives exactly the results of handling every arrival in full, counters
    /// included, in states where queues differ (several queues, imbalance, a link that backs
    /// frames up, frames that exactly fill the buffer, PAUSE on).
    #[test]
    fn drop_loop_matches_the_full_arrival_path() {
        let text = r#"
[run]
duration_us = 300
warmup_us = 300
[nics.nic0]
[traffic.t0]
nic = "nic0"
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
"#;
        let cases: &[&[&str]] = &[
            &["traffic.t0.packet_size=64"],
            &["traffic.t0.packet_size=64", "nics.nic0.pcie.lanes=1", "nics.nic0.buffer_kib=16"],
            &["apps.fwd.cores=4", "traffic.t0.size_mix=\"imix\"", "nics.nic0.pcie.lanes=2", "nics.nic0.rx_descriptors=64", "nics.nic0.buffer_kib=64", "traffic.t0.imbalance=3.0", "apps.fwd.kind=\"compute\"", "apps.fwd.cycles_per_packet=2000"],
            &["apps.fwd.cores=3", "traffic.t0.packet_size=200", "nics.nic0.pcie.lanes=4", "nics.nic0.buffer_kib=17", "nics.nic0.rx_descriptors=64", "apps.fwd.kind=\"compute\"", "apps.fwd.cycles_per_packet=20000"],
            &["apps.fwd.cores=2", "traffic.t0.packet_size=64", "traffic.t0.flow_skew=1.2", "nics.nic0.rx_descriptors=32"],
            &["traffic.t0.packet_size=64", "nics.nic0.pause_frames=true", "nics.nic0.buffer_kib=64"],
        ];
        for ov in cases {
            assert_eq!(metrics(text, ov, true), metrics(text, ov, false), "{ov:?}");
        }
        // A capture of 64 B and 1500 B frames, several flows, back to back: its frames advance
        // through the loop as through the full path.
        use crate::pcap::tests::{classic_file, udp_frame};
        let frames: Vec<_> = (0..97u64).map(|i| (0, if i % 3 == 0 { 1514 } else { 60 }, udp_frame(60, i as u16 % 7, 0))).collect();
        let file = super::capture_tests::TempCapture::write("drop-loop", &classic_file(&frames, false, false, 1));
        let pcap = format!("traffic.t0.pcap={:?}", &*file);
        let pause = [pcap.as_str(), "nics.nic0.pause_frames=true", "nics.nic0.buffer_kib=64"];
        for ov in [&[pcap.as_str()][..], &[pcap.as_str(), "apps.fwd.cores=3", "nics.nic0.rx_descriptors=64", "nics.nic0.buffer_kib=17"], &pause] {
            assert_eq!(metrics(text, ov, true), metrics(text, ov, false), "{ov:?}");
        }
    }
}

#[cfg(test)]
mod capture_tests {
    use super::{run_text, Run};
    use crate::pcap::tests::{classic_file, udp_frame};

    /// A capture file in the temporary folder, removed when dropped.
    pub(crate) struct TempCapture(pub(crate) String);

    impl TempCapture {
        pub(crate) fn write(name: &str, bytes: &[u8]) -> TempCapture {
            let path = std::env::temp_dir().join(format!("hostio-{}-{name}.pcap", std::process::id()));
            std::fs::write(&path, bytes).unwrap();
            TempCapture(path.to_str().unwrap().to_string())
        }
    }

    impl Drop for TempCapture {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    impl std::ops::Deref for TempCapture {
        type Target = str;
        fn deref(&self) -> &str {
            &self.0
        }
    }

    /// `n` frames of `orig` B, `gap_ns` apart, cycling through `flows` UDP source ports.
    fn capture(name: &str, n: u64, orig: usize, gap_ns: u64, flows: u16) -> TempCapture {
        let frames: Vec<_> = (0..n).map(|i| (i * gap_ns, orig as u32, udp_frame(orig.min(128), 1000 + (i % flows as u64) as u16, 0))).collect();
        TempCapture::write(name, &classic_file(&frames, true, false, 1))
    }

    fn scenario(path: &str, extra: &str) -> String {
        format!(
            "[run]\nduration_us = 400\nwarmup_us = 100\n[nics.nic0]\n[traffic.t0]\nnic = \"nic0\"\npcap = {path:?}\n{extra}\n[apps.fwd]\nkind = \"l2fwd\"\nnic = \"nic0\"\n"
        )
    }

    /// Frames 1 µs apart arrive 1 µs apart (1 Mpps, the capture looping), or 2 µs apart with
    /// `rate_gbps` at half the capture's mean rate; with `pcap_timing = "rate"` the same frames
    /// come at `rate_gbps`; frames stamped at one instant arrive back to back at line rate.
    #[test]
    fn a_capture_replays_at_its_own_pace_at_the_rate_or_at_line_rate() {
        let p = capture("pace", 50, 1514, 1000, 8);
        let m = run_text(&scenario(&p, ""), &[], None).unwrap().metrics;
        assert!((m.offered_mpps - 1.0).abs() < 0.01, "{}", m.offered_mpps);
        assert!((m.offered_gbps - 1518.0 * 8.0 / 1000.0).abs() < 0.1, "{}", m.offered_gbps);
        assert_eq!(m.dropped_packets, 0);
        // A rate with the capture's timing scales its gaps: half its mean rate, half the frames.
        let mean = 1538.0 * 8.0 / 1000.0;
        let m = run_text(&scenario(&p, &format!("rate_gbps = {}", mean / 2.0)), &[], None).unwrap().metrics;
        assert!((m.offered_mpps - 0.5).abs() < 0.005, "{}", m.offered_mpps);
        let m = run_text(&scenario(&p, "pcap_timing = \"rate\"\nrate_gbps = 40"), &[], None).unwrap().metrics;
        // 40 Gb/s on the wire of 1538 B per frame.
        assert!((m.offered_mpps - 40e3 / (1538.0 * 8.0)).abs() < 0.05, "{}", m.offered_mpps);
        let p = capture("burst", 50, 1514, 0, 8);
        let m = run_text(&scenario(&p, ""), &[], None).unwrap().metrics;
        assert!((m.offered_mpps - 100e3 / (1538.0 * 8.0)).abs() < 0.05, "{}", m.offered_mpps);
        // Such a capture has no mean rate to scale.
        let e = Run::new(&scenario(&p, "rate_gbps = 10"), &[], None).err().unwrap();
        assert_eq!(e.key, "traffic.t0.rate_gbps");
        assert!(e.allowed.contains("no mean rate to scale"), "{}", e.allowed);
    }

    /// A capture's largest frame sizes the NIC's packet buffers once it is read (the largest any
    /// source may send until then, and the largest of several sources), and with flow control
    /// it must fit the quarter of the NIC's buffer above XOFF, as a fixed size must.
    #[test]
    fn a_captures_largest_frame_sizes_buffers_and_the_pause_room() {
        let p = capture("jumbo", 10, 9014, 1000, 1);
        let two = format!("{}[traffic.t1]\nnic = \"nic0\"\npacket_size = 1500\n", scenario(&p, ""));
        let mut r = crate::parse_scenario(&two, &[]).unwrap().resolve().unwrap();
        let none = std::collections::BTreeMap::new();
        assert_eq!(crate::engine::largest_received(&r.scenario, "nic0", &none), 9018);
        r.load_captures().unwrap();
        assert_eq!(crate::engine::largest_received(&r.scenario, "nic0", &r.captures), 9018);
        let small = capture("small", 10, 300, 1000, 1);
        let mut r = crate::parse_scenario(&format!("{}[traffic.t1]\nnic = \"nic0\"\nsize_mix = \"imix\"\n", scenario(&small, "")), &[]).unwrap().resolve().unwrap();
        r.load_captures().unwrap();
        assert_eq!(crate::engine::largest_received(&r.scenario, "nic0", &r.captures), 1500);
        let paused = |path: &str| Run::new(&scenario(path, "").replace("[nics.nic0]\n", "[nics.nic0]\npause_frames = true\nbuffer_kib = 16\n"), &[], None).err();
        let e = paused(&p).expect("a 9018 B frame needs 36 KiB");
        assert_eq!(e.key, "nics.nic0.buffer_kib");
        assert!(e.allowed.contains("at least 36 KiB"), "{}", e.allowed);
        assert!(paused(&small).is_none());
    }

    /// RSS spreads a capture's flows: one flow keeps one of four busy cores' queues, 64 flows
    /// use all four.
    #[test]
    fn rss_hashes_the_capture_s_flows_to_queues() {
        let run = |flows| {
            let p = capture(&format!("flows{flows}"), 256, 1514, 0, flows);
            let sc = scenario(&p, "").replace("kind = \"l2fwd\"", "kind = \"compute\"\ncores = 4\ncycles_per_packet = 5000");
            run_text(&sc, &[], None).unwrap().metrics.throughput_mpps
        };
        let (one, many) = (run(1), run(64));
        assert!(many > 3.0 * one, "one flow {one} Mpps, 64 flows {many} Mpps");
    }

    /// The same path holding another capture is another scenario (its hash).
    #[test]
    fn a_run_s_hash_follows_the_capture_s_bytes() {
        // Another size, so that no cache keyed by size and time can mistake one for the other.
        let hash = |gap| {
            let p = capture(&format!("hash{gap}"), 10 + gap / 1000, 1514, gap, 1);
            Run::new(&scenario(&p, ""), &[], None).unwrap().hash
        };
        assert_ne!(hash(1000), hash(2000));
        assert_eq!(hash(1000), hash(1000));
        // The same bytes elsewhere: the same scenario.
        let a = capture("hash-a", 10, 1514, 1000, 1);
        let b = capture("hash-b", 10, 1514, 1000, 1);
        let h = |p: &str| Run::new(&scenario(p, ""), &[], None).unwrap().hash;
        assert_eq!(h(&a), h(&b));
    }

    /// A relative path is read from the scenario file's folder.
    #[test]
    fn a_relative_path_is_read_from_the_scenario_s_folder() {
        let p = capture("rel", 10, 1514, 1000, 1);
        let path = std::path::Path::new(&*p);
        let (dir, name) = (path.parent().unwrap(), path.file_name().unwrap().to_str().unwrap());
        let sc = crate::config::parse_scenario_at(&scenario(name, ""), &[], Some(dir)).unwrap();
        assert_eq!(sc.traffic["t0"].pcap.as_deref(), Some(&*p));
        // A folder whose name is not UTF-8 cannot hold the joined path as text: refused, not
        // read from elsewhere.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/tmp/odd\xff"));
            let e = crate::config::parse_scenario_at(&scenario(name, ""), &[], Some(odd)).unwrap_err();
            assert_eq!(e.key, "traffic.t0.pcap");
            assert!(e.allowed.contains("is not valid UTF-8"), "{}", e.allowed);
            // Joined to a working directory that is not UTF-8, a path stays relative (read from
            // there all the same).
            let mut v: toml::Value = toml::from_str("[traffic.t0]\npcap = \"a.pcap\"\n[platform]\npreset = \"file:p.toml\"\n").unwrap();
            assert!(!crate::config::absolute_paths(&mut v, odd, false).unwrap());
            assert_eq!(v["traffic"]["t0"]["pcap"].as_str(), Some("a.pcap"));
            let e = crate::config::absolute_paths(&mut v, odd, true).unwrap_err();
            assert_eq!((e.key.as_str(), e.value.as_str()), ("platform.preset", "\"file:p.toml\""));
        }
        let e = Run::new(&scenario("no-such-hostio-capture.pcap", ""), &[], None).err().unwrap();
        assert_eq!(e.key, "traffic.t0.pcap");
        assert!(e.allowed.contains("cannot be opened"), "{}", e.allowed);
    }
}

/// Run a scenario given as TOML text to completion.
pub fn run_text(text: &str, overrides: &[String], seed: Option<u64>) -> Result<SimResult, ConfigError> {
    let mut r = Run::new(text, overrides, seed)?;
    while !r.step(1e9).0 {}
    Ok(r.finish())
}
