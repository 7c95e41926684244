//! Traffic: generators that send trains of frames at line rate with the offered average rate,
//! fixed sizes or named mixes, flows hashed to queues by RSS or steered by flow-director rules
//! (`imbalance`), captures replayed in a loop (each frame's size and flow, and its gap, scaled to
//! `rate_gbps` when set, or the generator's trains), and PAUSE honoured by the link partner.
use super::nic::Pkt;
use super::{Engine, Ev};
use crate::config::SizeMix;
use crate::rng::mix64;

/// What a NIC whose queues cannot take a frame directly still keeps ([`Engine::drop_room`]).
#[derive(Clone, Copy)]
pub(super) enum Kept {
    /// Nothing: every frame is dropped out of buffer.
    Nothing,
    /// Frames of at most this many bytes (the NIC buffer's room); larger ones are dropped.
    Fitting(u64),
}

pub(super) enum Sizes {
    Fixed(u32),
    Mix(Vec<(f64, u32)>),
    /// A capture's frames in a loop; `pos` is the next frame's. `timed`: each frame follows the
    /// one before by its gap in the capture times `scale` (or its wire time at line rate, if
    /// longer) instead of the generator's trains.
    Capture { cap: std::sync::Arc<crate::pcap::Capture>, pos: usize, timed: bool, scale: f64 },
}

/// A traffic source: trains of `train` frames back to back at line rate, spaced so that the
/// average is the offered rate.
pub(super) struct Gen {
    pub(super) nic: usize,
    /// At the offered rate and at the NIC's line rate.
    pub(super) ps_per_wire_byte: f64,
    pub(super) ps_per_line_byte: f64,
    pub(super) sizes: Sizes,
    pub(super) flows: u32,
    pub(super) zipf: Option<Vec<f64>>,
    /// Flow-director steering: cumulative queue shares (None = RSS's uniform hash).
    pub(super) queue_cdf: Option<Vec<f64>>,
    pub(super) salt: u64,
    pub(super) train: u32,
    pub(super) train_pos: u32,
    /// Offered-rate clock: where the next train starts.
    pub(super) rate_clock: f64,
    pub(super) train_start: f64,
    /// When the last frame of this train arrived, after `train_start` (the first frame's
    /// arrival): the line-rate time of the frames after the first.
    pub(super) line_off: f64,
    /// Size of the next frame, drawn when its arrival time was set (0: not drawn yet).
    pub(super) next_len: u32,
    /// Time of the one live Arrival event (others are stale after an XON reschedule).
    pub(super) next_at: u64,
    /// Holding a frame back because the NIC sent PAUSE (an XON releases it at once).
    pub(super) held: bool,
}

impl Gen {
    /// A frame was sent; returns the arrival time (last bit at the NIC) of the next one, of `next`
    /// bytes: a train's first frame arrives at the train's start, each other one its own wire time
    /// (frame, preamble and gap at line rate) after the one before. The offered-rate clock
    /// advances by each frame's wire time at the offered rate as the frame is scheduled, so a
    /// train's first frame, too, follows the last one by at least its own wire time at line rate.
    /// A replayed capture's frame with `timed` follows the one before by its gap times `scale`,
    /// or by its own wire time at line rate where that was shorter (`rate_clock` then holds the
    /// last arrival).
    pub(super) fn advance(&mut self, next: u32) -> f64 {
        if let Sizes::Capture { cap, pos, timed: true, scale } = &self.sizes {
            let wire = (next + 20) as f64 * self.ps_per_line_byte;
            self.rate_clock += (cap.frames[*pos].gap_ps as f64 * scale).max(wire);
            return self.rate_clock;
        }
        self.rate_clock += (next + 20) as f64 * self.ps_per_wire_byte;
        self.train_pos += 1;
        if self.train_pos >= self.train {
            self.train_pos = 0;
            self.line_off = 0.0;
            self.train_start = self.rate_clock;
        } else {
            self.line_off += (next + 20) as f64 * self.ps_per_line_byte;
        }
        self.train_start + self.line_off
    }

    /// Resume sending at `at` (after a PAUSE), with a new train.
    pub(super) fn restart(&mut self, at: u64) {
        self.rate_clock = at as f64;
        self.train_start = at as f64;
        self.line_off = 0.0;
        self.train_pos = 0;
        self.next_at = at;
    }
}


pub(crate) fn mix_table(m: SizeMix) -> Vec<(f64, u32)> {
    let raw: &[(f64, u32)] = match m {
        // The "simple IMIX" shares, 7:4:1, with its packet sizes taken as frame sizes (FCS
        // included): 64, 576 and 1500 B. The convention's IP packets of 40, 576 and 1500 B would
        // be 64, 594 and 1518 B frames.
        SizeMix::Imix => &[(7.0, 64), (4.0, 576), (1.0, 1500)],
        // Campus-like: ACK-heavy small frames and MTU-sized data. The mean, ≈ 981 B, is the
        // DDIO paper's campus trace (its Fig. 12 setup: "an average size of 981 B"); the
        // buckets' weights are an estimate (the trace's size distribution is not published).
        SizeMix::Campus => &[(0.265, 64), (0.04, 128), (0.03, 256), (0.03, 512), (0.035, 1024), (0.60, 1500)],
    };
    let total: f64 = raw.iter().map(|r| r.0).sum();
    let mut acc = 0.0;
    raw.iter()
        .map(|&(w, s)| {
            acc += w / total;
            (acc, s)
        })
        .collect()
}


impl Engine {
    /// A frame arrives. Frames that arrive before any other pending event are handled here in a
    /// loop rather than through the heap: the order of events, and so every result, is the same
    /// (each still counts as an event), and a saturated NIC's drops cost little.
    pub(super) fn on_arrival(&mut self, g: usize) {
        if self.gens[g].next_at != self.now {
            return; // superseded by an XON
        }
        loop {
            self.arrive(g);
            let ni = self.gens[g].nic;
            let mut next = self.next_event_at();
            if self.gens[g].next_at < next && self.drop_loop {
                if let Some(kept) = self.drop_room(ni) {
                    // A replenishment that reaches the NIC ends a run of drops as an event would.
                    let next = next.min(self.next_post(ni));
                    self.drop_until(g, next, kept);
                }
                // A frame it buffered may have scheduled an earlier event (a NIC drain).
                next = self.next_event_at();
            }
            let at = self.gens[g].next_at;
            if at < next && at < self.stop {
                self.now = at;
                self.events += 1;
            } else {
                self.schedule(at, Ev::Arrival(g as u16));
                return;
            }
        }
    }

    /// With flow control off, can no queue of NIC `ni` take a frame straight into a slot it sees
    /// posted? Then only an event (the NIC draining) or a core's replenishment reaching the NIC
    /// changes that (`on_arrival` ends the loop at the next one, [`Engine::next_post`]), and
    /// dropped frames change nothing, so frames can be dropped in a loop ([`Engine::drop_until`])
    /// when their fate does not depend on their queue:
    /// * every queue has neither a slot the NIC sees posted nor a backlog: every frame is out of
    ///   buffer;
    /// * every queue has a backlog: a frame is buffered if it fits the NIC buffer's room, and
    ///   otherwise dropped as buffer-full.
    ///
    /// Any other mix (some queues out of descriptors, some backlogged) is left to the full path.
    fn drop_room(&self, ni: usize) -> Option<Kept> {
        let nic = &self.nics[ni];
        if nic.pause {
            return None;
        }
        if nic.queues.iter().all(|q| q.rx.nic_pos >= q.rx.visible && q.backlog.is_empty()) {
            Some(Kept::Nothing)
        } else if nic.queues.iter().all(|q| !q.backlog.is_empty()) {
            Some(Kept::Fitting(nic.buf_cap - nic.buf_bytes))
        } else {
            None
        }
    }

    /// Frames of generator `g` arriving before `next` while its NIC keeps only what `kept` says
    /// ([`Engine::drop_room`]): the same draws, counters and arrival times as
    /// [`Engine::arrive`], without choosing a queue (in these states every queue treats a frame
    /// alike). Stops at the first frame that fits the buffer (an arrival handled in full) or at
    /// `next`/`stop`.
    fn drop_until(&mut self, g: usize, next: u64, kept: Kept) {
        let ni = self.gens[g].nic;
        let end = next.min(self.stop);
        if let Sizes::Fixed(len) = self.gens[g].sizes {
            if !matches!(kept, Kept::Fitting(room) if len as u64 <= room) {
                self.drop_fixed(g, len, end, kept);
                return;
            }
        }
        let mut at = self.gens[g].next_at;
        while at < end {
            let len = self.take_len(g);
            self.now = at;
            self.events += 1;
            if let Kept::Fitting(room) = kept {
                if len as u64 <= room {
                    // This frame is buffered: the full arrival.
                    self.arrive_sized(g, len);
                    return;
                }
            }
            self.skip_flow(g);
            self.count_offered(len, at);
            self.nics[ni].arrived_all += 1;
            match kept {
                Kept::Nothing => self.count_out_of_buffer(ni, at),
                Kept::Fitting(_) => self.count_drop(ni, at),
            }
            let next = self.draw_len(g);
            let gen = &mut self.gens[g];
            gen.next_len = next;
            at = (gen.advance(next) as u64).max(at + 1);
            gen.next_at = at;
        }
    }

    /// [`Engine::drop_until`] for a generator of fixed-size frames that all are dropped: the same
    /// arrival times and random draws, frame by frame, with the counters added once at the end.
    fn drop_fixed(&mut self, g: usize, len: u32, end: u64, kept: Kept) {
        let (warm, stop) = (self.warm_ps, self.end_ps);
        let gen = &mut self.gens[g];
        let mut at = gen.next_at;
        let (mut n, mut in_win, mut last) = (0u64, 0u64, self.now);
        while at < end {
            // The flow draw of `arrive_sized`: `below` and `unit` each take one word.
            let _ = self.rng.next_u64();
            n += 1;
            in_win += (at >= warm && at < stop) as u64;
            last = at;
            at = (gen.advance(len) as u64).max(at + 1);
        }
        gen.next_at = at;
        self.now = last;
        self.events += n;
        self.c.offered_bytes += in_win * len as u64;
        self.c.offered_packets += in_win;
        let nic = &mut self.nics[self.gens[g].nic];
        nic.arrived_all += n;
        nic.dropped_all += n;
        nic.stats.dropped += in_win;
        if let Kept::Nothing = kept {
            nic.stats.out_of_buffer += in_win;
        }
    }

    /// The flow draw of `arrive_sized` for a frame that is dropped without choosing a queue:
    /// `below` and `unit` each take one word; a capture moves on to its next frame.
    #[inline]
    fn skip_flow(&mut self, g: usize) {
        if let Sizes::Capture { cap, pos, .. } = &mut self.gens[g].sizes {
            *pos = (*pos + 1) % cap.frames.len();
        } else {
            let _ = self.rng.next_u64();
        }
    }

    /// A frame of `len` bytes offered at `t`, counted inside the measurement window.
    #[inline]
    fn count_offered(&mut self, len: u32, t: u64) {
        if self.in_window(t) {
            self.c.offered_bytes += len as u64;
            self.c.offered_packets += 1;
        }
    }

    /// One frame of generator `g` at `self.now`; sets the generator's next arrival time.
    fn arrive(&mut self, g: usize) {
        let now = self.now;
        let ni = self.gens[g].nic;
        if self.nics[ni].pause_until > now {
            // The link partner honours PAUSE: the next frame leaves when the pause ends.
            let at = self.nics[ni].pause_until;
            self.gens[g].restart(at);
            self.gens[g].held = true;
            return;
        }
        let len = self.take_len(g);
        self.arrive_sized(g, len);
    }

    /// The size of generator `g`'s arriving frame: the one drawn with its arrival time, or (the
    /// first frame) drawn now.
    #[inline]
    fn take_len(&mut self, g: usize) -> u32 {
        match std::mem::take(&mut self.gens[g].next_len) {
            0 => self.draw_len(g),
            len => len,
        }
    }

    /// The size of generator `g`'s next frame.
    #[inline]
    fn draw_len(&mut self, g: usize) -> u32 {
        match &self.gens[g].sizes {
            Sizes::Fixed(s) => *s,
            Sizes::Mix(cdf) => {
                let u = self.rng.unit();
                cdf.iter().find(|(p, _)| u < *p).map(|x| x.1).unwrap_or(cdf.last().unwrap().1)
            }
            Sizes::Capture { cap, pos, .. } => cap.frames[*pos].len,
        }
    }

    /// A frame of `len` bytes from generator `g` at `self.now`, PAUSE aside.
    fn arrive_sized(&mut self, g: usize, len: u32) {
        let now = self.now;
        let ni = self.gens[g].nic;
        self.gens[g].held = false;
        let gen = &mut self.gens[g];
        let flow = match (&mut gen.sizes, &gen.zipf) {
            (Sizes::Capture { cap, pos, .. }, _) => {
                let flow = cap.frames[*pos].flow;
                *pos = (*pos + 1) % cap.frames.len();
                flow
            }
            (_, None) => self.rng.below(gen.flows as u64) as u32,
            (_, Some(cdf)) => {
                let u = self.rng.unit();
                cdf.partition_point(|&p| p < u).min(cdf.len() - 1) as u32
            }
        };
        let nq = self.nics[ni].queues.len() as u64;
        let h = || mix64(flow as u64 ^ self.gens[g].salt);
        let q = match &self.gens[g].queue_cdf {
            // RSS: the flow's hash modulo the queues (a mask when that is the same).
            None if nq == 1 => 0,
            None if nq.is_power_of_two() => (h() & (nq - 1)) as usize,
            None => (h() % nq) as usize,
            Some(cdf) => {
                // Rules map each flow to one queue; the hash places flows by the queues' shares.
                let u = (h() >> 11) as f64 / (1u64 << 53) as f64;
                cdf.partition_point(|&p| p <= u).min(cdf.len() - 1)
            }
        };
        self.count_offered(len, now);
        self.nic_receive(ni, q, Pkt { arrival_ps: now, len, flow }, now);
        let next = self.draw_len(g);
        let gen = &mut self.gens[g];
        gen.next_len = next;
        let at = (gen.advance(next) as u64).max(now + 1);
        gen.next_at = at;
    }

}

#[cfg(test)]
mod tests {
    use super::{Gen, Sizes};

    fn gen(train: u32) -> Gen {
        Gen {
            nic: 0,
            // 50 Gb/s offered on a 100 Gb/s line: 160 and 80 ps per wire byte.
            ps_per_wire_byte: 160.0,
            ps_per_line_byte: 80.0,
            sizes: Sizes::Fixed(64),
            flows: 1,
            zipf: None,
            queue_cdf: None,
            salt: 0,
            train,
            train_pos: 0,
            rate_clock: 0.0,
            train_start: 0.0,
            line_off: 0.0,
            next_len: 0,
            next_at: 0,
            held: false,
        }
    }

    /// Within a train each frame arrives its own wire time after the one before (a 1500 B frame
    /// after a 64 B one takes 1520 B-times, not 84); the next train starts when the offered rate
    /// has sent the frames after the first and the next train's first, so at line rate that
    /// frame, too, follows the last one by its own wire time.
    #[test]
    fn a_frame_arrives_its_own_wire_time_after_the_one_before() {
        let mut g = gen(3);
        assert_eq!(g.advance(1500), 1520.0 * 80.0);
        assert_eq!(g.advance(64), (1520.0 + 84.0) * 80.0);
        // The train of three ends; the next train's first frame is 1500 B.
        assert_eq!(g.advance(1500), (1520.0 + 84.0 + 1520.0) * 160.0);
        assert_eq!(g.advance(1500), (1520.0 + 84.0 + 1520.0) * 160.0 + 1520.0 * 80.0);
        // At line rate (offered = line), a train of one: each frame follows the last by its own size.
        let mut g = gen(1);
        g.ps_per_wire_byte = 80.0;
        assert_eq!(g.advance(1500), 1520.0 * 80.0);
        assert_eq!(g.advance(64), (1520.0 + 84.0) * 80.0);
    }
}
