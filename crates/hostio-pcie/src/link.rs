//! The PCIe link and its bandwidth: what a DMA of `size` bytes costs on the wire.
//!
//! # Mechanism
//! A PCIe link of generation `gen` and `lanes` lanes carries `GT/s × encoding × lanes` bits per
//! second per direction (the *raw* rate): 2.5/5/8/16/32/64/128 GT/s for gen 1–7, encoded 8b/10b
//! (gen 1–2), 128b/130b (gen 3–5) or 242b/256b (gen 6–7: FLIT mode's ratio applied as a line
//! encoding, as pcie-bench does; FLIT framing itself is not modelled, and gen 6–7 keep gen 3's
//! per-TLP framing, DLLPs and SKIPs below, with pcie-bench's gen 6–7 ACK/FC values, which it
//! marks as guesses copied from gen 5).
//! Not all of it carries transaction-layer packets (TLPs): the data-link layer sends ACK and
//! flow-control (FC) update DLLPs of 8 B (2 B framing + 4 B DLLP + 2 B CRC) at the rates the
//! PCIe Base Specification 5.0 recommends (Tables 3-7..3-9 for the ACK limit, 2-46..2-48 for the
//! FC update interval, both in bytes of TLP traffic by MPS and width), and the physical layer
//! inserts a 4 B SKIP ordered set every 1538 B for clock compensation:
//!
//! `tlp_gbps = raw_gbps × (1 − 8/ack_limit − 8/fc_interval − 4/1538)`.
//!
//! Every TLP then carries 8 B of link overhead (2 B sequence number, 4 B LCRC, 2 B framing), a 4 B
//! generic header and a type-specific header: 12 B for a memory write or read with a 64-bit address
//! (8 B with 32-bit), 8 B for a completion with data; ECRC adds a 4 B digest. So with 64-bit
//! addresses MWr/MRd cost 24 B and CplD 20 B beyond their payload.
//!
//! A DMA write of S bytes is split into `ceil(S/MPS)` MWr TLPs, all device→host (d2h). A DMA read
//! sends `ceil(S/MRRS)` MRd requests d2h and receives `ceil(S/MPS)` CplD completions host→device
//! (h2d), or `ceil(S/RCB)` when the root complex splits completions at the read completion
//! boundary (`rcb_chunks`, seen on older chipsets). Each direction has `tlp_gbps`; the direction
//! that saturates first bounds the transaction rate.
//!
//! # Source
//! The semantics (tables, overheads, direction bound) are those of the public pcie-bench model
//! (Neugebauer et al., "Understanding PCIe performance for end host networking", SIGCOMM 2018,
//! github.com/pcie-bench/pcie-model); hostio reproduces its numbers to 1e-9 relative. Reference
//! (gen3 x8, MPS 256, MRRS 512, RCB 64, 64-bit): TLP 57.884766 Gb/s; 64 B write 42.098011,
//! read 44.102679, alternating read+write 33.077009; 1500 B write 52.814567, read 53.597005.
use serde::{Deserialize, Serialize};
use std::fmt;

/// Bad configuration value: the key, the offending value and what is allowed.
/// Displays as `key = value: allowed` (the project-wide message shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcieError {
    pub key: String,
    pub value: String,
    pub allowed: String,
}

impl PcieError {
    pub fn new(key: &str, value: impl fmt::Display, allowed: &str) -> Self {
        PcieError { key: key.to_string(), value: value.to_string(), allowed: allowed.to_string() }
    }
}

impl fmt::Display for PcieError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}: {}", self.key, self.value, self.allowed)
    }
}

impl std::error::Error for PcieError {}

/// Generations with a table entry (1..=7).
pub const GENS: [u8; 7] = [1, 2, 3, 4, 5, 6, 7];
/// Link widths with a table entry.
pub const LANES: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Maximum payload sizes (bytes), the columns of the ACK/FC tables.
pub const MPS_VALUES: [u32; 6] = [128, 256, 512, 1024, 2048, 4096];
/// Maximum read request sizes (bytes).
pub const MRRS_VALUES: [u32; 6] = [128, 256, 512, 1024, 2048, 4096];
/// Read completion boundaries (bytes).
pub const RCB_VALUES: [u32; 4] = [64, 128, 256, 512];

/// Size of an ACK or FC-update DLLP on the wire: 2 B framing + 4 B DLLP + 2 B CRC.
pub const DLLP_BYTES: f64 = 8.0;
/// SKIP ordered set length and interval (bytes).
pub const SKIP_BYTES: f64 = 4.0;
pub const SKIP_INTERVAL_BYTES: f64 = 1538.0;
/// Per-TLP link-layer overhead: 2 B sequence + 4 B LCRC + 2 B framing.
pub const TLP_LINK_BYTES: u64 = 8;
/// Generic TLP header.
pub const TLP_HDR_BYTES: u64 = 4;
/// Optional ECRC digest.
pub const TLP_ECRC_BYTES: u64 = 4;
/// Payload of an MSI (a 4 B memory write).
pub const MSI_BYTES: u64 = 4;

/// Gen 3 ACK limit = FC update interval (bytes), rows x1..x32, columns MPS 128..4096.
/// The 8 GT/s tables, PCIe Base Spec 5.0 Tables 3-9 (ACK) and 2-48 (FC); gen 4..7 reuse it (as pcie-bench does).
const GEN3_TABLE: [[u32; 6]; 6] = [
    [333, 512, 655, 1167, 2191, 4239],
    [224, 313, 385, 641, 1153, 2177],
    [169, 214, 250, 378, 634, 1146],
    [163, 203, 182, 246, 374, 630],
    [144, 168, 182, 246, 374, 630],
    [129, 141, 148, 180, 244, 372],
];
/// Gen 1 ACK limits (Table 3-7; FC Table 2-46). The FC table equals it except x32/2048 (248).
const GEN1_ACK: [[u32; 6]; 6] = [
    [237, 416, 559, 1071, 2095, 4143],
    [128, 217, 289, 545, 1057, 2081],
    [73, 118, 154, 282, 538, 1050],
    [67, 107, 86, 150, 278, 534],
    [48, 72, 86, 150, 278, 534],
    [33, 45, 52, 84, 148, 276],
];
/// Gen 2 ACK limits (Table 3-8; FC Table 2-47). The FC table equals it except x32/4096 (327).
const GEN2_ACK: [[u32; 6]; 6] = [
    [288, 467, 610, 1122, 2146, 4194],
    [179, 268, 340, 596, 1108, 2132],
    [124, 169, 205, 333, 589, 1101],
    [118, 158, 137, 201, 329, 585],
    [99, 123, 137, 201, 329, 585],
    [84, 96, 103, 135, 199, 237],
];

fn idx<T: PartialEq + Copy>(values: &[T], v: T) -> Option<usize> {
    values.iter().position(|&x| x == v)
}

/// ACK limit (bytes) for a generation, width and MPS; `None` outside the tables.
pub fn ack_limit(gen: u8, lanes: u32, mps: u32) -> Option<u32> {
    let (l, m) = (idx(&LANES, lanes)?, idx(&MPS_VALUES, mps)?);
    match gen {
        1 => Some(GEN1_ACK[l][m]),
        2 => Some(GEN2_ACK[l][m]),
        3..=7 => Some(GEN3_TABLE[l][m]),
        _ => None,
    }
}

/// FC update interval (bytes) for a generation, width and MPS; `None` outside the tables.
/// The spec's FC tables differ from the ACK tables in two cells, kept here as published:
/// gen 1 x32 MPS 2048 (248 vs 148) and gen 2 x32 MPS 4096 (327 vs 237).
pub fn fc_interval(gen: u8, lanes: u32, mps: u32) -> Option<u32> {
    match (gen, lanes, mps) {
        (1, 32, 2048) => Some(248),
        (2, 32, 4096) => Some(327),
        _ => ack_limit(gen, lanes, mps),
    }
}

/// Transfer rate per lane in GT/s.
pub fn gt_per_s(gen: u8) -> Option<f64> {
    Some(match gen {
        1 => 2.5,
        2 => 5.0,
        3 => 8.0,
        4 => 16.0,
        5 => 32.0,
        6 => 64.0,
        7 => 128.0,
        _ => return None,
    })
}

/// Usable Gb/s per lane after line encoding.
pub fn lane_gbps(gen: u8) -> Option<f64> {
    let gt = gt_per_s(gen)?;
    Some(match gen {
        1 | 2 => (8.0 / 10.0) * gt,
        3..=5 => (128.0 / 130.0) * gt,
        _ => (242.0 / 256.0) * gt,
    })
}


/// One PCIe link configuration. Defaults: gen 3, x8, MPS 256, MRRS 512, RCB 64, 64-bit addresses,
/// no ECRC, completions split at MPS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PcieLink {
    /// PCIe generation, 1..=7.
    pub gen: u8,
    /// Link width in lanes: 1, 2, 4, 8, 16 or 32.
    pub lanes: u32,
    /// Maximum payload size in bytes (128..=4096, power of two).
    pub mps: u32,
    /// Maximum read request size in bytes (128..=4096, power of two).
    pub mrrs: u32,
    /// Read completion boundary in bytes (64, 128, 256, 512).
    pub rcb: u32,
    /// Memory request address width: 32 or 64 bits.
    pub addr_bits: u32,
    /// End-to-end CRC: adds a 4 B digest to every TLP.
    pub ecrc: bool,
    /// Split read completions at the RCB instead of at the MPS.
    pub rcb_chunks: bool,
}

impl Default for PcieLink {
    fn default() -> Self {
        PcieLink { gen: 3, lanes: 8, mps: 256, mrrs: 512, rcb: 64, addr_bits: 64, ecrc: false, rcb_chunks: false }
    }
}

/// One row of a bandwidth sweep (all rates per direction, Gb/s; transactions per second).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BandwidthPoint {
    /// Transfer size in bytes.
    pub size: u64,
    /// Raw link rate after line encoding.
    pub raw_gbps: f64,
    /// Rate left for TLPs after ACK/FC DLLPs and SKIP ordered sets.
    pub tlp_gbps: f64,
    /// Effective data rate of back-to-back DMA writes of `size`.
    pub write_gbps: f64,
    /// Effective data rate of back-to-back DMA reads of `size`.
    pub read_gbps: f64,
    /// Effective data rate per direction when reads and writes of `size` alternate.
    pub read_write_gbps: f64,
    /// DMA writes per second.
    pub write_tps: f64,
    /// DMA reads per second.
    pub read_tps: f64,
    /// Read+write pairs per second.
    pub read_write_tps: f64,
}

/// Which DMA operation a rate refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DmaOp {
    Write,
    Read,
    ReadWrite,
}

impl DmaOp {
    pub fn parse(s: &str) -> Result<Self, PcieError> {
        match s {
            "write" => Ok(DmaOp::Write),
            "read" => Ok(DmaOp::Read),
            "read_write" | "rdwr" => Ok(DmaOp::ReadWrite),
            _ => Err(PcieError::new("op", format!("{s:?}"), "one of \"write\", \"read\", \"read_write\"")),
        }
    }
}

fn list<T: fmt::Display>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

impl PcieLink {
    /// Check every field against the values the model has tables for.
    pub fn validate(&self) -> Result<(), PcieError> {
        if !GENS.contains(&self.gen) {
            return Err(PcieError::new("gen", self.gen, &format!("one of {}", list(&GENS))));
        }
        if !LANES.contains(&self.lanes) {
            return Err(PcieError::new("lanes", self.lanes, &format!("one of {}", list(&LANES))));
        }
        if !MPS_VALUES.contains(&self.mps) {
            return Err(PcieError::new("mps", self.mps, &format!("one of {}", list(&MPS_VALUES))));
        }
        if !MRRS_VALUES.contains(&self.mrrs) {
            return Err(PcieError::new("mrrs", self.mrrs, &format!("one of {}", list(&MRRS_VALUES))));
        }
        if !RCB_VALUES.contains(&self.rcb) {
            return Err(PcieError::new("rcb", self.rcb, &format!("one of {}", list(&RCB_VALUES))));
        }
        if self.addr_bits != 32 && self.addr_bits != 64 {
            return Err(PcieError::new("addr_bits", self.addr_bits, "one of 32, 64"));
        }
        Ok(())
    }

    /// A validated copy, for constructors that take user input.
    pub fn checked(self) -> Result<Self, PcieError> {
        self.validate()?;
        Ok(self)
    }

    fn digest(&self) -> u64 {
        if self.ecrc {
            TLP_ECRC_BYTES
        } else {
            0
        }
    }

    /// Wire bytes of one memory write or read request header (link + generic + type + digest).
    pub fn mwr_hdr_bytes(&self) -> u64 {
        TLP_LINK_BYTES + TLP_HDR_BYTES + if self.addr_bits == 32 { 8 } else { 12 } + self.digest()
    }
    /// Same as [`mwr_hdr_bytes`](Self::mwr_hdr_bytes): MRd and MWr headers have the same layout.
    pub fn mrd_hdr_bytes(&self) -> u64 {
        self.mwr_hdr_bytes()
    }
    /// Wire bytes of one completion-with-data header.
    pub fn cpld_hdr_bytes(&self) -> u64 {
        TLP_LINK_BYTES + TLP_HDR_BYTES + 8 + self.digest()
    }

    /// Raw link rate per direction in Gb/s (after line encoding).
    pub fn raw_gbps(&self) -> f64 {
        lane_gbps(self.gen).unwrap_or(f64::NAN) * self.lanes as f64
    }

    /// Rate per direction left for TLPs, Gb/s.
    pub fn tlp_bandwidth_gbps(&self) -> f64 {
        let raw = self.raw_gbps();
        let (Some(ack), Some(fc)) = (ack_limit(self.gen, self.lanes, self.mps), fc_interval(self.gen, self.lanes, self.mps))
        else {
            return f64::NAN;
        };
        let overheads = DLLP_BYTES / ack as f64 + DLLP_BYTES / fc as f64 + SKIP_BYTES / SKIP_INTERVAL_BYTES;
        raw - raw * overheads
    }

    /// Serialisation time of one wire byte at the TLP rate, picoseconds.
    pub fn ps_per_wire_byte(&self) -> f64 {
        8.0 * 1000.0 / self.tlp_bandwidth_gbps()
    }

    /// Number of MWr TLPs for a write of `size` bytes.
    pub fn write_tlps(&self, size: u64) -> u64 {
        ceil_div(size, self.mps as u64)
    }
    /// Number of MRd requests for a read of `size` bytes.
    pub fn read_request_tlps(&self, size: u64) -> u64 {
        ceil_div(size, self.mrrs as u64)
    }
    /// Number of CplD completions for a read of `size` bytes.
    pub fn completion_tlps(&self, size: u64) -> u64 {
        let chunk = if self.rcb_chunks { self.rcb } else { self.mps };
        ceil_div(size, chunk as u64)
    }

    /// Bytes on the device→host direction for a DMA write of `size` bytes, headers included.
    pub fn dma_write_wire_bytes(&self, size: u64) -> u64 {
        self.write_tlps(size) * self.mwr_hdr_bytes() + size
    }

    /// Bytes of a DMA read of `size`: (requests, device→host; completions, host→device).
    pub fn dma_read_wire_bytes(&self, size: u64) -> (u64, u64) {
        let req = self.read_request_tlps(size) * self.mrd_hdr_bytes();
        let cpl = self.completion_tlps(size) * self.cpld_hdr_bytes() + size;
        (req, cpl)
    }

    /// Transactions per second when each transaction puts `d2h` and `h2d` wire bytes on the two
    /// directions: the direction that saturates first bounds the rate.
    pub fn bound_tps(&self, d2h: f64, h2d: f64) -> f64 {
        let bps = self.tlp_bandwidth_gbps() * 1e9;
        let worst = d2h.max(h2d);
        bps / (8.0 * worst)
    }

    /// Effective write rate (Gb/s of data) for back-to-back writes of `size`.
    pub fn write_gbps(&self, size: u64) -> f64 {
        size as f64 * self.tlp_bandwidth_gbps() / self.dma_write_wire_bytes(size) as f64
    }

    /// Effective read rate (Gb/s of data) for back-to-back reads of `size`.
    pub fn read_gbps(&self, size: u64) -> f64 {
        let (req, cpl) = self.dma_read_wire_bytes(size);
        size as f64 * self.tlp_bandwidth_gbps() / req.max(cpl) as f64
    }

    /// Effective rate per direction when a read and a write of `size` alternate: d2h carries the
    /// write and the read request, h2d the completions.
    pub fn read_write_gbps(&self, size: u64) -> f64 {
        let (req, cpl) = self.dma_read_wire_bytes(size);
        let d2h = self.dma_write_wire_bytes(size) + req;
        size as f64 * self.tlp_bandwidth_gbps() / d2h.max(cpl) as f64
    }

    /// Effective rate of an operation.
    pub fn op_gbps(&self, op: DmaOp, size: u64) -> f64 {
        match op {
            DmaOp::Write => self.write_gbps(size),
            DmaOp::Read => self.read_gbps(size),
            DmaOp::ReadWrite => self.read_write_gbps(size),
        }
    }

    /// Every figure for one transfer size. `size` must be ≥ 1.
    pub fn bandwidth(&self, size: u64) -> Result<BandwidthPoint, PcieError> {
        self.validate()?;
        check_size("size", size)?;
        let tps = |gbps: f64| gbps * 1e9 / 8.0 / size as f64;
        let (w, r, rw) = (self.write_gbps(size), self.read_gbps(size), self.read_write_gbps(size));
        Ok(BandwidthPoint {
            size,
            raw_gbps: self.raw_gbps(),
            tlp_gbps: self.tlp_bandwidth_gbps(),
            write_gbps: w,
            read_gbps: r,
            read_write_gbps: rw,
            write_tps: tps(w),
            read_tps: tps(r),
            read_write_tps: tps(rw),
        })
    }
}

/// Largest transfer the model accepts (1 GiB): far beyond any DMA, small enough to stay exact.
pub const MAX_SIZE: u64 = 1 << 30;

/// `size` as a transfer size: 1..=[`MAX_SIZE`] bytes, else an error naming `key`.
pub fn check_size(key: &str, size: u64) -> Result<(), PcieError> {
    if size == 0 || size > MAX_SIZE {
        return Err(PcieError::new(key, size, &format!("a byte count in 1..={MAX_SIZE}")));
    }
    Ok(())
}

/// Answer to "which link carries this rate?".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkChoice {
    pub gen: u8,
    pub lanes: u32,
    pub raw_gbps: f64,
    pub tlp_gbps: f64,
    /// Effective rate of the operation at the requested size on this link.
    pub achieved_gbps: f64,
}

/// The smallest link (lowest raw rate; fewer lanes on a tie) of the same MPS/MRRS/RCB/addressing
/// as `base` whose effective rate for `op` at `size` reaches `rate_gbps`; `None` if even gen 7 x32
/// falls short.
pub fn link_for(base: &PcieLink, op: DmaOp, rate_gbps: f64, size: u64) -> Result<Option<LinkChoice>, PcieError> {
    base.validate()?;
    check_size("size", size)?;
    if !(rate_gbps.is_finite() && rate_gbps > 0.0) {
        return Err(PcieError::new("rate_gbps", rate_gbps, "a positive number of Gb/s"));
    }
    let mut candidates: Vec<PcieLink> = Vec::new();
    for gen in GENS {
        for lanes in LANES {
            candidates.push(PcieLink { gen, lanes, ..base.clone() });
        }
    }
    candidates.sort_by(|a, b| a.raw_gbps().total_cmp(&b.raw_gbps()).then(a.lanes.cmp(&b.lanes)));
    Ok(candidates.into_iter().find(|l| l.op_gbps(op, size) >= rate_gbps).map(|l| LinkChoice {
        gen: l.gen,
        lanes: l.lanes,
        raw_gbps: l.raw_gbps(),
        tlp_gbps: l.tlp_bandwidth_gbps(),
        achieved_gbps: l.op_gbps(op, size),
    }))
}
