//! A NIC on a DDR memory channel (NetDIMM, Alian & Kim, MICRO'19): the NIC sits in a DIMM's
//! buffer device; its DRAM is part of the host's physical address space (a NUMA-like zone on one
//! channel) and holds the packet buffers and rings of the apps using it.
//!
//! # Mechanism
//! * **Receive.** The NIC writes a frame straight into its own DRAM — nothing crosses the
//!   channel — and puts the frame's first line (the header) and the completion line in its
//!   **nCache** ([`Zone`]): the paper's nCache holds each received packet's first line; hostio
//!   also keeps the RX completion line there, since the driver polls it for every packet (an
//!   addition of hostio's). TX completions, which the NIC writes after transmitting, bypass it.
//!   Stale host copies are dropped ([`MemSys::zone_write`]).
//! * **Host reads** of zone lines that miss the host caches cross the channel (plus a UPI round
//!   trip from the other socket): an nCache hit saves the DRAM array access (tRCD + tCL of
//!   DDR4-2400, `ARRAY_ACCESS_NS`) and drops the line (read-once); a miss reads the DRAM and
//!   the **nPrefetcher** fetches the next `prefetch_lines` lines into the nCache. The paper
//!   triggers it on payload reads and skips packets that are only a header; hostio triggers it
//!   on any host read that misses the nCache, whatever the frame's length (header and
//!   completion lines are in the nCache, so they rarely trigger it; a header that was evicted
//!   from it does, and then prefetches past the end of a one-line frame), and a hit on a
//!   prefetched line triggers no further prefetch. The host's
//!   writes bypass the nCache: a flushed line's write-back drops the nCache's copy of it (the
//!   nController snoops writes, MICRO'19 §4), as the NIC's own writes of other than header and
//!   completion lines do. Dirty zone lines the LLC evicts on its own are charged to the socket's
//!   DRAM, not to the channel (the hierarchy counts write-backs without naming their lines); the
//!   driver flushes what it hands over, so those are the app's own lines.
//! * **The channel** is a bounded resource: every line crossing it (host reads, flushed
//!   write-backs) occupies it for 64 B at its peak rate (`channel`), and a read waits its turn.
//!   The NIC's own DRAM traffic (writing frames, reading them to transmit) stays on the DIMM:
//!   it loads the DRAM (`nic_dram_gbyte_s`), not the channel (`channel_gbyte_s`). The DRAM is
//!   bounded the same way (its chips run at the channel's data rate): frames become visible, and
//!   transmit reads return, after their turn; the nPrefetcher drops requests while the DRAM is
//!   busy.
//! * **Handover.** The NIC cannot snoop the host's caches, so the driver writes back and drops
//!   (CLFLUSHOPT) every line it hands over: the whole frame it transmits (NetDIMM's Algorithm 1,
//!   "flush txSKB.data"), and also the RX descriptors it posts and the TX descriptors; and it
//!   invalidates each completion line before reading it (Algorithm 1's "invalidate
//!   rxDesc\[next\]", once per line an RX burst reads). Each costs an LLC access, or, for a dirty
//!   line (the rewritten header), its write-back's trip to the memory controller through the
//!   LLC (a read's load-to-use latency at the socket's load without the DRAM array access, plus a
//!   UPI round trip from the other socket, [`MemSys::flush`]), and the write-back then crosses
//!   the channel; a burst's
//!   flushes overlap ([`Rings::flush_handover`]).
//! * **Transmit.** The NIC reads the descriptor and the packet from its own DRAM: one DRAM access
//!   after its wait for the DIMM's DRAM, then the wire; nothing crosses the channel.
//! * **Clone.** An app of kind `copy` moves each frame into its own buffer. With `clone =
//!   "rowclone"` the host writes a clone command to the NIC (one line over the channel) and polls
//!   its completion (a register read: a channel crossing without a DRAM access), and the NIC
//!   copies inside its DRAM, one 4 KiB page piece at a time, by where source and destination sit
//!   ([`Zone::clone_lines`], RowClone, Seshadri et al., MICRO'13): **FPM** in the same subarray
//!   (two back-to-back activations and a precharge, whatever the size; RowClone copies whole
//!   rows, so the allocator gives each buffer a row of its own), **PSM** between banks of the
//!   same rank (activation, CAS, one line per burst over the chips' internal bus, write
//!   recovery; twice, through another bank, between subarrays of one bank), **GCM** otherwise
//!   (the same, with each line read into the buffer device and written back: two bursts on the
//!   DIMM's bus). Pages map to banks as in NetDIMM §4.2.1: 4 KiB
//!   pages 128 KiB apart share a bank (16 banks × 2 ranks); 512 rows make a subarray. `allocator
//!   = "subarray"` places the app's buffer in the DMA buffer's subarray, so every piece is FPM;
//!   `"any"` uses the app's own buffers in the NIC's DRAM, wherever they are. With `clone =
//!   "copy"` the core copies over the channel into a buffer in host memory.
//! * **The channel is shared.** The host interleaves its memory over all channels, so the NetDIMM
//!   channel carries the NIC socket's average load ρ as well as its own: a host access to the
//!   zone costs the DRAM latency at ρ (the same load curve as [`crate::mem`]) plus its wait behind the DIMM's
//!   own traffic (the bounded DRAM and channel above, counted once), so an MLC-like co-runner
//!   slows the NIC's host accesses and the NIC's traffic slows nothing else of the host.
//! * **Backpressure.** The NIC takes a frame out of its buffer only while its DRAM's backlog, as
//!   of the last frame it received, is within a slack; beyond that frames wait in the NIC
//!   buffer, then drop or PAUSE, as behind a full PCIe link. DRAM work added after that frame
//!   (transmit reads, host reads, clones) counts from the next frame on.
//! * **The DIMM's DRAM** answers with the host's DRAM latency (`dram_latency_ns`) under its own
//!   load: NVDIMM-P's asynchronous read handshake (request, then a ready signal and a send
//!   command), which would add to a host read of the DIMM, is not modelled (the paper's
//!   evaluation does not break it out).
use super::{Report, Rings, RxDma, TxDma, CX5_RINGS};
use crate::config::{Allocator, NicCfg, Platform};
use crate::mem::Memory;
use crate::memsys::MemSys;
use crate::rng::Rng;
use crate::result::Figure;

/// The rings are the ConnectX-5-like ones with one 64 B TX descriptor per packet (the NIC reads
/// it with the packet from its DRAM, [`MemChannel::fetch`]), and the host flushes what it hands
/// over.
pub(crate) const RINGS: Rings = Rings { flush_handover: true, empw: false, ..CX5_RINGS };
/// The DRAM array's part of a read, ns: tRCD + tCL (DDR4 timings below). An nCache hit saves it,
/// and a flushed line's write-back does not wait for it ([`MemSys::flush`]). DDR4-2400's for every
/// `channel` (faster channels have about the same array latency in ns; only their bandwidth is
/// modelled per channel).
pub(crate) const ARRAY_ACCESS_NS: f64 = T_RCD_NS + T_CL_NS;
/// nCache associativity, an estimate (the NetDIMM paper's nCache is set-associative with random
/// replacement; the way count is not given): 8 ways, the usual associativity of an on-chip SRAM
/// buffer of a few hundred KiB, enough that the frames a forwarder holds rarely conflict.
const NCACHE_WAYS: usize = 8;
/// Write recovery of the NIC's DRAM, ns (tWR of DDR4, JEDEC): a frame written by the NIC is
/// readable this long after its last line.
const DRAM_WRITE_NS: f64 = 15.0;
/// DRAM backlog the NIC may queue ahead of its DRAM before it stops taking frames out of its
/// buffer, ps (1 µs ≈ 300 line accesses at DDR4-2400). A modelling choice, as the PCIe link's
/// slack: when the DRAM is the bottleneck it only moves where a frame waits (NIC buffer or DRAM
/// queue), and frames beyond it are dropped (or PAUSEd) instead of queueing without bound.
const DRAM_SLACK_PS: u64 = 1_000_000;

/// DDR4-2400 timings, ns (JEDEC JESD79-4 speed bin, CL17): row activation to column command
/// (tRCD), CAS latency (tCL), precharge (tRP) and minimum row active time (tRAS). They change
/// little across speed bins in ns, so faster channels keep them.
const T_RCD_NS: f64 = 14.16;
const T_CL_NS: f64 = 14.16;
const T_RP_NS: f64 = 14.16;
const T_RAS_NS: f64 = 32.0;
/// Pages (4 KiB) in one cycle over the banks: 16 banks (DDR4 x8, 4 bank groups of 4) × 2 ranks (a
/// 16 GB DIMM of 8 Gb x8 chips), so pages 128 KiB apart share a bank (NetDIMM §4.2.1).
const BANK_PAGES: u32 = 32;
/// Banks of one rank (the pages that share a chip, PSM's reach).
const RANK_BANKS: u32 = 16;
/// Pages of one bank in one subarray: 512 rows (RowClone §2) of 8 KiB (two pages) per rank.
const SUBARRAY_PAGES: u32 = 512 * 2;

/// How one piece of a clone was made (RowClone's modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CloneKind {
    /// Fast parallel mode: source and destination rows in one subarray.
    Fpm,
    /// Pipelined serial mode: another bank of the same rank (`twice`: another subarray of the
    /// same bank, copied through a second bank).
    Psm { twice: bool },
    /// General clone mode: through the buffer device.
    Gcm,
}

impl CloneKind {
    /// The mode RowClone uses between 4 KiB pages `src` and `dst` (page numbers).
    pub fn between(src: u32, dst: u32) -> CloneKind {
        let (bs, bd) = (src % BANK_PAGES, dst % BANK_PAGES);
        if bs == bd {
            let same_subarray = src / BANK_PAGES / SUBARRAY_PAGES == dst / BANK_PAGES / SUBARRAY_PAGES;
            if same_subarray {
                CloneKind::Fpm
            } else {
                CloneKind::Psm { twice: true }
            }
        } else if bs / RANK_BANKS == bd / RANK_BANKS {
            CloneKind::Psm { twice: false }
        } else {
            CloneKind::Gcm
        }
    }
}

/// A resource that serves one line per fixed time, kept as a fluid backlog: a request at `t` waits
/// for the work queued before it, which drains at the resource's rate since the latest request.
/// Cores run ahead of the event clock by up to a burst, so requests come out of time order; one
/// dated before the latest sees the backlog as it stands, and none leaves an idle gap behind it
/// (a "free at" time would make every earlier-dated request wait for a later one).
#[derive(Default)]
struct Backlog {
    work: u64,
    at: u64,
}

impl Backlog {
    /// Queue `ps` of work at `t`; returns how long it waits, ps.
    fn take(&mut self, t: u64, ps: u64) -> u64 {
        if t > self.at {
            self.work = self.work.saturating_sub(t - self.at);
            self.at = t;
        }
        let wait = self.work;
        self.work += ps;
        wait
    }

    /// When everything queued so far is served.
    fn until(&self) -> u64 {
        self.at + self.work
    }
}

/// The NIC's DRAM and nCache: one memory zone, behind one DDR channel of socket `socket`.
pub(crate) struct Zone {
    pub socket: usize,
    /// The DIMM's DRAM banks (the NIC's own writes and reads, and the host's).
    dram: Memory,
    /// The channel between the host's memory controller and the DIMM: a bounded resource that
    /// every line crossing it (host reads, host write-backs) occupies for 64 B at its peak rate.
    chan: Backlog,
    ps_per_line: f64,
    /// Lines that crossed the channel since the warm-up.
    pub channel_lines: u64,
    /// The DIMM's DRAM moves at most one line per `ps_per_line` too (its chips run at the
    /// channel's data rate): every access, the NIC's included, occupies it.
    bus: Backlog,
    saving_ps: u64,
    /// nCache tags (`line + 1`, 0 = empty), `NCACHE_WAYS` per set.
    tags: Vec<u32>,
    sets: usize,
    prefetch: u32,
    rng: Rng,
    pub ncache_hits: u64,
    pub ncache_misses: u64,
    pub prefetched: u64,
    /// Clone pieces made in each mode: FPM, PSM, GCM.
    pub clones: [u64; 3],
}

impl Zone {
    pub fn new(n: &NicCfg, plat: &Platform, seed: u64) -> Zone {
        let d = &n.netdimm;
        let lines = (d.ncache_kib as usize * 1024 / 64).max(NCACHE_WAYS);
        Zone {
            socket: n.socket as usize,
            dram: Memory::new(plat.dram_latency_ns, d.channel.gbyte_s(), &plat.dram_load_curve),
            chan: Backlog::default(),
            ps_per_line: 64.0 * 1000.0 / d.channel.gbyte_s(),
            channel_lines: 0,
            bus: Backlog::default(),
            saving_ps: (ARRAY_ACCESS_NS * 1000.0) as u64,
            tags: vec![0; lines / NCACHE_WAYS * NCACHE_WAYS],
            sets: lines / NCACHE_WAYS,
            prefetch: d.prefetch_lines,
            rng: Rng::new(seed),
            ncache_hits: 0,
            ncache_misses: 0,
            prefetched: 0,
            clones: [0; 3],
        }
    }

    fn set(&self, line: u32) -> std::ops::Range<usize> {
        let s = (crate::rng::mix64(line as u64) % self.sets as u64) as usize * NCACHE_WAYS;
        s..s + NCACHE_WAYS
    }

    fn insert(&mut self, line: u32) {
        let r = self.set(line);
        if self.tags[r.clone()].contains(&(line + 1)) {
            return;
        }
        let way = match self.tags[r.clone()].iter().position(|&t| t == 0) {
            Some(w) => w,
            None => self.rng.below(NCACHE_WAYS as u64) as usize,
        };
        self.tags[r.start + way] = line + 1;
    }

    /// Take `line` out of the nCache if it is there.
    fn take(&mut self, line: u32) -> bool {
        let r = self.set(line);
        match self.tags[r.clone()].iter().position(|&t| t == line + 1) {
            Some(w) => {
                self.tags[r.start + w] = 0;
                true
            }
            None => false,
        }
    }

    /// A DRAM access's latency with the host's load `host_rho` on the channel; the DIMM's own
    /// traffic is in the waits for the bounded DRAM and channel, not here.
    pub(crate) fn latency(&self, host_rho: f64) -> u64 {
        self.dram.latency_at(host_rho)
    }

    /// When the DRAM has served every access queued so far, ps.
    pub fn busy_until(&self) -> u64 {
        self.bus.until()
    }

    /// One DRAM line access at `now`; returns how long it waited for the DRAM, ps.
    fn dram_line(&mut self, now: u64) -> u64 {
        self.bus.take(now, self.ps_per_line as u64)
    }

    /// A line crosses the channel at `now`; returns how long it waited for the channel, ps.
    fn cross(&mut self, now: u64) -> u64 {
        self.channel_lines += 1;
        self.chan.take(now, self.ps_per_line as u64)
    }

    /// A host read that missed the host's caches; returns its load-to-use latency (the LLC's miss
    /// lookup included, as the DRAM latency it is built from), ps.
    pub fn host_read(&mut self, line: u32, now: u64, host_rho: f64) -> u64 {
        let lat = self.latency(host_rho);
        let channel_wait = self.cross(now);
        if self.take(line) {
            self.ncache_hits += 1;
            return lat - self.saving_ps.min(lat) + channel_wait;
        }
        self.ncache_misses += 1;
        self.dram.device_read(now);
        // The DRAM access and the channel transfer pipeline: the later of the two waits counts.
        let wait = self.dram_line(now).max(channel_wait);
        // The nPrefetcher fetches the next lines while the DRAM has room: it drops the rest once
        // anything beyond its own miss and earlier prefetches is queued (the k-th prefetch queues
        // behind those k accesses only on an otherwise idle DRAM).
        for k in 1..=self.prefetch {
            if self.bus.until() > now + k as u64 * self.ps_per_line as u64 {
                break;
            }
            self.dram_line(now);
            self.dram.device_read(now);
            self.insert(line + k);
            self.prefetched += 1;
        }
        lat + wait
    }

    /// The host writes `line` back into the zone (a flush). The nController snoops the host's
    /// writes and drops a copy of the line from the nCache (NetDIMM, MICRO'19 §4: the nCache's
    /// lines stay consistent with the DIMM's DRAM).
    pub fn host_write(&mut self, line: u32, now: u64) {
        self.take(line);
        self.cross(now);
        self.dram_line(now);
        self.dram.write(now, 1);
    }

    /// The NIC writes a line of its DRAM; a header or completion line also goes to the nCache.
    pub fn device_write(&mut self, line: u32, header: bool, now: u64) -> u64 {
        let wait = self.dram_line(now);
        self.dram.write(now, 1);
        if header {
            self.insert(line);
        } else {
            self.take(line);
        }
        wait
    }

    /// The host's clone command for `lines` lines from `src` to `dst` (`None`: in `src`'s subarray)
    /// issued at `now`; returns when the host sees it done, ps after `now`.
    pub fn clone_lines(&mut self, src: u32, dst: Option<u32>, lines: u32, now: u64, host_rho: f64) -> u64 {
        let ns = |v: f64| (v * 1000.0) as u64;
        let burst = self.ps_per_line as u64;
        // The command: one line over the channel into the buffer device; the clone's bus and
        // channel use is booked when it lands.
        let start = now + self.cross(now) + burst;
        let (mut busy, mut bus_wait) = (0, None);
        let mut l = 0;
        while l < lines {
            let page = (src + l) / 64;
            let piece = (64 - (src + l) % 64).min(lines - l);
            let kind = dst.map_or(CloneKind::Fpm, |d| CloneKind::between(page, (d + l) / 64));
            // (mode, time, bus slots taken, lines read and written: FPM moves none over a bus).
            let (i, time, bus_lines, moved) = match kind {
                CloneKind::Fpm => (0, ns(2.0 * T_RAS_NS + T_RP_NS), 0, 0),
                CloneKind::Psm { twice } => {
                    let k = if twice { 2 } else { 1 };
                    (1, k as u64 * (ns(T_RCD_NS + T_CL_NS + DRAM_WRITE_NS) + piece as u64 * burst), k * piece, k * piece)
                }
                CloneKind::Gcm => (2, ns(T_RCD_NS + T_CL_NS + DRAM_WRITE_NS) + 2 * piece as u64 * burst, 2 * piece, piece),
            };
            self.clones[i] += 1;
            busy += time;
            // PSM and GCM move every line over a bus the NIC's own accesses use.
            for _ in 0..bus_lines {
                let w = self.dram_line(start);
                bus_wait.get_or_insert(w);
            }
            for _ in 0..moved {
                self.dram.device_read(start);
            }
            self.dram.write(start, moved);
            l += piece;
        }
        // The clone starts once the bus has served what was queued before it.
        let done = start + bus_wait.unwrap_or(0) + busy;
        // The completion poll: a register read over the channel, no DRAM access.
        let poll = self.latency(host_rho).saturating_sub(self.saving_ps) + self.cross(start);
        done + poll - now
    }

    /// The NIC reads a line of its DRAM; returns how long it waited for the DRAM, ps.
    pub fn device_access(&mut self, now: u64) -> u64 {
        self.dram.device_read(now);
        self.dram_line(now)
    }

    pub fn reset(&mut self) {
        self.dram.reset_counters();
        self.channel_lines = 0;
        self.ncache_hits = 0;
        self.ncache_misses = 0;
        self.prefetched = 0;
        self.clones = [0; 3];
    }
}

pub(crate) struct MemChannel {
    /// The memory zone of this NIC in [`MemSys::zones`].
    pub zone: usize,
    write_ps: u64,
    flushes: u64,
    /// The NIC clones a `copy` app's frames ([`NicCfg::clones`]).
    clones: bool,
    allocator: Allocator,
    /// The DRAM's backlog as of the last frame written: when it will have served it all.
    dram_busy: u64,
}

impl MemChannel {
    pub fn new(n: &NicCfg, zone: usize) -> MemChannel {
        MemChannel { zone, write_ps: (DRAM_WRITE_NS * 1000.0) as u64, flushes: 0, clones: n.clones(), allocator: n.netdimm.allocator, dram_busy: 0 }
    }

    /// Can the NIC write another frame into its DRAM at `now` (its backlog within the slack)?
    pub fn accepts(&self, now: u64) -> bool {
        self.dram_busy <= now + DRAM_SLACK_PS
    }

    /// When [`MemChannel::accepts`] turns true again.
    pub fn room_at(&self) -> u64 {
        self.dram_busy - DRAM_SLACK_PS.min(self.dram_busy)
    }

    /// Does the NIC clone frames for the host (else the core copies them)?
    pub fn clones(&self) -> bool {
        self.clones
    }

    /// A core of socket `s` clones a frame of `lines` lines from `src` into the app's buffer at
    /// `dst` (or, with the subarray allocator, one in `src`'s subarray); returns its latency, ps.
    pub fn clone_frame(&mut self, m: &mut MemSys, s: usize, src: u32, dst: u32, lines: u32, now: u64) -> u64 {
        m.zone_clone(s, src, dst, self.allocator == Allocator::Subarray, lines, now)
    }

    /// The NIC reads the posted descriptor line (once per four), writes the frame and the
    /// completion line (rewritten for every packet, so the nCache holds it when the host polls)
    /// into its DRAM. Returns (visible at, completion line).
    pub fn receive(&mut self, m: &mut MemSys, f: &RxDma) -> (u64, u32) {
        let slot = f.pos % f.n;
        let z = self.zone;
        if f.pos % RINGS.rx_desc_per_line == 0 {
            m.zones[z].device_access(f.now);
        }
        let mut wait = 0;
        for l in 0..f.payload.div_ceil(64) as u32 {
            wait = m.zone_write(f.data_line + l, l == 0, f.now);
        }
        // The completion line is rewritten for every packet, so the nCache holds it when polled.
        let cq = f.cq_line + (slot / RINGS.cq_per_line) as u32;
        wait = wait.max(m.zone_write(cq, true, f.now));
        self.dram_busy = m.zones[z].busy_until();
        (f.now + wait + self.write_ps, cq)
    }

    /// The NIC reads the descriptor and the packet from its own DRAM. It sits beside the DRAM,
    /// so a read costs the array's access (`ARRAY_ACCESS_NS`) and the wait for the DRAM, not a
    /// core's path to a memory controller (the zone's `latency`, which the host pays).
    pub fn fetch(&mut self, m: &mut MemSys, f: &TxDma) -> u64 {
        let z = self.zone;
        let mut lat = (ARRAY_ACCESS_NS * 1000.0) as u64;
        let mut wait = 0;
        for _ in 0..=f.payload.div_ceil(64) {
            wait = m.zones[z].device_access(f.now);
        }
        lat += wait;
        if let Some(c) = f.completion {
            m.zone_write(f.cq_line + c, false, f.now);
        }
        f.now + lat
    }

    /// A host flush of a handed-over line was made.
    pub fn count_flush(&mut self) {
        self.flushes += 1;
    }

    pub fn reset(&mut self, m: &mut MemSys) {
        m.zones[self.zone].reset();
        self.flushes = 0;
    }

    pub fn report(&self, m: &MemSys, dur_s: f64) -> Report {
        let z = &m.zones[self.zone];
        let mut r = Report::default();
        let looked = z.ncache_hits + z.ncache_misses;
        if looked > 0 {
            r.extra.insert("ncache_hit_rate".into(), Figure::Value(z.ncache_hits as f64 / looked as f64));
        }
        r.extra.insert("ncache_prefetched_lines".into(), Figure::Count(z.prefetched));
        r.extra.insert("host_flushes".into(), Figure::Count(self.flushes));
        let gb = |lines: u64| lines as f64 * 64.0 / dur_s / 1e9;
        r.extra.insert("channel_gbyte_s".into(), Figure::Value(gb(z.channel_lines)));
        r.extra.insert("nic_dram_gbyte_s".into(), Figure::Value(gb(z.dram.read_lines + z.dram.write_lines)));
        if self.clones() {
            for (name, n) in ["fpm", "psm", "gcm"].iter().zip(z.clones) {
                r.extra.insert(format!("clones_{name}"), Figure::Count(n));
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_serialises_crossings_at_its_peak_rate() {
        let plat = Platform::preset("skylake-gold-6140").expect("preset");
        let mut n = NicCfg::default();
        n.netdimm.prefetch_lines = 0;
        let mut z = Zone::new(&n, &plat, 1);
        // DDR4-2400: 64 B every 3.33 ns; two reads at once: the second waits for the first (and
        // sees a slightly higher bank load).
        let a = z.host_read(1000, 0, 0.0);
        let b = z.host_read(2000, 0, 0.0);
        assert!((3333..3500).contains(&(b - a)), "{a} {b}");
        // The nCache: a header the NIC wrote is read once, faster, then gone.
        z.device_write(3000, true, 10_000_000);
        let hit = z.host_read(3000, 20_000_000, 0.0);
        let again = z.host_read(3000, 30_000_000, 0.0);
        assert_eq!(again - hit, (ARRAY_ACCESS_NS * 1000.0) as u64);
    }

    #[test]
    fn the_prefetcher_fetches_its_next_lines_into_an_idle_dram_and_none_into_a_busy_one() {
        let plat = Platform::preset("skylake-gold-6140").expect("preset");
        let mut n = NicCfg::default();
        n.netdimm.prefetch_lines = 4;
        // Idle DRAM: a payload miss brings the next four lines into the nCache, not the fifth.
        let mut z = Zone::new(&n, &plat, 1);
        z.host_read(1000, 0, 0.0);
        assert_eq!(z.prefetched, 4);
        assert!((1001..=1004).all(|l| z.take(l)) && !z.take(1005));
        // A line the host writes back (a flush) leaves the nCache: the next read misses.
        let mut z = Zone::new(&n, &plat, 1);
        z.host_read(1000, 0, 0.0);
        z.host_write(1002, 10_000_000);
        assert!(z.take(1001) && !z.take(1002) && z.take(1003));
        // The DRAM already busy with another access: the miss queues behind it, nothing is
        // prefetched.
        let mut z = Zone::new(&n, &plat, 1);
        z.device_write(50_000, false, 0);
        z.host_read(1000, 0, 0.0);
        assert_eq!(z.prefetched, 0);
    }

    #[test]
    fn rowclone_modes_follow_the_bank_map() {
        // 32 pages (16 banks × 2 ranks) between bank reuses; 1024 pages of a bank per subarray.
        assert_eq!(CloneKind::between(5, 5 + 32), CloneKind::Fpm);
        assert_eq!(CloneKind::between(5, 5 + 32 * 1024), CloneKind::Psm { twice: true });
        assert_eq!(CloneKind::between(5, 6), CloneKind::Psm { twice: false });
        assert_eq!(CloneKind::between(5, 5 + 16), CloneKind::Gcm);
    }

    #[test]
    fn a_clone_costs_by_its_mode() {
        let plat = Platform::preset("skylake-gold-6140").expect("preset");
        let n = NicCfg::default();
        let cost = |dst: Option<u32>, lines: u32| {
            let mut z = Zone::new(&n, &plat, 1);
            let t = z.clone_lines(64 * 5, dst, lines, 0, 0.0);
            (t, z.clones)
        };
        // FPM: two activations and a precharge, whatever the size (within a page).
        let (fpm1, k) = cost(None, 1);
        let (fpm24, _) = cost(None, 24);
        assert_eq!(fpm1, fpm24);
        assert_eq!(k, [1, 0, 0]);
        // PSM and GCM move every line: one and two bursts each.
        let (psm1, k) = cost(Some(64 * 6), 1);
        let (psm24, _) = cost(Some(64 * 6), 24);
        assert_eq!(k, [0, 1, 0]);
        assert_eq!(psm24 - psm1, 23 * 3333);
        let (gcm1, k) = cost(Some(64 * 21), 1);
        let (gcm24, _) = cost(Some(64 * 21), 24);
        assert_eq!(k, [0, 0, 1]);
        assert_eq!(gcm24 - gcm1, 2 * 23 * 3333);
        // A frame across a page boundary is two pieces.
        let mut z = Zone::new(&n, &plat, 1);
        z.clone_lines(64 * 5 + 60, None, 8, 0, 0.0);
        assert_eq!(z.clones, [2, 0, 0]);
        // Large frames clone faster in the subarray; a single line is faster over the bus.
        assert!(fpm24 < psm24 && psm24 < gcm24, "{fpm24} {psm24} {gcm24}");
        assert!(psm1 < fpm1, "{psm1} {fpm1}");
    }

    /// The NIC reads its own DRAM from beside it: a TX fetch on an idle DIMM returns after the
    /// array's access (`ARRAY_ACCESS_NS`, tRCD + tCL ≈ 28.3 ns) and its wait for the DIMM's DRAM
    /// (here its own second line: one burst, ~3.3 ns), and a fetch right behind it waits for the
    /// first one's lines too. Guards `MemChannel::fetch`'s `ARRAY_ACCESS_NS`: a core's path to
    /// memory (the zone's `latency(0.0)`, the preset's 90 ns DRAM on Skylake) makes it ~93 ns.
    #[test]
    fn the_nic_reads_its_own_dram_at_the_array_access() {
        let plat = Platform::preset("skylake-gold-6140").expect("preset");
        let n = NicCfg::default();
        let zone = Zone::new(&n, &plat, 1);
        let burst = zone.ps_per_line as u64;
        let host = zone.latency(0.0);
        let t = crate::memsys::Timing { cycle_ps: 435.0, l2_ps: 5_000, llc_ps: 20_000, c2c_ps: 50_000, upi_ps: 50_000, remote_cache_ps: 110_000 };
        let mut m = MemSys::new(Vec::new(), vec![crate::memsys::ZONE_BASE], vec![zone], 0, t);
        let mut nic = MemChannel::new(&n, 0);
        let now = 1_000_000;
        // A 64 B frame: its descriptor and its line, slot 0 (no TX completion written).
        let f = |pos: u64| TxDma {
            queue: 0,
            idx_line: 0,
            posted_at: now,
            pos,
            n: 256,
            wqe_line: 64,
            cq_line: 128,
            data_line: 256,
            payload: 64,
            inline: false,
            seg: 0,
            segs: 1,
            completion: None,
            now,
        };
        let array = (ARRAY_ACCESS_NS * 1000.0) as u64;
        let first = nic.fetch(&mut m, &f(0)) - now;
        assert_eq!(first, array + burst, "array access {array} ps + one burst {burst} ps; a host read costs {host} ps");
        let second = nic.fetch(&mut m, &f(1)) - now;
        assert_eq!(second - first, 2 * burst, "behind the first fetch's two lines: {first} → {second} ps");
    }
}
