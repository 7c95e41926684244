//! Cores: run-to-completion poll-mode forwarders and cache-hungry co-runners.
//!
//! A forwarder core takes bursts of up to 32 ready completions: it reads each completion line
//! (where the attachment put it; after an index line when signaling is a doorbell in memory)
//! and writes each packet's mbuf metadata, all overlapped, replaces the buffers with ones from
//! its mempool cache (LIFO) and posts them, prefetches every packet's header line (FastClick's
//! `FromDPDKDevice` does so as it wraps the burst into a batch; in order, overlapped in the fill
//! buffers, without waiting), then processes the packets one per event: the header line (once its
//! prefetch is in the L2), the app's own work, a `copy` app's copy of the frame into its own
//! buffer (or the NIC's clone of it), its cycles, the header write (MAC swap). At the end of the
//! burst it transmits: it frees the TX buffers whose completion has come (the frame that closes
//! their block has left the wire; `TxRing::close_burst` says which frames close one; the
//! completion line itself is not read, its check is part of `TX_BURST_CYCLES`), at every
//! burst as the mlx5 PMD does, or —
//! `tx_release = "threshold"` — only while fewer than the burst's packets plus 32 TX slots are
//! free; writes a TX descriptor per packet (on eMPW rings its WQE segments, copying a frame the
//! NIC inlines into them) and rings the doorbell once the descriptors are complete; a host whose
//! NIC cannot snoop its caches (memory channel) also flushes the lines it hands over, and
//! invalidates each completion line before it reads it.
//! Every access costs its level's latency through the memory facade ([`crate::memsys`]); MBA
//! spaces every request that leaves the L2. So leaky DMA slows the core and queues grow.
use super::{Engine, Ev, Mbuf, BURST, PS_PER_US};
use crate::config::AppKind;
use crate::hist::Histogram;
use crate::mem::Mba;
use crate::memsys::Served;
use crate::rng::mix64;

/// `tx_release = "threshold"`: completed buffers are freed only while fewer than a burst plus
/// this many TX slots are free (DPDK ixgbe/i40e `tx_free_thresh` default 32; hostio's variant of
/// their rule, [`crate::config::TxRelease::Threshold`]), or, on an eMPW ring, fewer WQE segments
/// than the burst takes.
const TX_FREE_THRESH: u64 = 32;
/// A co-runner's accesses that are stores: one in this many (an estimate for a cache-hungry
/// benchmark that mostly reads, such as a pointer chase or a read-mostly stream; the DDIO paper
/// does not give its co-runner's mix).
const CORUNNER_STORE_EVERY: u64 = 4;
/// A core's copy loop, cycles per 64 B line: two 32 B AVX2 stores at one store per cycle
/// (Skylake and Haswell have one store-data port; Intel optimization manual; glibc's memcpy
/// uses AVX2 on Skylake-SP too), the loads beside. Kept for the Ice Lake preset, whose cores have
/// a second store-data port: an upper bound there.
const COPY_CYCLES_PER_LINE: u64 = 2;
/// Fixed cost of one `rte_eth_rx_burst` call (loop, ring indices), cycles: an estimate (no
/// published per-call figure for the mlx5 PMD); with [`TX_BURST_CYCLES`] it adds ~3 cycles per
/// packet over a burst of 32, so loaded results hardly depend on it (at low load, bursts of one
/// packet pay all 100 cycles, ~43 ns at 2.3 GHz).
const RX_BURST_CYCLES: u64 = 40;
/// Fixed cost of one `rte_eth_tx_burst` call (loop, ring indices, completion check, doorbell
/// write), cycles: an estimate, as [`RX_BURST_CYCLES`].
const TX_BURST_CYCLES: u64 = 60;

/// Independent accesses a core issues back to back (a burst's completion entries, buffer headers
/// and descriptor writes): they overlap in the core's line fill buffers, so a batch costs its
/// slowest access or its total divided by the number of buffers, whichever is larger.
#[derive(Default)]
struct Overlap {
    sum: u64,
    max: u64,
}

/// L1D line fill buffers of a Skylake/Haswell core (Intel optimization manual), used on every
/// preset (Ice Lake's cores get the same: an estimate there).
const FILL_BUFFERS: u64 = 10;

impl Overlap {
    #[inline]
    fn add(&mut self, lat: u64) {
        self.sum += lat;
        self.max = self.max.max(lat);
    }
    fn cost(&self) -> u64 {
        self.max.max(self.sum / FILL_BUFFERS)
    }
}

#[derive(Default, Clone)]
pub(super) struct AppStats {
    pub(super) rx_packets: u64,
    pub(super) tx_packets: u64,
    pub(super) tx_bytes: u64,
    pub(super) latency: Histogram,
    pub(super) parts: Parts,
    pub(super) llc_accesses: u64,
    pub(super) llc_misses: u64,
    pub(super) accesses: u64,
}

pub(super) struct App {
    pub(super) name: String,
    pub(super) kind: AppKind,
    pub(super) nic: Option<usize>,
    pub(super) cycles_ps: u64,
    pub(super) ws_base: u32,
    pub(super) ws_lines: u32,
    pub(super) accesses_per_packet: u32,
    pub(super) accesses_per_us: f64,
    pub(super) stats: AppStats,
}

pub(super) struct Core {
    pub(super) socket: usize,
    pub(super) local: usize,
    pub(super) app: usize,
    pub(super) pool: usize,
    pub(super) pool_slot: usize,
    pub(super) nic: usize,
    pub(super) queue: usize,
    pub(super) mba: Mba,
    pub(super) idle: bool,
    pub(super) burst: Vec<u32>,
    pub(super) burst_pos: usize,
    pub(super) tx_pending: Vec<u32>,
    pub(super) rate_acc: f64,
    /// Co-runner: time its issued accesses complete. Forwarding core: when the work it did before
    /// it went idle ends (its last TX burst's doorbell): a frame that arrives earlier wakes it
    /// then, not before.
    pub(super) busy_until: u64,
    /// `copy` apps: the first line of the core's own buffers, and the next one to use.
    pub(super) copy_line: u32,
    pub(super) copy_slot: u32,
}

/// Where a packet's time went (NIC arrival → the end of its slot on the TX wire, the inter-frame
/// gap included), one histogram per component, ps:
/// * `nic`: waiting in the NIC's buffer for a descriptor or the link, waiting for the TX wire,
///   and the TX serialisation;
/// * `link`: the attachment moving the frame in (until its completion is visible) and the packet
///   out (the doorbell's notice, then from the NIC's fetch until its last byte is at the NIC):
///   link or channel, I/O hub or coherence, DMA latency;
/// * `memory`: the core's own memory accesses for the packet (waiting for its header, which its
///   RX burst prefetched, then its header, working set, MAC write);
/// * `core`: the app's cycles;
/// * `flush`: the host writing back and dropping the lines it hands to a NIC that cannot snoop
///   (memory channel; 0 otherwise), which the TX doorbell waits for, and invalidating the
///   completion lines it reads from it, which the RX burst waits for;
/// * `copy`: moving the frame into a `copy` app's buffer (the core's copy, or the NIC's clone),
///   and for any app the cycles of the driver's stores of a frame it inlines into its TX
///   descriptor (the copy's loads delay the doorbell: they count as queueing);
/// * `queueing`: the rest — waiting in the RX ring, behind other packets of the burst (including
///   the burst's completion reads: for a coherent NIC, the line transfers that pull them), for
///   the TX doorbell and the NIC's fetch window.
#[derive(Default, Clone)]
pub(super) struct Parts {
    pub(super) nic: Histogram,
    pub(super) link: Histogram,
    pub(super) memory: Histogram,
    pub(super) core: Histogram,
    pub(super) flush: Histogram,
    pub(super) copy: Histogram,
    pub(super) queueing: Histogram,
}

impl Parts {
    /// One transmitted packet: `fetch_at` is its NIC fetch less the TX notice (so that `link`
    /// includes the doorbell's notice), its data was at the NIC at `data_at` and its slot on the
    /// wire (last bit and inter-frame gap) ended at `done`.
    pub(super) fn record(&mut self, mb: &Mbuf, fetch_at: u64, data_at: u64, done: u64) {
        let total = done - mb.arrival_ps;
        let nic = (mb.t_dma - mb.arrival_ps) + (done - data_at);
        let link = mb.t_ready.saturating_sub(mb.t_dma) + data_at.saturating_sub(fetch_at);
        self.nic.record(nic);
        self.link.record(link);
        self.memory.record(mb.mem_ps);
        self.core.record(mb.cyc_ps);
        self.flush.record(mb.flush_ps);
        self.copy.record(mb.copy_ps);
        self.queueing.record(total.saturating_sub(nic + link + mb.mem_ps + mb.cyc_ps + mb.flush_ps + mb.copy_ps));
    }
}

/// 16 B eMPW WQE segments of the packet posted at `pos` with `payload` bytes: its data segment,
/// or its inlined frame (a 4 B byte count, then the data, padded to segments), plus the 32 B
/// session title when it opens a session (of as many such packets as one fits; in a size mix,
/// sessions are counted as if every packet were this one's size).
fn wqe_segs(pos: u64, payload: u64, inline_max: u64) -> u64 {
    use crate::attach::pcie::{empw_session, EMPW_TITLE_BYTES, WQE_SEG_BYTES};
    let (seg_bytes, per_session) = empw_session(payload, inline_max);
    let title = if pos % per_session == 0 { EMPW_TITLE_BYTES / WQE_SEG_BYTES } else { 0 };
    title + seg_bytes / WQE_SEG_BYTES
}

impl Engine {
    /// A core access; returns its latency in ps and accounts LLC statistics to the core's app.
    pub(super) fn core_mem(&mut self, c: usize, line: u32, write: bool, now: u64) -> u64 {
        let core = &mut self.cores[c];
        let (lat, served) = self.mem.core_access(core.socket, core.local, &mut core.mba, line, write, now);
        let st = &mut self.apps[core.app].stats;
        match served {
            Served::L2 => {}
            Served::Llc => st.llc_accesses += 1,
            Served::RemoteCache | Served::Device | Served::Zone | Served::Dram => {
                st.llc_accesses += 1;
                st.llc_misses += 1;
            }
        }
        lat
    }

    /// A core writes back and drops a line it hands to a NIC that cannot snoop; returns its cost.
    fn handover(&mut self, c: usize, line: u32, now: u64) -> u64 {
        let ni = self.cores[c].nic;
        self.nics[ni].attach.count_flush();
        // CLFLUSHOPT: one LLC access finds and drops a clean line (an estimate); a dirty one is
        // written to its home, which the fence before the doorbell waits for: its trip to the
        // memory controller, the LLC on its way.
        self.mem.flush(self.cores[c].socket, line, now).unwrap_or(self.mem.t.llc_ps)
    }

    /// A `copy` app moves the frame into its next buffer at `t`, then reads the copy's first line
    /// (the data it received); returns how long that took. The NIC clones it in its memory when
    /// it can ([`crate::attach::Attachment::clone_frame`]), and the read then crosses the
    /// channel; otherwise the core copies line by line, the loads and stores overlapping in its
    /// fill buffers, and the read hits its own cache.
    fn copy_frame(&mut self, c: usize, mb: &Mbuf, t: u64) -> u64 {
        let (dst, moved) = self.copy_into(c, mb, t);
        moved + self.core_mem(c, dst, false, t + moved)
    }

    /// Fill the core's next buffer with the frame; returns (its first line, the time taken).
    fn copy_into(&mut self, c: usize, mb: &Mbuf, t: u64) -> (u32, u64) {
        let lines = (mb.len - 4).div_ceil(64);
        let core = &mut self.cores[c];
        let dst = core.copy_line + core.copy_slot * (super::COPY_SLOT_BYTES / 64) as u32;
        core.copy_slot = (core.copy_slot + 1) % super::COPY_SLOTS;
        let (ni, s) = (core.nic, core.socket);
        if let Some(lat) = self.nics[ni].attach.clone_frame(&mut self.mem, s, mb.data_line, dst, lines, t) {
            return (dst, lat);
        }
        let mut o = Overlap::default();
        for l in 0..lines {
            o.add(self.core_mem(c, mb.data_line + l, false, t));
            o.add(self.core_mem(c, dst + l, true, t));
        }
        (dst, o.cost() + ((lines as u64 * COPY_CYCLES_PER_LINE) as f64 * self.mem.t.cycle_ps) as u64)
    }

    pub(super) fn on_core(&mut self, c: usize) {
        let now = self.now;
        let mut t = now;
        if self.cores[c].burst_pos >= self.cores[c].burst.len() {
            if !self.cores[c].tx_pending.is_empty() {
                match self.tx_burst(c, t) {
                    Ok(t2) => t = t2,
                    Err(until) => {
                        self.schedule(until.max(now + 1), Ev::Core(c as u16));
                        return;
                    }
                }
            }
            if !self.rx_burst(c, &mut t) {
                return;
            }
        }
        // Process one packet.
        let core = &mut self.cores[c];
        let m = core.burst[core.burst_pos];
        core.burst_pos += 1;
        let app = core.app;
        let mb = self.mbufs[m as usize];
        let t0 = t;
        t = t.max(mb.hdr_at);
        t += self.core_mem(c, mb.data_line, false, t);
        if self.apps[app].ws_lines > 0 {
            // Dependent lookups: the stateful chain's per-flow state (addressed by the flow), or a
            // forwarder's own code and data (anywhere in its working set).
            let (base, lines, k) = (self.apps[app].ws_base, self.apps[app].ws_lines as u64, self.apps[app].accesses_per_packet);
            let per_flow = self.apps[app].kind == AppKind::StatefulChain;
            for i in 0..k {
                let off = if per_flow { mix64(((mb.flow as u64) << 8) | i as u64) % lines } else { self.rng.below(lines) };
                t += self.core_mem(c, base + off as u32, i % 2 == 1, t);
            }
        }
        let copy = if self.apps[app].kind == AppKind::Copy { self.copy_frame(c, &mb, t) } else { 0 };
        t += copy;
        let cyc = self.apps[app].cycles_ps;
        let t1 = t;
        t += cyc;
        t += self.core_mem(c, mb.data_line, true, t);
        let mbw = &mut self.mbufs[m as usize];
        mbw.mem_ps = (t1 - t0 - copy) + (t - t1 - cyc);
        mbw.cyc_ps = cyc;
        mbw.copy_ps = copy;
        self.cores[c].tx_pending.push(m);
        self.schedule(t.max(now + 1), Ev::Core(c as u16));
    }

    /// Poll the RX ring; returns false if the core went idle (or waits for an in-flight DMA).
    fn rx_burst(&mut self, c: usize, t: &mut u64) -> bool {
        let (ni, q) = (self.cores[c].nic, self.cores[c].queue);
        let rings = self.nics[ni].rings;
        let rx = &self.nics[ni].queues[q].rx;
        let avail = (rx.nic_pos - rx.sw_pos) as usize;
        let mut n = 0;
        while n < avail.min(BURST) && rx.ready[((rx.sw_pos + n as u64) % rx.n) as usize] <= *t {
            n += 1;
        }
        if n == 0 {
            if avail > 0 {
                let at = rx.ready[(rx.sw_pos % rx.n) as usize];
                self.schedule(at.max(*t + 1), Ev::Core(c as u16));
            } else {
                self.cores[c].idle = true;
                self.cores[c].busy_until = *t;
            }
            return false;
        }
        *t += (RX_BURST_CYCLES as f64 * self.mem.t.cycle_ps) as u64;
        if rings.index_line {
            // The NIC's tail index first, then the entries it covers.
            let idx = self.nics[ni].queues[q].idx_line;
            *t += self.core_mem(c, idx, false, *t);
        }
        self.cores[c].burst.clear();
        self.cores[c].burst_pos = 0;
        let (pool, slot_k) = (self.cores[c].pool, self.cores[c].pool_slot);
        let sw = self.nics[ni].queues[q].rx.sw_pos;
        // Completion entries and mbuf fields of the whole burst (independent accesses).
        // A NIC that cannot snoop (memory channel) leaves stale copies of its completions in the
        // host's caches, so the driver invalidates each completion line before reading it
        // (NetDIMM's Algorithm 1, "invalidate rxDesc[next]"; once per line a burst reads): the
        // read waits for the invalidation, and what that adds to the burst is its packets' flush
        // part.
        let mut batch = Overlap::default();
        let mut reads = Overlap::default();
        let mut last_cq = u32::MAX;
        let now = *t;
        for i in 0..n as u64 {
            let rx = &self.nics[ni].queues[q].rx;
            let slot = ((sw + i) % rx.n) as usize;
            let cq = rx.cq[slot];
            let m = rx.mbuf[slot];
            self.cores[c].burst.push(m);
            let mb = self.mbufs[m as usize];
            let inv = if rings.flush_handover && cq != last_cq { self.handover(c, cq, now) } else { 0 };
            last_cq = cq;
            let rd = self.core_mem(c, cq, false, now + inv);
            batch.add(inv + rd);
            reads.add(rd);
            let meta = self.core_mem(c, mb.meta_line, true, now);
            batch.add(meta);
            reads.add(meta);
        }
        if self.in_window(now) {
            let app = self.cores[c].app;
            self.apps[app].stats.rx_packets += n as u64;
        }
        if rings.flush_handover {
            // The burst's packets start their flush part (the TX burst adds its flushes); on other
            // NICs it stays 0.
            let inv_ps = batch.cost() - reads.cost();
            for &m in &self.cores[c].burst {
                self.mbufs[m as usize].flush_ps = inv_ps;
            }
        }
        *t += batch.cost();
        self.nics[ni].queues[q].rx.sw_pos += n as u64;
        // Replenish consumed slots, in order, from the mempool cache (LIFO).
        let mut batch = Overlap::default();
        let now = *t;
        let per_line = rings.rx_desc_per_line;
        loop {
            let rx = &self.nics[ni].queues[q].rx;
            if rx.posted >= rx.sw_pos + rx.n {
                break;
            }
            let Some(m) = self.pools[pool].alloc(slot_k) else { break };
            let rx = &mut self.nics[ni].queues[q].rx;
            let pos = rx.posted;
            let slot = (pos % rx.n) as usize;
            rx.mbuf[slot] = m;
            rx.posted += 1;
            let desc_base = rx.desc_line;
            let meta = self.mbufs[m as usize].meta_line;
            batch.add(self.core_mem(c, meta, true, now));
            // A line of descriptors is written once it is full (none when the NIC allocates from
            // a shared pool).
            if per_line > 0 && pos % per_line == per_line - 1 {
                let desc = desc_base + (slot as u64 / per_line) as u32;
                batch.add(self.core_mem(c, desc, true, now));
                if rings.flush_handover {
                    batch.add(self.handover(c, desc, now));
                }
            }
        }
        *t += batch.cost();
        // The NIC sees the new descriptors once they are written (the RQ doorbell record).
        let rx = &mut self.nics[ni].queues[q].rx;
        if rx.posted > rx.posts.back().map_or(rx.visible, |p| p.1) {
            rx.posts.push_back((*t, rx.posted));
            self.wake_on_post(ni, q);
        }
        // FastClick wraps the burst into a batch before any element runs, prefetching each
        // packet's first line as it goes (`rte_prefetch0` in `FromDPDKDevice::run_task`,
        // elements/userlevel/fromdpdkdevice.cc). The prefetches leave in order, at most one per
        // free fill buffer, and do not block: the core waits for a packet's header only when it
        // processes that packet, and then finds it in its L2.
        let now = *t;
        let mut issue = now;
        let mut at = [0u64; FILL_BUFFERS as usize];
        for i in 0..n {
            let m = self.cores[c].burst[i] as usize;
            // The fill buffer it takes frees when the prefetch FILL_BUFFERS before it completes.
            let slot = i % FILL_BUFFERS as usize;
            if i >= FILL_BUFFERS as usize {
                issue = issue.max(at[slot]);
            }
            at[slot] = issue + self.core_mem(c, self.mbufs[m].data_line, false, issue);
            self.mbufs[m].hdr_at = at[slot];
        }
        true
    }

    /// Transmit the pending packets. Err(t) = the TX ring is full until `t`.
    fn tx_burst(&mut self, c: usize, mut t: u64) -> Result<u64, u64> {
        let (ni, q, pool, slot_k) = (self.cores[c].nic, self.cores[c].queue, self.cores[c].pool, self.cores[c].pool_slot);
        // Frames whose data is at the NIC by now are on the wire (their `done` is known).
        self.settle_wire(ni, self.now);
        let rings = self.nics[ni].rings;
        let need = self.cores[c].tx_pending.len() as u64;
        let inline_max = self.nics[ni].attach.tx_inline_max();
        // Free the buffers of completed descriptors (see `TxRelease`): with `completion` (the
        // default) every one whose completion has come; with `threshold` lazily, only until there
        // is room for the burst: its packets plus the threshold in slots and, on an eMPW ring, its
        // WQE segments too (inlined frames can hold every segment while slots are free).
        let eager = self.nics[ni].tx_release == crate::config::TxRelease::Completion;
        let need_segs = if rings.empw && !eager {
            let head = self.nics[ni].queues[q].tx.head;
            let pending = &self.cores[c].tx_pending;
            pending.iter().enumerate().map(|(i, &m)| wqe_segs(head + i as u64, (self.mbufs[m as usize].len - 4) as u64, inline_max)).sum()
        } else {
            0
        };
        let mut batch = Overlap::default();
        let now = t;
        loop {
            let tx = &self.nics[ni].queues[q].tx;
            let free = tx.n - (tx.head - tx.clean);
            let roomy = free >= need + TX_FREE_THRESH && (need_segs == 0 || 4 * tx.n - tx.segs_in_use() >= need_segs);
            // A slot is released by the completion that covers it, once the frame of that
            // completion's slot has left the wire (the NIC writes the completion's line when it
            // fetches that frame).
            let Some(&end) = tx.comp_ends.front() else { break };
            if (!eager && roomy) || tx.done[(end % tx.n) as usize] > t {
                break;
            }
            let m = tx.mbuf[(tx.clean % tx.n) as usize];
            let tx = &mut self.nics[ni].queues[q].tx;
            tx.clean += 1;
            if tx.clean > end {
                tx.comp_ends.pop_front();
            }
            let meta = self.mbufs[m as usize].meta_line;
            batch.add(self.core_mem(c, meta, true, now));
            self.pools[pool].free(slot_k, m);
        }
        t += batch.cost();
        let tx = &self.nics[ni].queues[q].tx;
        let free = tx.n - (tx.head - tx.clean);
        if free == 0 {
            return Err(self.tx_slot_free_at(ni, q).max(t + 1));
        }
        let mut k = free.min(need) as usize;
        if rings.empw {
            // As many as the WQE ring's free segments hold.
            let room = 4 * tx.n - tx.segs_in_use();
            let mut used = 0;
            for i in 0..k {
                let m = self.cores[c].tx_pending[i];
                used += wqe_segs(tx.head + i as u64, (self.mbufs[m as usize].len - 4) as u64, inline_max);
                if used > room {
                    k = i;
                    break;
                }
            }
            if k == 0 {
                return Err(self.tx_slot_free_at(ni, q).max(t + 1));
            }
        }
        let doorbell_at = t + (TX_BURST_CYCLES as f64 * self.mem.t.cycle_ps) as u64;
        let mut batch = Overlap::default();
        // Work the NIC must see before the doorbell: flushes of handed-over lines, the tail index.
        let mut signal = Overlap::default();
        let now = t;
        let mut inlined_lines = 0;
        let mut copy_loads = Overlap::default();
        for i in 0..k {
            let m = self.cores[c].tx_pending[i];
            let mb = self.mbufs[m as usize];
            let tx = &mut self.nics[ni].queues[q].tx;
            let slot = (tx.head % tx.n) as usize;
            tx.mbuf[slot] = m;
            tx.done[slot] = u64::MAX;
            let wqe = tx.wqe_line + (slot as u64 / rings.tx_desc_per_line) as u32;
            if rings.empw {
                // The packet's WQE segments, written line by line into the ring of `n` lines.
                let segs = wqe_segs(tx.head, (mb.len - 4) as u64, inline_max);
                let (first, wqe_line, n) = (tx.seg_next, tx.wqe_line, tx.n);
                tx.seg[slot] = first;
                tx.segs[slot] = segs as u16;
                tx.seg_next += segs;
                tx.block_segs += segs;
                tx.post_slot(rings);
                for l in first / 4..=(first + segs - 1) / 4 {
                    batch.add(self.core_mem(c, wqe_line + (l % n) as u32, true, now));
                }
            } else {
                tx.post_slot(rings);
                batch.add(self.core_mem(c, wqe, true, now));
            }
            if (mb.len - 4) as u64 <= inline_max {
                // The driver copies the frame into the WQE (the NIC will not read its buffer).
                let lines = (mb.len - 4).div_ceil(64);
                for l in 0..lines {
                    copy_loads.add(self.core_mem(c, mb.data_line + l, false, now));
                }
                inlined_lines += lines as u64;
                self.mbufs[m as usize].copy_ps += ((lines as u64 * COPY_CYCLES_PER_LINE) as f64 * self.mem.t.cycle_ps) as u64;
            }
            if rings.flush_handover {
                // The driver flushes the whole frame it hands over (NetDIMM's Algorithm 1,
                // "flush txSKB.data to memory"), whatever of it the host's caches hold.
                let data = self.mbufs[m as usize].data_line;
                for l in 0..(mb.len - 4).div_ceil(64) {
                    signal.add(self.handover(c, data + l, now));
                }
                if slot as u64 % rings.tx_desc_per_line == rings.tx_desc_per_line - 1 || i == k - 1 {
                    signal.add(self.handover(c, wqe, now));
                }
            }
        }
        if rings.index_line {
            let idx = self.nics[ni].queues[q].idx_line + 1;
            signal.add(self.core_mem(c, idx, true, now));
        }
        // The descriptor writes and the copies into inlined descriptors (their loads, then the
        // stores) complete before the doorbell (the driver's write barrier), then the flushes or
        // the tail index.
        let copy_ps = copy_loads.cost() + ((inlined_lines * COPY_CYCLES_PER_LINE) as f64 * self.mem.t.cycle_ps) as u64;
        let doorbell = doorbell_at + batch.cost() + copy_ps + signal.cost();
        let flush_ps = if rings.flush_handover { signal.cost() } else { 0 };
        let visible = doorbell + self.nics[ni].attach.tx_notice_ps(&self.mem);
        let tx = &mut self.nics[ni].queues[q].tx;
        for i in 0..k as u64 {
            let slot = ((tx.head - k as u64 + i) % tx.n) as usize;
            tx.ready[slot] = visible;
            self.mbufs[tx.mbuf[slot] as usize].flush_ps += flush_ps;
        }
        let seg_limit = if rings.empw && inline_max > 0 { tx.n / 2 } else { u64::MAX };
        tx.close_burst(rings.tx_completion_every, seg_limit);
        self.schedule_tx_fetch(ni, q, visible);
        self.cores[c].tx_pending.drain(..k);
        t = doorbell;
        if self.cores[c].tx_pending.is_empty() {
            Ok(t)
        } else {
            Err(self.tx_slot_free_at(ni, q).max(t))
        }
    }

    /// One µs of a co-runner: it issues its accesses in sequence, each taking its latency over the
    /// core's fill buffers, so a co-runner that misses a lot issues fewer accesses (closed loop).
    pub(super) fn on_corunner(&mut self, c: usize) {
        let now = self.now;
        let app = self.cores[c].app;
        let (base, lines, rate) = (self.apps[app].ws_base, self.apps[app].ws_lines as u64, self.apps[app].accesses_per_us);
        self.cores[c].rate_acc += rate;
        let want = self.cores[c].rate_acc.floor();
        self.cores[c].rate_acc -= want;
        let mut t = self.cores[c].busy_until.max(now);
        let mut issued = 0u64;
        while issued < want as u64 && t < now + PS_PER_US {
            let line = base + self.rng.below(lines) as u32;
            let write = self.rng.below(CORUNNER_STORE_EVERY) == 0;
            t += self.core_mem(c, line, write, t) / FILL_BUFFERS;
            issued += 1;
        }
        self.cores[c].busy_until = t;
        if self.in_window(now) {
            self.apps[app].stats.accesses += issued;
        }
        self.schedule(now + PS_PER_US, Ev::CoRunner(c as u16));
    }
}
