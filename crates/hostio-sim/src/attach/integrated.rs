//! A NIC on the processor die (the NetDIMM paper's "iNIC"): its DMA engine sits on the mesh next
//! to the LLC slices, so there is no PCIe link to serialise on and no root complex or IOMMU walk
//! to cross. DDIO rules still apply: writes are ItoMs into the I/O ways (or DRAM with DDIO off),
//! reads are PCIeRdCur-like lookups (hit in the LLC or an L2, else DRAM without allocating).
//!
//! Latency: a write is visible one LLC access after the NIC issues it (a mesh transit plus the
//! slice's write; the completion is ordered behind the payload); when the frame's last line is
//! partial and not all of it allocates in the LLC (DDIO off, selective DCA, a buffer on the other
//! socket), the loaded DRAM latency of the buffer's home instead: that line is read before it is
//! merged (after the PCIe latency model's `hostio_pcie::PcieLatencyParams::dma_write_parts` for
//! such writes: the line's DRAM read in place of the LLC access; for a buffer on the other socket
//! that model takes the larger of the local read-for-ownership and the remote parts, where the
//! on-die NIC adds a UPI round trip to the full loaded DRAM latency). The LLC access is the
//! platform's `llc_latency_ns`, a core's load-to-use figure, for the NIC's transit too: an
//! estimate (no published figure for an on-die NIC's path). A read returns
//! after one LLC access when every line hit, else after the loaded DRAM latency of the buffer's
//! home (a load-to-use latency, the LLC lookup included). A buffer homed on the other socket adds a
//! UPI round trip to every write and every read, and so does a read some line of which (the
//! packet's or its WQE's) was only in the other socket's caches. The TX notice (the
//! doorbell reaching the NIC, then its descriptor read) is two LLC accesses: an estimate, as
//! on-die NICs publish no such figure. The
//! mesh's bandwidth (hundreds of GB/s) is not a limit at 100–400 Gb/s, so it is not modelled.
use super::{Dev, RxDma, TxDma};
use crate::config::Platform;
use crate::memsys::MemSys;

pub(crate) struct Integrated {
    llc_ps: u64,
}

impl Integrated {
    pub fn new(plat: &Platform) -> Integrated {
        Integrated { llc_ps: (plat.llc_latency_ns * 1000.0) as u64 }
    }

    pub fn receive(&mut self, m: &mut MemSys, d: Dev, f: &RxDma) -> u64 {
        let (local, allocating) = super::hub_receive(m, d, f);
        let cross = if local { 0 } else { 2 * m.t.upi_ps };
        let rfo = if allocating || f.payload.is_multiple_of(64) {
            0
        } else {
            let home = m.home(f.data_line).expect("DMA through an I/O hub targets socket memory");
            m.sockets[home].mem.loaded_latency(f.now)
        };
        // The line's DRAM read (load-to-use) takes the place of the LLC access.
        f.now + cross + if rfo > 0 { rfo } else { self.llc_ps }
    }

    pub fn fetch(&mut self, m: &mut MemSys, d: Dev, f: &TxDma) -> u64 {
        let (local, dram_ps) = super::hub_fetch(m, d, f);
        let cross = if local { 0 } else { 2 * m.t.upi_ps };
        // A miss reads DRAM (its load-to-use latency includes the LLC lookup).
        f.now + dram_ps.unwrap_or(self.llc_ps) + cross
    }
}
