//! A DPDK-style mempool of packet buffers with a per-core LIFO cache.
//!
//! Semantics follow DPDK's `rte_mempool` (facts from its documentation): a core allocates from
//! its cache (most recently freed first) and refills an empty cache with `cache_size` objects from
//! the shared ring; a free goes to the cache and, once the cache holds `1.5 × cache_size`, the
//! objects above `cache_size` go back to the ring. LIFO reuse is what makes the buffer reuse
//! distance equal to the number of buffers in flight (RX ring + TX ring + software queues): a
//! freed buffer is posted at the tail of the RX ring and written again after that many packets.
use std::collections::VecDeque;

pub struct Mempool {
    first: u32,
    count: u32,
    ring: VecDeque<u32>,
    caches: Vec<Vec<u32>>,
    cache_size: usize,
    flush_threshold: usize,
}

impl Mempool {
    /// Objects `first..first+count`, `cores` per-core caches of `cache_size`.
    pub fn new(first: u32, count: u32, cores: usize, cache_size: usize) -> Mempool {
        Mempool {
            first,
            count,
            ring: (first..first + count).collect(),
            caches: (0..cores).map(|_| Vec::with_capacity(cache_size * 2)).collect(),
            cache_size,
            flush_threshold: cache_size + cache_size / 2,
        }
    }

    /// Every object of the pool, wherever it is.
    pub fn objects(&self) -> std::ops::Range<u32> {
        self.first..self.first + self.count
    }

    pub fn alloc(&mut self, core: usize) -> Option<u32> {
        let cache = &mut self.caches[core];
        if cache.is_empty() {
            let n = self.cache_size.min(self.ring.len());
            // The ring hands out its oldest objects first.
            for _ in 0..n {
                cache.push(self.ring.pop_front().expect("counted"));
            }
            cache.reverse();
        }
        cache.pop().or_else(|| self.ring.pop_front())
    }

    pub fn free(&mut self, core: usize, obj: u32) {
        let cache = &mut self.caches[core];
        cache.push(obj);
        if cache.len() >= self.flush_threshold {
            for o in cache.drain(self.cache_size..) {
                self.ring.push_back(o);
            }
        }
    }

    pub fn available(&self) -> usize {
        self.ring.len() + self.caches.iter().map(Vec::len).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifo_reuse_of_recently_freed_buffers() {
        let mut p = Mempool::new(100, 64, 2, 8);
        let a = p.alloc(0).unwrap();
        let b = p.alloc(0).unwrap();
        assert_eq!((a, b), (100, 101), "a refilled cache hands out the ring's oldest first");
        p.free(0, a);
        p.free(0, b);
        assert_eq!(p.alloc(0), Some(b), "most recently freed first");
        assert_eq!(p.alloc(0), Some(a));
        // Core 1 has its own cache.
        assert_eq!(p.alloc(1), Some(108));
    }

    #[test]
    fn cache_flushes_above_threshold_and_nothing_is_lost() {
        let mut p = Mempool::new(0, 32, 1, 4);
        let got: Vec<u32> = (0..32).map(|_| p.alloc(0).unwrap()).collect();
        assert_eq!(p.alloc(0), None);
        for &o in &got {
            p.free(0, o);
        }
        assert_eq!(p.available(), 32);
        assert!(p.caches[0].len() < 6);
    }

    /// A free that brings the cache to 1.5 × `cache_size` sends the objects above `cache_size`
    /// (the most recently freed) back to the ring; one fewer stays in the cache.
    #[test]
    fn a_cache_at_one_and_a_half_times_its_size_returns_the_excess() {
        let mut p = Mempool::new(0, 32, 1, 4);
        let got: Vec<u32> = (0..8).map(|_| p.alloc(0).unwrap()).collect();
        assert_eq!((p.caches[0].len(), p.ring.len()), (0, 24));
        for &o in &got[..5] {
            p.free(0, o);
        }
        assert_eq!((p.caches[0].len(), p.ring.len()), (5, 24), "below the threshold");
        p.free(0, got[5]);
        assert_eq!((p.caches[0].len(), p.ring.len()), (4, 26), "at 6 = 1.5 × 4");
        assert_eq!(p.caches[0], got[..4].to_vec());
        assert_eq!(p.ring.iter().rev().take(2).copied().collect::<Vec<_>>(), vec![got[5], got[4]]);
    }
}
