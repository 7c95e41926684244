//! Integration tests: short real measurements on whatever machine runs them. They check that
//! the measurements run and return sane shapes, never timing thresholds.
use hostio_hw::coherent::{Layout, Pool, Signaling};
use hostio_hw::probe::{self, BwConfig, BwKind, C2cConfig, ChaseConfig};
use hostio_hw::ring::{self, RingConfig};
use hostio_hw::util;

#[test]
fn chase_small_sets() {
    for bytes in [4096, 64 << 10] {
        let p = probe::chase(&ChaseConfig { bytes, seed: 3, cpu: None, reps: 3, loads: Some(1 << 14) }).unwrap();
        assert!(p.ns.median > 0.05 && p.ns.median < 10_000.0, "{:?}", p.ns);
        assert_eq!(p.ns.n, 3);
    }
}

#[test]
fn bandwidth_runs() {
    let cpus = vec![util::allowed_cpus()[0]];
    for kind in [BwKind::Read, BwKind::Write, BwKind::Copy] {
        let r = probe::bandwidth(&BwConfig { kind, bytes: 4 << 20, cpus: cpus.clone(), reps: 2 }).unwrap();
        assert!(r.gbyte_s.median > 0.1, "{kind:?} {:?}", r.gbyte_s);
    }
}

#[test]
fn pair_tests_when_two_cpus() {
    let cpus = util::allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("one cpu: pair tests skipped");
        return;
    }
    let c = probe::c2c_pair(&C2cConfig { a: cpus[0], b: cpus[1], samples: 11, rounds: 50, lines: 16, seed: 1 }).unwrap();
    assert!(c.one_way_ns > 1.0 && c.one_way_ns < 1e6);
    let l = probe::loaded_chase(&ChaseConfig { bytes: 1 << 20, seed: 1, cpu: Some(cpus[0]), reps: 2, loads: Some(1 << 14) }, &cpus[1..], 4 << 20)
        .unwrap();
    assert!(l.stream_gbyte_s > 0.0);
    for sig in Signaling::ALL {
        for layout in Layout::ALL {
            for (batch, pool, payload) in [(1, Pool::Shared, 0), (6, Pool::Queues, 64)] {
                let cfg = RingConfig {
                    signaling: sig,
                    layout,
                    batch,
                    pool,
                    payload_bytes: payload,
                    window: 32,
                    duration_ms: 20,
                    cpus: None,
                };
                let r = ring::run(&cfg).unwrap();
                assert!(r.latency_samples > 0 && r.mdesc_per_s > 0.0, "{cfg:?}");
                assert_eq!(r.gbps.is_some(), payload > 0);
            }
        }
    }
}
