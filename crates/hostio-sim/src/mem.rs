//! DRAM of one socket: a loaded-idle latency that rises with the socket's bandwidth use, and MBA
//! as a per-core rate limiter.
//!
//! The load is the number of 64 B transfers (reads, write-backs, non-allocating DMA writes) in
//! the last 1 µs, as a share ρ of the socket's sustained bandwidth: a sliding window approximated
//! by fixed 1 µs buckets, the current one plus the previous one weighted by the part of it still
//! within 1 µs. A read then costs the
//! idle latency times the platform's loaded-latency curve at ρ (`Platform::dram_load_curve`,
//! Intel MLC's `--loaded_latency` on the presets' parts: on Skylake-SP +24 % at half load, +40 %
//! at 80 %, 1.94× at saturation), interpolated linearly, its last factor beyond its last
//! point: offered load beyond the bandwidth sees the saturated latency MLC measured with every
//! core loading memory. A windowed load, rather than one server's busy-until time, keeps the model
//! correct when agents report transfers slightly out of time order (a NIC's DMA reads are looked up when
//! its fetch starts but spread over the link time): a report dated in an earlier window than the
//! latest one counts in the previous window if it belongs there, and sees the previous window at
//! full weight plus everything the current one has counted so far (the highest the two buckets
//! give). MBA (Memory Bandwidth Allocation) is a request
//! rate controller between a core's L2 and the mesh (Intel SDM Vol. 3B, "Memory Bandwidth
//! Allocation"): below 100 % it spaces every request that leaves the L2 — LLC hits as well as
//! DRAM reads — so that the core alone cannot exceed `mba% × core bandwidth`; at 100 % it spaces
//! nothing, and the core is bounded only by how fast its own accesses complete.

/// The load window, ps: long enough to hold ~860–2,100 DRAM transfers at the presets'
/// bandwidths (55–136 GB/s of 64 B lines), short next to the bursts being modelled (a modelling choice).
const WINDOW_PS: u64 = 1_000_000;

#[derive(Debug, Clone)]
pub struct Memory {
    base_ps: f64,
    /// The loaded-latency curve: (load, factor) points, validated by the platform's check.
    curve: Vec<(f64, f64)>,
    /// Lines the socket can move per window at its sustained bandwidth.
    lines_per_window: f64,
    bucket: u64,
    cur: f64,
    prev: f64,
    pub read_lines: u64,
    pub write_lines: u64,
}

impl Memory {
    /// `curve` as `Platform::dram_load_curve` (validated there); an empty one is flat.
    pub fn new(latency_ns: f64, bandwidth_gbyte_s: f64, curve: &[[f64; 2]]) -> Memory {
        let curve = if curve.is_empty() { &[[0.0, 1.0]][..] } else { curve };
        Memory {
            base_ps: latency_ns * 1000.0,
            curve: curve.iter().map(|&[r, f]| (r, f)).collect(),
            lines_per_window: bandwidth_gbyte_s * 1e9 / 64.0 * (WINDOW_PS as f64 * 1e-12),
            bucket: 0,
            cur: 0.0,
            prev: 0.0,
            read_lines: 0,
            write_lines: 0,
        }
    }

    #[inline]
    fn add(&mut self, now: u64, lines: f64) -> f64 {
        let b = now / WINDOW_PS;
        if b < self.bucket {
            // Reported late, dated in an earlier window: its lines join the previous window when
            // they belong there (an older one's have left the load already), and it sees the
            // previous window at full weight plus the current one so far.
            if b + 1 == self.bucket {
                self.prev += lines;
            }
            return (self.prev + self.cur) / self.lines_per_window;
        }
        if b != self.bucket {
            self.prev = if b == self.bucket + 1 { self.cur } else { 0.0 };
            self.cur = 0.0;
            self.bucket = b;
        }
        self.cur += lines;
        let frac = (now % WINDOW_PS) as f64 / WINDOW_PS as f64;
        (self.prev * (1.0 - frac) + self.cur) / self.lines_per_window
    }

    /// The load ρ at `now` (share of the bandwidth used in the last window), without adding any.
    #[inline]
    pub fn load(&self, now: u64) -> f64 {
        let b = now / WINDOW_PS;
        let (prev, cur) = if b == self.bucket {
            (self.prev, self.cur)
        } else if b == self.bucket + 1 {
            (self.cur, 0.0)
        } else if b < self.bucket {
            // Asked late: the previous window at full weight plus the current one so far.
            return (self.prev + self.cur) / self.lines_per_window;
        } else {
            (0.0, 0.0)
        };
        let frac = (now % WINDOW_PS) as f64 / WINDOW_PS as f64;
        (prev * (1.0 - frac) + cur) / self.lines_per_window
    }

    /// A read's latency at load ρ, ps.
    #[inline]
    pub fn latency_at(&self, rho: f64) -> u64 {
        (self.base_ps * self.factor(rho)) as u64
    }

    /// The curve's factor at load ρ: linear between points, the last factor beyond the last, the
    /// first below the first (or for a NaN load).
    #[inline]
    fn factor(&self, rho: f64) -> f64 {
        let c = &self.curve;
        let i = c.partition_point(|p| p.0 <= rho);
        if i == 0 {
            return c[0].1;
        }
        if i >= c.len() {
            return c[c.len() - 1].1;
        }
        let ((r0, f0), (r1, f1)) = (c[i - 1], c[i]);
        f0 + (f1 - f0) * (rho - r0) / (r1 - r0)
    }

    /// A read's latency at the load at `now`, ps, without adding one (the caller has counted it).
    #[inline]
    pub fn loaded_latency(&self, now: u64) -> u64 {
        self.latency_at(self.load(now))
    }

    /// A demand read at `now`; returns its latency in ps.
    #[inline]
    pub fn read(&mut self, now: u64) -> u64 {
        let rho = self.add(now, 1.0);
        self.read_lines += 1;
        self.latency_at(rho)
    }

    /// A posted write of `lines` lines at `now` (uses bandwidth; nobody waits for it).
    #[inline]
    pub fn write(&mut self, now: u64, lines: u32) {
        if lines == 0 {
            return;
        }
        self.add(now, lines as f64);
        self.write_lines += lines as u64;
    }

    /// A read issued by a device: it uses bandwidth; the NIC's pipeline accounts for its latency.
    #[inline]
    pub fn device_read(&mut self, now: u64) {
        self.device_reads(now, 1);
    }

    /// `lines` device reads at `now` (the same as that many `device_read`s: the window sums
    /// whole lines exactly).
    #[inline]
    pub fn device_reads(&mut self, now: u64, lines: u32) {
        if lines == 0 {
            return;
        }
        self.add(now, lines as f64);
        self.read_lines += lines as u64;
    }

    pub fn reset_counters(&mut self) {
        self.read_lines = 0;
        self.write_lines = 0;
    }
}

/// MBA throttle of one core: minimum spacing between its requests that leave the L2.
#[derive(Debug, Clone, Default)]
pub struct Mba {
    spacing_ps: f64,
    next: f64,
}

impl Mba {
    pub fn new(percent: u32, core_bandwidth_gbyte_s: f64) -> Mba {
        let spacing_ps = if percent >= 100 { 0.0 } else { 64.0 / (core_bandwidth_gbyte_s * percent as f64 / 100.0) * 1000.0 };
        Mba { spacing_ps, next: 0.0 }
    }

    /// Delay (ps) before a request that missed the L2, issued at `now`, may leave the core.
    #[inline]
    pub fn delay(&mut self, now: u64) -> u64 {
        if self.spacing_ps == 0.0 {
            return 0;
        }
        let t = self.next.max(now as f64);
        self.next = t + self.spacing_ps;
        (t - now as f64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test curve: +10 % at half load, 2× at full load and beyond.
    const CURVE: [[f64; 2]; 3] = [[0.0, 1.0], [0.5, 1.1], [1.0, 2.0]];

    #[test]
    fn latency_follows_the_load_curve() {
        let mut m = Memory::new(90.0, 64.0, &CURVE); // 1e6 lines per ms → 1000 lines per µs window
        assert!((90_000..=90_200).contains(&m.read(0)));
        // 800 lines in the same window: ρ = 0.8 → 1.1 + 0.3 / 0.5 × 0.9 = 1.64 → 147.6 ns.
        m.write(10, 799);
        let loaded = m.read(20);
        assert!((147_000..=148_000).contains(&loaded), "{loaded}");
        // Two windows later the load has gone.
        assert!((90_000..=90_200).contains(&m.read(3_000_000)));
        // Beyond the last point: its factor (the saturated latency), not more.
        m.write(3_000_001, 1_000_000);
        assert_eq!(m.read(3_000_002), 180_000);
        assert_eq!(m.latency_at(0.25), 94_500, "halfway to the second point");
        assert_eq!((m.latency_at(-1.0), m.latency_at(f64::NAN)), (90_000, 90_000), "below the first point: its factor");
        assert_eq!(Memory::new(90.0, 64.0, &[]).latency_at(5.0), 90_000, "no curve: flat");
    }

    #[test]
    fn the_presets_curves_are_mlcs() {
        // Skylake-SP: MLC's 116.34 ns at 55.1 GB/s per socket (ρ 0.54) over its 91.66 idle.
        let p = crate::config::Platform::preset("skylake-gold-6140").unwrap();
        let m = Memory::new(p.dram_latency_ns, p.memory_bandwidth_gbyte_s, &p.dram_load_curve);
        assert_eq!(m.latency_at(0.54), (90_000.0 * 1.269) as u64);
        assert_eq!(m.latency_at(5.0), (90_000.0 * 1.94) as u64);
        // Haswell-EP saturates higher: 2.988× against Skylake-SP's 1.94×.
        let h = crate::config::Platform::preset("haswell-e5-2699v3").unwrap();
        let m = Memory::new(h.dram_latency_ns, h.memory_bandwidth_gbyte_s, &h.dram_load_curve);
        assert_eq!(m.latency_at(2.0), (97_000.0 * 2.988) as u64);
    }

    #[test]
    fn a_late_report_keeps_the_load() {
        // 1000 lines per window. 600 lines in window 1, then a read reported late (dated in
        // window 0): it joins the previous window and sees the current load; the window's 600
        // lines still count for the reads after it.
        let mut m = Memory::new(90.0, 64.0, &CURVE);
        m.write(1_000_000, 600);
        let late = m.read(999_000);
        assert!(late > 110_000, "a late read sees the load (ρ 0.6: 115.2 ns), got {late}");
        assert!(m.load(1_500_000) > 0.55, "the window kept its lines: {}", m.load(1_500_000));
        assert!(m.load(500_000) > 0.55, "asked late: the current load");
        // Two windows behind: not counted, and the load stays.
        m.read(10);
        assert!(m.load(1_500_000) > 0.55);
    }

    #[test]
    fn mba_spaces_requests() {
        let mut b = Mba::new(50, 12.8); // 6.4 GB/s → 10 ns per line
        assert_eq!(b.delay(0), 0);
        assert_eq!(b.delay(0), 10_000);
        assert_eq!(b.delay(0), 20_000);
        assert_eq!(Mba::new(100, 12.0).delay(5), 0);
    }
}
