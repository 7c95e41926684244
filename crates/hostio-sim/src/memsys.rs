//! The memory system as one facade: every agent's access to simulated memory goes through here.
//!
//! * **Page homes and placement.** Memory is laid out in 2 MiB pages ([`AddressSpace`]); a page is
//!   homed on a socket's DRAM or in a device's memory zone (the DRAM of a memory-channel NIC, see
//!   [`crate::attach::memchan`]). Physically, DPDK memory (packet buffers, rings) is contiguous in
//!   1 GiB hugepages and everything else lies in scattered 4 KiB pages, which decides how lines
//!   spread over the LLC's slices and sets.
//! * **Core accesses** ([`MemSys::core_access`]) go through the core's socket hierarchy (L2, LLC,
//!   other L2s); a miss is served by the other socket's caches over UPI (the platform's
//!   `coherent_line_ns`, MLC's remote cache-to-cache latency), by a device that holds
//!   the line Modified in its own cache (a cache-coherent NIC: one line transfer, the platform's
//!   `coherent_line_ns`, or more over CXL), by a device memory zone, or by the home socket's DRAM
//!   (its load-to-use latency, the LLC lookup included, rising with its load), plus a UPI round
//!   trip (two hops of `upi_latency_ns`) when remote.
//! * **Device writes and reads** ([`MemSys::dev_write_lines`], [`MemSys::dev_read_lines`]) follow the I/O hub
//!   rules of [`crate::cache`]: an allocating ItoM (DDIO) or a write to DRAM that invalidates
//!   cached copies; a PCIeRdCur that hits any socket's caches (those of the other socket than the
//!   device's reached across UPI) or reads DRAM without allocating.
//!   A coherent device instead takes lines into its own cache ([`MemSys::dev_own`]); a
//!   memory-channel device writes its own zone ([`MemSys::zone_write`]).
//! * **Flushes** ([`MemSys::flush`]): a core writes back and drops every cached copy of a line, as a host
//!   handing a buffer to a NIC on a memory channel must (the NIC cannot snoop the host's caches);
//!   a dirty copy's write-back costs its trip to the home's memory controller.
use crate::attach::memchan::Zone;
use crate::cache::{Hierarchy, Src};
use crate::mem::{Mba, Memory};

/// 2 MiB pages of 64 B lines.
pub(crate) const LINES_PER_PAGE: u32 = 1 << 15;
/// `page_home` values from this one up name device memory zones (zone = value − ZONE_BASE).
pub(crate) const ZONE_BASE: u8 = 0x80;

pub(crate) struct Socket {
    pub hier: Hierarchy,
    pub mem: Memory,
    /// Some core, NIC or memory region lives here (otherwise its caches stay empty and coherence
    /// checks against it are skipped).
    pub used: bool,
}

/// Timing constants in ps.
pub(crate) struct Timing {
    pub cycle_ps: f64,
    pub l2_ps: u64,
    pub llc_ps: u64,
    pub c2c_ps: u64,
    pub upi_ps: u64,
    /// A core's load served by the other socket's caches: the platform's `coherent_line_ns`
    /// (MLC's remote L2→L2 HITM where measured).
    pub remote_cache_ps: u64,
}

impl Timing {
    /// A platform's latencies in ps.
    pub fn of(plat: &crate::config::Platform) -> Timing {
        let ps = |ns: f64| (ns * 1000.0) as u64;
        Timing {
            cycle_ps: 1000.0 / plat.clock_ghz,
            l2_ps: ps(plat.l2_latency_ns),
            llc_ps: ps(plat.llc_latency_ns),
            c2c_ps: ps(plat.c2c_latency_ns),
            upi_ps: ps(plat.upi_latency_ns),
            remote_cache_ps: ps(plat.coherent_line_ns()),
        }
    }
}

/// Device-side line counts since the warm-up.
#[derive(Default, Clone)]
pub(crate) struct DmaCounters {
    pub wr_hit: u64,
    pub wr_miss: u64,
    pub wr_bypass: u64,
    pub rd_hit: u64,
    pub rd_miss: u64,
}

impl DmaCounters {
    /// Add what `now` counts beyond `before` (the same counters earlier).
    pub fn add_since(&mut self, before: &DmaCounters, now: &DmaCounters) {
        self.wr_hit += now.wr_hit - before.wr_hit;
        self.wr_miss += now.wr_miss - before.wr_miss;
        self.wr_bypass += now.wr_bypass - before.wr_bypass;
        self.rd_hit += now.rd_hit - before.rd_hit;
        self.rd_miss += now.rd_miss - before.rd_miss;
    }
}

/// Where a core access was served from, beyond the hierarchy's own levels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Served {
    L2,
    /// The LLC or another L2 of the core's socket.
    Llc,
    /// The other socket's caches (UPI).
    RemoteCache,
    /// A coherent device's cache.
    Device,
    /// A device memory zone (a memory-channel NIC's DRAM or its nCache).
    Zone,
    /// DRAM of a socket.
    Dram,
}

use crate::config::PAGES_PER_HUGEPAGE as FRAMES_PER_HUGEPAGE;
/// Lines per 4 KiB base page.
const LINES_PER_BASE_PAGE: u64 = 64;

/// What a region of simulated memory holds, which decides where its pages lie physically.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Region {
    /// DPDK memory (packet buffers, descriptor and completion rings): from 1 GiB hugepages.
    Dpdk,
    /// Anything else (working sets, an app's own buffers): 4 KiB pages outside DPDK's hugepages.
    Other,
}

/// Lays simulated memory out in 2 MiB pages homed on a socket or a device zone, and places them
/// in 64 GiB of physical memory ([`crate::config::PHYS_PAGES`], a modelling choice: the testbed
/// had 128 GiB; [`AddressSpace::pa_lines`]):
/// * **DPDK memory** comes from 1 GiB hugepages: each home's DPDK pages are physically
///   contiguous, in allocation order, from the start of a 1 GiB frame, and fill it before the
///   next (a random free one) is taken. The DDIO paper's testbed boots with
///   `default_hugepagesz=1GB hugepagesz=1G hugepages=128` (its artifact, ddio-bench
///   `TESTBED.md`), and DPDK's EAL maps its heap, and so the mempools and rings, from those
///   pages. Contiguity matters on Skylake-SP: its slice map spreads a physically contiguous run
///   of buffers less evenly over the (slice, set) pairs than buffers scattered in 2 MiB frames.
/// * **Other memory** (the apps' code and heaps, a co-runner's data) is in the kernel's 4 KiB
///   base pages: each 4 KiB of it lies at a random 4 KiB frame outside those hugepages (frames
///   are not kept distinct: two chunks that drew one frame only share its sets).
pub(crate) struct AddressSpace {
    pub next_page: u32,
    pub page_home: Vec<u8>,
    /// Per page: what it holds.
    region: Vec<Region>,
    /// Per home and region: (page, next free line in it) for small allocations.
    open: std::collections::BTreeMap<(u8, Region), (u32, u32)>,
}

impl AddressSpace {
    pub fn new() -> AddressSpace {
        AddressSpace { next_page: 0, page_home: Vec::new(), region: Vec::new(), open: Default::default() }
    }

    /// Allocate `bytes` of `region` homed at `home` (a socket, or `ZONE_BASE + zone`); returns the
    /// first line.
    pub fn alloc(&mut self, bytes: u64, home: u8, region: Region) -> u32 {
        let lines = bytes.div_ceil(64).max(1) as u32;
        // Regions of a quarter page (512 KiB) or more get whole 2 MiB pages of their own, so
        // their physical placement (their LLC sets and slices) does not depend on what was
        // allocated before them; smaller ones share a page. A modelling choice.
        if lines >= LINES_PER_PAGE / 4 {
            let pages = lines.div_ceil(LINES_PER_PAGE);
            let first = self.next_page;
            self.new_pages(pages, home, region);
            return first * LINES_PER_PAGE;
        }
        // Small regions (rings) are packed into an open page, 4 KiB aligned.
        let lines = lines.div_ceil(64) * 64;
        match self.open.get(&(home, region)).copied() {
            Some((page, used)) if used + lines <= LINES_PER_PAGE => {
                self.open.insert((home, region), (page, used + lines));
                page * LINES_PER_PAGE + used
            }
            _ => {
                let page = self.next_page;
                self.new_pages(1, home, region);
                self.open.insert((home, region), (page, lines));
                page * LINES_PER_PAGE
            }
        }
    }

    fn new_pages(&mut self, pages: u32, home: u8, region: Region) {
        self.next_page += pages;
        self.page_home.extend(std::iter::repeat(home).take(pages as usize));
        self.region.extend(std::iter::repeat(region).take(pages as usize));
    }

    /// The physical line address of every simulated line (see the type's doc), drawn from `rng`:
    /// first 1 GiB frames for the DPDK pages, in page order (each home fills one frame before it
    /// takes the next), then a 4 KiB frame for every 4 KiB of the other pages, outside those 1 GiB
    /// frames. Validation leaves enough 1 GiB frames, and frames for the other pages besides.
    /// Fails, before drawing anything, when the host's memory cannot hold the list.
    pub fn pa_lines(&self, rng: &mut crate::rng::Rng) -> Result<Vec<u64>, std::collections::TryReserveError> {
        const LINES_PER_HUGEPAGE: u64 = FRAMES_PER_HUGEPAGE * LINES_PER_PAGE as u64;
        let pages = self.page_home.len();
        let mut pa = Vec::new();
        pa.try_reserve_exact(pages * LINES_PER_PAGE as usize)?;
        let mut free: Vec<u64> = (0..crate::config::PHYS_PAGES / FRAMES_PER_HUGEPAGE).collect();
        let mut frames = vec![0u64; pages];
        // Per home: the 1 GiB frame being filled and how many of its 2 MiB frames are taken.
        let mut filling: std::collections::BTreeMap<u8, (u64, u64)> = Default::default();
        for p in (0..pages).filter(|&p| self.region[p] == Region::Dpdk) {
            let f = filling.entry(self.page_home[p]).or_insert((0, FRAMES_PER_HUGEPAGE));
            if f.1 == FRAMES_PER_HUGEPAGE {
                assert!(!free.is_empty(), "validation bounds DPDK memory to the 64 1 GiB frames");
                *f = (free.swap_remove(rng.below(free.len() as u64) as usize), 0);
            }
            frames[p] = f.0 * FRAMES_PER_HUGEPAGE + f.1;
            f.1 += 1;
        }
        for p in 0..pages {
            if self.region[p] == Region::Dpdk {
                pa.extend((0..LINES_PER_PAGE as u64).map(|l| frames[p] * LINES_PER_PAGE as u64 + l));
            } else {
                assert!(!free.is_empty(), "validation leaves a 1 GiB frame for memory outside DPDK");
                for _ in 0..LINES_PER_PAGE as u64 / LINES_PER_BASE_PAGE {
                    let huge = free[rng.below(free.len() as u64) as usize];
                    let first = huge * LINES_PER_HUGEPAGE + rng.below(LINES_PER_HUGEPAGE / LINES_PER_BASE_PAGE) * LINES_PER_BASE_PAGE;
                    pa.extend(first..first + LINES_PER_BASE_PAGE);
                }
            }
        }
        Ok(pa)
    }
}

pub(crate) struct MemSys {
    pub sockets: Vec<Socket>,
    pub page_home: Vec<u8>,
    pub zones: Vec<Zone>,
    /// Per coherent device: the lines it holds Modified in its own cache, one bit per line.
    held: Vec<Vec<u64>>,
    /// Per coherent device: lines cores took from its cache since the warm-up.
    pub to_host: Vec<u64>,
    /// Per coherent device: one line moved from its cache to a core, ps.
    pub line_ps: Vec<u64>,
    /// Per coherent device: the socket whose link it is on (a core of the other socket adds a UPI
    /// round trip).
    pub dev_socket: Vec<usize>,
    /// Per coherent device: its rings are homed at their reader, so a core's read of a line it
    /// holds also triggers a speculative read of the line's home memory.
    pub reader_homed: Vec<bool>,
    pub t: Timing,
    pub c: DmaCounters,
}

impl MemSys {
    /// `coherent` devices (numbered from 0) can hold lines in their own caches.
    pub fn new(sockets: Vec<Socket>, page_home: Vec<u8>, zones: Vec<Zone>, coherent: usize, t: Timing) -> MemSys {
        let lines = page_home.len() * LINES_PER_PAGE as usize;
        let held = vec![vec![0; lines.div_ceil(64)]; coherent];
        MemSys { sockets, page_home, zones, held, to_host: vec![0; coherent], line_ps: vec![0; coherent], dev_socket: vec![0; coherent], reader_homed: vec![false; coherent], t, c: DmaCounters::default() }
    }

    /// The socket whose DRAM holds `line`, or `None` for a device zone.
    #[inline]
    pub fn home(&self, line: u32) -> Option<usize> {
        let h = self.page_home[(line >> 15) as usize];
        (h < ZONE_BASE).then_some(h as usize)
    }

    #[inline]
    fn zone_of(&self, line: u32) -> usize {
        (self.page_home[(line >> 15) as usize] - ZONE_BASE) as usize
    }

    /// The coherent device holding `line` in its cache, if any.
    #[inline]
    pub fn holder(&self, line: u32) -> Option<usize> {
        self.held.iter().position(|h| h[line as usize >> 6] & (1 << (line & 63)) != 0)
    }

    #[inline]
    fn set_held(&mut self, dev: usize, line: u32, on: bool) {
        let w = &mut self.held[dev][line as usize >> 6];
        if on {
            *w |= 1 << (line & 63);
        } else {
            *w &= !(1 << (line & 63));
        }
    }

    /// Drop every host copy of `line` on every socket; true if one was dirty.
    fn invalidate_all(&mut self, line: u32) -> bool {
        let mut dirty = false;
        for s in self.sockets.iter_mut().filter(|s| s.used) {
            dirty |= s.hier.invalidate(line);
        }
        dirty
    }

    /// A core access by core `local` of socket `s`; returns (latency ps, where it was served).
    /// `mba` is the core's throttle: its delay is part of the latency of every request that
    /// leaves the L2. A store that misses this socket's caches takes the line from the other
    /// socket's (invalidating its copy); one that hits here leaves a stale copy the other socket
    /// may hold in place: a gap in the model's coherence between sockets, reached only when both
    /// sockets touch one line (a core or a NIC on each).
    pub fn core_access(&mut self, s: usize, local: usize, mba: &mut Mba, line: u32, write: bool, now: u64) -> (u64, Served) {
        let src = self.sockets[s].hier.core_access(local, line, write);
        let wb = self.sockets[s].hier.take_writebacks();
        self.sockets[s].mem.write(now, wb);
        if src == Src::L2 {
            return (self.t.l2_ps, Served::L2);
        }
        // MBA throttles every request that leaves the L2 (LLC hits too), not only DRAM reads.
        let mba = mba.delay(now);
        match src {
            Src::L2 => unreachable!("returned above"),
            Src::OtherL2 => (mba + self.t.c2c_ps, Served::Llc),
            Src::Llc => (mba + self.t.llc_ps, Served::Llc),
            Src::Mem => {
                if let Some(dev) = self.holder(line) {
                    // The device's Modified copy moves to the core.
                    self.set_held(dev, line, false);
                    self.to_host[dev] += 1;
                    if self.reader_homed[dev] {
                        if let Some(h) = self.home(line) {
                            self.sockets[h].mem.device_read(now);
                        }
                    }
                    let remote = if self.dev_socket[dev] != s { 2 * self.t.upi_ps } else { 0 };
                    // The line transfer is load-to-use (as measured: CC-NIC §3, MLC's remote HITM).
                    return (mba + self.line_ps[dev] + remote, Served::Device);
                }
                if self.sockets.len() > 1 && self.sockets[1 - s].used {
                    let o = 1 - s;
                    if self.sockets[o].hier.is_cached(line) {
                        // Served by the other socket's caches over UPI: the measured remote
                        // cache-to-cache latency (`coherent_line_ns`: MLC's remote HITM, 114 ns
                        // on Skylake-SP, 106.5 ns on Haswell-EP), whatever the line's home (the
                        // Skylake-SP run the preset cites measured 114.0–114.6 ns with the line
                        // homed at the writer and 114.0–123.2 ns homed at the reader; other
                        // public runs report up to ~180 ns for the latter), and for clean lines
                        // too (MLC measures no remote clean hit). A composition of the presets'
                        // LLC and UPI latencies would put it below local DRAM on Haswell-EP.
                        if write {
                            self.sockets[o].hier.invalidate(line);
                        }
                        return (mba + self.t.remote_cache_ps, Served::RemoteCache);
                    }
                }
                match self.home(line) {
                    Some(home) => {
                        // The DRAM latency is load-to-use, the LLC's miss lookup included (as
                        // Intel MLC measures it).
                        let lat = self.sockets[home].mem.read(now + mba);
                        let remote = if home != s { 2 * self.t.upi_ps } else { 0 };
                        (mba + lat + remote, Served::Dram)
                    }
                    None => {
                        let z = self.zone_of(line);
                        let zs = self.zones[z].socket;
                        let host_rho = self.sockets[zs].mem.load(now);
                        let lat = self.zones[z].host_read(line, now + mba, host_rho);
                        let remote = if zs != s { 2 * self.t.upi_ps } else { 0 };
                        (mba + lat + remote, Served::Zone)
                    }
                }
            }
        }
    }

    /// A device's full-line DMA writes of lines `first..first + n` through the I/O hub of
    /// `dev_socket`, in order: each allocates in the LLC's ways `io_mask` (the port's I/O ways)
    /// when `ddio` is on for the port and the line is homed on that socket (ItoM), else goes to
    /// DRAM and invalidates cached copies. All happen at `now`, so their write-backs load the DRAM as one batch per page (the
    /// load window sums whole lines exactly: the same as line by line).
    pub fn dev_write_lines(&mut self, dev_socket: usize, ddio: bool, io_mask: u32, first: u32, n: u32, now: u64) {
        let end = first + n;
        let mut l = first;
        while l < end {
            // The lines of one page share a home.
            let stop = end.min((l / LINES_PER_PAGE + 1) * LINES_PER_PAGE);
            let k = stop - l;
            let home = self.home(l).expect("DMA through an I/O hub targets socket memory");
            if self.sockets.len() > 1 && self.sockets[1 - home].used {
                for x in l..stop {
                    self.sockets[1 - home].hier.invalidate(x);
                }
            }
            let allocating = ddio && home == dev_socket;
            let hits = self.sockets[home].hier.dev_write_lines(l, k, allocating, io_mask);
            let wb = self.sockets[home].hier.take_writebacks();
            self.sockets[home].mem.write(now, wb + if allocating { 0 } else { k });
            if allocating {
                self.c.wr_hit += hits as u64;
                self.c.wr_miss += (k - hits) as u64;
            } else {
                self.c.wr_bypass += k as u64;
            }
            l = stop;
        }
    }

    /// A device's full-line writes of lines `first..first + n`, homed on `dev_socket`, stashed
    /// into the L2 of that socket's core `core` ([`Hierarchy::dev_stash`]); counted as
    /// allocating writes (hit when the line was cached). Copies on the other socket are dropped.
    pub fn dev_stash_lines(&mut self, dev_socket: usize, core: usize, io_mask: u32, first: u32, n: u32, now: u64) {
        if self.sockets.len() > 1 && self.sockets[1 - dev_socket].used {
            for x in first..first + n {
                self.sockets[1 - dev_socket].hier.invalidate(x);
            }
        }
        let hier = &mut self.sockets[dev_socket].hier;
        let hits: u32 = (first..first + n).map(|l| hier.dev_stash(core, l, io_mask) as u32).sum();
        let wb = hier.take_writebacks();
        self.sockets[dev_socket].mem.write(now, wb);
        self.c.wr_hit += hits as u64;
        self.c.wr_miss += (n - hits) as u64;
    }

    /// Reads of lines `first..first + n` by a device on socket `dev_socket` through its I/O hub
    /// (PCIeRdCur), looked up at `now`; returns how many a host cache had, and how many of those
    /// only the other socket's caches had (a snoop across UPI). A miss reads the home's DRAM
    /// without allocating.
    pub fn dev_read_lines(&mut self, dev_socket: usize, first: u32, n: u32, now: u64) -> (u32, u32) {
        let end = first + n;
        let mut l = first;
        let (mut hits, mut far) = (0, 0);
        while l < end {
            let stop = end.min((l / LINES_PER_PAGE + 1) * LINES_PER_PAGE);
            let home = self.home(l);
            // In use: the home's caches, and no other socket's.
            let alone = |s: usize| self.sockets.iter().enumerate().all(|(i, o)| o.used == (i == s));
            let h = match home {
                Some(s) if alone(s) => {
                    let h = self.sockets[s].hier.dev_read_lines(l, stop - l);
                    if s != dev_socket {
                        far += h;
                    }
                    h
                }
                _ => {
                    let mut h = 0;
                    for x in l..stop {
                        // The device's own socket first; any other socket's caches reached
                        // across UPI.
                        let near = self.sockets.get(dev_socket).is_some_and(|s| s.used && s.hier.dev_read(x));
                        if near || self.sockets.iter().enumerate().any(|(i, s)| i != dev_socket && s.used && s.hier.dev_read(x)) {
                            h += 1;
                            far += !near as u32;
                        } else if let Some(s) = home {
                            // A read miss counts in the home LLC's set dueling (`cache` module docs).
                            self.sockets[s].hier.dev_read_missed(x);
                        }
                    }
                    h
                }
            };
            let misses = stop - l - h;
            match home {
                Some(home) => self.sockets[home].mem.device_reads(now, misses),
                None => {
                    let z = self.zone_of(l);
                    for _ in 0..misses {
                        self.zones[z].device_access(now);
                    }
                }
            }
            self.c.rd_hit += h as u64;
            self.c.rd_miss += misses as u64;
            hits += h;
            l = stop;
        }
        (hits, far)
    }

    /// A coherent device's read of a host line: true when a host cache had it (a line transfer);
    /// a miss reads the home's memory. Not an I/O hub read, so not counted as one.
    pub fn snoop_read(&mut self, line: u32, now: u64) -> bool {
        let hit = self.sockets.iter().any(|s| s.used && s.hier.dev_read(line));
        if !hit {
            match self.home(line) {
                Some(h) => self.sockets[h].mem.device_read(now),
                None => {
                    let z = self.zone_of(line);
                    self.zones[z].device_access(now);
                }
            }
        }
        hit
    }

    /// A coherent device writes `line` in its own cache: host copies are invalidated (a dirty one
    /// moves to the device). Returns true when a host cache held the line (the write had to take
    /// ownership of it: one line transfer), false when the device already held it or it was in
    /// memory.
    pub fn dev_own(&mut self, dev: usize, line: u32) -> bool {
        if let Some(d) = self.holder(line) {
            if d == dev {
                return false;
            }
            self.set_held(d, line, false);
            self.set_held(dev, line, true);
            return true;
        }
        let cached = self.sockets.iter().any(|s| s.used && s.hier.is_cached(line));
        self.invalidate_all(line);
        self.set_held(dev, line, true);
        cached
    }

    /// A memory-channel device writes `line` of its own zone (the frame lands in its DRAM and,
    /// for a header line, its nCache). Stale host copies are dropped: the host invalidated them
    /// when it handed the buffer over (see [`MemSys::flush`]).
    /// Returns how long the write waited for the zone's DRAM, ps.
    pub fn zone_write(&mut self, line: u32, header: bool, now: u64) -> u64 {
        self.invalidate_all(line);
        let z = self.zone_of(line);
        self.zones[z].device_write(line, header, now)
    }

    /// A core of socket `s` has the memory-channel device holding `src` clone `lines` lines into
    /// `dst` of its zone; `in_subarray`: the device's allocator placed `dst` in `src`'s subarray
    /// (else the clone's mode follows from the two addresses). Host copies of the destination
    /// are dropped. Returns the latency the core sees, ps: the command goes through the LLC to the
    /// memory controller, the clone runs, and the completion poll reads over the channel (a
    /// load-to-use read, its path through the LLC included); from the other socket each of the
    /// two adds a UPI round trip.
    pub fn zone_clone(&mut self, s: usize, src: u32, dst: u32, in_subarray: bool, lines: u32, now: u64) -> u64 {
        for l in 0..lines {
            self.invalidate_all(dst + l);
        }
        let z = self.zone_of(src);
        let zs = self.zones[z].socket;
        let host_rho = self.sockets[zs].mem.load(now);
        let remote = if zs != s { 2 * self.t.upi_ps } else { 0 };
        self.t.llc_ps + 2 * remote + self.zones[z].clone_lines(src, (!in_subarray).then_some(dst), lines, now, host_rho)
    }

    /// A core of socket `s` flushes `line` (CLFLUSHOPT): every socket's copy is dropped, a
    /// dirty one written back.
    /// Returns, for a dirty copy, how long its write-back takes to be accepted by the memory
    /// controller of the line's home, ps: the path of a read from that memory without the DRAM
    /// array access (the controller takes the write into its write queue, so the fence that
    /// follows the flushes waits for the trip, not for the DRAM), plus a UPI round trip to the
    /// other socket's memory; `None` for a clean copy or none. Under load the whole rise of the
    /// read latency is charged to the trip, an upper estimate: a write waits in the controller's
    /// write queue, not behind the DRAM's read queue and bank conflicts.
    pub fn flush(&mut self, s: usize, line: u32, now: u64) -> Option<u64> {
        if !self.invalidate_all(line) {
            return None;
        }
        // The latency a read from the home would have now, then the write-back itself.
        let (home_socket, read) = match self.home(line) {
            Some(h) => {
                let mem = &mut self.sockets[h].mem;
                let read = mem.loaded_latency(now);
                mem.write(now, 1);
                (h, read)
            }
            None => {
                let z = self.zone_of(line);
                let zs = self.zones[z].socket;
                let read = self.zones[z].latency(self.sockets[zs].mem.load(now));
                self.zones[z].host_write(line, now);
                (zs, read)
            }
        };
        let array = (crate::attach::memchan::ARRAY_ACCESS_NS * 1000.0) as u64;
        Some(read.saturating_sub(array) + if home_socket != s { 2 * self.t.upi_ps } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LPP: u64 = LINES_PER_PAGE as u64;
    const HUGE_LINES: u64 = FRAMES_PER_HUGEPAGE * LPP;

    /// A core's read that misses its socket's caches and goes to the other socket's DRAM pays a
    /// UPI round trip more than one from its own socket's DRAM (same DRAM latency, both idle).
    #[test]
    fn a_core_read_from_the_other_sockets_dram_pays_a_upi_round_trip() {
        use crate::cache::Hierarchy;
        use crate::mem::{Mba, Memory};
        let p = crate::cache::tests::small_params();
        // Two pages: the first homed on socket 0, the second on socket 1.
        let pa: Vec<u64> = (0..2 * LPP).collect();
        let socket = || Socket { hier: Hierarchy::new(&p, &pa), mem: Memory::new(90.0, 100.0, &crate::config::SKX_LOAD_CURVE), used: true };
        let t = Timing { cycle_ps: 400.0, l2_ps: 5_000, llc_ps: 30_000, c2c_ps: 50_000, upi_ps: 55_000, remote_cache_ps: 110_000 };
        let mut m = MemSys::new(vec![socket(), socket()], vec![0, 1], Vec::new(), 2, t);
        let mut mba = Mba::new(100, 10.0);
        let (local, served) = m.core_access(0, 0, &mut mba, 5, false, 1_000_000);
        assert_eq!(served, Served::Dram);
        // The DRAM latency is load-to-use: no LLC access on top (a trace of load on one read).
        assert!((90_000..90_100).contains(&local), "local {local} ps");
        let (remote, served) = m.core_access(0, 0, &mut mba, LPP as u32 + 5, false, 1_000_000);
        assert_eq!(served, Served::Dram);
        assert_eq!(remote - local, 2 * 55_000, "local {local} ps, remote {remote} ps");
    }

    #[test]
    fn dpdk_memory_is_contiguous_in_1_gib_frames_and_the_rest_in_scattered_4_kib_pages() {
        let mut s = AddressSpace::new();
        let ws = s.alloc(3 << 20, 0, Region::Other);
        // A home's DPDK memory: a pool bigger than one 1 GiB frame, then a ring packed in a page.
        let pool = s.alloc(600 * (2 << 20), 0, Region::Dpdk);
        let ring = s.alloc(4096, 0, Region::Dpdk);
        let other_home = s.alloc(2 << 20, 1, Region::Dpdk);
        let pa = s.pa_lines(&mut crate::rng::Rng::new(7)).unwrap();
        assert_eq!(pa.len(), s.next_page as usize * LPP as usize);
        let at = |line: u32| pa[line as usize];
        // The pool starts a 1 GiB frame and runs on contiguously, line after line, through its
        // first 512 pages; the 513th page opens another 1 GiB frame.
        let p0 = at(pool);
        assert_eq!(p0 % HUGE_LINES, 0);
        for l in 1..FRAMES_PER_HUGEPAGE * LPP {
            assert_eq!(at(pool + l as u32), p0 + l);
        }
        let next = at(pool + HUGE_LINES as u32);
        assert_eq!(next % HUGE_LINES, 0);
        assert_ne!(next / HUGE_LINES, p0 / HUGE_LINES);
        // Small DPDK regions follow in the same frame; another home gets its own frame.
        assert_eq!(at(ring), next + (600 - 512) * LPP);
        let h1 = at(other_home) / HUGE_LINES;
        assert!(h1 != p0 / HUGE_LINES && h1 != next / HUGE_LINES);
        // The working set: contiguous within each 4 KiB, scattered between them, never inside a
        // DPDK frame.
        let huge = [p0 / HUGE_LINES, next / HUGE_LINES, h1];
        let mut runs = 0;
        for c in 0..(3 << 20) / 4096u32 {
            let first = at(ws + c * 64);
            assert_eq!(first % 64, 0);
            for l in 1..64 {
                assert_eq!(at(ws + c * 64 + l), first + l as u64);
            }
            assert!(!huge.contains(&(first / HUGE_LINES)));
            if c > 0 && first == at(ws + c * 64 - 1) + 1 {
                runs += 1;
            }
        }
        assert!(runs < 3, "{runs} chunks follow their predecessor physically");
        // Deterministic in the seed.
        assert_eq!(pa, s.pa_lines(&mut crate::rng::Rng::new(7)).unwrap());
        assert_ne!(pa, s.pa_lines(&mut crate::rng::Rng::new(8)).unwrap());
    }

    /// Two used sockets of `small_params` hierarchies: page 0 homed on socket 0, page 1 on
    /// socket 1.
    fn two_sockets() -> MemSys {
        use crate::cache::Hierarchy;
        use crate::mem::Memory;
        let p = crate::cache::tests::small_params();
        let pa: Vec<u64> = (0..2 * LPP).collect();
        let socket = || Socket { hier: Hierarchy::new(&p, &pa), mem: Memory::new(90.0, 100.0, &crate::config::SKX_LOAD_CURVE), used: true };
        let t = Timing { cycle_ps: 400.0, l2_ps: 5_000, llc_ps: 30_000, c2c_ps: 50_000, upi_ps: 55_000, remote_cache_ps: 110_000 };
        MemSys::new(vec![socket(), socket()], vec![0, 1], Vec::new(), 1, t)
    }

    /// A transmit read of a frame homed on the NIC's socket is served there unless some line of
    /// it is only in the other socket's caches: then the read crosses UPI (not local).
    #[test]
    fn a_frame_cached_only_on_the_other_socket_is_not_served_locally() {
        use crate::attach::{hub_fetch, Dev, TxDma};
        let dev = Dev { socket: 0, ddio: true, io_mask: 0x600, ddio_lines: u32::MAX, stash_lines: 0 };
        let frame = |data_line, wqe_line, segs| TxDma { queue: 0, idx_line: 0, posted_at: 0, pos: 0, n: 64, wqe_line, cq_line: 0, data_line, payload: 128, inline: false, seg: 0, segs, completion: None, now: 0 };
        let mut m = two_sockets();
        let mut mba = crate::mem::Mba::new(100, 10.0);
        // Lines 10..12 and 30 are homed on socket 0 (the NIC's): written there by the device;
        // lines 20..22 and 40 read by a core of socket 1, which caches them there alone.
        m.dev_write_lines(0, true, 0x600, 10, 2, 0);
        m.dev_write_lines(0, true, 0x600, 30, 1, 0);
        for l in [20, 21, 40] {
            m.core_access(1, 0, &mut mba, l, false, 0);
        }
        assert!(!m.sockets[0].hier.is_cached(20) && m.sockets[1].hier.is_cached(20));
        assert_eq!(hub_fetch(&mut m, dev, &frame(10, 30, 1)), (true, None), "all in the NIC's socket");
        assert_eq!(hub_fetch(&mut m, dev, &frame(20, 30, 1)), (false, None), "payload hits, but across UPI");
        assert_eq!(hub_fetch(&mut m, dev, &frame(10, 40, 1)), (false, None), "its WQE line across UPI");
        assert_eq!(m.dev_read_lines(0, 20, 2, 0), (2, 2));
        // A line homed on socket 1, whose caches alone are in use: a hit there is far for a
        // device on socket 0, near for one on socket 1.
        m.core_access(1, 0, &mut mba, LPP as u32 + 5, false, 0);
        m.sockets[0].used = false;
        assert_eq!(m.dev_read_lines(0, LPP as u32 + 5, 1, 0), (1, 1));
        assert_eq!(m.dev_read_lines(1, LPP as u32 + 5, 1, 0), (1, 0));
    }

    /// DDIO allocates only for lines homed on the NIC's socket: those are counted as write hits
    /// and misses and cost no DRAM write; a line homed on the other socket bypasses the caches
    /// and is written to its home's DRAM, counted as a bypass.
    #[test]
    fn dma_writes_allocate_only_in_the_local_home_and_otherwise_go_to_dram() {
        let mut m = two_sockets();
        m.dev_write_lines(0, true, 0x600, 5, 1, 0);
        assert!(m.sockets[0].hier.llc_way(5).is_some(), "allocated in the local LLC");
        m.dev_write_lines(0, true, 0x600, 5, 2, 0);
        assert_eq!((m.c.wr_hit, m.c.wr_miss, m.c.wr_bypass), (1, 2, 0));
        assert_eq!(m.sockets[0].mem.write_lines, 0, "allocating writes do not go to DRAM");
        let remote = LPP as u32 + 5;
        m.dev_write_lines(0, true, 0x600, remote, 3, 0);
        assert_eq!((m.c.wr_hit, m.c.wr_miss, m.c.wr_bypass), (1, 2, 3));
        assert!((remote..remote + 3).all(|l| !m.sockets[0].hier.is_cached(l) && !m.sockets[1].hier.is_cached(l)));
        assert_eq!(m.sockets[1].mem.write_lines, 3, "written to the home's DRAM");
        // DDIO off on the port: the local line goes to DRAM too.
        m.dev_write_lines(0, false, 0x600, 20, 2, 0);
        assert_eq!(m.c.wr_bypass, 5);
        assert_eq!(m.sockets[0].mem.write_lines, 2);
        assert!(!m.sockets[0].hier.is_cached(20));
    }

    /// Coherence across sockets: a DMA write drops the other socket's copy, and so does a core's
    /// store served by the other socket's caches (a load leaves it).
    #[test]
    fn dma_writes_and_remote_stores_invalidate_the_other_sockets_copy() {
        let mut m = two_sockets();
        let mut mba = crate::mem::Mba::new(100, 10.0);
        // A core of socket 1 reads line 5 (homed on socket 0).
        assert_eq!(m.core_access(1, 0, &mut mba, 5, false, 0).1, Served::Dram);
        assert!(m.sockets[1].hier.is_cached(5));
        m.dev_write_lines(0, true, 0x600, 5, 1, 0);
        assert!(!m.sockets[1].hier.is_cached(5), "the DMA write invalidated socket 1's copy");
        assert!(m.sockets[0].hier.is_cached(5));
        // Line 6: socket 1 caches it; socket 0's load leaves that copy, its store drops it.
        m.core_access(1, 0, &mut mba, 6, false, 0);
        // The measured remote cache-to-cache latency, not a sum of LLC and UPI parts.
        assert_eq!(m.core_access(0, 0, &mut mba, 6, false, 0), (110_000, Served::RemoteCache));
        for (preset, ns) in [("skylake-gold-6140", 114.0), ("haswell-e5-2699v3", 106.5)] {
            let p = crate::config::Platform::preset(preset).expect(preset);
            assert_eq!(Timing::of(&p).remote_cache_ps, (ns * 1000.0) as u64, "{preset}");
        }
        assert!(m.sockets[1].hier.is_cached(6), "a remote load keeps the copy");
        m.core_access(1, 1, &mut mba, 7, false, 0);
        assert_eq!(m.core_access(0, 1, &mut mba, 7, true, 0).1, Served::RemoteCache);
        assert!(!m.sockets[1].hier.is_cached(7), "a remote store invalidates the copy");
    }

    /// Flushing a dirty line homed on the other socket costs a UPI round trip more than one
    /// homed locally (both memories equally loaded); a clean or uncached line costs nothing.
    #[test]
    fn flushing_a_line_of_the_other_sockets_memory_pays_a_upi_round_trip() {
        let mut m = two_sockets();
        let mut mba = crate::mem::Mba::new(100, 10.0);
        let remote = LPP as u32 + 5;
        m.core_access(0, 0, &mut mba, 5, true, 0);
        m.core_access(0, 1, &mut mba, remote, true, 0);
        assert_eq!(m.flush(0, 9, 0), None, "nothing cached");
        let local = m.flush(0, 5, 0).expect("a dirty copy");
        let far = m.flush(0, remote, 0).expect("a dirty copy");
        assert_eq!(far - local, 2 * 55_000, "local {local} ps, remote {far} ps");
        assert!(!m.sockets[0].hier.is_cached(5) && !m.sockets[0].hier.is_cached(remote));
    }

    /// A coherent device taking a line drops every host copy.
    #[test]
    fn a_coherent_device_taking_a_line_invalidates_host_copies() {
        let mut m = two_sockets();
        let mut mba = crate::mem::Mba::new(100, 10.0);
        m.core_access(0, 0, &mut mba, 5, false, 0);
        m.core_access(1, 0, &mut mba, 5, false, 0);
        assert!(m.dev_own(0, 5), "a host cache held it");
        assert_eq!(m.holder(5), Some(0));
        assert!(!m.sockets[0].hier.is_cached(5) && !m.sockets[1].hier.is_cached(5));
        assert!(!m.dev_own(0, 5), "already held");
    }
}
