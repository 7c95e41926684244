//! Invariants of a finished run, checked once at its end: in debug builds on every run (a
//! violation panics), and on request in release builds (`Run::check_invariants`, which the fuzzer
//! uses).
//!
//! * Packets are conserved per NIC: every frame that reached it was dropped, waits in its buffer,
//!   waits in an RX ring, is at a core, or was handed to the TX ring (forwarded).
//! * No queue is negative or over-full: ring positions are ordered and within the ring size, the
//!   NIC buffer's byte count equals its backlog and stays within its capacity.
//! * A NIC's out-of-buffer drops are among its drops.
//! * Rates are rates: the hit and miss rates (the I/O hub's, each NIC's, an nCache's, each app's
//!   LLC miss rate) lie in [0, 1], link utilisations in [0, 1], and the throughputs, memory
//!   rates, latencies and their parts, LLC misses per µs and attachment metrics are finite and
//!   non-negative.
use crate::result::{LatencyNs, Metrics};

/// One RX/TX queue pair's positions (all counted from the start of the run).
#[derive(Debug, Clone)]
pub struct QueueLedger {
    pub rx_n: u64,
    pub rx_nic_pos: u64,
    pub rx_sw_pos: u64,
    pub rx_posted: u64,
    /// Slots the NIC sees posted (the core's replenishments reach it when written).
    pub rx_visible: u64,
    /// Frames taken from the RX ring and not yet placed in the TX ring.
    pub at_core: u64,
    pub tx_n: u64,
    pub tx_head: u64,
    pub tx_clean: u64,
    /// Positions of the posted slots whose frames close a block of completions, oldest first.
    pub tx_comp_ends: Vec<u64>,
    /// Posted slots after the last of them (the open block), and their eMPW segments.
    pub tx_open: u64,
    pub tx_open_segs: u64,
    /// Slots per completion the NIC's rings ask for (0: each slot releases itself).
    pub tx_comp_every: u64,
}

/// Where one NIC's frames are at the end of a run.
#[derive(Debug, Clone)]
pub struct NicLedger {
    pub name: String,
    pub arrived: u64,
    pub dropped: u64,
    /// Frames waiting in the on-NIC buffer, and their bytes.
    pub buffered: u64,
    pub buffered_bytes: u64,
    /// The NIC's own count of buffered bytes, and its capacity.
    pub buf_bytes: u64,
    pub buf_cap: u64,
    pub queues: Vec<QueueLedger>,
}

/// Slack for sums of floating-point link bytes.
const EPS: f64 = 1e-9;

/// Every violated invariant, one line each; empty when the run is consistent.
pub fn check(ledger: &[NicLedger], m: &Metrics) -> Vec<String> {
    let mut bad = Vec::new();
    for n in ledger {
        let in_rings: u64 = n.queues.iter().map(|q| q.rx_nic_pos.saturating_sub(q.rx_sw_pos)).sum();
        let at_cores: u64 = n.queues.iter().map(|q| q.at_core).sum();
        let forwarded: u64 = n.queues.iter().map(|q| q.tx_head).sum();
        let accounted = n.dropped + n.buffered + in_rings + at_cores + forwarded;
        if n.arrived != accounted {
            bad.push(format!(
                "nics.{}: {} frames arrived but {} are accounted for (dropped {}, NIC buffer {}, RX rings {}, cores {}, forwarded {})",
                n.name, n.arrived, accounted, n.dropped, n.buffered, in_rings, at_cores, forwarded
            ));
        }
        if n.buf_bytes != n.buffered_bytes || n.buf_bytes > n.buf_cap {
            bad.push(format!("nics.{}: buffer holds {} B by count, {} B by frames, capacity {} B", n.name, n.buf_bytes, n.buffered_bytes, n.buf_cap));
        }
        for (i, q) in n.queues.iter().enumerate() {
            if !(q.rx_sw_pos <= q.rx_nic_pos && q.rx_nic_pos <= q.rx_visible && q.rx_visible <= q.rx_posted && q.rx_posted <= q.rx_sw_pos + q.rx_n) {
                bad.push(format!(
                    "nics.{} queue {i}: RX ring out of order (software {}, NIC {}, seen posted by the NIC {}, posted {}, size {})",
                    n.name, q.rx_sw_pos, q.rx_nic_pos, q.rx_visible, q.rx_posted, q.rx_n
                ));
            }
            if !(q.tx_clean <= q.tx_head && q.tx_head <= q.tx_clean + q.tx_n) {
                bad.push(format!("nics.{} queue {i}: TX ring out of order (clean {}, head {}, size {})", n.name, q.tx_clean, q.tx_head, q.tx_n));
            }
            // Every slot not yet released is covered by a completion to come, or lies in the open
            // block, which a burst's end leaves shorter than a completion's worth of slots and
            // holding fewer eMPW segments than the ring's lines hold (4 each; with inlining the
            // engine closes it at an eighth of that, `TxRing::close_burst`), so a full ring, or
            // full segments, always have a completion to wait for.
            let ends = &q.tx_comp_ends;
            let ordered = ends.windows(2).all(|w| w[0] < w[1]) && ends.first().map_or(true, |&e| e >= q.tx_clean) && ends.last().map_or(true, |&e| e < q.tx_head);
            let covered = ends.last().map_or(q.tx_clean, |&e| e + 1) + q.tx_open == q.tx_head
                && q.tx_open < q.tx_comp_every.max(1)
                && q.tx_open_segs < 4 * q.tx_n;
            if !(ordered && covered) {
                bad.push(format!("nics.{} queue {i}: TX completions out of order (clean {}, head {}, completions after {:?}, open block {})", n.name, q.tx_clean, q.tx_head, ends, q.tx_open));
            }
        }
    }
    let mut rate = |what: String, v: Option<f64>| {
        if let Some(v) = v {
            if !(0.0..=1.0).contains(&v) {
                bad.push(format!("{what} = {v}: outside [0, 1]"));
            }
        }
    };
    rate("pcie_write_hit_rate".into(), m.pcie_write_hit_rate);
    rate("pcie_read_hit_rate".into(), m.pcie_read_hit_rate);
    for (name, a) in &m.apps {
        rate(format!("apps.{name}.llc_miss_rate"), a.llc_miss_rate);
    }
    for (name, n) in &m.nics {
        rate(format!("nics.{name}.pcie_write_hit_rate"), n.pcie_write_hit_rate);
        rate(format!("nics.{name}.pcie_read_hit_rate"), n.pcie_read_hit_rate);
        rate(format!("nics.{name}.ncache_hit_rate"), n.attachment_metrics.get("ncache_hit_rate").map(|f| f.get()));
    }
    for (name, n) in &m.nics {
        if n.out_of_buffer_packets > n.dropped_packets {
            bad.push(format!("nics.{name}: {} frames out of buffer but {} dropped in all", n.out_of_buffer_packets, n.dropped_packets));
        }
        let utilizations = [("pcie_d2h_utilization", n.pcie_d2h_utilization), ("pcie_h2d_utilization", n.pcie_h2d_utilization)]
            .into_iter()
            .chain(n.attachment_metrics.get("coherent_link_utilization").map(|u| ("coherent_link_utilization", Some(u.get()))));
        for (dir, u) in utilizations {
            let Some(u) = u else { continue };
            if !(u.is_finite() && (0.0..=1.0 + EPS).contains(&u)) {
                bad.push(format!("nics.{name}.{dir} = {u}: outside [0, 1]"));
            }
        }
    }
    let mut values = vec![
        ("offered_gbps".to_string(), m.offered_gbps),
        ("offered_mpps".to_string(), m.offered_mpps),
        ("throughput_gbps".to_string(), m.throughput_gbps),
        ("throughput_mpps".to_string(), m.throughput_mpps),
        ("memory_read_gbps".to_string(), m.memory_read_gbps),
        ("memory_write_gbps".to_string(), m.memory_write_gbps),
    ];
    latencies(&mut values, "latency_ns", &m.latency_ns);
    for (name, n) in &m.nics {
        values.extend(n.attachment_metrics.iter().map(|(k, v)| (format!("nics.{name}.{k}"), v.get())));
    }
    for (name, a) in &m.apps {
        values.push((format!("apps.{name}.throughput_gbps"), a.throughput_gbps));
        values.push((format!("apps.{name}.throughput_mpps"), a.throughput_mpps));
        values.extend(a.latency_breakdown_ns.iter().filter_map(|(k, v)| v.map(|v| (format!("apps.{name}.latency_breakdown_ns.{k}"), v))));
        values.push((format!("apps.{name}.llc_misses_per_us"), a.llc_misses_per_us));
        latencies(&mut values, &format!("apps.{name}.latency_ns"), &a.latency_ns);
        if a.llc_misses > a.llc_accesses {
            bad.push(format!("apps.{name}: {} LLC misses exceed {} LLC accesses", a.llc_misses, a.llc_accesses));
        }
    }
    for (k, v) in values {
        if !(v.is_finite() && v >= 0.0) {
            bad.push(format!("{k} = {v}: not a finite non-negative number"));
        }
    }
    bad
}

fn latencies(out: &mut Vec<(String, f64)>, key: &str, l: &LatencyNs) {
    for (f, v) in [("p50", l.p50), ("p90", l.p90), ("p99", l.p99), ("p999", l.p999), ("max", l.max), ("mean", l.mean)] {
        if let Some(v) = v {
            out.push((format!("{key}.{f}"), v));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Run;

    /// A consistent run's metrics with one number made wrong at a time: each is reported.
    #[test]
    fn rates_and_numbers_of_every_nic_and_app_are_checked() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/hostio/scenarios/quickstart.toml")).unwrap();
        let ov = ["run.duration_us=200".to_string(), "run.warmup_us=100".to_string()];
        let mut r = Run::new(&text, &ov, None).expect("valid scenario");
        while !r.step(1e9).0 {}
        let (ledger, good) = (r.engine.ledger(), r.engine.metrics());
        assert!(super::check(&ledger, &good).is_empty());
        let cases: [(&str, fn(&mut crate::result::Metrics)); 5] = [
            ("nics.nic0.pcie_write_hit_rate", |m| m.nics.get_mut("nic0").unwrap().pcie_write_hit_rate = Some(1.5)),
            ("nics.nic0.pcie_read_hit_rate", |m| m.nics.get_mut("nic0").unwrap().pcie_read_hit_rate = Some(-0.1)),
            ("nics.nic0.ncache_hit_rate", |m| {
                m.nics.get_mut("nic0").unwrap().attachment_metrics.insert("ncache_hit_rate".into(), crate::result::Figure::Value(2.0));
            }),
            ("apps.fwd.throughput_mpps", |m| m.apps.get_mut("fwd").unwrap().throughput_mpps = f64::NAN),
            ("apps.fwd.latency_breakdown_ns.core", |m| {
                m.apps.get_mut("fwd").unwrap().latency_breakdown_ns.insert("core".into(), Some(-1.0));
            }),
        ];
        for (key, spoil) in cases {
            let mut m = good.clone();
            spoil(&mut m);
            let bad = super::check(&ledger, &m);
            assert!(bad.len() == 1 && bad[0].starts_with(key), "{key}: {bad:?}");
        }
    }
}
