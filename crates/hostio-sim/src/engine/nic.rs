//! The NIC: RX queues with posted descriptors, the on-NIC packet buffer with drops or PAUSE
//! frames (XOFF at 3/4 full, refreshed every half pause time, XON at or below 1/2: estimates, as
//! ConnectX-5's thresholds are not published; a PAUSE frame carries the largest quanta, 65535 ×
//! 512 bit times, the DDIO paper's "maximum pause duration" of 335.5 µs at 100 Gb/s), and the
//! NIC-time TX path. How frames cross to the host is the attachment's business ([`crate::attach`]); the
//! NIC only asks it to receive a frame into a posted slot, to fetch a posted TX packet, and
//! whether its link has room.
//!
//! # Receive
//! A frame goes straight to its queue's next posted descriptor when the queue has one, no frame
//! of that queue waits ahead of it and the link has room. Descriptors a core posts reach the NIC
//! when the core has written them, at the end of its burst's replenishing, not when it starts
//! the burst (the NIC applies them when it next looks at the ring; frames waiting in the buffer
//! for one get a `Posted` event). Otherwise:
//! * **Flow control off** (the default): a frame whose queue has no posted descriptor and no
//!   frame waiting ahead is dropped at once (*out of buffer*). This is ConnectX's behaviour: the
//!   mlx5 driver's `rx_out_of_buffer` counter is "the number of all packets that are dropped due
//!   to lack of software buffers" (Linux commit 237cd218, "net/mlx5: Introduce device queue
//!   counters"), and holding such frames instead is the opt-in "dropless RQ" (`delay_drop`,
//!   commit 03404e8a). Frames waiting for the link sit in the NIC buffer (dropped when it is
//!   full); one whose queue has run out of descriptors by the time the link takes it is dropped
//!   then. So a saturated queue loses its own excess instead of filling the buffer with it.
//! * **Flow control on** (`pause_frames`): the port is lossless: frames wait in the NIC buffer
//!   for a descriptor or the link, and the buffer filling past XOFF pauses the sender (the DDIO
//!   paper's §3.1 PAUSE frames from one slow core).
//!
//! # Transmit
//! After the doorbell the NIC fetches the queue's descriptors in order (`TxFetch`) and has the
//! attachment read each packet (lines looked up when the NIC reads them), then the wire. A queue
//! keeps at most `tx_read_window_kib` of reads in flight (a frame larger than the window is read
//! alone), so one queue transmits at most that window over the read latency: when reads come from DRAM the queue slows, its TX ring holds
//! processed packets longer and they are evicted before the NIC reads them (the DDIO paper's
//! "TX buffering"). On a PCIe NIC such a read pays the loaded latency of its buffer's home DRAM
//! in place of an LLC access (see [`crate::attach::pcie`]), so the slowdown grows with the
//! DRAM's load. The NIC's queues share one wire: a queue's frames leave in ring order, and the
//! frames of different queues in the order their data reached the NIC (one queue's frame whose
//! read comes from DRAM does not hold up another's that hit the LLC or was inlined). A packet's
//! latency is NIC arrival → the end of the frame's slot on the TX wire (its last bit and the
//! 12 B inter-frame gap after it, ~1 ns at 100 Gb/s). The driver asks for a completion on the
//! last frame of a burst once enough frames were posted since the last one
//! ([`TxRing::close_burst`]); the NIC writes it when it fetches that frame (a device write, with
//! DDIO's rules), and the core frees the block's buffers once the frame has left the wire. The
//! core's read of the completion line is not simulated: its cost is part of the TX burst's fixed
//! cycles.
//!
//! When the link cannot take every waiting frame at once, the RX queues' waiting frames are
//! moved into their rings round-robin, starting after the queue served last.
use super::{Engine, Ev};
use crate::attach::{Attachment, Dev, Rings, RxDma, TxDma};
use std::collections::VecDeque;

pub(super) struct RxRing {
    pub(super) n: u64,
    pub(super) mbuf: Vec<u32>,
    pub(super) ready: Vec<u64>,
    /// Next slot the NIC fills.
    pub(super) nic_pos: u64,
    /// Next slot the core consumes.
    pub(super) sw_pos: u64,
    /// Slots below this are posted by the core (hold a buffer).
    pub(super) posted: u64,
    /// Slots below this are posted as the NIC sees them: a burst's replenished slots (the core's
    /// descriptor writes, or the buffers it returns to a pool shared with the NIC) reach the NIC
    /// when the burst's replenishing ends (`posts`), not when the core starts it.
    pub(super) visible: u64,
    /// Replenishments not yet seen by the NIC: (when, `posted` then), in time order; applied
    /// when the NIC next looks at the ring ([`Engine::settle_posts`]).
    pub(super) posts: VecDeque<(u64, u64)>,
    /// Time of the live `Posted` event of this queue (`u64::MAX`: none): needed only when frames
    /// wait in the NIC buffer for a descriptor (flow control on).
    pub(super) post_event_at: u64,
    pub(super) desc_line: u32,
    pub(super) cq_line: u32,
    /// Per slot: the completion line the NIC wrote for it (where the core finds it).
    pub(super) cq: Vec<u32>,
}

/// A fetched frame waiting for the wire: the frame may go when its data is at the NIC and its
/// queue's earlier frames have gone (`ready`); frames ready together go in fetch order (`seq`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct WireWait {
    pub(super) ready: u64,
    pub(super) seq: u64,
    pub(super) queue: u32,
    pub(super) slot: u32,
    /// When the NIC fetched it and when its data arrived (for the latency breakdown).
    pub(super) fetched: u64,
    pub(super) data_at: u64,
}

pub(super) struct TxRing {
    pub(super) n: u64,
    pub(super) mbuf: Vec<u32>,
    /// When the slot's frame left the wire (`u64::MAX` until its wire time is booked: at the
    /// fetch on a single-queue NIC, else when the wire takes it, `settle_wire`).
    pub(super) done: Vec<u64>,
    /// When the slot's doorbell made it visible to the NIC.
    pub(super) ready: Vec<u64>,
    pub(super) head: u64,
    /// Next slot the NIC fetches (`clean ≤ fetch ≤ head`).
    pub(super) fetch: u64,
    pub(super) clean: u64,
    /// The queue's DMA reads in flight: (completion time, bytes), in issue order (they may
    /// finish in another).
    pub(super) reads: VecDeque<(u64, u64)>,
    pub(super) read_bytes: u64,
    /// Time of the live `TxFetch` event of this queue (`u64::MAX`: none).
    pub(super) fetch_at: u64,
    /// When each fetched slot's frame may take the wire ([`WireWait::ready`]), and the latest
    /// such time of this queue (its frames leave in ring order).
    pub(super) wire_ready: Vec<u64>,
    pub(super) last_ready: u64,
    pub(super) wqe_line: u32,
    pub(super) cq_line: u32,
    /// eMPW rings ([`Rings::empw`]): the next free 16 B WQE segment (absolute; the ring holds
    /// `n` 64 B lines, i.e. `4 n` segments), and per slot its packet's first segment and count.
    pub(super) seg_next: u64,
    pub(super) seg: Vec<u64>,
    pub(super) segs: Vec<u16>,
    /// Completions ([`Rings::tx_completion_every`]): the positions of the posted slots after
    /// whose frame the NIC writes one, not yet passed by `clean` (a completion releases every
    /// slot up to its own); where the open block of slots began and the eMPW segments it holds;
    /// completions requested so far; and per slot the line of the completion ring its frame's
    /// fetch writes (`u32::MAX`: none).
    pub(super) comp_ends: VecDeque<u64>,
    pub(super) block_start: u64,
    pub(super) block_segs: u64,
    pub(super) comps: u64,
    pub(super) cqe: Vec<u32>,
}

impl TxRing {
    /// When a frame of this queue whose data has arrived at `data_at` may take the wire: not
    /// before the frame fetched before it, since a queue's frames leave in ring order (a later
    /// frame whose data came sooner, an LLC hit behind a DRAM read, waits for it).
    pub(super) fn wire_ready_in_order(&mut self, data_at: u64) -> u64 {
        self.last_ready = data_at.max(self.last_ready);
        self.last_ready
    }

    /// Post the slot at `head` (its eMPW segments already counted in `block_segs`). Without
    /// completions (`tx_completion_every` 0) the slot releases itself; otherwise the burst's end
    /// decides ([`TxRing::close_burst`]).
    pub(super) fn post_slot(&mut self, rings: Rings) {
        let pos = self.head;
        self.head += 1;
        self.cqe[(pos % self.n) as usize] = u32::MAX;
        if rings.tx_completion_every == 0 {
            self.comp_ends.push_back(pos);
            self.block_start = self.head;
        }
    }

    /// At the end of a TX burst, as the DPDK mlx5 PMD (`mlx5_tx_request_completion`): when the
    /// slots posted since the last completion request number `every` (`MLX5_TX_COMP_THRESH`, 32)
    /// or more, or, with inlining, hold `seg_limit` eMPW segments or more (an eighth of the ring's
    /// WQE lines, `wqe_s / MLX5_TX_COMP_THRESH_INLINE_DIV`, so that inlined frames cannot fill the
    /// ring with none requested), the burst's last slot closes the block: the NIC writes a
    /// completion after its frame, which releases every slot up to it. (hostio counts the ring's
    /// lines as `n`; the PMD's `wqe_s` is larger with inlining.)
    pub(super) fn close_burst(&mut self, every: u64, seg_limit: u64) {
        if every == 0 || self.head == self.block_start || self.head - self.block_start < every && self.block_segs < seg_limit {
            return;
        }
        let last = self.head - 1;
        self.comp_ends.push_back(last);
        self.cqe[(last % self.n) as usize] = (self.comps % crate::attach::TX_CQ_LINES as u64) as u32;
        self.comps += 1;
        self.block_start = self.head;
        self.block_segs = 0;
    }

    /// Let every read finished by `now` leave the window. Reads need not finish in issue order (a
    /// hit after a miss, a smaller frame after a larger one).
    pub(super) fn release_reads(&mut self, now: u64) {
        if self.reads.iter().any(|&(end, _)| end <= now) {
            let mut freed = 0;
            self.reads.retain(|&(end, b)| {
                freed += if end <= now { b } else { 0 };
                end > now
            });
            self.read_bytes -= freed;
        }
    }

    /// When the next read in flight finishes.
    pub(super) fn next_read_end(&self) -> Option<u64> {
        self.reads.iter().map(|&(end, _)| end).min()
    }

    /// eMPW segments still held by posted packets the driver has not released.
    pub(super) fn segs_in_use(&self) -> u64 {
        if self.clean == self.head {
            0
        } else {
            self.seg_next - self.seg[(self.clean % self.n) as usize]
        }
    }
}

#[derive(Clone, Copy)]
pub(super) struct Pkt {
    pub(super) arrival_ps: u64,
    pub(super) len: u32,
    pub(super) flow: u32,
}

pub(super) struct Queue {
    pub(super) core: usize,
    /// Index lines (RX tail, TX tail) for doorbell signaling in memory (coherent NICs only).
    pub(super) idx_line: u32,
    pub(super) rx: RxRing,
    pub(super) tx: TxRing,
    pub(super) backlog: VecDeque<Pkt>,
}

#[derive(Default, Clone)]
pub(super) struct NicStats {
    pub(super) rx_packets: u64,
    pub(super) dropped: u64,
    /// Of `dropped`, the frames whose queue had no posted descriptor.
    pub(super) out_of_buffer: u64,
    pub(super) pause_frames: u64,
    /// The I/O hub's line counts of this NIC's DMA (the socket-wide counters split by NIC).
    pub(super) dma: crate::memsys::DmaCounters,
}

pub(super) struct Nic {
    pub(super) name: String,
    /// The attachment's name, for the results.
    pub(super) kind: &'static str,
    pub(super) socket: usize,
    pub(super) ddio: bool,
    /// The LLC ways its DMA writes allocate into, and the leading lines of a frame that may.
    pub(super) io_mask: u32,
    pub(super) ddio_lines: u32,
    /// The leading lines of a frame stashed into the polling core's L2.
    pub(super) stash_lines: u32,
    pub(super) line_rate_gbps: f64,
    pub(super) tx_release: crate::config::TxRelease,
    /// Bytes of packet reads one TX queue may have in flight.
    pub(super) tx_read_window: u64,
    /// How the NIC reaches the host: link, DMA, signaling.
    pub(super) attach: Attachment,
    /// Where its descriptors and completions sit (from the attachment).
    pub(super) rings: Rings,
    pub(super) queues: Vec<Queue>,
    pub(super) buf_bytes: u64,
    pub(super) buf_cap: u64,
    pub(super) pause: bool,
    pub(super) xoff: u64,
    pub(super) xon: u64,
    pub(super) pausing: bool,
    pub(super) pause_until: u64,
    pub(super) refresh_at: u64,
    pub(super) drain_at: u64,
    /// The queue `nic_drain` visits first: the one after the last it served (round-robin across
    /// calls, so that a link that admits one frame per call does not always serve queue 0).
    pub(super) drain_next: usize,
    pub(super) quanta_ps: u64,
    pub(super) wire_free: u64,
    /// Fetched frames of a multi-queue NIC not yet on the wire, earliest ready first
    /// ([`WireWait`], [`Engine::settle_wire`]); a single-queue NIC books its wire when it
    /// fetches, in the same order.
    pub(super) wire_waiting: std::collections::BinaryHeap<std::cmp::Reverse<WireWait>>,
    /// Frames fetched so far (orders frames ready at the same time by their fetch).
    pub(super) wire_seq: u64,
    pub(super) stats: NicStats,
    /// Frames that reached the NIC and frames it dropped since the start (not reset at warm-up),
    /// for the conservation check.
    pub(super) arrived_all: u64,
    pub(super) dropped_all: u64,
}

impl Nic {
    /// What the attachment needs to know of the NIC for a DMA.
    pub(super) fn dev(&self) -> Dev {
        Dev { socket: self.socket, ddio: self.ddio, io_mask: self.io_mask, ddio_lines: self.ddio_lines, stash_lines: self.stash_lines }
    }
}

impl Engine {
    pub(super) fn nic_receive(&mut self, ni: usize, q: usize, p: Pkt, now: u64) {
        self.settle_posts(ni, q, now);
        let nic = &mut self.nics[ni];
        nic.arrived_all += 1;
        let qu = &nic.queues[q];
        let link_ok = nic.attach.accepts(now);
        let slot = qu.rx.nic_pos < qu.rx.visible;
        if qu.backlog.is_empty() && slot && link_ok {
            self.dma_in(ni, q, p, now);
            return;
        }
        if !nic.pause && qu.backlog.is_empty() && !slot {
            self.count_out_of_buffer(ni, now);
            return;
        }
        if nic.buf_bytes + p.len as u64 > nic.buf_cap {
            self.count_drop(ni, now);
            return;
        }
        nic.buf_bytes += p.len as u64;
        nic.queues[q].backlog.push_back(p);
        self.wake_on_post(ni, q);
        let nic = &mut self.nics[ni];
        if nic.pause && !nic.pausing && nic.buf_bytes >= nic.xoff {
            nic.pausing = true;
            nic.pause_until = now + nic.quanta_ps;
            nic.refresh_at = now + nic.quanta_ps / 2;
            let at = nic.refresh_at;
            if self.in_window(now) {
                self.nics[ni].stats.pause_frames += 1;
            }
            self.schedule(at, Ev::PauseRefresh(ni as u16));
        }
        if !link_ok {
            self.schedule_drain(ni);
        }
    }

    /// NIC `ni` dropped a frame at `now` (no room in its buffer).
    #[inline]
    pub(super) fn count_drop(&mut self, ni: usize, now: u64) {
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        nic.dropped_all += 1;
        if in_win {
            nic.stats.dropped += 1;
        }
    }

    /// NIC `ni` dropped a frame at `now` because its queue had no posted descriptor (flow control
    /// off); counted in the drops too.
    #[inline]
    pub(super) fn count_out_of_buffer(&mut self, ni: usize, now: u64) {
        self.count_drop(ni, now);
        if self.in_window(now) {
            self.nics[ni].stats.out_of_buffer += 1;
        }
    }

    /// Wake the NIC when its link has room again.
    pub(super) fn schedule_drain(&mut self, ni: usize) {
        let at = self.nics[ni].attach.room_at();
        if self.nics[ni].drain_at != at {
            self.nics[ni].drain_at = at;
            self.schedule(at, Ev::NicDrain(ni as u16));
        }
    }

    pub(super) fn on_pause_refresh(&mut self, ni: usize) {
        let now = self.now;
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        if !nic.pausing || nic.refresh_at != now {
            return;
        }
        nic.pause_until = now + nic.quanta_ps;
        nic.refresh_at = now + nic.quanta_ps / 2;
        let at = nic.refresh_at;
        if in_win {
            nic.stats.pause_frames += 1;
        }
        self.schedule(at, Ev::PauseRefresh(ni as u16));
    }

    /// Move backlogged frames into posted descriptors while the attachment accepts more (a PCIe
    /// NIC's d2h link has room, a memory-channel NIC's DRAM backlog is short), visiting the
    /// queues round-robin. Without flow control, a backlogged frame whose queue has no posted
    /// descriptor is dropped (out of buffer).
    pub(super) fn nic_drain(&mut self, ni: usize, now: u64) {
        let nq = self.nics[ni].queues.len();
        for q in 0..nq {
            self.settle_posts(ni, q, now);
        }
        let mut blocked_by_link = false;
        loop {
            let mut moved = false;
            let first = self.nics[ni].drain_next;
            for q in (first..first + nq).map(|q| q % nq) {
                let nic = &self.nics[ni];
                if !nic.attach.accepts(now) {
                    blocked_by_link = !nic.queues.iter().all(|qu| qu.backlog.is_empty());
                    break;
                }
                let qu = &nic.queues[q];
                let slot = qu.rx.nic_pos < qu.rx.visible;
                if qu.backlog.is_empty() || (!slot && nic.pause) {
                    continue;
                }
                let p = self.nics[ni].queues[q].backlog.pop_front().expect("non-empty");
                self.nics[ni].buf_bytes -= p.len as u64;
                self.nics[ni].drain_next = (q + 1) % nq;
                if slot {
                    self.dma_in(ni, q, p, now);
                } else {
                    // The link took it, but its queue has no descriptor left: out of buffer.
                    self.count_out_of_buffer(ni, now);
                }
                moved = true;
            }
            if !moved || blocked_by_link {
                break;
            }
        }
        if blocked_by_link {
            self.schedule_drain(ni);
        }
        for q in 0..nq {
            self.wake_on_post(ni, q);
        }
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        if nic.pausing && nic.buf_bytes <= nic.xon {
            // XON: a PAUSE frame with zero quanta.
            nic.pausing = false;
            nic.pause_until = now;
            if in_win {
                nic.stats.pause_frames += 1;
            }
            // Senders held by the pause resume now.
            for g in 0..self.gens.len() {
                if self.gens[g].nic == ni && self.gens[g].held && self.gens[g].next_at > now {
                    self.gens[g].held = false;
                    self.gens[g].restart(now);
                    self.schedule(now, Ev::Arrival(g as u16));
                }
            }
        }
    }

    /// DMA one frame into the next posted RX buffer of queue `q` (the attachment moves it).
    fn dma_in(&mut self, ni: usize, q: usize, p: Pkt, now: u64) {
        let dev = self.nics[ni].dev();
        let qu = &self.nics[ni].queues[q];
        let rx = &qu.rx;
        let pos = rx.nic_pos;
        let slot = (pos % rx.n) as usize;
        let m = rx.mbuf[slot];
        let f = RxDma {
            queue: q,
            idx_line: qu.idx_line,
            pos,
            n: rx.n,
            desc_line: rx.desc_line,
            cq_line: rx.cq_line,
            data_line: self.mbufs[m as usize].data_line,
            payload: (p.len - 4) as u64, // the NIC strips the FCS
            stash_core: {
                let c = &self.cores[qu.core];
                (c.socket == self.nics[ni].socket).then_some(c.local)
            },
            now,
        };
        let w = self.window();
        let before = self.mem.c.clone();
        let (ready, cq) = self.nics[ni].attach.receive(&mut self.mem, dev, &f, w);
        self.nics[ni].stats.dma.add_since(&before, &self.mem.c);
        let in_win = self.in_window(now);
        let nic = &mut self.nics[ni];
        if in_win {
            nic.stats.rx_packets += 1;
        }
        let rx = &mut nic.queues[q].rx;
        rx.ready[slot] = ready;
        rx.cq[slot] = cq;
        rx.nic_pos += 1;
        let mb = &mut self.mbufs[m as usize];
        mb.arrival_ps = p.arrival_ps;
        mb.len = p.len;
        mb.flow = p.flow;
        mb.t_dma = now;
        mb.t_ready = ready;
        let core = self.nics[ni].queues[q].core;
        if self.cores[core].idle {
            self.cores[core].idle = false;
            self.schedule(ready.max(now).max(self.cores[core].busy_until), Ev::Core(core as u16));
        }
    }

    /// The replenishments of (nic, queue) written by `now` become visible to the NIC.
    #[inline]
    pub(super) fn settle_posts(&mut self, ni: usize, q: usize, now: u64) {
        let rx = &mut self.nics[ni].queues[q].rx;
        while let Some(&(at, posted)) = rx.posts.front() {
            if at > now {
                break;
            }
            rx.visible = posted;
            rx.posts.pop_front();
        }
    }

    /// With flow control, frames of (nic, queue) that wait in the NIC buffer for a descriptor
    /// move when the next replenishment reaches the NIC: an event then (without flow control
    /// such frames are dropped, and the NIC sees new descriptors when it next looks).
    pub(super) fn wake_on_post(&mut self, ni: usize, q: usize) {
        let nic = &mut self.nics[ni];
        let qu = &mut nic.queues[q];
        if !nic.pause || qu.backlog.is_empty() || qu.rx.nic_pos < qu.rx.visible {
            return;
        }
        if let Some(&(at, _)) = qu.rx.posts.front() {
            if at < qu.rx.post_event_at {
                qu.rx.post_event_at = at;
                self.schedule(at, Ev::Posted(ni as u16, q as u16));
            }
        }
    }

    /// The replenishment a queue's waiting frames need has reached the NIC.
    pub(super) fn on_posted(&mut self, ni: usize, q: usize) {
        let now = self.now;
        if self.nics[ni].queues[q].rx.post_event_at != now {
            return;
        }
        self.nics[ni].queues[q].rx.post_event_at = u64::MAX;
        self.nic_drain(ni, now);
    }

    /// The earliest replenishment of NIC `ni` not yet visible to it (`u64::MAX`: none).
    pub(super) fn next_post(&self, ni: usize) -> u64 {
        self.nics[ni].queues.iter().filter_map(|q| q.rx.posts.front().map(|p| p.0)).min().unwrap_or(u64::MAX)
    }

    /// When the oldest TX slot of a queue may free: once the frame of the slot whose completion
    /// covers it (`comp_ends`) has left the wire (the completion's line is written when the NIC
    /// fetches that frame; the release waits for the wire); fetched but
    /// not on the wire yet (a multi-queue NIC, data still coming), not before its data is there
    /// (`wire_ready`); not fetched yet, the NIC's next fetch. Called when the ring (or its eMPW
    /// segments) is full, so a completion covers the oldest slot; without one, the NIC's next
    /// fetch.
    pub(super) fn tx_slot_free_at(&self, ni: usize, q: usize) -> u64 {
        let tx = &self.nics[ni].queues[q].tx;
        let Some(&end) = tx.comp_ends.front() else {
            return tx.fetch_at.min(self.end_ps);
        };
        let done = tx.done[(end % tx.n) as usize];
        if done != u64::MAX {
            done
        } else if end < tx.fetch {
            // Fetched, waiting for its data: not before it may take the wire.
            tx.wire_ready[(end % tx.n) as usize]
        } else {
            tx.fetch_at.min(self.end_ps)
        }
    }

    pub(super) fn schedule_tx_fetch(&mut self, ni: usize, q: usize, at: u64) {
        let tx = &mut self.nics[ni].queues[q].tx;
        if at < tx.fetch_at {
            tx.fetch_at = at;
            self.schedule(at, Ev::TxFetch(ni as u16, q as u16));
        }
    }

    /// The NIC takes posted TX descriptors in order: the attachment reads the descriptor and the
    /// packet (looked up now, when the NIC reads them), then the wire. A queue keeps at most `tx_read_window_kib` of packet reads in
    /// flight (a frame larger than the window alone), so one queue's transmit rate is bounded by
    /// that window over the read latency.
    pub(super) fn on_tx_fetch(&mut self, ni: usize, q: usize) {
        let now = self.now;
        let dev = self.nics[ni].dev();
        let window_bytes = self.nics[ni].tx_read_window;
        let idx_line = self.nics[ni].queues[q].idx_line;
        let notice = self.nics[ni].attach.tx_notice_ps(&self.mem);
        let inline_max = self.nics[ni].attach.tx_inline_max();
        self.settle_wire(ni, now);
        self.nics[ni].queues[q].tx.fetch_at = u64::MAX;
        loop {
            let tx = &mut self.nics[ni].queues[q].tx;
            if tx.fetch == tx.head {
                break;
            }
            let pos = tx.fetch;
            let slot = (pos % tx.n) as usize;
            if tx.ready[slot] > now {
                let at = tx.ready[slot];
                self.schedule_tx_fetch(ni, q, at);
                break;
            }
            // The oldest reads that finished leave the window here (the usual order); any that
            // finished behind an unfinished one leave it below, before the window can block.
            while let Some(&(end, b)) = tx.reads.front() {
                if end > now {
                    break;
                }
                tx.reads.pop_front();
                tx.read_bytes -= b;
            }
            let m = tx.mbuf[slot];
            let mb = self.mbufs[m as usize];
            let payload = (mb.len - 4) as u64;
            // An inlined frame came with its descriptor: no payload read to keep in flight.
            let inline = payload <= inline_max;
            let read = if inline { 0 } else { payload };
            if tx.read_bytes > 0 && tx.read_bytes + read > window_bytes {
                tx.release_reads(now);
            }
            if tx.read_bytes > 0 && tx.read_bytes + read > window_bytes {
                let at = tx.next_read_end().expect("reads in flight");
                self.schedule_tx_fetch(ni, q, at);
                break;
            }
            tx.fetch += 1;
            let f = TxDma {
                queue: q,
                idx_line,
                posted_at: tx.ready[slot],
                pos,
                n: tx.n,
                wqe_line: tx.wqe_line,
                cq_line: tx.cq_line,
                data_line: mb.data_line,
                payload,
                inline,
                seg: tx.seg[slot],
                segs: tx.segs[slot] as u64,
                completion: (tx.cqe[slot] != u32::MAX).then_some(tx.cqe[slot]),
                now,
            };
            let w = self.window();
            let before = self.mem.c.clone();
            let data_at = self.nics[ni].attach.fetch(&mut self.mem, dev, &f, w);
            self.nics[ni].stats.dma.add_since(&before, &self.mem.c);
            let nic = &mut self.nics[ni];
            let single = nic.queues.len() == 1;
            nic.wire_seq += 1;
            let seq = nic.wire_seq;
            let tx = &mut nic.queues[q].tx;
            let ready = tx.wire_ready_in_order(data_at);
            tx.wire_ready[slot] = ready;
            if read > 0 {
                tx.reads.push_back((data_at, read));
                tx.read_bytes += read;
            }
            let w = WireWait { ready, seq, queue: q as u32, slot: slot as u32, fetched: now, data_at };
            if single {
                // One queue's frames become ready in fetch order: the wire is booked now.
                self.book_wire(ni, w, notice);
            } else {
                nic.wire_waiting.push(std::cmp::Reverse(w));
            }
        }
    }

    /// A multi-queue NIC's wire takes the waiting frames ready by `upto`, in the order they
    /// became ready: a frame fetched later from another queue whose data came sooner (an LLC
    /// hit, an inlined frame) does not wait behind one still reading DRAM. A frame fetched at
    /// `t` is ready at `t` or later, so none fetched after `upto` can go before these: booking
    /// them whenever it is done gives the same wire. It is done before the NIC fetches more,
    /// before a core of the NIC looks for finished frames, and at the end of `advance`.
    pub(super) fn settle_wire(&mut self, ni: usize, upto: u64) {
        match self.nics[ni].wire_waiting.peek() {
            Some(w) if w.0.ready <= upto => {}
            _ => return,
        }
        let notice = self.nics[ni].attach.tx_notice_ps(&self.mem);
        while let Some(&std::cmp::Reverse(w)) = self.nics[ni].wire_waiting.peek() {
            if w.ready > upto {
                break;
            }
            self.nics[ni].wire_waiting.pop();
            self.book_wire(ni, w, notice);
        }
    }

    /// Put frame `w` on the wire after the frames booked before it, and count it.
    fn book_wire(&mut self, ni: usize, w: WireWait, notice: u64) {
        let nic = &mut self.nics[ni];
        let q = w.queue as usize;
        let slot = w.slot as usize;
        let mb = self.mbufs[nic.queues[q].tx.mbuf[slot] as usize];
        let wire_start = w.ready.max(nic.wire_free);
        // The frame and its 20 B of preamble, start delimiter and inter-frame gap.
        nic.wire_free = wire_start + ((mb.len + 20) as f64 * 8000.0 / nic.line_rate_gbps) as u64;
        let done = nic.wire_free;
        nic.queues[q].tx.done[slot] = done;
        let app = self.cores[nic.queues[q].core].app;
        if done >= self.warm_ps && done < self.end_ps {
            let st = &mut self.apps[app].stats;
            st.tx_packets += 1;
            st.tx_bytes += mb.len as u64;
            if mb.arrival_ps >= self.warm_ps {
                st.latency.record(done - mb.arrival_ps);
                st.parts.record(&mb, w.fetched.saturating_sub(notice), w.data_at, done);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TxRing, WireWait};
    use crate::engine::Engine;
    use std::collections::VecDeque;

    /// An engine for L2 forwarding on `cores` cores of `size` B frames, with `nic` lines in the
    /// NIC's table.
    fn engine(cores: u32, size: u32, nic: &str) -> Engine {
        let text = format!("[nics.nic0]\n{nic}\n[traffic.t0]\nnic = \"nic0\"\npacket_size = {size}\n[apps.fwd]\nkind = \"l2fwd\"\nnic = \"nic0\"\ncores = {cores}\n");
        let sc = crate::parse_scenario(&text, &[]).expect("valid");
        Engine::new(sc.resolve().expect("valid")).expect("built")
    }

    /// Each frame has a buffer of its own: frames whose data (the frame less its 4 B FCS) fits
    /// DPDK's 2 KiB data room keep it (objects 37 lines apart), larger ones get a room of that
    /// rounded up to 1 KiB (9018 B: 9 KiB, objects 149 lines apart), so no frame is written into
    /// the next buffers.
    #[test]
    fn each_frame_fits_a_buffer_of_its_own() {
        for (size, lines) in [(1500, 37), (2052, 37), (2053, 53), (9018, 149)] {
            let e = engine(1, size, "");
            assert!(e.mbufs.windows(2).take(1000).all(|w| w[1].data_line - w[0].data_line == lines), "{size} B");
            assert!(lines * 64 - 320 >= size - 4, "{size} B: its data fits the room");
        }
    }

    /// Descriptors a core has written reach the NIC at the time the core's burst wrote them
    /// (`posts`), not before: a frame arriving earlier finds no slot and is out of buffer; one
    /// arriving after goes into the new slot (the NIC applies the replenishment when it looks).
    #[test]
    fn posted_descriptors_reach_the_nic_when_written() {
        let mut e = engine(1, 64, "rx_descriptors = 32");
        e.prefill_rings();
        let us = 1_000_000;
        {
            let rx = &mut e.nics[0].queues[0].rx;
            // The NIC has filled every slot, the core has taken them and written 32 new ones,
            // which reach the NIC at 5 µs.
            rx.nic_pos = 32;
            rx.sw_pos = 32;
            rx.posted = 64;
            rx.posts.push_back((5 * us, 64));
        }
        let pkt = |at| super::Pkt { arrival_ps: at, len: 64, flow: 0 };
        e.now = 4 * us;
        e.nic_receive(0, 0, pkt(4 * us), 4 * us);
        assert_eq!((e.nics[0].dropped_all, e.nics[0].queues[0].rx.nic_pos), (1, 32), "before the descriptors are there");
        e.now = 5 * us;
        e.nic_receive(0, 0, pkt(5 * us), 5 * us);
        assert_eq!((e.nics[0].dropped_all, e.nics[0].queues[0].rx.nic_pos), (1, 33), "after");
    }

    /// A core that takes a full ring's frames writes new descriptors while it handles the burst:
    /// they reach the NIC when written, after the burst's start, so a frame arriving just after
    /// the start still finds the ring full (out of buffer) and one arriving then gets a slot.
    #[test]
    fn a_cores_new_descriptors_reach_the_nic_when_its_burst_has_written_them() {
        let mut e = engine(1, 64, "rx_descriptors = 32");
        e.prefill_rings();
        let us = 1_000_000;
        for slot in 0..32 {
            let m = e.nics[0].queues[0].rx.mbuf[slot] as usize;
            e.mbufs[m].len = 64;
            e.nics[0].queues[0].rx.ready[slot] = 0;
        }
        e.nics[0].queues[0].rx.nic_pos = 32; // the NIC has filled every slot
        e.now = us;
        e.on_core(0);
        let rx = &e.nics[0].queues[0].rx;
        let &(written, posted) = rx.posts.back().expect("the burst replenished the ring");
        assert!(posted == 64 && rx.visible == 32 && written > us, "posted {posted}, visible {}, written at {written} ps", rx.visible);
        let pkt = |at| super::Pkt { arrival_ps: at, len: 64, flow: 0 };
        e.now = us + 1;
        e.nic_receive(0, 0, pkt(us + 1), us + 1);
        assert_eq!((e.nics[0].dropped_all, e.nics[0].queues[0].rx.nic_pos), (1, 32), "before the descriptors are written");
        e.now = written;
        e.nic_receive(0, 0, pkt(written), written);
        assert_eq!((e.nics[0].dropped_all, e.nics[0].queues[0].rx.nic_pos), (1, 33), "once written");
    }

    /// A transmitted buffer is released by the TX completion that covers it, which the NIC
    /// writes after every 32nd frame (the mlx5 PMD's `MLX5_TX_COMP_THRESH`), not as soon as its
    /// own frame has left the wire. At 2 Gb/s each burst carries one frame, so a core that
    /// released frame by frame would hold only the frames still in flight (one or two); here it
    /// holds every frame after the last completion, up to 32, and releases them 32 at a time.
    #[test]
    fn transmitted_buffers_are_released_by_their_completion() {
        let text = "[run]\nduration_us = 400\nwarmup_us = 0\n[nics.nic0]\n[traffic.t0]\nnic = \"nic0\"\npacket_size = 1500\nrate_gbps = 2\n[apps.fwd]\nkind = \"l2fwd\"\nnic = \"nic0\"\ncores = 1\n";
        let mut e = Engine::new(crate::parse_scenario(text, &[]).expect("valid").resolve().expect("valid")).expect("built");
        let us = 1_000_000;
        let mut held = Vec::new();
        for t in (10..400).step_by(10) {
            e.advance(t * us);
            let tx = &e.nics[0].queues[0].tx;
            assert_eq!(tx.clean % 32, 0, "released a completion's 32 slots at a time (clean {}, head {})", tx.clean, tx.head);
            held.push(tx.head - tx.clean);
        }
        let tx = &e.nics[0].queues[0].tx;
        assert!(tx.head >= 64, "{} frames sent", tx.head);
        assert!(held.iter().any(|&h| h >= 16) && held.iter().all(|&h| h <= 33), "frames held after their wire time: {held:?}");
    }

    /// With inlining, a burst also closes a block once the frames since the last completion
    /// hold an eighth of the ring's WQE lines: eight queues inline 272 B frames (17 segments of
    /// 16 B each), so 32 of them need more than a 64-line ring's 256 segments, and with a
    /// completion only every 32 frames no segment would ever be released.
    #[test]
    fn inlined_frames_on_a_small_ring_get_their_completions_in_time() {
        let text = "[run]\nduration_us = 200\nwarmup_us = 0\n[nics.nic0]\ntx_descriptors = 64\n[traffic.t0]\nnic = \"nic0\"\npacket_size = 272\nrate_gbps = 20\n[apps.fwd]\nkind = \"l2fwd\"\nnic = \"nic0\"\ncores = 8\n";
        let mut e = Engine::new(crate::parse_scenario(text, &[]).expect("valid").resolve().expect("valid")).expect("built");
        assert!(e.nics[0].attach.tx_inline_max() >= 268, "the test needs inlined frames");
        e.advance(200 * 1_000_000);
        // 20 Gb/s of 272 B frames: ~8.6 Mpps, ~1,720 frames in 200 µs over eight queues.
        let sent: u64 = e.nics[0].queues.iter().map(|q| q.tx.head).sum();
        assert!(sent > 1_500, "{sent} frames posted in 200 µs");
    }

    /// The replenished descriptors reach the NIC when the burst's replenishing writes are done,
    /// not when they start: with the burst's completions and mbuf headers in the core's L2 (its
    /// reads cost a few ns) and the replenishing buffers' headers and the descriptor lines in
    /// DRAM, the descriptors become visible a DRAM access or more after the burst starts.
    #[test]
    fn replenished_descriptors_wait_for_their_writes() {
        let mut e = engine(1, 64, "rx_descriptors = 32");
        e.prefill_rings();
        let us = 1_000_000;
        let lines: Vec<u32> = e.mbufs.iter().map(|m| m.meta_line).chain((0..8).map(|l| e.nics[0].queues[0].rx.desc_line + l)).collect();
        for l in lines {
            e.mem.sockets[0].hier.invalidate(l);
        }
        for slot in 0..32 {
            let m = e.nics[0].queues[0].rx.mbuf[slot] as usize;
            e.mbufs[m].len = 64;
            e.nics[0].queues[0].rx.ready[slot] = 0;
            let (cq, meta) = (e.nics[0].queues[0].rx.cq[slot], e.mbufs[m].meta_line);
            e.core_mem(0, cq, false, 0);
            e.core_mem(0, meta, true, 0);
        }
        e.nics[0].queues[0].rx.nic_pos = 32;
        e.now = us;
        e.on_core(0);
        let &(written, _) = e.nics[0].queues[0].rx.posts.back().expect("the burst replenished the ring");
        let dram = e.mem.sockets[0].mem.loaded_latency(us);
        assert!(written >= us + dram, "written {} ns after the burst's start; a DRAM access takes {} ns", (written - us) / 1000, dram / 1000);
    }

    /// Two queues' fetched frames: queue 0's, fetched first, has its data at 5 µs (a DRAM
    /// read); queue 1's, fetched later, at 2 µs (inlined). The wire takes queue 1's first, and
    /// queue 0's when its data has arrived, not in fetch order.
    #[test]
    fn the_wire_takes_frames_in_the_order_their_data_arrives() {
        let mut e = engine(2, 1500, "");
        let us = 1_000_000;
        for q in 0..2 {
            let m = e.nics[0].queues[q].tx.mbuf[0] as usize;
            e.mbufs[m].len = 1500;
        }
        for (seq, (q, data_at)) in [(0u32, 5 * us), (1, 2 * us)].into_iter().enumerate() {
            let tx = &mut e.nics[0].queues[q as usize].tx;
            tx.done[0] = u64::MAX;
            tx.wire_ready[0] = data_at;
            e.nics[0].wire_waiting.push(std::cmp::Reverse(WireWait { ready: data_at, seq: seq as u64, queue: q, slot: 0, fetched: us, data_at }));
        }
        let wire_ps = (1520.0 * 8000.0 / e.nics[0].line_rate_gbps) as u64;
        e.settle_wire(0, 3 * us);
        assert_eq!(e.nics[0].queues[1].tx.done[0], 2 * us + wire_ps, "queue 1's frame when its data is there");
        assert_eq!(e.nics[0].queues[0].tx.done[0], u64::MAX, "queue 0's still reading");
        e.settle_wire(0, 5 * us);
        assert_eq!(e.nics[0].queues[0].tx.done[0], 5 * us + wire_ps);
    }

    /// A queue's frames take the wire in ring order: a frame whose data arrives before that of
    /// the frame fetched before it is ready only with that frame; later data keeps its own time.
    #[test]
    fn a_queues_frame_is_ready_for_the_wire_no_sooner_than_the_one_before_it() {
        let mut e = engine(1, 1500, "");
        let tx = &mut e.nics[0].queues[0].tx;
        assert_eq!(tx.wire_ready_in_order(5_000), 5_000);
        assert_eq!(tx.wire_ready_in_order(2_000), 5_000, "an LLC hit behind a DRAM read waits for it");
        assert_eq!(tx.wire_ready_in_order(7_000), 7_000);
    }

    #[test]
    fn a_read_that_finishes_before_an_older_one_leaves_the_window() {
        let mut tx = TxRing {
            n: 4,
            mbuf: vec![0; 4],
            done: vec![u64::MAX; 4],
            ready: vec![0; 4],
            head: 0,
            fetch: 0,
            clean: 0,
            reads: VecDeque::from([(900, 1500), (400, 60), (700, 1500)]),
            read_bytes: 3060,
            fetch_at: u64::MAX,
            wire_ready: vec![0; 4],
            last_ready: 0,
            wqe_line: 0,
            cq_line: 0,
            seg_next: 0,
            seg: vec![0; 4],
            segs: vec![0; 4],
            comp_ends: VecDeque::new(),
            block_start: 0,
            block_segs: 0,
            comps: 0,
            cqe: vec![0; 4],
        };
        assert_eq!(tx.next_read_end(), Some(400), "the earliest, not the oldest");
        tx.release_reads(500);
        assert_eq!((tx.read_bytes, tx.reads.len()), (3000, 2), "the small read behind the first left");
        tx.release_reads(800);
        assert_eq!((tx.read_bytes, tx.next_read_end()), (1500, Some(900)));
    }

    /// With flow control on, frames that find no descriptor wait in the NIC buffer; the buffer
    /// reaching XOFF (3/4 full, not before) sends one PAUSE frame for the full pause time, to be
    /// refreshed after half of it; each refresh sends another and moves both times on.
    #[test]
    fn the_buffer_reaching_three_quarters_sends_pause_refreshed_every_half_pause() {
        let mut e = engine(1, 1024, "rx_descriptors = 32\npause_frames = true\nbuffer_kib = 64");
        let ms = 1_000_000_000;
        e.nics[0].queues[0].rx.nic_pos = 32; // every posted slot is filled
        let (xoff, quanta) = (e.nics[0].xoff, e.nics[0].quanta_ps);
        assert_eq!(xoff, 48 * 1024);
        let now = 2 * ms; // inside the measurement window
        e.now = now;
        for i in 1..=48u64 {
            e.nic_receive(0, 0, super::Pkt { arrival_ps: now, len: 1024, flow: 0 }, now);
            let nic = &e.nics[0];
            assert_eq!((nic.buf_bytes, nic.dropped_all), (i * 1024, 0), "lossless: the frame waits");
            assert_eq!(nic.pausing, i == 48, "{} B buffered, XOFF at {xoff} B", nic.buf_bytes);
        }
        let nic = &e.nics[0];
        assert_eq!(nic.stats.pause_frames, 1, "XOFF is a PAUSE frame");
        assert_eq!((nic.pause_until, nic.refresh_at), (now + quanta, now + quanta / 2));
        e.now = now + quanta / 2;
        e.on_pause_refresh(0);
        let nic = &e.nics[0];
        assert_eq!(nic.stats.pause_frames, 2, "the refresh is another PAUSE frame");
        assert_eq!((nic.pause_until, nic.refresh_at), (now + quanta / 2 + quanta, now + quanta));
    }

    /// XON (a PAUSE frame of zero quanta) goes once the buffer is down to half full, at or below
    /// it, and ends the pause at once.
    #[test]
    fn xon_goes_when_the_buffer_is_down_to_half() {
        let mut e = engine(1, 1024, "rx_descriptors = 32\npause_frames = true\nbuffer_kib = 64");
        let ms = 1_000_000_000;
        e.nics[0].queues[0].rx.nic_pos = 32; // every posted slot is filled: nothing drains
        let xon = e.nics[0].xon;
        let now = 2 * ms;
        e.now = now;
        let pkt = super::Pkt { arrival_ps: now, len: 1024, flow: 0 };
        for _ in 0..33 {
            e.nic_receive(0, 0, pkt, now);
        }
        // The NIC is pausing its sender (it sent XOFF earlier), the buffer a frame above half.
        e.nics[0].pausing = true;
        e.nics[0].pause_until = now + e.nics[0].quanta_ps;
        e.nic_drain(0, now);
        assert!(e.nics[0].pausing && e.nics[0].stats.pause_frames == 0, "{} B > XON at {xon} B", e.nics[0].buf_bytes);
        // One frame fewer: exactly half.
        let p = e.nics[0].queues[0].backlog.pop_back().expect("buffered");
        e.nics[0].buf_bytes -= p.len as u64;
        assert_eq!(e.nics[0].buf_bytes, xon);
        e.nic_drain(0, now);
        let nic = &e.nics[0];
        assert!(!nic.pausing, "XON at half full");
        assert_eq!((nic.pause_until, nic.stats.pause_frames), (now, 1));
    }

    /// When the link takes one frame at a time, the NIC moves the queues' waiting frames into
    /// their rings in turn, starting after the queue it served last, so backlogged queues get
    /// equal shares of the link.
    #[test]
    fn a_link_that_admits_one_frame_at_a_time_serves_the_queues_in_turn() {
        let mut e = engine(4, 1500, "");
        assert_eq!(e.nics[0].queues.len(), 4);
        let now = 2_000_000_000;
        e.now = now;
        for q in 0..4 {
            for _ in 0..64 {
                e.nics[0].queues[q].backlog.push_back(super::Pkt { arrival_ps: now, len: 1500, flow: 0 });
                e.nics[0].buf_bytes += 1500;
            }
        }
        e.nic_drain(0, now);
        for _ in 0..41 {
            // The next time the link has room (for one frame).
            let at = e.nics[0].attach.room_at().max(e.now);
            e.now = at;
            e.nic_drain(0, at);
        }
        let got: Vec<u64> = e.nics[0].queues.iter().map(|q| q.rx.nic_pos).collect();
        let (lo, hi) = (*got.iter().min().unwrap(), *got.iter().max().unwrap());
        assert!(lo >= 10 && hi - lo <= 1, "frames moved per queue: {got:?}");
    }
}
