//! Python binding of the simulator's cache hierarchy for trace-driven use: the same
//! `hostio_sim::cache::Hierarchy` the engine drives (DDIO, CAT, recycled-line region), fed with
//! byte addresses. Addresses are taken as physical: bits 6.. pick the set and the slice hash,
//! and each 2 MiB page gets directory entries the first time the trace touches it.
use crate::config_err;
use hostio_sim::cache::{HierParams, Hierarchy, Src};
use hostio_sim::ConfigError;
use pyo3::buffer::{PyBuffer, ReadOnlyCell};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::{HashMap, HashSet};

const PAGE_SHIFT: u32 = 21;
const LINES_PER_PAGE: u64 = 1 << (PAGE_SHIFT - 6);
/// Slots of `TraceCache::recent`.
const RECENT: usize = 64;
/// Calls touching at most this many pages (by their span or their count) are not counted page
/// by page (`TraceCache::new_pages`): a speed choice, trading at most 64 pages' worth (16 MiB) of
/// directory reserved ahead for no hashing on small or compact calls.
const SPAN_BOUND: usize = 64;

/// Hit levels returned per access.
const MEM: u8 = 0;
const L2: u8 = 1;
const OTHER_L2: u8 = 2;
const LLC: u8 = 3;
const KINDS: [&str; 4] = ["core_read", "core_write", "dev_write", "dev_read"];
/// Accesses per block of `TraceCache::run`.
const BLOCK: usize = 16384;
/// How far ahead `run_kind` prefetches directory entries.
const DIR_AHEAD: usize = 16;

/// Page numbers are small integers: a multiplicative hash is enough (no SipHash per access).
#[derive(Default)]
struct PageHasher(u64);
impl std::hash::Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
}

#[pyclass(module = "hostio._core")]
pub struct TraceCache {
    h: Hierarchy,
    cores: usize,
    llc_ways: u32,
    allocating: bool,
    pages: HashMap<u64, u32, std::hash::BuildHasherDefault<PageHasher>>,
    /// One page's physical line addresses, for `Hierarchy::add_lines` (reused, so adding a page
    /// allocates nothing beyond what `access` reserved).
    pa: Vec<u64>,
    /// Recently used pages and their first line, by page number modulo RECENT (the map is the
    /// fallback: most traces touch few pages, often in turn).
    recent: [(u64, u32); RECENT],
    /// Accesses by kind and hit level.
    counts: [[u64; 4]; 4],
    /// What resolving the platform warned about (e.g. a slice map that does not fit).
    warnings: Vec<String>,
    /// New pages the running `access` call counted and reserved room for; a page beyond them
    /// (the caller's array changed after it was counted) sets `changed` instead of growing the
    /// directory.
    room: usize,
    changed: bool,
}

/// Distinct 2 MiB pages one hierarchy holds: simulated line numbers are 32-bit.
const MAX_PAGES: usize = (1usize << 32) / LINES_PER_PAGE as usize - 1;

impl TraceCache {
    #[inline]
    fn line(&mut self, addr: u64) -> u32 {
        if self.changed {
            return 0; // the block is not simulated: no more pages for it
        }
        let page = addr >> PAGE_SHIFT;
        let off = ((addr >> 6) & (LINES_PER_PAGE - 1)) as u32;
        let slot = &self.recent[(page % RECENT as u64) as usize];
        if slot.0 == page {
            return slot.1 + off;
        }
        let base = match self.pages.get(&page) {
            Some(&b) => b,
            None if self.room == 0 => {
                // Not counted at the call's start: the block holding it is not simulated.
                self.changed = true;
                return 0;
            }
            None => {
                self.room -= 1;
                let b = self.h.lines() as u32;
                // Within the room `access` reserved: no allocation here.
                let mut pa = std::mem::take(&mut self.pa);
                pa.clear();
                pa.extend((0..LINES_PER_PAGE).map(|l| (page << (PAGE_SHIFT - 6)) + l));
                self.h.add_lines(&pa);
                self.pa = pa;
                self.pages.insert(page, b);
                b
            }
        };
        self.recent[(page % RECENT as u64) as usize] = (page, base);
        base + off
    }

    /// How many distinct 2 MiB pages of `addrs` have no directory entries yet, counted up to one
    /// past what `MAX_PAGES` allows (so the count's own memory stays bounded). When a bound on
    /// them (the span of `addrs`'s pages, or the number of addresses if smaller) is at most
    /// `SPAN_BOUND` and leaves the total within `MAX_PAGES`, the bound is returned instead: found
    /// in one pass without hashing, it over-counts by at most `SPAN_BOUND` pages.
    fn new_pages(&self, addrs: &[ReadOnlyCell<u64>]) -> usize {
        let (lo, hi) = addrs.iter().fold((u64::MAX, 0), |(lo, hi), a| (lo.min(a.get()), hi.max(a.get())));
        if addrs.is_empty() {
            return 0;
        }
        let bound = (((hi >> PAGE_SHIFT) - (lo >> PAGE_SHIFT)) as usize + 1).min(addrs.len());
        if bound <= SPAN_BOUND && self.pages.len() + bound <= MAX_PAGES {
            return bound;
        }
        let mut new: HashSet<u64, std::hash::BuildHasherDefault<PageHasher>> = HashSet::default();
        let mut last = u64::MAX;
        for a in addrs {
            let page = a.get() >> PAGE_SHIFT;
            if page != last && !self.pages.contains_key(&page) && new.insert(page) && self.pages.len() + new.len() > MAX_PAGES {
                break;
            }
            last = page;
        }
        new.len()
    }

    /// Line numbers of `addrs`, in order (pages get directory entries in order of first use).
    fn lines_of(&mut self, addrs: &[ReadOnlyCell<u64>], out: &mut Vec<u32>) {
        out.clear();
        out.extend(addrs.iter().map(|a| self.line(a.get())));
    }

    /// Access `addrs` with access kind `kind` from `core`, one hit level into `out` each. Addresses
    /// become line numbers a block at a time with the GIL held; each block is then simulated
    /// without it. The addresses are the caller's, read in place: `room` new pages were counted
    /// and reserved for them, and a block that reaches a page beyond those (another thread
    /// changed the array meanwhile) is not simulated: the call stops there and returns false.
    fn run(&mut self, py: Python<'_>, addrs: &[ReadOnlyCell<u64>], kind: usize, core: usize, out: &mut [u8]) -> bool {
        let n = out.len();
        let mut lines = Vec::with_capacity(BLOCK + DIR_AHEAD);
        self.changed = false;
        for s in (0..n).step_by(BLOCK) {
            let e = (s + BLOCK).min(n);
            // This block's lines and the next DIR_AHEAD (looked up again with the next block).
            self.lines_of(&addrs[s..(e + DIR_AHEAD).min(n)], &mut lines);
            if self.changed {
                self.h.take_writebacks();
                return false;
            }
            let first = s == 0;
            let block = &mut out[s..e];
            py.allow_threads(|| match kind {
                0 => self.run_kind::<0>(&lines, core, block, first),
                1 => self.run_kind::<1>(&lines, core, block, first),
                2 => self.run_kind::<2>(&lines, core, block, first),
                3 => self.run_kind::<3>(&lines, core, block, first),
                _ => unreachable!("checked"),
            });
        }
        self.h.take_writebacks();
        true
    }

    /// One block of `run` for one access kind: `lines` holds the block's lines and up to
    /// DIR_AHEAD more. Device writes go as one batch ([`Hierarchy::dev_write_each`]); the other
    /// kinds go line by line behind a software pipeline that prefetches directory entries
    /// DIR_AHEAD accesses ahead and set records SET_AHEAD ahead, so the host's cache misses of
    /// independent accesses overlap (hints only).
    fn run_kind<const K: usize>(&mut self, lines: &[u32], core: usize, out: &mut [u8], first: bool) {
        const SET_AHEAD: usize = 8;
        let mut counts = [0u64; 4];
        if K == 2 {
            let io_mask = self.h.io_mask();
            self.h.dev_write_each(&lines[..out.len()], self.allocating, io_mask, |i, src| {
                let lvl = match src {
                    Src::Llc => LLC,
                    Src::L2 => L2,
                    Src::Mem => MEM,
                    Src::OtherL2 => unreachable!("a device write names no other core's L2"),
                };
                counts[lvl as usize] += 1;
                out[i] = lvl;
            });
        } else {
            if first {
                for &l in lines.iter().take(DIR_AHEAD) {
                    self.h.prefetch_dir(l);
                }
            }
            for (j, o) in out.iter_mut().enumerate() {
                if let Some(&l) = lines.get(j + DIR_AHEAD) {
                    self.h.prefetch_dir(l);
                }
                if let Some(&l) = lines.get(j + SET_AHEAD) {
                    self.h.prefetch(l);
                }
                let line = lines[j];
                let lvl = if K < 2 {
                    match self.h.core_access(core, line, K == 1) {
                        Src::L2 => L2,
                        Src::OtherL2 => OTHER_L2,
                        Src::Llc => LLC,
                        Src::Mem => MEM,
                    }
                } else if self.h.llc_way(line).is_some() {
                    LLC
                } else if self.h.l2_owner(line).is_some() {
                    L2
                } else {
                    self.h.dev_read_missed(line);
                    MEM
                };
                counts[lvl as usize] += 1;
                *o = lvl;
            }
        }
        for (c, k) in self.counts[K].iter_mut().zip(counts) {
            *c += k;
        }
    }
}

#[pymethods]
impl TraceCache {
    /// Build one socket's hierarchy from a preset and `platform.KEY=VALUE` overrides.
    #[new]
    fn new(preset: &str, overrides: Vec<String>) -> PyResult<TraceCache> {
        // The platform is resolved as a scenario's is (a scenario needs an app; it is not used).
        let text = format!("[platform]\npreset = {}\n[apps.trace]\nkind = \"cache-hungry\"\nworking_set_mib = 1\naccesses_per_us = 1\n", toml::Value::String(preset.to_string()));
        let sc = hostio_sim::parse_scenario(&text, &overrides).map_err(config_err)?;
        let r = sc.resolve().map_err(config_err)?;
        let p = &r.platform;
        let params = HierParams {
            slices: p.llc_slices,
            sets_per_slice: p.llc_sets_per_slice(),
            ways: p.llc_ways,
            l2_sets: p.l2_sets(),
            l2_ways: p.l2_ways,
            cores: p.cores_per_socket,
            inclusive: p.llc_inclusive,
            io_mask: r.io_mask,
            recycled_mask: p.recycled_io_mask.unwrap_or(0),
            policy: r.replacement,
            seed: r.scenario.run.seed,
            hash: p.slice_hash,
            adaptive_io: r.scenario.platform.ddio_insertion == hostio_sim::config::DdioInsertion::Adaptive,
        };
        Ok(TraceCache {
            h: Hierarchy::new(&params, &[]),
            cores: p.cores_per_socket as usize,
            llc_ways: p.llc_ways,
            allocating: r.scenario.platform.ddio && r.io_mask != 0,
            pages: HashMap::default(),
            pa: Vec::new(),
            recent: [(u64::MAX, 0); RECENT],
            counts: [[0; 4]; 4],
            warnings: r.warnings.clone(),
            room: 0,
            changed: false,
        })
    }

    /// Access each byte address in `addrs` (a C-contiguous buffer of u64) with `kind` from
    /// `core`; returns one hit level byte per address.
    fn access<'py>(&mut self, py: Python<'py>, addrs: PyBuffer<u64>, kind: &str, core: usize) -> PyResult<Bound<'py, PyBytes>> {
        let k = KINDS.iter().position(|&n| n == kind).ok_or_else(|| {
            config_err(ConfigError::new("kind", format!("{kind:?}"), format!("one of {}", KINDS.join(", "))))
        })?;
        if core >= self.cores {
            return Err(config_err(ConfigError::new("core", core, format!("0..={} (cores per socket: {})", self.cores - 1, self.cores))));
        }
        let addrs = addrs.as_slice(py).ok_or_else(|| {
            config_err(ConfigError::new("addresses", "a strided buffer", "a C-contiguous array"))
        })?;
        let new = self.new_pages(addrs);
        let held = self.pages.len();
        if held + new > MAX_PAGES {
            // `new` was counted only until the limit was passed.
            return Err(config_err(ConfigError::new(
                "addresses",
                format!("at least {new} new 2 MiB pages with {held} already held"),
                format!("at most {MAX_PAGES} distinct 2 MiB pages (256 GiB) in one hierarchy's lifetime"),
            )));
        }
        // Room for the new pages (directory entries, the page map, one page's addresses) is
        // taken before anything changes, so an allocator that refuses it (an address-space limit,
        // strict overcommit) refuses the call instead of failing halfway.
        let room = if new == 0 {
            Ok(())
        } else {
            self.h
                .try_reserve_lines(new * LINES_PER_PAGE as usize)
                .and_then(|_| self.pages.try_reserve(new))
                .and_then(|_| {
                    self.pa.clear();
                    self.pa.try_reserve(LINES_PER_PAGE as usize)
                })
        };
        room.map_err(|_| {
            let kib = LINES_PER_PAGE * 8 / 1024;
            config_err(ConfigError::new(
                "addresses",
                format!("{new} new 2 MiB page{}", if new == 1 { "" } else { "s" }),
                format!(
                    "as many as the process may allocate ({kib} KiB of directory per page; growing the directory of the {held} pages held \
                     may copy all of it, {} MiB, while both copies exist)",
                    held as u64 * kib / 1024
                ),
            ))
        })?;
        self.room = new;
        // The bytes object is filled in place: nothing else can see it before it is returned.
        PyBytes::new_with(py, addrs.len(), |out| {
            if self.run(py, addrs, k, core, out) {
                Ok(())
            } else {
                Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "addresses: the array changed while access() read it (it reached 2 MiB pages not counted at the call's start); \
                     the accesses before that block were simulated, the rest not: keep the array unchanged until the call returns",
                ))
            }
        })
    }

    /// The LLC set (`slice * sets_per_slice + set`) of each byte address in `addrs`, as the
    /// hierarchy places it, as little-endian u32s; touches no state.
    fn llc_sets<'py>(&self, py: Python<'py>, addrs: PyBuffer<u64>) -> PyResult<Bound<'py, PyBytes>> {
        let addrs = addrs.as_slice(py).ok_or_else(|| {
            config_err(ConfigError::new("addresses", "a strided buffer", "a C-contiguous array"))
        })?;
        PyBytes::new_with(py, 4 * addrs.len(), |out| {
            for (o, a) in out.chunks_exact_mut(4).zip(addrs) {
                o.copy_from_slice(&self.h.llc_set_of_pa(a.get() >> 6).to_le_bytes());
            }
            Ok(())
        })
    }

    /// Set a core's CAT fill mask.
    fn set_cat(&mut self, core: usize, mask: u32) -> PyResult<()> {
        if core >= self.cores {
            return Err(config_err(ConfigError::new("core", core, format!("0..={} (cores per socket: {})", self.cores - 1, self.cores))));
        }
        let full = hostio_sim::config::full_mask(self.llc_ways);
        if mask == 0 || mask & !full != 0 || !hostio_sim::config::is_contiguous(mask) {
            // As a scenario's `cat_mask`: Intel's CAT takes contiguous masks only.
            return Err(config_err(ConfigError::new("mask", format!("{mask:#x}"), format!("a nonzero contiguous mask within the {} LLC ways ({full:#x})", self.llc_ways))));
        }
        self.h.set_cat(core, mask);
        Ok(())
    }

    /// Cores of the socket (core indices are `0..cores`).
    #[getter]
    fn cores(&self) -> usize {
        self.cores
    }

    /// What resolving the platform warned about.
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// (accesses by kind and level, writebacks, io_allocations, io_evictions, pages).
    fn counters(&self) -> ([[u64; 4]; 4], u64, u64, u64, usize) {
        let s = &self.h.stats;
        (self.counts, s.writebacks, s.io_allocations, s.io_evictions, self.pages.len())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TraceCache>()
}
