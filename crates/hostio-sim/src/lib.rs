//! hostio's discrete-event simulator of the host network I/O path.
//!
//! * [`config`] — the scenario schema (TOML), platform presets and validation.
//! * [`cache`] — one socket's L2s and sliced LLC with DDIO and CAT.
//! * [`mem`] — DRAM with load-dependent latency and MBA.
//! * [`mempool`] — DPDK-style packet buffers with per-core LIFO caches.
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
        let mut sc = parse_scenario(text, overrides)?;
        // Set directly: a TOML integer cannot hold seeds above i64::MAX.
        if let Some(s) = seed {
            sc.run.seed = s;
        }
        Self::from_scenario(sc)
    }

    pub fn from_scenario(sc: Scenario) -> Result<Run, ConfigError> {
        let resolved = sc.resolve()?;
        let mut canon = serde_json::to_string(&resolved.scenario).expect("serialisable");
        if resolved.scenario.platform.preset.starts_with("file:") {
            // A platform file counts by its facts, not by how its path is spelled.
            let mut sc = resolved.scenario.clone();
            sc.platform.preset = "file".into();
            canon = serde_json::to_string(&(&sc, &resolved.platform)).expect("serialisable");
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
    }
}

/// Run a scenario given as TOML text to completion.
pub fn run_text(text: &str, overrides: &[String], seed: Option<u64>) -> Result<SimResult, ConfigError> {
    let mut r = Run::new(text, overrides, seed)?;
    while !r.step(1e9).0 {}
    Ok(r.finish())
}
