//! An analytic model of a host–device descriptor interface over a cache-coherent link.
//!
//! **Mechanism.** Over a coherent interconnect (UPI, CXL.cache, or simply two cores of one
//! socket) producer and consumer share memory; the only thing that costs is moving 64 B lines
//! between their caches. A line the consumer polls and the producer then writes crosses twice:
//! the producer's store must take ownership (invalidating the consumer's copy) and the
//! consumer's next load misses and fetches it back. With `T` the one-way line-transfer latency
//! (what a ping-pong on one line measures as round trip / 2, see [`crate::probe`]) the model
//! charges:
//!
//! * **Latency** (unloaded, time from the producer's first store to the consumer holding the
//!   whole batch): the transfers that must happen one after the other cost `T` each; transfers
//!   of further, independent lines overlap and cost `T / mlp`.
//!   - inline signaling: the flag travels with the descriptor: 1 serial transfer;
//!   - doorbell: the consumer sees the tail index first, then fetches the descriptor line:
//!     2 serial transfers (this is the round trip inline signaling removes, CC-NIC §4.1);
//!   - a payload read depends on the descriptor's address: 1 more serial transfer, its other
//!     lines overlapped;
//!   - plus software: `desc_cpu_ns` per descriptor is one direction's work (producer's stores
//!     plus consumer's loads). The consumer can start once the first signal of the batch is
//!     visible, so the two sides pipeline at the signal's granularity `g` (1 descriptor with
//!     inline padded/packed flags, a line of up to 4 with grouped, the whole batch with a
//!     doorbell): the batch costs (b + g) · `desc_cpu_ns` / 2 instead of b · `desc_cpu_ns`.
//! * **Max rate** (saturated; each side both consumes one ring and produces the other, as in a
//!   loopback NIC): per batch a side pays one serial poll miss (two with a doorbell: tail then
//!   data), `(lines − serial) / mlp` transfers for the rest of the batch it reads (`serial` the
//!   one or two serial misses), `lines / mlp`
//!   ownership transfers for the lines it writes, and its own `desc_cpu_ns` per descriptor; the
//!   two sides run in parallel, so rate = batch / time per batch of one side.
//!
//! `desc_cpu_ns` is best measured, not guessed: `ring::local_ns_per_desc` runs the same code
//! with both sides on one core (no line ever leaves the cache) and the model takes half of it.
//! What remains — the model's error — is then the coherence part alone.
//!
//! **Lines per batch** (`b` descriptors of 16 B): padded 1 line per descriptor; grouped
//! ⌈b/4⌉ lines (each batch starts a new line); packed: the lines a batch touches, averaged over
//! the slot offsets (k·b) mod 4, k = 0..3, at which back-to-back batches start, so batches that share a line pay for it twice (the
//! "thrashing" of CC-NIC §4.4). A doorbell adds the tail line. A payload of `p` bytes adds
//! ⌈p/64⌉ lines per descriptor in each direction. Separate free queues add 8 B per descriptor
//! (1/8 line) and a tail line per batch for each of the two queues.
//!
//! **Source and limits.** The counting follows the CC-NIC paper (Schuh et al., ASPLOS'24, §4:
//! inline signaling, writer-homed rings, 16 B descriptors grouped four per line with one flag,
//! shared buffer pool). The paper's ablation on Ice Lake over UPI: inline −37 % min latency at
//! 64 B and 1.3× max rate; packing 2.9× throughput over one descriptor per line; grouped 3.0×
//! while matching the padded min latency. This model ignores prefetchers, the store buffer's
//! depth, home-agent snoop filters and speculative memory reads of reader-homed lines; `mlp`
//! (default 4) stands for how many independent line misses a core overlaps.
use serde::{Deserialize, Serialize};

/// How the consumer learns a descriptor is ready.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Signaling {
    /// A tail index on its own line, written after the descriptors (PCIe NIC style).
    Doorbell,
    /// A ready flag inside the descriptor (or its line), written last.
    Inline,
}

/// How 16 B descriptors sit in 64 B lines.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// One descriptor per line (48 B wasted), no false sharing.
    Padded,
    /// Four per line back to back; with inline signaling each carries its own flag.
    Packed,
    /// Up to four per line with one flag per line; a batch starts a new line and the consumer
    /// skips to the next line at a blank (zeroed) slot.
    Grouped,
}

/// Where freed buffers go.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Pool {
    /// One pool both sides allocate from and free to (CC-NIC): the consumer frees a TX buffer
    /// and reuses it at once (LIFO) for the reply; no queue lines cross.
    Shared,
    /// PCIe style: a completion queue returns TX buffers to the host, and the host posts empty
    /// RX buffers to a fill queue.
    Queues,
}

impl Signaling {
    pub const ALL: [Signaling; 2] = [Signaling::Doorbell, Signaling::Inline];
    pub fn name(self) -> &'static str {
        match self {
            Signaling::Doorbell => "doorbell",
            Signaling::Inline => "inline",
        }
    }
}
impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Padded, Layout::Packed, Layout::Grouped];
    pub fn name(self) -> &'static str {
        match self {
            Layout::Padded => "padded",
            Layout::Packed => "packed",
            Layout::Grouped => "grouped",
        }
    }
}

/// The shape of one ring configuration (what the model needs of it).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct RingShape {
    pub signaling: Signaling,
    pub layout: Layout,
    /// Descriptors per batch (1..=64).
    pub batch: u32,
    pub pool: Pool,
    /// Payload bytes copied per descriptor in each direction (0 = none).
    pub payload_bytes: u32,
}

/// Costs of the link.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// One-way cache-line transfer latency between the two sides, ns (probe's `c2c_ns`).
    pub line_transfer_ns: f64,
    /// Independent line misses one side overlaps (memory-level parallelism).
    #[serde(default = "default_mlp")]
    pub mlp: f64,
    /// Software cost per descriptor and direction (producer + consumer work; half of the
    /// one-core round-trip measurement), ns.
    #[serde(default = "default_desc_cpu_ns")]
    pub desc_cpu_ns: f64,
}

/// An estimate: CC-NIC publishes no overlap figure; a core's ~10 line-fill buffers allow more
/// misses in flight, but a ring's reads are partly dependent (flag, then data), so fewer overlap.
fn default_mlp() -> f64 {
    4.0
}
/// An estimate for when no measurement is given (`hostio ringbench` uses half its measured
/// `ring::local_ns_per_desc` instead): a 16 B descriptor's few stores and loads per side, a
/// handful of cycles at 2–3 GHz.
fn default_desc_cpu_ns() -> f64 {
    2.0
}

impl LinkParams {
    pub fn new(line_transfer_ns: f64) -> Self {
        LinkParams { line_transfer_ns, mlp: default_mlp(), desc_cpu_ns: default_desc_cpu_ns() }
    }
}

/// Line transfers one batch costs, by cause.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct LineCounts {
    pub descriptor_lines: f64,
    pub signal_lines: f64,
    pub payload_lines: f64,
    pub pool_lines: f64,
}

impl LineCounts {
    pub fn total(&self) -> f64 {
        self.descriptor_lines + self.signal_lines + self.payload_lines + self.pool_lines
    }
}

/// Descriptor lines a batch of `b` touches.
pub fn descriptor_lines(layout: Layout, b: u32) -> f64 {
    let b = b.max(1);
    match layout {
        Layout::Padded => b as f64,
        Layout::Grouped => b.div_ceil(4) as f64,
        Layout::Packed => {
            // Batches are laid back to back: batch k starts at slot offset (k·b) mod 4.
            let touched: u32 = (0..4).map(|k| ((k * b) % 4 + b).div_ceil(4)).sum();
            touched as f64 / 4.0
        }
    }
}

/// Line transfers of one batch in one direction.
pub fn line_counts(s: &RingShape) -> LineCounts {
    let b = s.batch.max(1) as f64;
    LineCounts {
        descriptor_lines: descriptor_lines(s.layout, s.batch),
        signal_lines: if s.signaling == Signaling::Doorbell { 1.0 } else { 0.0 },
        payload_lines: b * s.payload_bytes.div_ceil(64) as f64,
        pool_lines: match s.pool {
            Pool::Shared => 0.0,
            // Two queues (completion + fill): 8 B entries, and a tail line each per batch.
            Pool::Queues => 2.0 * (b / 8.0 + 1.0),
        },
    }
}

/// What the model predicts for one configuration.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Prediction {
    pub one_way_ns: f64,
    pub max_mdesc_per_s: f64,
    pub lines: LineCounts,
    /// Serial transfers on the unloaded path.
    pub serial_transfers: f64,
}

/// Predict unloaded one-way latency and saturated rate.
pub fn predict(s: &RingShape, p: &LinkParams) -> Prediction {
    let t = p.line_transfer_ns;
    let mlp = p.mlp.max(1.0);
    let b = s.batch.max(1) as f64;
    let lc = line_counts(s);
    let sig_serial = if s.signaling == Signaling::Doorbell { 1.0 } else { 0.0 };
    let payload_serial = if s.payload_bytes > 0 { 1.0 } else { 0.0 };
    let serial = 1.0 + sig_serial + payload_serial;
    // Lines of this batch beyond the serial ones overlap.
    let overlapped = (lc.descriptor_lines - 1.0).max(0.0) + (lc.payload_lines - payload_serial).max(0.0);
    let g = match (s.signaling, s.layout) {
        (Signaling::Doorbell, _) => b,
        (Signaling::Inline, Layout::Grouped) => b.min(4.0),
        (Signaling::Inline, _) => 1.0,
    };
    let one_way = t * (serial + overlapped / mlp) + (b + g) * p.desc_cpu_ns / 2.0;
    // Saturated: reading side pays the serial poll (+ tail) miss and overlaps the rest; writing
    // side overlaps its ownership transfers; both sides do both (loopback).
    let read_ns = t * (1.0 + sig_serial + (lc.total() - 1.0 - sig_serial).max(0.0) / mlp);
    let write_ns = t * lc.total() / mlp;
    let batch_ns = read_ns + write_ns + b * p.desc_cpu_ns;
    Prediction { one_way_ns: one_way, max_mdesc_per_s: b / batch_ns * 1e3, lines: lc, serial_transfers: serial }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(signaling: Signaling, layout: Layout, batch: u32) -> RingShape {
        RingShape { signaling, layout, batch, pool: Pool::Shared, payload_bytes: 0 }
    }

    #[test]
    fn line_counting() {
        assert_eq!(descriptor_lines(Layout::Padded, 16), 16.0);
        assert_eq!(descriptor_lines(Layout::Grouped, 1), 1.0);
        assert_eq!(descriptor_lines(Layout::Grouped, 5), 2.0);
        assert_eq!(descriptor_lines(Layout::Packed, 4), 1.0);
        // b = 1 packed: every descriptor shares a line with the next batch's.
        assert_eq!(descriptor_lines(Layout::Packed, 1), 1.0);
        // b = 2: offsets 0,2,0,2 → one line each.
        assert_eq!(descriptor_lines(Layout::Packed, 2), 1.0);
        // b = 3: offsets 0,3,2,1 → 1,2,2,1 lines.
        assert_eq!(descriptor_lines(Layout::Packed, 3), 1.5);
    }

    #[test]
    fn inline_beats_doorbell() {
        let p = LinkParams::new(100.0);
        let d = predict(&shape(Signaling::Doorbell, Layout::Padded, 1), &p);
        let i = predict(&shape(Signaling::Inline, Layout::Padded, 1), &p);
        assert!(i.one_way_ns < d.one_way_ns);
        assert!(i.max_mdesc_per_s > d.max_mdesc_per_s);
        assert_eq!(d.serial_transfers, 2.0);
        assert_eq!(i.serial_transfers, 1.0);
    }

    #[test]
    fn grouped_matches_padded_latency_and_packed_throughput() {
        let p = LinkParams::new(100.0);
        let pad1 = predict(&shape(Signaling::Inline, Layout::Padded, 1), &p);
        let grp1 = predict(&shape(Signaling::Inline, Layout::Grouped, 1), &p);
        assert_eq!(pad1.one_way_ns, grp1.one_way_ns);
        let pad = predict(&shape(Signaling::Inline, Layout::Padded, 16), &p);
        let grp = predict(&shape(Signaling::Inline, Layout::Grouped, 16), &p);
        let pak = predict(&shape(Signaling::Inline, Layout::Packed, 16), &p);
        let ratio = grp.max_mdesc_per_s / pad.max_mdesc_per_s;
        assert!(ratio > 2.0 && ratio < 4.0, "{ratio}");
        assert_eq!(grp.max_mdesc_per_s, pak.max_mdesc_per_s);
    }

    #[test]
    fn software_pipelines_at_the_signal_granularity() {
        let p = LinkParams { line_transfer_ns: 0.0, mlp: 4.0, desc_cpu_ns: 10.0 };
        let one = |sig, lay, b| predict(&shape(sig, lay, b), &p).one_way_ns;
        assert_eq!(one(Signaling::Inline, Layout::Padded, 1), 10.0);
        assert_eq!(one(Signaling::Doorbell, Layout::Padded, 16), 160.0);
        assert_eq!(one(Signaling::Inline, Layout::Padded, 16), 85.0);
        assert_eq!(one(Signaling::Inline, Layout::Grouped, 16), 100.0);
    }

    #[test]
    fn payload_and_queues_cost_lines() {
        let mut s = shape(Signaling::Inline, Layout::Grouped, 4);
        let base = line_counts(&s).total();
        s.payload_bytes = 1500;
        assert_eq!(line_counts(&s).payload_lines, 4.0 * 24.0);
        s.payload_bytes = 0;
        s.pool = Pool::Queues;
        assert!(line_counts(&s).total() > base);
    }
}
