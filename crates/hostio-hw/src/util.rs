//! OS and timing helpers shared by the measurements: TSC timing calibrated against
//! `CLOCK_MONOTONIC`, thread pinning with `sched_setaffinity`, cache-line aligned buffers with a
//! transparent-huge-page hint, a seeded RNG and robust statistics.
//!
//! Why the TSC: every measurement here is tens of nanoseconds per event; `clock_gettime` costs
//! about 20 ns through the vDSO while `rdtsc` costs a few. On every x86 CPU of the last decade the
//! TSC is invariant (`constant_tsc`, `nonstop_tsc` in `/proc/cpuinfo`): it ticks at the nominal
//! frequency whatever the core clock, so cycles convert to nanoseconds with one calibrated factor.
use crate::{HwError, Result};
use serde::{Deserialize, Serialize};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Read the time-stamp counter. Not serialising: callers time many events between two reads, so
/// the few cycles of reordering at the edges do not matter.
#[inline(always)]
pub fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Elsewhere fall back to a monotonic nanosecond count (calibrates to 1.0 ticks/ns).
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// TSC ticks per nanosecond (= GHz), measured once per process: three 20 ms windows of
/// `CLOCK_MONOTONIC` (std's `Instant`) against the TSC, median taken.
pub fn tsc_ghz() -> f64 {
    static GHZ: OnceLock<f64> = OnceLock::new();
    *GHZ.get_or_init(|| {
        let mut v: Vec<f64> = (0..3)
            .map(|_| {
                let i0 = Instant::now();
                let t0 = rdtsc();
                std::thread::sleep(Duration::from_millis(20));
                let t1 = rdtsc();
                let ns = i0.elapsed().as_nanos() as f64;
                (t1.wrapping_sub(t0)) as f64 / ns
            })
            .collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v[1]
    })
}

/// Convert a TSC delta to nanoseconds.
#[inline]
pub fn ticks_to_ns(ticks: u64) -> f64 {
    ticks as f64 / tsc_ghz()
}

/// The CPUs this process may run on (its affinity mask), ascending.
pub fn allowed_cpus() -> Vec<usize> {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return vec![0];
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// Pin the calling thread to one CPU. Measurements always run on threads they spawn, so the
/// caller's (Python's) affinity is never changed.
pub fn pin_current(cpu: usize) -> Result<()> {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(HwError::Os(format!(
                "cannot pin a thread to cpu {cpu}: {}",
                std::io::Error::last_os_error()
            )));
        }
    }
    Ok(())
}

/// Check that `cpus` are all allowed; `key` names the option in the error.
pub fn check_cpus(key: &str, cpus: &[usize]) -> Result<()> {
    let allowed = allowed_cpus();
    for c in cpus {
        if !allowed.contains(c) {
            return Err(HwError::config(key, c, &format!("one of the allowed cpus {allowed:?}")));
        }
    }
    Ok(())
}

/// Zeroed memory aligned to at least a cache line. Buffers of 64 KiB and more are mapped with
/// `mmap`, rounded up and aligned to 2 MiB and advised `MADV_HUGEPAGE` *before* the first
/// touch, so pointer chasing measures the caches and DRAM rather than page walks (with 4 KiB
/// pages a random chase over 1 MiB already outgrows the first-level DTLB, and 128 MiB misses
/// the STLB on almost every load; under a hypervisor each miss is a two-dimensional walk).
pub struct AlignedBuf {
    ptr: *mut u8,
    size: usize,
    /// `Some((map base, map length))` when mapped, `None` when from the global allocator.
    map: Option<(*mut libc::c_void, usize)>,
    layout: Layout,
}

unsafe impl Send for AlignedBuf {}
unsafe impl Sync for AlignedBuf {}

const HUGE: usize = 2 << 20;
const MAP_FROM: usize = 64 << 10;

impl AlignedBuf {
    pub fn new(bytes: usize) -> Self {
        if bytes >= MAP_FROM {
            let size = bytes.div_ceil(HUGE) * HUGE;
            let len = size + HUGE;
            let base = unsafe {
                libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
            };
            assert!(base != libc::MAP_FAILED, "out of memory mapping {len} bytes");
            let ptr = ((base as usize).div_ceil(HUGE) * HUGE) as *mut u8;
            unsafe {
                libc::madvise(ptr as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
                // Touch every page now so page faults never land inside a timed region.
                std::ptr::write_bytes(ptr, 0, size);
            }
            let layout = Layout::from_size_align(size, HUGE).expect("buffer layout");
            return AlignedBuf { ptr, size, map: Some((base, len)), layout };
        }
        let layout = Layout::from_size_align(bytes.max(64).div_ceil(128) * 128, 128).expect("buffer layout");
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory allocating {} bytes", layout.size());
        AlignedBuf { ptr, size: layout.size(), map: None, layout }
    }
    pub fn len(&self) -> usize {
        self.size
    }
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        match self.map {
            Some((base, len)) => unsafe {
                libc::munmap(base, len);
            },
            None => unsafe { dealloc(self.ptr, self.layout) },
        }
    }
}

/// SplitMix64: tiny, seedable, good enough to shuffle line orders.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0); the modulo bias is below 2^-40 for the sizes used here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Sattolo's algorithm: a uniformly random permutation that is one single cycle, so a pointer
/// chase started anywhere visits every line before repeating.
pub fn cyclic_permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut a: Vec<u32> = (0..n as u32).collect();
    let mut rng = Rng::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i);
        a.swap(i, j);
    }
    a
}

/// Median, extremes and percentiles of a set of samples (ns, GB/s, ...).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub p10: f64,
    pub p90: f64,
    pub p99: f64,
    pub n: usize,
}

impl Summary {
    pub fn of(samples: &[f64]) -> Summary {
        assert!(!samples.is_empty(), "no samples");
        let mut v = samples.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        Summary { median: q(0.5), min: v[0], max: v[v.len() - 1], p10: q(0.1), p90: q(0.9), p99: q(0.99), n: v.len() }
    }
    /// Relative spread (p90 − p10) / median: how much to trust the median.
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 {
            (self.p90 - self.p10) / self.median
        } else {
            0.0
        }
    }
}

/// Busy-wait hint that yields the CPU now and then: on an oversubscribed machine (two vCPUs
/// shared with compilers) a pure spin could wait for a descheduled partner for a whole
/// time slice; yielding every 2^16 spins bounds that without touching the fast path.
#[inline(always)]
pub fn spin(count: &mut u32) {
    *count = count.wrapping_add(1);
    if *count & 0xFFFF == 0 {
        std::thread::yield_now();
    } else {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sattolo_is_one_cycle() {
        for n in [1usize, 2, 3, 64, 1000] {
            let p = cyclic_permutation(n, 7);
            let mut seen = vec![false; n];
            let mut i = 0usize;
            for _ in 0..n {
                assert!(!seen[i]);
                seen[i] = true;
                i = p[i] as usize;
            }
            assert_eq!(i, 0, "cycle closes after n steps");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn permutation_is_seeded() {
        assert_eq!(cyclic_permutation(100, 1), cyclic_permutation(100, 1));
        assert_ne!(cyclic_permutation(100, 1), cyclic_permutation(100, 2));
    }

    #[test]
    fn summary_percentiles() {
        let v: Vec<f64> = (1..=101).map(|x| x as f64).collect();
        let s = Summary::of(&v);
        assert_eq!(s.median, 51.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 101.0);
        assert_eq!(s.p10, 11.0);
        assert_eq!(s.p99, 100.0);
    }

    #[test]
    fn aligned_buffers() {
        let b = AlignedBuf::new(1000);
        assert_eq!(b.as_ptr() as usize % 64, 0);
        let b = AlignedBuf::new(4 << 20);
        assert_eq!(b.as_ptr() as usize % (2 << 20), 0);
    }

    #[test]
    fn tsc_frequency_is_plausible() {
        let g = tsc_ghz();
        assert!(g > 0.5 && g < 10.0, "{g}");
    }
}
