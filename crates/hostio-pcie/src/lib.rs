//! # hostio-pcie: what the PCIe link costs a NIC
//!
//! Three models, pure Rust, no I/O:
//!
//! * [`link`] — the bandwidth model with pcie-bench's exact semantics (gen 1–7, x1–x32, MPS/MRRS
//!   128–4096, RCB 64–512, 32/64-bit addressing, ECRC, completions split at MPS or RCB).
//! * [`nic`] — per-packet PCIe transaction lists of three NIC designs and their throughput against
//!   the Ethernet line rate, correct by default and pcie-bench-compatible on request.
//! * [`latency`] — per-transaction latency (DMA read/write, write-then-read, MMIO) from explicit
//!   parts; [`mod@bench`] turns it into pcie-bench's experiments (latency and bandwidth vs window,
//!   cache state, NUMA, IOMMU).
//!
//! ## Interface for the simulator
//! ```
//! use hostio_pcie::{PcieLink, NicDesign, Dir, PcieLatencyParams, MemLocation};
//! let link = PcieLink::default();                 // gen3 x8, MPS 256, MRRS 512, RCB 64, 64-bit
//! link.validate().unwrap();
//! assert!((link.tlp_bandwidth_gbps() - 57.884766).abs() < 1e-6);
//! assert_eq!(link.dma_write_wire_bytes(64), 88);  // one MWr: 24 B of headers + 64 B
//! assert_eq!(link.dma_read_wire_bytes(64), (24, 84)); // MRd d2h, CplD h2d
//! let ps = link.ps_per_wire_byte();               // serialisation time of one byte, ps
//! assert!(ps > 138.0 && ps < 138.3);
//! let rx = NicDesign::Dpdk.rx_packet_txns(&link, 60, false);
//! let d2h: f64 = rx.iter().filter(|t| t.dir == Dir::D2h).map(|t| t.wire_bytes).sum();
//! assert!(d2h > 0.0);
//! let lat = PcieLatencyParams::default();
//! assert!(lat.dma_read_latency_ps(64, MemLocation::Llc) < lat.dma_read_latency_ps(64, MemLocation::Dram));
//! ```
//!
//! * [`PcieLink`] (serde, `deny_unknown_fields`, every field defaulted) — `validate()` returns a
//!   [`PcieError`] that displays as `key = value: allowed`. Wire-byte functions are exact
//!   integers; rates are f64 Gb/s per direction.
//! * [`NicDesign`] (`"simple"`, `"kernel"`, `"dpdk"`) — `tx_packet_txns` / `rx_packet_txns` give
//!   [`Txn`]s whose `wire_bytes` are already amortised per packet; a simulator that wants to
//!   place batched transactions in time uses `bytes_per_occurrence` every `every_packets`.
//! * [`PcieLatencyParams`] (serde) — `dma_read_latency_ps`, `dma_write_latency_ps`,
//!   `mmio_read_latency_ps`, `mmio_write_latency_ps`, `iotlb_miss_penalty_ps`; the `*_parts`
//!   methods explain a latency part by part. These are unloaded latencies: queueing on the link
//!   is the simulator's job (it owns the bounded per-direction link resource).
pub mod bench;
pub mod latency;
pub mod link;
pub mod nic;

pub use bench::{BenchDevice, BenchPlatform, BenchTest, CacheState, Experiment, ExperimentResult};
pub use latency::{Engine, IommuParams, LatencyParts, MemLocation, PcieLatencyParams};
pub use link::{ack_limit, fc_interval, link_for, BandwidthPoint, DmaOp, LinkChoice, PcieError, PcieLink};
pub use nic::{nic_throughput, Dir, NicDesign, NicQuery, NicResult, Txn};
