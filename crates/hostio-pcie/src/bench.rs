//! "What would pcie-bench measure on this platform?" — its five experiments, analytically.
//!
//! # Mechanism
//! pcie-bench (SIGCOMM'18) issues DMAs of `size` bytes to random cache-line-aligned offsets in a
//! host buffer of `window` bytes, after preparing the host cache: *cold* (buffer flushed),
//! *warm* (host wrote it: in the LLC), *device-warm* (the device wrote it: in the DDIO ways),
//! *thrash* (the cache filled with other data). A random access hits the LLC with probability
//! `min(1, capacity / window)` where capacity is the LLC for warm and the DDIO share (I/O ways)
//! for device-warm; the IO-TLB misses with probability `max(0, 1 − entries / pages(window))`.
//! LAT_WRRD reads back the line it has just written, which the write left in the LLC: the read
//! always hits; the write finds its line in the DDIO ways with probability
//! `min(1, ddio_bytes / window)` whatever the cache state, which decides a partial line's
//! read-for-ownership and what it costs (a full line's write costs the same either way; on the
//! remote socket it pays the UPI crossing whatever it finds) (`llc_hit_probability` still reports
//! the cache state's figure, which LAT_RD and the bandwidth tests use).
//!
//! * Latency tests (LAT_RD, LAT_WRRD) report a "median" and the mean: the "median" is the
//!   latency of the more likely outcome of each binary event (LLC hit or miss, IO-TLB hit or
//!   miss), which is the mixture's median when at most one event is uncertain but can differ
//!   from it when both are (e.g. a hit probability near one half with IO-TLB misses); the mean
//!   is the mixture's.
//! * Bandwidth tests (BW_RD, BW_WR, BW_RDWR) are bounded by stages that work concurrently: the
//!   link (pcie-bench's bandwidth model), the device's DMA issue rate, for reads the outstanding
//!   requests the device keeps in flight over the time a request holds its tag (the mean read
//!   latency less the device-side issue cost, Little's law), and with the IOMMU the page walks it
//!   overlaps. BW_RDWR pays the read's and the write's device time in turn when one engine serves
//!   both (`shared_engine`). Pipelined stages do not overlap perfectly; the time per
//!   transaction is their p-norm `(Σ tᵢᵖ)^(1/p)` (`blend_exponent`, fitted: p → ∞ is a strict
//!   bottleneck, p = 1 no overlap at all).
//!
//! Defaults ([`BenchPlatform::default`]) describe the NFP-6000 on a Haswell E5-2620 v3 of the
//! published data set (15 MiB LLC, 2 of 20 ways for DDIO = 1.5 MiB).
use crate::latency::{to_ps, Engine, LatencyParts, MemLocation, PcieLatencyParams};
use crate::link::{check_size, DmaOp, PcieError};
use serde::{Deserialize, Serialize};

/// The device running the benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BenchDevice {
    /// Read DMAs the device keeps in flight on the link (PCIe tags it uses), effective. Fitted to
    /// the data set's 64 B warm/cold reads, measured at 32.7/28.6 Gb/s with 270/323 ns of host
    /// round trip (the fit with the defaults gives about 32.4/28.2 Gb/s).
    pub max_outstanding_reads: f64,
    /// Shortest time between two read DMAs the engine can issue, ns. Fitted, with
    /// `max_outstanding_reads` and `blend_exponent`, to the NFP-6000 bandwidth runs of the
    /// published data set (`hostio pcie validate` reports the error).
    pub read_issue_ns: f64,
    /// Shortest time between two write DMAs the engine can issue, ns. Fitted as `read_issue_ns`.
    pub write_issue_ns: f64,
    /// p of the p-norm that blends the stages' times per transaction: fitted with the issue
    /// times to the NFP-6000 bandwidth runs (module docs).
    pub blend_exponent: f64,
    /// Reads and writes are served by one DMA engine that moves one DMA's data at a time
    /// (NFP-6000), so an alternating read+write pair costs the sum of a read's and a write's time
    /// (each with its own link transfer); otherwise the slower of the two.
    pub shared_engine: bool,
}

impl Default for BenchDevice {
    fn default() -> Self {
        BenchDevice { max_outstanding_reads: 18.4, read_issue_ns: 10.0, write_issue_ns: 20.9, blend_exponent: 5.0, shared_engine: true }
    }
}

/// Host and device the experiments run on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BenchPlatform {
    /// Per-transaction latency parts (includes the link and the IOMMU parameters).
    pub latency: PcieLatencyParams,
    /// The benchmarking device.
    pub device: BenchDevice,
    /// LLC capacity of the device's socket, bytes.
    pub llc_bytes: u64,
    /// Part of the LLC DDIO may allocate into (the I/O ways), bytes.
    pub ddio_bytes: u64,
}

impl Default for BenchPlatform {
    fn default() -> Self {
        BenchPlatform { latency: PcieLatencyParams::default(), device: BenchDevice::default(), llc_bytes: 15 << 20, ddio_bytes: (15 << 20) / 10 }
    }
}

/// pcie-bench test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BenchTest {
    #[serde(rename = "LAT_RD")]
    LatRd,
    #[serde(rename = "LAT_WRRD")]
    LatWrrd,
    #[serde(rename = "BW_RD")]
    BwRd,
    #[serde(rename = "BW_WR")]
    BwWr,
    #[serde(rename = "BW_RDWR")]
    BwRdwr,
}

impl BenchTest {
    pub fn parse(s: &str) -> Result<Self, PcieError> {
        Ok(match s {
            "LAT_RD" => BenchTest::LatRd,
            "LAT_WRRD" => BenchTest::LatWrrd,
            "BW_RD" => BenchTest::BwRd,
            "BW_WR" => BenchTest::BwWr,
            "BW_RDWR" => BenchTest::BwRdwr,
            _ => return Err(PcieError::new("test", format!("{s:?}"), "one of LAT_RD, LAT_WRRD, BW_RD, BW_WR, BW_RDWR")),
        })
    }
    pub fn is_latency(&self) -> bool {
        matches!(self, BenchTest::LatRd | BenchTest::LatWrrd)
    }
}

/// Host cache state before the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheState {
    Cold,
    Warm,
    DeviceWarm,
    Thrash,
}

impl CacheState {
    pub fn parse(s: &str) -> Result<Self, PcieError> {
        Ok(match s {
            "cold" => CacheState::Cold,
            "warm" | "host_warm" => CacheState::Warm,
            "device_warm" | "dwarm" => CacheState::DeviceWarm,
            "thrash" => CacheState::Thrash,
            _ => return Err(PcieError::new("cache", format!("{s:?}"), "one of \"cold\", \"warm\", \"device_warm\", \"thrash\"")),
        })
    }
}

/// One pcie-bench experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    pub test: BenchTest,
    /// Transfer size, bytes.
    pub size: u64,
    /// Host buffer window, bytes.
    pub window: u64,
    pub cache: CacheState,
    /// Buffer on the other socket.
    #[serde(default)]
    pub numa_remote: bool,
    /// IOMMU on (uses `platform.latency.iommu`, with `superpages` overriding its setting).
    #[serde(default)]
    pub iommu: bool,
    #[serde(default = "yes")]
    pub superpages: bool,
    /// DMA engine or direct command path: the issue cost of every DMA, in the latency tests and in
    /// the bandwidth tests' read latency and tag hold time.
    #[serde(default = "dma")]
    pub engine: Engine,
}

fn yes() -> bool {
    true
}
fn dma() -> Engine {
    Engine::Dma
}

/// What the experiment would report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExperimentResult {
    pub test: BenchTest,
    pub size: u64,
    pub window: u64,
    /// Probability that an access finds its line in the LLC.
    pub llc_hit_probability: f64,
    /// Probability that an access misses the IO-TLB.
    pub iotlb_miss_probability: f64,
    /// Latency tests: median and mean, ns (`None` for bandwidth tests).
    pub median_ns: Option<f64>,
    pub mean_ns: Option<f64>,
    /// Parts of the median transaction (latency tests).
    pub parts: Option<LatencyParts>,
    /// Bandwidth tests: data Gb/s (all transfers counted) and transfers per second.
    pub bw_gbps: Option<f64>,
    pub transfers_per_s: Option<f64>,
    /// Bandwidth tests: which stage is slowest ("link", "issue", "outstanding", "page_walk"; for
    /// BW_RDWR "link" or "engine").
    pub bottleneck: Option<&'static str>,
}

fn hit_probability(p: &BenchPlatform, cache: CacheState, window: u64) -> f64 {
    let cap = match cache {
        CacheState::Cold | CacheState::Thrash => return 0.0,
        CacheState::Warm => p.llc_bytes,
        CacheState::DeviceWarm => p.ddio_bytes,
    };
    (cap as f64 / window as f64).min(1.0)
}

fn loc(hit: bool, remote: bool) -> MemLocation {
    match (hit, remote) {
        (true, false) => MemLocation::Llc,
        (false, false) => MemLocation::Dram,
        (true, true) => MemLocation::RemoteLlc,
        (false, true) => MemLocation::RemoteDram,
    }
}

/// Mixture over the two binary events: (mean, median parts).
fn mix(p_hit: f64, p_miss: f64, f: impl Fn(bool, bool) -> LatencyParts) -> (f64, LatencyParts) {
    let mut mean = 0.0;
    for (hit, ph) in [(true, p_hit), (false, 1.0 - p_hit)] {
        for (miss, pm) in [(true, p_miss), (false, 1.0 - p_miss)] {
            if ph * pm > 0.0 {
                mean += ph * pm * f(hit, miss).total_ns;
            }
        }
    }
    (mean, f(p_hit >= 0.5, p_miss > 0.5))
}

impl BenchPlatform {
    pub fn validate(&self) -> Result<(), PcieError> {
        self.latency.validate()?;
        let d = &self.device;
        for (k, v) in [("device.read_issue_ns", d.read_issue_ns), ("device.write_issue_ns", d.write_issue_ns)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(PcieError::new(k, v, "a finite number ≥ 0"));
            }
        }
        // Written so that NaN fails too.
        if d.max_outstanding_reads.is_nan() || d.max_outstanding_reads < 1.0 {
            return Err(PcieError::new("device.max_outstanding_reads", d.max_outstanding_reads, "a number ≥ 1"));
        }
        if !d.blend_exponent.is_finite() || d.blend_exponent < 1.0 {
            return Err(PcieError::new("device.blend_exponent", d.blend_exponent, "a finite number ≥ 1"));
        }
        if self.ddio_bytes > self.llc_bytes || self.llc_bytes == 0 {
            return Err(PcieError::new("ddio_bytes", self.ddio_bytes, &format!("at most llc_bytes ({}), llc_bytes > 0", self.llc_bytes)));
        }
        Ok(())
    }

    /// Run one experiment through the model.
    pub fn run(&self, e: &Experiment) -> Result<ExperimentResult, PcieError> {
        self.validate()?;
        check_size("size", e.size)?;
        if e.size > 65536 {
            return Err(PcieError::new("size", e.size, "a transfer size in 1..=65536 bytes (pcie-bench uses 4 B..4 KiB)"));
        }
        if e.window < 64 || e.window < e.size || e.window > (1 << 40) {
            return Err(PcieError::new("window", e.window, "a buffer of at least max(64, size) bytes and at most 1 TiB"));
        }
        let mut lat = self.latency.clone();
        lat.iommu.enabled = e.iommu;
        lat.iommu.superpages = e.superpages;
        let p_hit = hit_probability(self, e.cache, e.window);
        let p_miss = lat.iommu.miss_probability(e.window);
        let remote = e.numa_remote;
        let mut out = ExperimentResult {
            test: e.test,
            size: e.size,
            window: e.window,
            llc_hit_probability: p_hit,
            iotlb_miss_probability: p_miss,
            median_ns: None,
            mean_ns: None,
            parts: None,
            bw_gbps: None,
            transfers_per_s: None,
            bottleneck: None,
        };
        // Written lines stay in the DDIO ways; beyond that share the write finds them evicted.
        let p_write_hit = (self.ddio_bytes as f64 / e.window as f64).min(1.0);
        let read = |hit: bool, miss: bool| lat.dma_read_parts(e.size, loc(hit, remote), e.engine, miss);
        let wrrd = |hit: bool, miss: bool| lat.wrrd_parts(e.size, loc(hit, remote), e.engine, miss);
        if e.test.is_latency() {
            let (mean, parts) = match e.test {
                BenchTest::LatRd => mix(p_hit, p_miss, read),
                _ => mix(p_write_hit, p_miss, wrrd),
            };
            out.median_ns = Some(parts.total_ns);
            out.mean_ns = Some(mean);
            out.parts = Some(parts);
            return Ok(out);
        }
        let d = &self.device;
        let link = &lat.link;
        let (read_mean, _) = mix(p_hit, p_miss, read);
        let walk = p_miss * lat.iommu.walk_ns / lat.iommu.concurrent_walks;
        // A read holds its tag from the MRd leaving the device until the last CplD is back: the
        // device-side issue cost (of the engine the reads use) is pipelined across the engine's
        // threads and holds no tag.
        let held = (read_mean - lat.issue_ns(e.engine)).max(0.0);
        let p = d.blend_exponent;
        let pnorm = |ts: &[f64]| ts.iter().map(|t| t.powf(p)).sum::<f64>().powf(1.0 / p);
        let link_rd = 1e9 / link.bound_tps(link.dma_read_wire_bytes(e.size).0 as f64, link.dma_read_wire_bytes(e.size).1 as f64);
        let link_wr = 1e9 / link.bound_tps(link.dma_write_wire_bytes(e.size) as f64, 0.0);
        let (rd_issue, rd_tags) = (d.read_issue_ns, held / d.max_outstanding_reads);
        // Stage times per unit (ns); BW_RDWR alternates, so one unit is a read plus a write.
        let (stages, transfers): (Vec<(&'static str, f64)>, f64) = match e.test {
            BenchTest::BwRd => (vec![("link", link_rd), ("issue", rd_issue), ("outstanding", rd_tags), ("page_walk", walk)], 1.0),
            BenchTest::BwWr => (vec![("link", link_wr), ("issue", d.write_issue_ns), ("page_walk", walk)], 1.0),
            _ => {
                let link_pair = 1e9 / (link.op_gbps(DmaOp::ReadWrite, e.size) * 1e9 / 8.0 / e.size as f64);
                // Each direction's own time, data movement included: a shared engine moves one
                // DMA's data at a time, so the pair pays both in turn.
                let rd = pnorm(&[link_rd, rd_issue, rd_tags, walk]);
                let wr = pnorm(&[link_wr, d.write_issue_ns, walk]);
                let engine = if d.shared_engine { rd + wr } else { rd.max(wr) };
                (vec![("link", link_pair), ("engine", engine)], 2.0)
            }
        };
        let times: Vec<f64> = stages.iter().map(|s| s.1).collect();
        let pnorm = pnorm(&times);
        let worst = stages.iter().fold(("link", 0.0), |a, &(n, t)| if t > a.1 { (n, t) } else { a });
        let tps = transfers * 1e9 / pnorm;
        out.transfers_per_s = Some(tps);
        out.bw_gbps = Some(tps * e.size as f64 * 8.0 / 1e9);
        out.bottleneck = Some(worst.0);
        Ok(out)
    }
}

/// Integer-picosecond median latency of a latency experiment (simulator convenience).
pub fn median_ps(r: &ExperimentResult) -> Option<u64> {
    r.median_ns.map(to_ps)
}
