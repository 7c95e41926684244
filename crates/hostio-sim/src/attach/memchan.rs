//! A NIC on a DDR memory channel (NetDIMM, Alian & Kim, MICRO'19): the NIC sits in a DIMM's
//! buffer device; its DRAM is part of the host's physical address space (a NUMA-like zone on one
//! channel) and holds the packet buffers and rings of the apps using it.
//!
//! # Mechanism
//! * **Receive.** The NIC writes a frame straight into its own DRAM — nothing crosses the
//!   channel — and puts the frame's first line (the header) and the completion line in its
//!   **nCache** ([`Zone`]). Stale host copies are dropped ([`MemSys::zone_write`]).
//! * **Host reads** of zone lines that miss the host caches cross the channel (plus a UPI round
//!   trip from the other socket): an nCache hit saves the DRAM array access (tRCD + tCL of
//!   DDR4-2400, `NCACHE_SAVING_NS`) and drops the line (read-once); a miss reads the DRAM and
//!   the **nPrefetcher** fetches the next `prefetch_lines` lines into the nCache. The paper
//!   triggers it on payload reads; hostio triggers it on any host read that misses the nCache
//!   (header and completion lines are in the nCache, so they rarely trigger it).
//! * **The channel** is a bounded resource: every line crossing it (host reads, flushed
//!   write-backs) occupies it for 64 B at its peak rate (`channel`), and a read waits its turn.
//!   The NIC's own DRAM traffic (writing frames, reading them to transmit) stays on the DIMM:
//!   it loads the DRAM (`nic_dram_gbyte_s`), not the channel (`channel_gbyte_s`). The DRAM is
//!   bounded the same way (its chips run at the channel's data rate): frames become visible, and
//!   transmit reads return, after their turn; the nPrefetcher drops requests while the DRAM is
//!   busy.
//! * **Handover.** The NIC cannot snoop the host's caches, so the host writes back and drops
//!   (CLFLUSHOPT) every line it hands over: the descriptors it posts, the TX descriptors and the
//!   packet lines it wrote (the rewritten header). Each costs an LLC access plus a channel write,
//!   overlapped across a burst ([`Rings::flush_handover`]): an LLC access, plus another for
//!   a dirty line's write-back, which then crosses the channel.
//! * **Transmit.** The NIC reads the descriptor and the packet from its own DRAM: one DRAM access
//!   at the zone's load, then the wire; nothing crosses the channel.
//! * **The channel is shared.** The host interleaves its memory over all channels, so the NetDIMM
//!   channel carries the NIC socket's average load ρ as well as its own: a zone access costs the
//!   DRAM latency at the sum of the two (the same load curve as [`crate::mem`]), so an MLC-like
//!   co-runner slows the NIC's host accesses and the NIC's traffic slows nothing else of the host.
use super::{Report, Rings, RxDma, TxDma, CX5_RINGS};
use crate::config::{NicCfg, Platform};
use crate::mem::Memory;
use crate::memsys::MemSys;
use crate::rng::Rng;

/// The rings are the ConnectX-5-like ones, and the host flushes what it hands over.
pub(crate) const RINGS: Rings = Rings { flush_handover: true, ..CX5_RINGS };
/// Time an nCache hit saves over a DRAM read: tRCD + tCL of DDR4-2400 CL17 (14.16 ns each, JEDEC
/// JESD79-4 speed bin), the array access the SRAM avoids.
const NCACHE_SAVING_NS: f64 = 28.3;
/// nCache associativity (the NetDIMM paper's nCache is set-associative with random replacement;
/// the way count is not given).
const NCACHE_WAYS: usize = 8;
/// Write recovery of the NIC's DRAM, ns (tWR of DDR4, JEDEC): a frame written by the NIC is
/// readable this long after its last line.
const DRAM_WRITE_NS: f64 = 15.0;

/// The NIC's DRAM and nCache: one memory zone, behind one DDR channel of socket `socket`.
pub(crate) struct Zone {
    pub socket: usize,
    /// The DIMM's DRAM banks (the NIC's own writes and reads, and the host's).
    dram: Memory,
    /// The channel between the host's memory controller and the DIMM: a bounded resource that
    /// every line crossing it (host reads, host write-backs) occupies for 64 B at its peak rate.
    chan_free: u64,
    ps_per_line: f64,
    /// Lines that crossed the channel since the warm-up.
    pub channel_lines: u64,
    /// The DIMM's DRAM moves at most one line per `ps_per_line` too (its chips run at the
    /// channel's data rate): every access, the NIC's included, occupies it.
    dram_free: u64,
    saving_ps: u64,
    /// nCache tags (`line + 1`, 0 = empty), `NCACHE_WAYS` per set.
    tags: Vec<u32>,
    sets: usize,
    prefetch: u32,
    rng: Rng,
    pub ncache_hits: u64,
    pub ncache_misses: u64,
    pub prefetched: u64,
}

impl Zone {
    pub fn new(n: &NicCfg, plat: &Platform, seed: u64) -> Zone {
        let d = &n.netdimm;
        let lines = (d.ncache_kib as usize * 1024 / 64).max(NCACHE_WAYS);
        Zone {
            socket: n.socket as usize,
            dram: Memory::new(plat.dram_latency_ns, d.channel.gbyte_s()),
            chan_free: 0,
            ps_per_line: 64.0 * 1000.0 / d.channel.gbyte_s(),
            channel_lines: 0,
            dram_free: 0,
            saving_ps: (NCACHE_SAVING_NS * 1000.0) as u64,
            tags: vec![0; lines / NCACHE_WAYS * NCACHE_WAYS],
            sets: lines / NCACHE_WAYS,
            prefetch: d.prefetch_lines,
            rng: Rng::new(seed),
            ncache_hits: 0,
            ncache_misses: 0,
            prefetched: 0,
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

    fn latency(&self, now: u64, host_rho: f64) -> u64 {
        self.dram.latency_at((self.dram.load(now) + host_rho).min(0.95))
    }

    /// One DRAM line access at `now`; returns how long it waited for the DRAM, ps.
    fn dram_line(&mut self, now: u64) -> u64 {
        let start = self.dram_free.max(now);
        self.dram_free = start + self.ps_per_line as u64;
        start - now
    }

    /// A line crosses the channel at `now`; returns how long it waited for the channel, ps.
    fn cross(&mut self, now: u64) -> u64 {
        let start = self.chan_free.max(now);
        self.chan_free = start + self.ps_per_line as u64;
        self.channel_lines += 1;
        start - now
    }

    /// A host read that missed the host's caches; returns its latency beyond the LLC, ps.
    pub fn host_read(&mut self, line: u32, now: u64, host_rho: f64) -> u64 {
        let lat = self.latency(now, host_rho);
        let channel_wait = self.cross(now);
        self.dram.device_read(now);
        if self.take(line) {
            self.ncache_hits += 1;
            return lat - self.saving_ps.min(lat) + channel_wait;
        }
        self.ncache_misses += 1;
        // The DRAM access and the channel transfer pipeline: the later of the two waits counts.
        let wait = self.dram_line(now).max(channel_wait);
        // The nPrefetcher fetches the next lines while the DRAM has room; it drops requests
        // that would queue behind more than one access.
        for k in 1..=self.prefetch {
            if self.dram_free > now + self.ps_per_line as u64 {
                break;
            }
            self.dram_line(now);
            self.dram.device_read(now);
            self.insert(line + k);
            self.prefetched += 1;
        }
        lat + wait
    }

    /// The host writes a line back into the zone (a flush).
    pub fn host_write(&mut self, now: u64) {
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
    }
}

pub(crate) struct MemChannel {
    /// The memory zone of this NIC in [`MemSys::zones`].
    pub zone: usize,
    write_ps: u64,
    flushes: u64,
}

impl MemChannel {
    pub fn new(zone: usize) -> MemChannel {
        MemChannel { zone, write_ps: (DRAM_WRITE_NS * 1000.0) as u64, flushes: 0 }
    }

    /// The NIC reads the posted descriptor line (once per four), writes the frame and, once per
    /// block, the compressed completion into its DRAM. Returns (visible at, completion line).
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
        (f.now + wait + self.write_ps, cq)
    }

    /// The NIC reads the descriptor and the packet from its own DRAM.
    pub fn fetch(&mut self, m: &mut MemSys, f: &TxDma) -> u64 {
        let z = self.zone;
        let mut lat = m.zones[z].latency(f.now, 0.0);
        let mut wait = 0;
        for _ in 0..=f.payload.div_ceil(64) {
            wait = m.zones[z].device_access(f.now);
        }
        lat += wait;
        if f.pos % RINGS.tx_completion_every == RINGS.tx_completion_every - 1 {
            m.zone_write(f.cq_line + ((f.pos / RINGS.tx_completion_every) % 64) as u32, false, f.now);
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
            r.extra.insert("ncache_hit_rate".into(), z.ncache_hits as f64 / looked as f64);
        }
        r.extra.insert("ncache_prefetched_lines".into(), z.prefetched as f64);
        r.extra.insert("host_flushes".into(), self.flushes as f64);
        let gb = |lines: u64| lines as f64 * 64.0 / dur_s / 1e9;
        r.extra.insert("channel_gbyte_s".into(), gb(z.channel_lines));
        r.extra.insert("nic_dram_gbyte_s".into(), gb(z.dram.read_lines + z.dram.write_lines));
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
        assert_eq!(again - hit, (NCACHE_SAVING_NS * 1000.0) as u64);
    }
}
