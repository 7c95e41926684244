//! DRAM of one socket: a fixed loaded-idle latency plus queueing on the socket's sustained
//! bandwidth, and MBA as a per-core rate limiter.
//!
//! All channels are lumped into one server whose service time per 64 B line is `64 / bandwidth`.
//! A request waits for the server, so latency rises with load and the socket cannot move more
//! than its bandwidth. Write-backs and non-allocating DMA writes occupy the server but nobody
//! waits for them (posted). MBA (Intel Memory Bandwidth Allocation) delays a throttled core's
//! requests so that the core alone cannot exceed `mba% × core bandwidth`, which is how MBA's
//! request-rate throttling looks from the core.

#[derive(Debug, Clone)]
pub struct Memory {
    base_ps: u64,
    svc_ps: f64,
    busy_until: f64,
    pub read_lines: u64,
    pub write_lines: u64,
}

impl Memory {
    pub fn new(latency_ns: f64, bandwidth_gbyte_s: f64) -> Memory {
        Memory { base_ps: (latency_ns * 1000.0) as u64, svc_ps: 64.0 / bandwidth_gbyte_s * 1000.0, busy_until: 0.0, read_lines: 0, write_lines: 0 }
    }

    /// A demand read at `now`; returns its latency in ps.
    #[inline]
    pub fn read(&mut self, now: u64) -> u64 {
        let start = self.busy_until.max(now as f64);
        self.busy_until = start + self.svc_ps;
        self.read_lines += 1;
        self.base_ps + (self.busy_until - now as f64) as u64
    }

    /// A posted write of `lines` lines at `now`.
    #[inline]
    pub fn write(&mut self, now: u64, lines: u32) {
        if lines == 0 {
            return;
        }
        let start = self.busy_until.max(now as f64);
        self.busy_until = start + self.svc_ps * lines as f64;
        self.write_lines += lines as u64;
    }

    /// Reads issued by a device: they occupy bandwidth; the NIC's own pipeline hides the latency.
    #[inline]
    pub fn device_read(&mut self, now: u64) -> u64 {
        self.read(now) - self.base_ps
    }

    pub fn reset_counters(&mut self) {
        self.read_lines = 0;
        self.write_lines = 0;
    }
}

/// MBA throttle of one core: minimum spacing between its DRAM requests.
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

    /// Delay (ps) before a DRAM request issued at `now` may leave the core.
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

    #[test]
    fn latency_rises_with_load_and_bandwidth_is_bounded() {
        let mut m = Memory::new(90.0, 64.0); // 1 ns per line
        assert_eq!(m.read(0), 91_000);
        // 100 back-to-back requests at the same instant queue up.
        let mut last = 0;
        for _ in 0..100 {
            last = m.read(1_000_000);
        }
        assert!(last >= 90_000 + 99_000, "{last}");
        // Spread requests see idle latency again.
        assert_eq!(m.read(10_000_000), 91_000);
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
