//! What a NIC's packets cost on PCIe: per-packet transaction lists and throughput vs line rate.
//!
//! # Mechanism
//! Besides the packet data, a NIC moves descriptors, pointers and interrupts over PCIe. Each
//! design below is a list of transactions per packet; a transaction that happens once every N
//! packets (batching) is amortised as `bytes / N`. Directions are seen from the link:
//! `d2h` = device→host (DMA writes, read requests, completions of host MMIO reads, MSIs),
//! `h2d` = host→device (doorbell writes, read completions, host MMIO read requests). The packet
//! rate is bounded by the direction that saturates first at the link's TLP rate, and the result is
//! compared with the Ethernet line rate. The NIC strips the 4 B FCS before DMA (and appends it on
//! transmit), so `frame − 4` bytes cross PCIe per packet.
//!
//! * `simple`: everything per packet — doorbell (4 B tail write), 16 B descriptor read, data,
//!   16 B RX descriptor write-back, MSI, 4 B head-pointer read by the host.
//! * `kernel` (Intel 82599 "Niantic" with the Linux ixgbe driver; 82599 datasheet §7.1.7,
//!   §7.2.3.4): TX descriptors fetched 40 at a time, TX write-back 8 at a time, TX tail written per
//!   packet, RX free-list tail written per 32 buffers, RX head read per 8 packets, one MSI per 32,
//!   and (as in `simple`) the TX head pointer read per packet.
//! * `dpdk` (same NIC, poll-mode driver): TX tail written per 32 packets, no interrupts, no head
//!   reads — the driver polls descriptor-done bits in host memory.
//!
//! # Compatibility with pcie-bench
//! The public model (github.com/pcie-bench/pcie-model, `nic_bw.py`) has two slips that
//! `compat = true` reproduces so its published curves can be matched to 1e-9:
//! 1. RX path: the 24 B (64-bit) request of the per-packet RX descriptor read is dropped (the
//!    DMA-write line overwrites the d2h byte count instead of adding to it).
//! 2. Line rate: the FCS-stripped size is passed as the frame size, so the wire overhead per frame
//!    is 16 B instead of 20 B (preamble+SFD 8 + IFG 12) and the 64 B minimum applies to
//!    `frame − 4`. In compat mode `vlan` changes nothing, as in that model.
use crate::link::{PcieError, PcieLink, MSI_BYTES};
use serde::{Deserialize, Serialize};

/// Direction of a transaction on the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    /// Host → device.
    H2d,
    /// Device → host.
    D2h,
}

/// One transaction of a packet's PCIe cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Txn {
    /// What it is, e.g. `rx_desc_read_req`.
    pub name: &'static str,
    /// Which way its bytes travel.
    pub dir: Dir,
    /// Wire bytes per packet, TLP overheads included, amortised over `every_packets`.
    pub wire_bytes: f64,
    /// Wire bytes of one occurrence.
    pub bytes_per_occurrence: u64,
    /// The transaction happens once every this many packets.
    pub every_packets: u32,
}

fn txn(name: &'static str, dir: Dir, bytes: u64, every: u32) -> Txn {
    Txn { name, dir, wire_bytes: bytes as f64 / every as f64, bytes_per_occurrence: bytes, every_packets: every }
}

/// NIC design: how descriptors, doorbells and interrupts are batched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NicDesign {
    Simple,
    Kernel,
    Dpdk,
}

/// Descriptor, write-back and pointer sizes (bytes) common to the three designs (82599 advanced
/// descriptors are 128 bit; queue pointers are 32-bit registers).
pub const DESC_BYTES: u64 = 16;
pub const PTR_BYTES: u64 = 4;

/// Batching of one design (packets per occurrence).
struct Batching {
    tx_tail_every: u32,
    tx_desc_fetch: u32,
    tx_desc_wb: u32,
    rx_tail_every: u32,
    rx_head_every: u32,
    irq_every: u32,
    tx_head_every: u32,
    /// Host reads head pointers and the NIC raises interrupts.
    irq_and_head_reads: bool,
    /// TX descriptors are written back (the simple NIC relies on head-pointer reads instead).
    tx_writeback: bool,
}

impl NicDesign {
    pub const ALL: [NicDesign; 3] = [NicDesign::Simple, NicDesign::Kernel, NicDesign::Dpdk];

    pub fn parse(s: &str) -> Result<Self, PcieError> {
        match s {
            "simple" => Ok(NicDesign::Simple),
            "kernel" => Ok(NicDesign::Kernel),
            "dpdk" => Ok(NicDesign::Dpdk),
            _ => Err(PcieError::new("design", format!("{s:?}"), "one of \"simple\", \"kernel\", \"dpdk\"")),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            NicDesign::Simple => "simple",
            NicDesign::Kernel => "kernel",
            NicDesign::Dpdk => "dpdk",
        }
    }

    fn batching(&self) -> Batching {
        match self {
            NicDesign::Simple => Batching {
                tx_tail_every: 1,
                tx_desc_fetch: 1,
                tx_desc_wb: 1,
                rx_tail_every: 1,
                rx_head_every: 1,
                irq_every: 1,
                tx_head_every: 1,
                irq_and_head_reads: true,
                tx_writeback: false,
            },
            NicDesign::Kernel => Batching {
                tx_tail_every: 1,
                tx_desc_fetch: 40,
                tx_desc_wb: 8,
                rx_tail_every: 32,
                rx_head_every: 8,
                irq_every: 32,
                tx_head_every: 1,
                irq_and_head_reads: true,
                tx_writeback: true,
            },
            NicDesign::Dpdk => Batching {
                tx_tail_every: 32,
                tx_desc_fetch: 40,
                tx_desc_wb: 8,
                rx_tail_every: 32,
                rx_head_every: 8,
                irq_every: 32,
                tx_head_every: 32,
                irq_and_head_reads: false,
                tx_writeback: true,
            },
        }
    }

    /// Transactions for transmitting one packet whose DMA'd length is `payload_bytes`
    /// (frame without FCS). `compat` does not change the TX path.
    pub fn tx_packet_txns(&self, link: &PcieLink, payload_bytes: u64, _compat: bool) -> Vec<Txn> {
        let b = self.batching();
        let (mwr, mrd, cpld) = (link.mwr_hdr_bytes(), link.mrd_hdr_bytes(), link.cpld_hdr_bytes());
        let mut v = Vec::with_capacity(9);
        v.push(txn("tx_tail_write", Dir::H2d, PTR_BYTES + mwr, b.tx_tail_every));
        let desc = DESC_BYTES * b.tx_desc_fetch as u64;
        let (req, cpl) = link.dma_read_wire_bytes(desc);
        v.push(txn("tx_desc_read_req", Dir::D2h, req, b.tx_desc_fetch));
        v.push(txn("tx_desc_read_cpl", Dir::H2d, cpl, b.tx_desc_fetch));
        let (req, cpl) = link.dma_read_wire_bytes(payload_bytes);
        v.push(txn("tx_data_read_req", Dir::D2h, req, 1));
        v.push(txn("tx_data_read_cpl", Dir::H2d, cpl, 1));
        if b.tx_writeback {
            let wb = DESC_BYTES * b.tx_desc_wb as u64;
            v.push(txn("tx_desc_writeback", Dir::D2h, link.dma_write_wire_bytes(wb), b.tx_desc_wb));
        }
        if b.irq_and_head_reads {
            v.push(txn("tx_msi", Dir::D2h, MSI_BYTES + mwr, b.irq_every));
            v.push(txn("tx_head_read_req", Dir::H2d, mrd, b.tx_head_every));
            v.push(txn("tx_head_read_cpl", Dir::D2h, PTR_BYTES + cpld, b.tx_head_every));
        }
        v
    }

    /// Transactions for receiving one packet whose DMA'd length is `payload_bytes`.
    /// With `compat` the RX descriptor-read request is left out, as in the public model.
    pub fn rx_packet_txns(&self, link: &PcieLink, payload_bytes: u64, compat: bool) -> Vec<Txn> {
        let b = self.batching();
        let (mwr, mrd, cpld) = (link.mwr_hdr_bytes(), link.mrd_hdr_bytes(), link.cpld_hdr_bytes());
        let mut v = Vec::with_capacity(9);
        v.push(txn("rx_tail_write", Dir::H2d, PTR_BYTES + mwr, b.rx_tail_every));
        // One free-list descriptor is fetched per packet, as pcie-bench's model does ("Niantic
        // does not pre-fetch freelist descriptors", its niantic.py).
        let (req, cpl) = link.dma_read_wire_bytes(DESC_BYTES);
        if !compat {
            v.push(txn("rx_desc_read_req", Dir::D2h, req, 1));
        }
        v.push(txn("rx_desc_read_cpl", Dir::H2d, cpl, 1));
        v.push(txn("rx_data_write", Dir::D2h, link.dma_write_wire_bytes(payload_bytes), 1));
        v.push(txn("rx_desc_writeback", Dir::D2h, DESC_BYTES + mwr, 1));
        if b.irq_and_head_reads {
            v.push(txn("rx_msi", Dir::D2h, MSI_BYTES + mwr, b.irq_every));
            v.push(txn("rx_head_read_req", Dir::H2d, mrd, b.rx_head_every));
            v.push(txn("rx_head_read_cpl", Dir::D2h, PTR_BYTES + cpld, b.rx_head_every));
        }
        v
    }
}

/// Ethernet framing (bytes): preamble+SFD, FCS, inter-frame gap, smallest frame, the 802.1Q
/// tag (IEEE 802.3 and 802.1Q).
pub const ETH_PREAMBLE: u64 = 8;
pub const ETH_FCS: u64 = 4;
pub const ETH_IFG: u64 = 12;
pub const ETH_MIN_FRAME: u64 = 64;
pub const VLAN_TAG: u64 = 4;
/// Largest frame the model takes: not an Ethernet limit (jumbo frames stop near 9 KiB) but a
/// bound on the input, large enough for what-if frames beyond any standard.
pub const ETH_MAX_FRAME: u64 = 65536;

/// Question for [`nic_throughput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicQuery {
    pub design: NicDesign,
    /// Ethernet frame size in bytes, FCS included, 802.1Q tag excluded.
    pub frame: u64,
    /// Frames carry a 4 B 802.1Q tag on top of `frame` (on the wire and in the DMA'd bytes).
    #[serde(default)]
    pub vlan: bool,
    /// Reproduce the public pcie-bench model's numbers (see module docs).
    #[serde(default)]
    pub compat: bool,
    /// Ethernet line rate in Gb/s.
    #[serde(default = "default_eth")]
    pub eth_gbps: f64,
}

/// pcie-bench's NIC (NFP-6000) has 40 GbE ports, and its plots use that line rate.
fn default_eth() -> f64 {
    40.0
}

/// Throughput of one design at one frame size (data Gb/s per direction, packets per second).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NicResult {
    pub design: NicDesign,
    pub frame: u64,
    /// Bytes DMA'd per packet.
    pub dma_bytes: u64,
    /// Packets sent and received at the same rate: data rate of each.
    pub bidir_gbps: f64,
    pub tx_gbps: f64,
    pub rx_gbps: f64,
    /// Data rate (DMA'd bytes) the Ethernet link delivers at full load.
    pub line_rate_gbps: f64,
    pub bidir_mpps: f64,
    pub tx_mpps: f64,
    pub rx_mpps: f64,
    pub line_rate_mpps: f64,
    /// Per-packet wire bytes by direction, TX path (h2d, d2h) and RX path (h2d, d2h).
    pub tx_h2d_bytes: f64,
    pub tx_d2h_bytes: f64,
    pub rx_h2d_bytes: f64,
    pub rx_d2h_bytes: f64,
}

fn sum(v: &[Txn], dir: Dir) -> f64 {
    v.iter().filter(|t| t.dir == dir).map(|t| t.wire_bytes).sum()
}

/// TX-only, RX-only and bidirectional throughput of `q.design` on `link`, with the line rate.
pub fn nic_throughput(link: &PcieLink, q: &NicQuery) -> Result<NicResult, PcieError> {
    link.validate()?;
    if q.frame < ETH_MIN_FRAME || q.frame > ETH_MAX_FRAME {
        return Err(PcieError::new("frame", q.frame, &format!("an Ethernet frame size in {ETH_MIN_FRAME}..={ETH_MAX_FRAME} bytes (FCS included)")));
    }
    if !(q.eth_gbps.is_finite() && q.eth_gbps > 0.0) {
        return Err(PcieError::new("eth_gbps", q.eth_gbps, "a positive line rate in Gb/s"));
    }
    let tag = if q.vlan && !q.compat { VLAN_TAG } else { 0 };
    let dma = q.frame - ETH_FCS + tag;
    let tx = q.design.tx_packet_txns(link, dma, q.compat);
    let rx = q.design.rx_packet_txns(link, dma, q.compat);
    let (txh, txd, rxh, rxd) = (sum(&tx, Dir::H2d), sum(&tx, Dir::D2h), sum(&rx, Dir::H2d), sum(&rx, Dir::D2h));
    let pps = |h2d: f64, d2h: f64| link.bound_tps(d2h, h2d);
    let (bi, txo, rxo) = (pps(txh + rxh, txd + rxd), pps(txh, txd), pps(rxh, rxd));
    let wire = if q.compat {
        // Public model: frame − 4 treated as a frame incl. FCS, padded to 64, plus 20 B framing.
        (q.frame - ETH_FCS).max(ETH_MIN_FRAME) + ETH_PREAMBLE + ETH_IFG
    } else {
        q.frame.max(ETH_MIN_FRAME) + tag + ETH_PREAMBLE + ETH_IFG
    };
    let line_pps = q.eth_gbps * 1e9 / (8.0 * wire as f64);
    let g = |pps: f64| pps * dma as f64 * 8.0 / 1e9;
    Ok(NicResult {
        design: q.design,
        frame: q.frame,
        dma_bytes: dma,
        bidir_gbps: g(bi),
        tx_gbps: g(txo),
        rx_gbps: g(rxo),
        line_rate_gbps: g(line_pps),
        bidir_mpps: bi / 1e6,
        tx_mpps: txo / 1e6,
        rx_mpps: rxo / 1e6,
        line_rate_mpps: line_pps / 1e6,
        tx_h2d_bytes: txh,
        tx_d2h_bytes: txd,
        rx_h2d_bytes: rxh,
        rx_d2h_bytes: rxd,
    })
}
