//! Probe: what one core sees of the memory hierarchy, and what two cores pay to share a line.
//!
//! **Load-to-use latency by working set.** A buffer of `bytes` is cut into 64 B lines; each line
//! holds a pointer to the next line of a random cyclic permutation (Sattolo's algorithm, seeded).
//! Every load depends on the previous one, so the time per load is the full latency of the level
//! that holds the working set, and random order defeats the stride prefetchers (lmbench
//! `lat_mem_rd -t`, Intel Memory Latency Checker). Buffers of 64 KiB and more are mapped on
//! their own and advised transparent huge pages, so DRAM-sized sets measure DRAM rather than
//! page walks. An untimed chase of min(lines, loads) loads warms the set (a whole traversal
//! up to the default cap of 4 Mi loads); then `reps` timed runs, median taken.
//!
//! **Plateaus.** The curve is flat while the set fits a level and steps up past it. The level
//! latency is the median of the points well inside the level (≤ half its capacity, ≥ twice the
//! previous one; for DRAM the points ≥ 4 × LLC, or ≥ 2 × LLC when none was measured; for the LLC only the points still below the geometric mean of the L2 and DRAM
//! latencies, because the usable LLC can be much smaller than the nominal one); the *detected*
//! size of a level is the largest working set whose latency stays below the geometric mean of
//! this level's and the next level's latency.
//!
//! **Core-to-core.** (a) Ping-pong: two pinned threads take turns incrementing one 64 B line;
//! each turn moves the line from the writer's cache to the reader's, so one-way = round trip / 2
//! (the method of Schuh et al.'s CC-NIC §3 measurements and of `c2clat`). (b) Modified read: the
//! other core writes a random chain of lines (leaving them Modified in its private cache), then
//! this core chases them; time per load = latency of reading a line held Modified elsewhere
//! (CC-NIC Fig. 7's "remote L2, M state").
//!
//! **Bandwidth.** Each thread streams over its own share of a buffer much larger than the LLC:
//! read = 8 independent 64-bit accumulators (vectorised), write = `memset`, copy = `memcpy`
//! (counted as read + write bytes, as STREAM does). Reported in GB/s (1e9 bytes/s).
use crate::util::{self, rdtsc, ticks_to_ns, AlignedBuf, Summary};
use crate::{HwError, Result};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;

const LINE: usize = 64;

/// One pointer-chasing measurement.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChaseConfig {
    /// Working-set size in bytes (≥ 4 KiB).
    pub bytes: usize,
    /// Seed of the line permutation.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// CPU to pin the measuring thread to; `None` = not pinned.
    #[serde(default)]
    pub cpu: Option<usize>,
    /// Timed repetitions (≥ 1).
    #[serde(default = "default_reps")]
    pub reps: usize,
    /// Loads per repetition; default max(2 × lines, 64 Ki) capped at 4 Mi.
    #[serde(default)]
    pub loads: Option<usize>,
}

fn default_seed() -> u64 {
    1
}
fn default_reps() -> usize {
    5
}

/// Latency of one working-set size, ns per load over the repetitions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChasePoint {
    pub bytes: usize,
    pub ns: Summary,
}

/// Build the chain in `buf` over `lines` lines; returns the first line.
fn build_chain(buf: &AlignedBuf, lines: usize, seed: u64) -> *const usize {
    let next = util::cyclic_permutation(lines, seed);
    let base = buf.as_ptr();
    for (i, &n) in next.iter().enumerate() {
        unsafe { *(base.add(i * LINE) as *mut usize) = base.add(n as usize * LINE) as usize };
    }
    base as *const usize
}

/// Follow `loads` pointers from `p`; returns where it stopped (so the chase resumes there).
#[inline(never)]
fn chase_loads(mut p: *const usize, loads: usize) -> *const usize {
    // Unrolled by 8 so loop overhead is hidden behind the dependent loads.
    for _ in 0..loads / 8 {
        unsafe {
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
            p = *p as *const usize;
        }
    }
    black_box(p)
}

fn check_chase(cfg: &ChaseConfig) -> Result<()> {
    if cfg.bytes < 4096 {
        return Err(HwError::config("bytes", cfg.bytes, "a working set of at least 4096 bytes"));
    }
    if cfg.reps == 0 {
        return Err(HwError::config("reps", 0, "at least 1 repetition"));
    }
    if let Some(c) = cfg.cpu {
        util::check_cpus("cpu", &[c])?;
    }
    Ok(())
}

/// A built chain, ready to be timed.
struct Chain {
    _buf: AlignedBuf,
    start: *const usize,
    lines: usize,
    loads: usize,
}

unsafe impl Send for Chain {}

fn prepare_chain(cfg: &ChaseConfig) -> Chain {
    let lines = cfg.bytes / LINE;
    let buf = AlignedBuf::new(lines * LINE);
    let start = build_chain(&buf, lines, cfg.seed);
    let loads = cfg.loads.unwrap_or((2 * lines).clamp(1 << 16, 1 << 22)).max(8);
    Chain { _buf: buf, start, lines, loads }
}

fn time_chain(cfg: &ChaseConfig, ch: &Chain) -> ChasePoint {
    let mut p = chase_loads(ch.start, ch.lines.min(ch.loads).max(8)); // warm-up traversal
    let mut samples = Vec::with_capacity(cfg.reps);
    for _ in 0..cfg.reps {
        let t0 = rdtsc();
        p = chase_loads(p, ch.loads);
        let t1 = rdtsc();
        samples.push(ticks_to_ns(t1 - t0) / (ch.loads / 8 * 8) as f64);
    }
    ChasePoint { bytes: cfg.bytes, ns: Summary::of(&samples) }
}

fn chase_on_this_thread(cfg: &ChaseConfig) -> ChasePoint {
    time_chain(cfg, &prepare_chain(cfg))
}

/// Pointer-chasing latency of one working-set size, on a pinned thread.
pub fn chase(cfg: &ChaseConfig) -> Result<ChasePoint> {
    check_chase(cfg)?;
    std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(c) = cfg.cpu {
                util::pin_current(c)?;
            }
            Ok(chase_on_this_thread(cfg))
        })
        .join()
        .expect("chase thread panicked")
    })
}

/// Loaded latency: the chase of `cfg` runs while one thread on each of `stream_cpus` reads its
/// share of `stream_bytes` in a loop (bandwidth hogs on the other cores, as Intel MLC's
/// `--loaded_latency` does).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadedPoint {
    pub bytes: usize,
    pub ns: Summary,
    pub stream_cpus: Vec<usize>,
    /// Bandwidth the streaming threads achieved together meanwhile, GB/s.
    pub stream_gbyte_s: f64,
}

pub fn loaded_chase(cfg: &ChaseConfig, stream_cpus: &[usize], stream_bytes: usize) -> Result<LoadedPoint> {
    check_chase(cfg)?;
    if stream_cpus.is_empty() {
        return Err(HwError::config("stream_cpus", "[]", "at least one cpu other than the chasing one"));
    }
    util::check_cpus("stream_cpus", stream_cpus)?;
    if let Some(c) = cfg.cpu.filter(|c| stream_cpus.contains(c)) {
        return Err(HwError::config("stream_cpus", c, "cpus other than the chasing one"));
    }
    let stop = AtomicBool::new(false);
    let streamed = AtomicU64::new(0);
    let share = (stream_bytes / stream_cpus.len()).max(1 << 20);
    let bufs: Vec<AlignedBuf> = stream_cpus.iter().map(|_| AlignedBuf::new(share)).collect();
    let started = Barrier::new(1 + stream_cpus.len());
    let (point, secs) = std::thread::scope(|s| -> Result<(ChasePoint, f64)> {
        let streamers: Vec<_> = stream_cpus
            .iter()
            .zip(&bufs)
            .map(|(&cpu, buf)| {
                let (stop, streamed, started) = (&stop, &streamed, &started);
                s.spawn(move || -> Result<f64> {
                    // Always reach the barrier, even when pinning failed, so no one waits forever.
                    let pinned = util::pin_current(cpu);
                    started.wait();
                    pinned?;
                    let words = unsafe { std::slice::from_raw_parts(buf.as_ptr() as *const u64, share / 8) };
                    let t0 = std::time::Instant::now();
                    while !stop.load(Ordering::Relaxed) {
                        black_box(read_sum(words));
                        streamed.fetch_add(share as u64, Ordering::Relaxed);
                    }
                    Ok(t0.elapsed().as_secs_f64())
                })
            })
            .collect();
        let c = s.spawn(|| -> Result<ChasePoint> {
            let pinned = cfg.cpu.map(util::pin_current).transpose();
            let chain = prepare_chain(cfg);
            started.wait();
            pinned?;
            // Let the streamers ramp up before timing.
            std::thread::sleep(std::time::Duration::from_millis(5));
            let r = time_chain(cfg, &chain);
            stop.store(true, Ordering::Relaxed);
            Ok(r)
        });
        let point = c.join().expect("chase thread panicked");
        stop.store(true, Ordering::Relaxed);
        let mut secs = 0f64;
        for h in streamers {
            secs = secs.max(h.join().expect("stream thread panicked")?);
        }
        Ok((point?, secs))
    })?;
    Ok(LoadedPoint {
        bytes: point.bytes,
        ns: point.ns,
        stream_cpus: stream_cpus.to_vec(),
        stream_gbyte_s: streamed.load(Ordering::Relaxed) as f64 / secs / 1e9,
    })
}

/// One line on its own 128 B (two lines), so the adjacent-line prefetcher of Intel cores, which
/// completes each line fetched into the L2 with the other half of its 128 B-aligned pair (Intel
/// 64 and IA-32 Architectures Optimization Reference Manual, "Data Prefetching": the L2 spatial
/// prefetcher), never drags a neighbour into the measurement.
#[repr(C, align(128))]
struct IsolatedLine(AtomicU64);

/// Core-to-core results for one ordered pair (a measures, b is the partner).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct C2cPair {
    pub a: usize,
    pub b: usize,
    /// Ping-pong round trip, ns.
    pub rtt_ns: Summary,
    /// One-way line transfer = median round trip / 2.
    pub one_way_ns: f64,
    /// Latency of a dependent read of a line left Modified by the partner, ns.
    pub modified_read_ns: Summary,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct C2cConfig {
    pub a: usize,
    pub b: usize,
    /// Samples (each the mean of `rounds` round trips / `lines` reads).
    #[serde(default = "default_c2c_samples")]
    pub samples: usize,
    #[serde(default = "default_rounds")]
    pub rounds: usize,
    /// Lines in the Modified-read chain.
    #[serde(default = "default_mlines")]
    pub lines: usize,
    #[serde(default = "default_seed")]
    pub seed: u64,
}
fn default_c2c_samples() -> usize {
    101
}
fn default_rounds() -> usize {
    200
}
fn default_mlines() -> usize {
    64
}

/// Measure one pair. Refuses a == b: one core cannot ping-pong with itself.
pub fn c2c_pair(cfg: &C2cConfig) -> Result<C2cPair> {
    if cfg.a == cfg.b {
        return Err(HwError::config("cpus", format!("{},{}", cfg.a, cfg.b), "two different cpus"));
    }
    if cfg.samples == 0 || cfg.rounds == 0 || cfg.lines == 0 {
        return Err(HwError::config("samples/rounds/lines", format!("{}/{}/{}", cfg.samples, cfg.rounds, cfg.lines), "all at least 1"));
    }
    util::check_cpus("cpus", &[cfg.a, cfg.b])?;
    let rtt = pingpong(cfg)?;
    let mread = modified_read(cfg)?;
    Ok(C2cPair { a: cfg.a, b: cfg.b, rtt_ns: rtt, one_way_ns: rtt.median / 2.0, modified_read_ns: mread })
}

/// Pin to `cpu`, then meet the partner thread: if either could not pin, both give up, so no
/// thread is left spinning for a partner that never comes.
fn pin_and_meet(cpu: usize, meet: &Barrier, failed: &AtomicBool) -> Result<()> {
    let pinned = util::pin_current(cpu);
    if pinned.is_err() {
        failed.store(true, Ordering::SeqCst);
    }
    meet.wait();
    pinned?;
    if failed.load(Ordering::SeqCst) {
        return Err(HwError::Os("core-to-core: the partner thread could not be pinned".into()));
    }
    Ok(())
}

fn pingpong(cfg: &C2cConfig) -> Result<Summary> {
    let line = IsolatedLine(AtomicU64::new(0));
    let total = (cfg.samples + 1) * cfg.rounds; // the first sample warms up and is dropped
    let (meet, failed) = (Barrier::new(2), AtomicBool::new(false));
    std::thread::scope(|s| {
        let partner = s.spawn(|| -> Result<()> {
            pin_and_meet(cfg.b, &meet, &failed)?;
            let mut spins = 0u32;
            for k in 0..total as u64 {
                while line.0.load(Ordering::Acquire) != 2 * k + 1 {
                    util::spin(&mut spins);
                }
                line.0.store(2 * k + 2, Ordering::Release);
            }
            Ok(())
        });
        let me = s.spawn(|| -> Result<Vec<f64>> {
            pin_and_meet(cfg.a, &meet, &failed)?;
            let mut v = 0u64;
            let mut spins = 0u32;
            let mut out = Vec::with_capacity(cfg.samples);
            for sample in 0..=cfg.samples {
                let t0 = rdtsc();
                for _ in 0..cfg.rounds {
                    line.0.store(v + 1, Ordering::Release);
                    while line.0.load(Ordering::Acquire) != v + 2 {
                        util::spin(&mut spins);
                    }
                    v += 2;
                }
                let t1 = rdtsc();
                if sample > 0 {
                    out.push(ticks_to_ns(t1 - t0) / cfg.rounds as f64);
                }
            }
            Ok(out)
        });
        let r = me.join().expect("ping thread panicked");
        partner.join().expect("pong thread panicked")?;
        Ok(Summary::of(&r?))
    })
}

fn modified_read(cfg: &C2cConfig) -> Result<Summary> {
    // One line per 4 KiB page, at a varying offset, chained in random order: next-line,
    // adjacent-line and in-page region prefetchers all have nothing to fetch ahead.
    const STRIDE: usize = 4096 + 64;
    let n = cfg.lines;
    let buf = AlignedBuf::new(n * STRIDE);
    let order = util::cyclic_permutation(n, cfg.seed);
    let base = buf.as_ptr() as usize;
    let turn = IsolatedLine(AtomicU64::new(0));
    let reps = cfg.samples + 1;
    let (meet, failed) = (Barrier::new(2), AtomicBool::new(false));
    std::thread::scope(|s| {
        let writer = s.spawn(|| -> Result<()> {
            pin_and_meet(cfg.b, &meet, &failed)?;
            let mut spins = 0u32;
            for r in 0..reps as u64 {
                while turn.0.load(Ordering::Acquire) != 2 * r {
                    util::spin(&mut spins);
                }
                for (i, &nx) in order.iter().enumerate() {
                    // Stores to every line (a new tag each round, so no store is silent): each
                    // line becomes Modified in the writer's cache.
                    let line = (base + i * STRIDE) as *mut usize;
                    unsafe {
                        std::ptr::write_volatile(line, base + nx as usize * STRIDE);
                        std::ptr::write_volatile(line.add(1), r as usize);
                    }
                }
                turn.0.store(2 * r + 1, Ordering::Release);
            }
            Ok(())
        });
        let reader = s.spawn(|| -> Result<Vec<f64>> {
            pin_and_meet(cfg.a, &meet, &failed)?;
            let mut spins = 0u32;
            let mut out = Vec::with_capacity(cfg.samples);
            for r in 0..reps as u64 {
                while turn.0.load(Ordering::Acquire) != 2 * r + 1 {
                    util::spin(&mut spins);
                }
                let t0 = rdtsc();
                let mut p = base as *const usize;
                for _ in 0..n {
                    p = unsafe { std::ptr::read_volatile(p) } as *const usize;
                }
                let t1 = rdtsc();
                black_box(p);
                if r > 0 {
                    out.push(ticks_to_ns(t1 - t0) / n as f64);
                }
                turn.0.store(2 * r + 2, Ordering::Release);
            }
            Ok(out)
        });
        let r = reader.join().expect("reader panicked");
        writer.join().expect("writer panicked")?;
        Ok(Summary::of(&r?))
    })
}

/// Streaming kernels.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BwKind {
    Read,
    Write,
    Copy,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BwConfig {
    pub kind: BwKind,
    /// Total buffer bytes, shared out between the threads (≥ 1 MiB).
    pub bytes: usize,
    /// One thread per listed CPU.
    pub cpus: Vec<usize>,
    #[serde(default = "default_reps")]
    pub reps: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BwResult {
    pub kind: BwKind,
    pub threads: usize,
    pub bytes: usize,
    /// GB/s (1e9 bytes/s) over the repetitions.
    pub gbyte_s: Summary,
}

#[inline(never)]
fn read_sum(w: &[u64]) -> u64 {
    let mut acc = [0u64; 8];
    for c in w.chunks_exact(8) {
        for i in 0..8 {
            acc[i] = acc[i].wrapping_add(c[i]);
        }
    }
    acc.iter().fold(0, |a, &b| a.wrapping_add(b))
}

pub fn bandwidth(cfg: &BwConfig) -> Result<BwResult> {
    if cfg.bytes < (1 << 20) {
        return Err(HwError::config("bytes", cfg.bytes, "at least 1 MiB (1048576)"));
    }
    if cfg.cpus.is_empty() {
        return Err(HwError::config("cpus", "[]", "at least one cpu"));
    }
    if cfg.reps == 0 {
        return Err(HwError::config("reps", 0, "at least 1 repetition"));
    }
    util::check_cpus("cpus", &cfg.cpus)?;
    let n = cfg.cpus.len();
    let chunk = (cfg.bytes / n) & !4095;
    let bufs: Vec<AlignedBuf> = (0..n).map(|_| AlignedBuf::new(chunk)).collect();
    let barrier = Barrier::new(n);
    let failed = AtomicBool::new(false);
    let times = std::thread::scope(|s| -> Result<Vec<f64>> {
        let handles: Vec<_> = cfg
            .cpus
            .iter()
            .zip(&bufs)
            .enumerate()
            .map(|(t, (&cpu, buf))| {
                let (barrier, failed) = (&barrier, &failed);
                s.spawn(move || -> Result<Vec<f64>> {
                    // All threads meet once before anyone may give up, so none waits forever.
                    let pinned = util::pin_current(cpu);
                    if pinned.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    barrier.wait();
                    pinned?;
                    if failed.load(Ordering::SeqCst) {
                        return Err(HwError::Os("bandwidth: a streaming thread could not be pinned".into()));
                    }
                    let mut out = Vec::new();
                    for rep in 0..=cfg.reps {
                        barrier.wait();
                        let t0 = rdtsc();
                        match cfg.kind {
                            BwKind::Read => {
                                let w = unsafe { std::slice::from_raw_parts(buf.as_ptr() as *const u64, chunk / 8) };
                                black_box(read_sum(w));
                            }
                            BwKind::Write => unsafe { std::ptr::write_bytes(buf.as_ptr(), rep as u8, chunk) },
                            BwKind::Copy => unsafe {
                                let half = chunk / 2;
                                let (a, b) = if rep % 2 == 0 { (0, half) } else { (half, 0) };
                                std::ptr::copy_nonoverlapping(buf.as_ptr().add(a), buf.as_ptr().add(b), half);
                            },
                        }
                        black_box(buf.as_ptr());
                        barrier.wait();
                        let t1 = rdtsc();
                        if t == 0 && rep > 0 {
                            out.push(ticks_to_ns(t1 - t0));
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        let mut first = None;
        for h in handles {
            let r = h.join().expect("bandwidth thread panicked")?;
            if first.is_none() {
                first = Some(r);
            }
        }
        Ok(first.unwrap_or_default())
    })?;
    let bytes_moved = (chunk * n) as f64; // copy: half read + half written = chunk per thread
    let gbs: Vec<f64> = times.iter().map(|ns| bytes_moved / ns).collect();
    Ok(BwResult { kind: cfg.kind, threads: n, bytes: chunk * n, gbyte_s: Summary::of(&gbs) })
}

/// Latency of each level from a curve, and the sizes where the curve steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Levels {
    /// Load-to-use latency (ns) of L1, L2, LLC and DRAM; `None` when no point of the curve lies
    /// well inside that level.
    pub latency_ns: [Option<f64>; 4],
    /// Detected capacity of L1, L2 and LLC in bytes (largest working set still below the
    /// geometric mean of this level's and the next level's latency).
    pub detected_bytes: [Option<usize>; 3],
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    Some(v[v.len() / 2])
}

/// Plateaus of a latency curve `(bytes, ns)` given the nominal sizes of L1d, L2 and the LLC.
pub fn levels(curve: &[(usize, f64)], l1: usize, l2: usize, llc: usize) -> Levels {
    let mut pts = curve.to_vec();
    pts.sort_by_key(|p| p.0);
    let in_range = |lo: usize, hi: usize| -> Vec<f64> { pts.iter().filter(|p| p.0 >= lo && p.0 <= hi).map(|p| p.1).collect() };
    let mut lat = [None; 4];
    lat[0] = median(&mut in_range(0, l1 / 2));
    lat[1] = median(&mut in_range(2 * l1, l2 / 2));
    // DRAM: the largest working sets, at least 4 × LLC if measured, else at least 2 × LLC.
    let far = in_range(4 * llc, usize::MAX);
    lat[3] = if far.is_empty() { median(&mut in_range(2 * llc, usize::MAX)) } else { median(&mut far.clone()) };
    // LLC: the points of its nominal range that are still closer to the L2 than to DRAM. The
    // capacity a core can really use may be far below the nominal one (a virtual machine sharing
    // the LLC with other tenants, a CCX-partitioned L3), and those points already show DRAM.
    let mut llc_pts = in_range(2 * l2, llc / 2);
    if let (Some(a), Some(d)) = (lat[1], lat[3]) {
        let cut = (a * d).sqrt();
        llc_pts.retain(|&ns| ns < cut);
    }
    lat[2] = median(&mut llc_pts);
    let mut det = [None; 3];
    let starts = [0, 2 * l1, 2 * l2];
    for i in 0..3 {
        let (Some(a), Some(b)) = (lat[i], lat[i + 1]) else { continue };
        let thr = (a * b).sqrt();
        let mut last = None;
        for p in pts.iter().filter(|p| p.0 >= starts[i]) {
            if p.1 > thr {
                break;
            }
            last = Some(p.0);
        }
        det[i] = last;
    }
    Levels { latency_ns: lat, detected_bytes: det }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// L1 32 KiB @1 ns, L2 1 MiB @4 ns, LLC 32 MiB @12 ns, DRAM @90 ns; `at_64k` replaces the
    /// 64 KiB point's latency.
    fn synthetic(at_64k: Option<f64>) -> Vec<(usize, f64)> {
        let mut c = vec![];
        let mut b = 4096;
        while b <= 256 << 20 {
            let ns = if b <= 32 << 10 {
                1.0
            } else if b <= 1 << 20 {
                if b == 64 << 10 { at_64k.unwrap_or(4.0) } else { 4.0 }
            } else if b <= 32 << 20 {
                12.0
            } else {
                90.0
            };
            c.push((b, ns));
            b *= 2;
        }
        c
    }

    #[test]
    fn levels_of_a_synthetic_curve() {
        let l = levels(&synthetic(None), 32 << 10, 1 << 20, 32 << 20);
        assert_eq!(l.latency_ns, [Some(1.0), Some(4.0), Some(12.0), Some(90.0)]);
        assert_eq!(l.detected_bytes, [Some(32 << 10), Some(1 << 20), Some(32 << 20)]);
    }

    /// A level's edge is where the latency passes the geometric mean of two plateaus: 2.2 ns at
    /// 64 KiB is above √(1 × 4) = 2 ns, so the L1 ends at 32 KiB (the arithmetic mean, 2.5 ns,
    /// would put it at 64 KiB).
    #[test]
    fn level_edges_use_the_geometric_mean_of_the_plateaus() {
        let l = levels(&synthetic(Some(2.2)), 32 << 10, 1 << 20, 32 << 20);
        assert_eq!(l.detected_bytes[0], Some(32 << 10));
    }

    #[test]
    fn llc_plateau_ignores_points_that_already_show_dram() {
        // Nominal 32 MiB LLC of which only ~6 MiB is usable (a VM sharing it).
        let c: Vec<(usize, f64)> = vec![
            (4096, 1.0),
            (256 << 10, 4.0),
            (2 << 20, 14.0),
            (4 << 20, 16.0),
            (6 << 20, 22.0),
            (8 << 20, 106.0),
            (16 << 20, 127.0),
            (128 << 20, 152.0),
        ];
        let l = levels(&c, 32 << 10, 1 << 20, 32 << 20);
        assert_eq!(l.latency_ns[2], Some(16.0));
        assert_eq!(l.detected_bytes[2], Some(6 << 20));
    }

    #[test]
    fn levels_missing_points_are_none() {
        let l = levels(&[(4096, 1.0), (8192, 1.1)], 32 << 10, 1 << 20, 32 << 20);
        assert_eq!(l.latency_ns[0], Some(1.1));
        assert_eq!(l.latency_ns[3], None);
        assert_eq!(l.detected_bytes, [None, None, None]);
    }

    #[test]
    fn chase_rejects_tiny_sets() {
        let e = chase(&ChaseConfig { bytes: 100, seed: 1, cpu: None, reps: 1, loads: None }).unwrap_err();
        assert!(e.to_string().starts_with("bytes = 100"));
    }

    #[test]
    fn c2c_rejects_same_cpu() {
        let e = c2c_pair(&C2cConfig { a: 0, b: 0, samples: 1, rounds: 1, lines: 1, seed: 1 }).unwrap_err();
        assert!(e.to_string().contains("two different cpus"));
    }
}
