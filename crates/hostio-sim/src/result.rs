//! What a run returns: the resolved scenario, provenance (seed, version, scenario hash) and the
//! metrics, as one serde struct that becomes JSON and, in Python, a dict.
use crate::config::{AppKind, Platform, Scenario};
use crate::hist::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// Latency distribution summary, ns (NIC arrival → the end of the frame's slot on the TX wire, its
/// last bit and the inter-frame gap after it); every field is null
/// when no packet completed in the measured window.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LatencyNs {
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub p999: Option<f64>,
    pub max: Option<f64>,
    pub mean: Option<f64>,
}

impl LatencyNs {
    pub fn from_hist(h: &Histogram) -> LatencyNs {
        // ps → ns, keeping whole picoseconds.
        let ns = |v: f64| (h.count > 0).then(|| v.round() / 1000.0);
        LatencyNs {
            p50: ns(h.quantile(0.5)),
            p90: ns(h.quantile(0.9)),
            p99: ns(h.quantile(0.99)),
            p999: ns(h.quantile(0.999)),
            max: ns(h.max as f64),
            mean: ns(h.mean()),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AppMetrics {
    pub kind: AppKind,
    /// Transmitted Gb/s (frame bytes, without preamble and IFG).
    pub throughput_gbps: f64,
    pub throughput_mpps: f64,
    pub rx_packets: u64,
    pub tx_packets: u64,
    /// Drops at the app's NIC.
    pub dropped_packets: u64,
    pub pause_frames: u64,
    pub latency_ns: LatencyNs,
    /// Core accesses that missed the L2 (went to the LLC).
    pub llc_accesses: u64,
    /// Of those, the ones that missed the LLC of the core's socket.
    pub llc_misses: u64,
    pub llc_miss_rate: Option<f64>,
    pub llc_misses_per_us: f64,
    /// Co-runner: memory accesses issued.
    pub accesses: u64,
    /// Where a packet's time goes, p50 per component, ns (null without packets): `nic` (NIC
    /// buffer, TX wire wait and serialisation), `link` (the attachment: link or channel, I/O hub
    /// or coherence, DMA latency, both directions), `memory` (the core's accesses for it, from
    /// the wait for its prefetched header on), `core` (its cycles), `flush` (write-backs the host owes a memory-channel NIC before the doorbell, and
    /// the invalidations of its completion lines before the RX burst reads them),
    /// `copy` (a `copy` app filling its buffer: the core's copy or the NIC's clone; and the
    /// driver's stores of a small frame into an inlined TX descriptor; its loads count as queueing), `queueing`
    /// (RX ring, burst, doorbell and fetch-window waits).
    pub latency_breakdown_ns: BTreeMap<String, Option<f64>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NicMetrics {
    pub rx_packets: u64,
    pub dropped_packets: u64,
    /// Of `dropped_packets`, the frames whose RX queue had no posted descriptor (flow control
    /// off; ConnectX's `rx_out_of_buffer`); the others found the NIC buffer full.
    pub out_of_buffer_packets: u64,
    pub pause_frames: u64,
    /// `pcie`, `integrated`, `coherent` or `memory-channel`.
    pub attachment: &'static str,
    /// Share of the PCIe TLP bandwidth used device→host (null: not a PCIe NIC).
    pub pcie_d2h_utilization: Option<f64>,
    pub pcie_h2d_utilization: Option<f64>,
    /// This NIC's share of the I/O hub's counts: its ItoM hit rate over allocating writes, its
    /// PCIeRdCur hit rate, and its writes that went to DRAM (null rates: none of that kind).
    pub pcie_write_hit_rate: Option<f64>,
    pub pcie_read_hit_rate: Option<f64>,
    pub dma_write_bypass_lines: u64,
    pub ddio: bool,
    /// The attachment's own figures: coherent — `coherent_link_utilization`,
    /// `nic_line_transfers_per_packet`, `host_line_transfers_per_packet`; memory channel —
    /// `ncache_hit_rate`, `ncache_prefetched_lines`, `host_flushes`, `channel_gbyte_s`,
    /// `nic_dram_gbyte_s` and, with `clone = "rowclone"`, `clones_fpm`, `clones_psm`, `clones_gcm`.
    pub attachment_metrics: BTreeMap<String, Figure>,
}

/// One of an attachment's own figures: a count (an integer in JSON) or a measured value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Figure {
    Count(u64),
    Value(f64),
}

impl Figure {
    /// The figure as a number.
    pub fn get(self) -> f64 {
        match self {
            Figure::Count(n) => n as f64,
            Figure::Value(v) => v,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Metrics {
    /// ItoM hits / (hits + misses) over allocating device writes; null if there were none.
    pub pcie_write_hit_rate: Option<f64>,
    /// PCIeRdCur hits / (hits + misses); null if there were none.
    pub pcie_read_hit_rate: Option<f64>,
    pub pcie_write_lines: u64,
    pub pcie_read_lines: u64,
    /// Device writes that went to DRAM (DDIO off, a NIC on another socket, or the lines of a
    /// frame beyond its NIC's `ddio_lines`).
    pub dma_write_bypass_lines: u64,
    /// Offered load, Gb/s of frame bytes (without preamble and IFG).
    pub offered_gbps: f64,
    pub offered_mpps: f64,
    pub throughput_gbps: f64,
    pub throughput_mpps: f64,
    pub rx_packets: u64,
    pub tx_packets: u64,
    pub dropped_packets: u64,
    pub pause_frames: u64,
    pub latency_ns: LatencyNs,
    /// DRAM traffic of all sockets, Gb/s.
    pub memory_read_gbps: f64,
    pub memory_write_gbps: f64,
    pub ddio_allocations: u64,
    pub ddio_evictions: u64,
    pub apps: BTreeMap<String, AppMetrics>,
    pub nics: BTreeMap<String, NicMetrics>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimResult {
    pub version: &'static str,
    pub seed: u64,
    /// FNV-1a 64 of the scenario's canonical JSON (defaults and overrides applied; a platform
    /// file is covered by the facts it holds, and a replayed capture by the digest of its bytes,
    /// not by their paths).
    pub scenario_hash: String,
    pub scenario: Scenario,
    pub platform: Platform,
    pub ddio_mask: String,
    pub warnings: Vec<String>,
    pub simulated_us: f64,
    pub events: u64,
    pub wall_seconds: f64,
    pub metrics: Metrics,
}

pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_extend(FNV1A64_START, bytes)
}

/// FNV-1a 64's state before any byte.
pub const FNV1A64_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a 64 of the bytes hashed into `h` so far followed by `bytes` (for data read in parts).
pub fn fnv1a64_extend(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
