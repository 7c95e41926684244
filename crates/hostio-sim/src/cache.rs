//! One socket's cache hierarchy: private L2s and a sliced, way-partitioned LLC with DDIO.
//!
//! # Mechanism
//! * **Geometry.** `slices × sets × ways` lines of 64 B. The LLC set index is physical-address
//!   bits 6.. (the engine's physical layout is `memsys::AddressSpace`'s: packet buffers are
//!   contiguous in 1 GiB hugepages, so a buffer's offset decides its set). The slice comes from the
//!   platform's `slice_hash`: on Skylake-SP with 18 slices, the map measured on those processors
//!   (`crate::slice_map`: a 4096-line base sequence permuted by parities of the higher address
//!   bits), under which one 2 MiB page reaches only 57 % of the (slice, set) pairs, up to three
//!   lines each, so contiguous buffers conflict below the cache's capacity. Elsewhere a map
//!   built the way Intel's are, but no processor's ([`SliceMap`]): for other slice counts that
//!   are not a power of two (Haswell-EP's 18), the same structure with a balanced pseudo-random
//!   base sequence; for powers of two, XOR parities of the address. An L2 set is the low bits of
//!   the simulated line number (lines are numbered 2 MiB page by page). For DPDK memory, which
//!   lies in hugepages, these are the physical address's bits too. Other memory (working sets,
//!   copy buffers, a co-runner's data) lies in scattered 4 KiB frames (`memsys::AddressSpace`):
//!   only its line-number bits within a 4 KiB page (the low 6) are physical, the higher L2 set
//!   bits follow the simulated numbering. An approximation: its L2 sets are filled as if it
//!   were physically contiguous, while its LLC sets and slices come from its physical frames.
//! * **Directory.** Every simulated line has a directory entry (where it is in this socket: LLC
//!   way, which core's L2 and way, dirty bits, I/O history), in a vector indexed by line number.
//!   Lookups are O(1); only victim selection scans a set.
//! * **Set records.** Each LLC set is one record aligned to 64 B host cache lines: one stamp
//!   byte per way, the set's replacement clock byte, the PLRU bits or QLRU ages, and the tags.
//!   With 11 ways that is exactly 64 B, so a simulated access costs one host cache miss; L2 sets
//!   of up to 12 ways likewise, while 16- and 20-way L2 sets take two host lines. Stamps order the ways of one set only (exact LRU; 0 marks an empty way), and are
//!   renumbered by rank before the set's clock would pass 254. On x86-64 the empty-way and LRU
//!   searches compare all stamps of a set at once (SSE2).
//! * **Device write (ItoM, DDIO on).** Line anywhere in the hierarchy → *write update* (hit): a
//!   copy in an L2 is invalidated and the line is written in the LLC (one only in an L2 takes an
//!   I/O way as an allocation would, evicting that way's LRU line, but counts as a hit: an
//!   assumption, that the I/O hub finds the line cached on the socket through the snoop filter
//!   and counts the ItoM as one that hit; the DDIO papers speak of a hit in the LLC, and which way
//!   Intel's counter takes an L2-only line is not published). Not present → *write
//!   allocate* (miss) into the I/O ways (the platform's, or the port's own: `dev_write_in`),
//!   filled from the highest way, without reading DRAM; a full set evicts its least recently
//!   used I/O way. A port that stashes (`dev_stash`, a proposal, no shipping Xeon does it)
//!   writes the line into a core's L2 instead. (Core fills take free ways from the lowest,
//!   so an empty cache does not park code and data in the I/O ways.)
//!   Device writes update replacement state. The victim is written back if dirty.
//! * **Adaptive insertion of device allocations.** Eviction in the I/O ways follows LRU order
//!   (measured), but where a write-allocate lands in that order is chosen by set dueling (DIP,
//!   Qureshi et al., ISCA'07; Intel's LLCs have used an adaptive, thrash-resistant insertion for
//!   core fills since Ivy Bridge, as measured by H. Wong, "Intel Ivy Bridge Cache Replacement
//!   Policy", 2013). Applying it to the I/O ways is a modelling choice, not a measurement: no
//!   study reports how DDIO's allocations are inserted; hostio adopts it for the reason below,
//!   so the Fig. 6 claim at 4096 descriptors checks this choice rather than predicting it. Sets
//!   whose index is 0 mod 64 always insert at the MRU position, sets at 33 mod 64
//!   always insert bimodally (at the LRU position, except every `BIP_EVERY`th insertion; an
//!   allocation that fills an empty way evicts nothing and takes the MRU position), and a
//!   saturating counter of the two groups' misses (`PSEL_MAX`: device writes that allocate,
//!   device reads that no socket's caches had (DRAM serves them), and core accesses that miss
//!   this socket's caches, whether DRAM, the other socket or a NIC then serves them) gives
//!   every other set the policy that misses
//!   less. A ring of buffers larger than the I/O ways then keeps part of itself cached instead of
//!   evicting every line before its reuse (the DDIO paper's ~40 % hits at 4096 descriptors, where
//!   strict LRU gives ~20 % in hostio's Fig. 6 setup, `platform.ddio_insertion = "mru"`); when bimodal insertion evicts fresh data before the core or the NIC
//!   reads it, those read misses pull the choice back. A ring that fits behaves as under LRU.
//!   Geometries with fewer than `LEADER_EVERY` sets per slice have no leader sets and insert at
//!   the MRU position.
//! * **Recycled I/O lines.** A line written by the device, then by a core, then by the device again
//!   (while it stays cached on this socket: the mark goes when the line leaves its caches, is
//!   invalidated or is written to DRAM past them) lands in the `recycled_io_mask` ways (0x003 on Skylake-SP/Cascade Lake, the "inclusive ways"
//!   measured by the A4 (ISCA'25) and Double-Trouble (USENIX Security'22) studies). hostio
//!   triggers it on a core *store* to a device-written line (the forwarder's MAC swap): those
//!   studies observed the migration for lines a core had written; whether a core read alone
//!   triggers it is not published. This is the L2 forwarder's buffer-recycling pattern, and why
//!   the ATC'20 paper saw I/O interference at CAT mask 0x003.
//! * **Device read (PCIeRdCur).** Hit if in the LLC or in an L2 (snoop); else DRAM, without
//!   allocation and without changing any set's LRU order (a miss does count in the set dueling).
//! * **Non-allocating device write** (DDIO off on the port, or a buffer homed on another socket
//!   than the NIC's, which is how a NIC on the remote socket writes): cached copies are
//!   invalidated and the line goes to DRAM. So a remote NIC's writes allocate in neither LLC:
//!   the pollution of the NIC socket's LLC the DDIO paper describes for it is not modelled, and
//!   DDIO off and a remote NIC take the same path (the paper's "disabling DDIO slightly pollutes
//!   the cache, as opposed to bypassing via a remote socket" cannot appear).
//! * **Core access, non-inclusive LLC (Skylake-SP).** L2 hit; else an LLC hit moves the line into
//!   the L2 (it leaves the LLC); else DRAM fills the L2 directly, bypassing the LLC. L2 victims,
//!   clean or dirty, are inserted into the LLC within the core's CAT ways.
//! * **Core access, inclusive LLC (Haswell-EP).** Misses fill both LLC (CAT ways) and L2; an LLC
//!   victim back-invalidates the L2 copy.
//! * **CAT.** A core fills only into its class's ways but hits in any way.
//!
//! Replacement outside I/O allocations is selectable (LRU, bit-PLRU, QLRU, random); allocations
//! into the I/O ways evict in LRU order, as measured, with the adaptive insertion above.
use crate::config::Replacement;
use crate::rng::Rng;
use crate::slice_map::{SKX18_BASE, SKX18_BASE_LINES, SKX18_PERM_MASKS, SKX_GEOMETRY};

pub const NONE: u8 = 0xFF;
/// A set record's tag of an empty way (tags hold `line + 1`).
const EMPTY: u32 = 0;
/// u32 words per 64 B host cache line.
const WORDS_PER_LINE: usize = 16;
/// Largest stamp; a set's clock is renumbered before it would exceed this.
const MAX_STAMP: u32 = 254;

const F_LLC_DIRTY: u8 = 1;
const F_L2_DIRTY: u8 = 2;
/// Last written by a device.
const F_DEV: u8 = 4;
/// Bimodal insertion: one in this many allocations goes to the MRU position (the bimodal
/// throttle ε = 1/32 of Qureshi et al., ISCA'07; a counter instead of a random draw).
const BIP_EVERY: u32 = 32;
/// The set-dueling policy selector saturates at this value (a 10-bit counter, as in DIP); values
/// above half mean the MRU-insertion leaders miss more, so followers insert bimodally.
const PSEL_MAX: u32 = 1023;
/// Leader sets: index ≡ `LEADER_MRU` (mod `LEADER_EVERY`) always inserts at MRU, ≡ `LEADER_BIP`
/// bimodally (32 of each per 2048-set slice, DIP's 32 dedicated sets per policy).
const LEADER_EVERY: u32 = 64;
const LEADER_MRU: u32 = 0;
const LEADER_BIP: u32 = 33;
/// Written by a core after a device write: the next device write goes to the recycled ways.
const F_RECYCLED: u8 = 8;

/// A miss in LLC set `set` moves the set-dueling selector `psel` when the set is a leader.
#[inline(always)]
fn duel_step(psel: &mut u32, set: u32) {
    match set % LEADER_EVERY {
        LEADER_MRU => *psel = (*psel + 1).min(PSEL_MAX),
        LEADER_BIP => *psel = psel.saturating_sub(1),
        _ => {}
    }
}

/// Per-line directory entry of one socket.
#[derive(Clone, Copy)]
struct Dir {
    /// `slice * sets + set` of the line in this LLC.
    set: u32,
    llc_way: u8,
    l2_core: u8,
    l2_way: u8,
    flags: u8,
}

impl Dir {
    /// An uncached line of LLC set `set`.
    fn new(set: u32) -> Dir {
        Dir { set, llc_way: NONE, l2_core: NONE, l2_way: NONE, flags: 0 }
    }
}

/// Where a core access was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    L2,
    /// Another core's L2 (cache-to-cache transfer).
    OtherL2,
    Llc,
    /// Missed the whole hierarchy of this socket.
    Mem,
}

/// Counters of one hierarchy; reset at the end of warm-up.
#[derive(Debug, Default, Clone)]
pub struct HierStats {
    /// Lines the hierarchy wrote back to DRAM (dirty victims).
    pub writebacks: u64,
    /// Device write-allocations into the LLC (ItoM misses).
    pub io_allocations: u64,
    /// Valid lines evicted by device writes: allocations, write updates of lines held only in an
    /// L2 (which take an I/O way), and recycled lines moved into the recycled ways. A stash
    /// ([`Hierarchy::dev_stash`]) counts the LLC victim of an inclusive allocation; its L2 victim
    /// enters the LLC as a core's would, and what that evicts is not counted here.
    pub io_evictions: u64,
}

/// Zeroed `u32` words whose record `i` of `stride` words starts at `off + i * stride`, 64 B
/// aligned (2 MiB aligned from 1 MiB up, so huge pages can cover all of it). Zeroed memory comes from the allocator untouched, so a cache nobody uses costs no
/// page faults.
fn records(n: usize, stride: usize) -> (Vec<u32>, usize) {
    const HUGE_WORDS: usize = (2 << 20) / 4;
    let words = n * stride;
    let align = if words >= HUGE_WORDS / 2 { HUGE_WORDS } else { WORDS_PER_LINE };
    let v = vec![0u32; words + align];
    advise_huge_pages(&v);
    let off = v.as_ptr().align_offset(4 * align) % align;
    (v, off)
}

/// Ask Linux to back `v`'s allocation with 2 MiB pages where it is not yet touched (a hint:
/// set records and directory entries are read in random order, and with 4 KiB pages most such
/// reads also miss the host's TLB).
fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let (a, b) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if b > a {
            // SAFETY: the range lies inside `v`'s live allocation; MADV_HUGEPAGE changes no
            // contents, and a failure (e.g. transparent huge pages off) is harmless.
            unsafe { madvise(a as *mut std::ffi::c_void, b - a, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Layout of one set record of `ways` ways, in u32 words: stamp bytes `0..ways` and the clock
/// byte `ways` (bytes in memory order), then `extra` words, then the tags; padded to whole
/// 64 B host cache lines (so the 32 bytes read by the stamp searches are inside the record).
#[derive(Clone, Copy)]
struct Layout {
    ways: usize,
    /// Word index of the first word after the stamps and clock.
    after_stamps: usize,
    /// Word index of the tags.
    tags: usize,
    stride: usize,
}

impl Layout {
    fn new(ways: usize, extra: usize) -> Layout {
        let after_stamps = (ways + 1).div_ceil(4);
        let tags = after_stamps + extra;
        Layout { ways, after_stamps, tags, stride: (tags + ways).div_ceil(WORDS_PER_LINE) * WORDS_PER_LINE }
    }
}

/// A record's words as bytes, in memory order (the stamp bytes come first).
#[inline(always)]
fn bytes(rec: &[u32]) -> &[u8] {
    // SAFETY: u32 words are plain bytes; the view covers exactly the same memory.
    unsafe { std::slice::from_raw_parts(rec.as_ptr().cast(), 4 * rec.len()) }
}

#[inline(always)]
fn bytes_mut(rec: &mut [u32]) -> &mut [u8] {
    // SAFETY: as `bytes`; any byte pattern is a valid u32.
    unsafe { std::slice::from_raw_parts_mut(rec.as_mut_ptr().cast(), 4 * rec.len()) }
}

/// Byte `i` of a record's stamp area.
#[inline(always)]
fn byte(rec: &[u32], i: usize) -> u32 {
    bytes(rec)[i] as u32
}

#[inline(always)]
fn set_byte(rec: &mut [u32], i: usize, v: u32) {
    bytes_mut(rec)[i] = v as u8;
}

/// Advance a set's replacement clock and stamp way `w` with it. Stamps only order the ways of
/// one set; when the clock would pass `MAX_STAMP`, the set's stamps are renumbered by rank
/// (same order).
#[inline(always)]
fn stamp(rec: &mut [u32], ways: usize, w: usize) {
    let b = bytes_mut(rec);
    // Records hold `ways` stamp bytes and the clock byte (`Layout`): one check covers both.
    assert!(w < ways && ways < b.len());
    let mut t = b[ways] as u32 + 1;
    if t > MAX_STAMP {
        t = renumber(rec, ways);
    }
    let b = bytes_mut(rec);
    // SAFETY: checked above.
    unsafe {
        *b.get_unchecked_mut(ways) = t as u8;
        *b.get_unchecked_mut(w) = t as u8;
    }
}

/// Make way `w` of LLC set record `rec` the most recently used: its stamp, and the PLRU MRU bits
/// or the QLRU age (0) of `policy`.
#[inline(always)]
fn touch_rec(rec: &mut [u32], l: Layout, policy: Replacement, w: usize) {
    stamp(rec, l.ways, w);
    let p = l.after_stamps;
    match policy {
        Replacement::Plru => {
            let all = crate::config::full_mask(l.ways as u32);
            let bits = rec[p] | 1 << w;
            rec[p] = if bits & all == all { 1 << w } else { bits };
        }
        Replacement::Qlru => {
            let ages = (rec[p] as u64 | (rec[p + 1] as u64) << 32) & !(3 << (2 * w));
            rec[p] = ages as u32;
            rec[p + 1] = (ages >> 32) as u32;
        }
        _ => {}
    }
}

/// Replace the stamps of a set's occupied ways by their ranks 1..=k (empty ways keep 0; equal
/// stamps rank by way); returns the next clock value.
#[cold]
#[inline(never)]
fn renumber(rec: &mut [u32], ways: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if ways < 32 {
        use std::arch::x86_64::*;
        let (a, b) = load_stamps(rec);
        let occ = !empty_ways(rec) & crate::config::full_mask(ways as u32);
        let mut ranks = [0u8; 32];
        // SAFETY: SSE2 is part of the x86-64 baseline. Stamps are compared as signed bytes
        // after flipping their top bit, which orders them as unsigned.
        unsafe {
            let flip = _mm_set1_epi8(i8::MIN);
            let (a, b) = (_mm_xor_si128(a, flip), _mm_xor_si128(b, flip));
            let mut m = occ;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                let v = _mm_set1_epi8((byte(rec, i) as u8 ^ 0x80) as i8);
                let mask = |c: fn(__m128i, __m128i) -> __m128i| {
                    _mm_movemask_epi8(c(a, v)) as u32 | (_mm_movemask_epi8(c(b, v)) as u32) << 16
                };
                let below = mask(|x, y| _mm_cmplt_epi8(x, y)) | mask(|x, y| _mm_cmpeq_epi8(x, y)) & ((1 << i) - 1);
                ranks[i] = (below & occ).count_ones() as u8 + 1;
            }
        }
        let mut m = occ;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            set_byte(rec, i, ranks[i] as u32);
        }
        return occ.count_ones() + 1;
    }
    renumber_scalar(rec, ways)
}

/// [`renumber`] one way at a time (any way count, any target).
fn renumber_scalar(rec: &mut [u32], ways: usize) -> u32 {
    let mut old = [0u32; 32];
    for (i, o) in old[..ways].iter_mut().enumerate() {
        *o = byte(rec, i);
    }
    let old = &old[..ways];
    let mut k = 0;
    for (i, &si) in old.iter().enumerate() {
        if si != 0 {
            k += 1;
            let below = old.iter().enumerate().filter(|&(j, &sj)| sj != 0 && (sj, j) < (si, i)).count();
            set_byte(rec, i, below as u32 + 1);
        }
    }
    k + 1
}

/// Ways whose stamp is 0 (empty), as a bit mask over bits 0..32; bits at or above the set's way
/// count are meaningless and must be masked by the caller.
#[inline(always)]
fn empty_ways(rec: &[u32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let (a, b) = load_stamps(rec);
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            let z = _mm_setzero_si128();
            _mm_movemask_epi8(_mm_cmpeq_epi8(a, z)) as u32 | (_mm_movemask_epi8(_mm_cmpeq_epi8(b, z)) as u32) << 16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (0..32).fold(0, |m, i| m | ((byte(rec, i) == 0) as u32) << i)
    }
}

/// For each byte `m` of a way mask, eight bytes that are 0xFF where bit `k` of `m` is clear and 0
/// where it is set: OR-ed over eight stamps, they lift the ways outside the mask above any stamp.
#[cfg(target_arch = "x86_64")]
static OUTSIDE_BYTES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        while k < 8 {
            if m >> k & 1 == 0 {
                t[m] |= 0xFF << (8 * k);
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// The way of `mask` (nonzero) with the smallest stamp: an empty way (stamp 0) if there is one,
/// else the least recently used. Ties (never among occupied ways) go to the highest way if
/// `highest`, else the lowest.
#[inline(always)]
fn lru_way(rec: &[u32], mask: u32, highest: bool) -> usize {
    debug_assert!(mask != 0);
    // One or two ways (DDIO's default two I/O ways, the recycled region): compared directly.
    let rest = mask & (mask - 1);
    if rest & rest.wrapping_sub(1) == 0 {
        let (lo, hi) = (mask.trailing_zeros() as usize, 31 - mask.leading_zeros() as usize);
        let (a, b) = (byte(rec, lo), byte(rec, hi));
        return if a < b || a == b && !highest { lo } else { hi };
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86-64 baseline; `load_stamps` checks the record's length.
    let eq = unsafe {
        use std::arch::x86_64::*;
        // Bytes of the ways outside `mask` become 0xFF (above any stamp).
        let outside = |m: u32| {
            let b = |k: u32| OUTSIDE_BYTES[((m >> (8 * k)) & 0xFF) as usize] as i64;
            _mm_set_epi64x(b(1), b(0))
        };
        // The minimum of all 16 bytes, in every byte.
        let min_all = |mut m: __m128i| {
            m = _mm_min_epu8(m, _mm_shuffle_epi32::<0x4E>(m));
            m = _mm_min_epu8(m, _mm_shuffle_epi32::<0xB1>(m));
            m = _mm_min_epu8(m, _mm_shufflehi_epi16::<0xB1>(_mm_shufflelo_epi16::<0xB1>(m)));
            _mm_min_epu8(m, _mm_or_si128(_mm_slli_epi16::<8>(m), _mm_srli_epi16::<8>(m)))
        };
        let (a, b) = load_stamps(rec);
        let a = _mm_or_si128(a, outside(mask));
        if mask >> 16 == 0 {
            // Ways 0..16 only (the common case): one vector.
            (_mm_movemask_epi8(_mm_cmpeq_epi8(a, min_all(a))) as u32) & mask
        } else {
            let b = _mm_or_si128(b, outside(mask >> 16));
            let min = min_all(_mm_min_epu8(a, b));
            (_mm_movemask_epi8(_mm_cmpeq_epi8(a, min)) as u32 | (_mm_movemask_epi8(_mm_cmpeq_epi8(b, min)) as u32) << 16) & mask
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let eq = {
        let st = |i: usize| if mask >> i & 1 != 0 { byte(rec, i) } else { 0xFF };
        let min = (0..32).map(st).min().unwrap_or(0xFF);
        (0..32).fold(0, |m, i| m | ((st(i) == min) as u32) << i) & mask
    };
    if highest {
        31 - eq.leading_zeros() as usize
    } else {
        eq.trailing_zeros() as usize
    }
}

/// Bytes 0..32 of a record (stamps, clock and what follows) as two vectors.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn load_stamps(rec: &[u32]) -> (std::arch::x86_64::__m128i, std::arch::x86_64::__m128i) {
    use std::arch::x86_64::*;
    let r = &rec[..8];
    // SAFETY: `r` is 32 readable bytes; the loads are unaligned; SSE2 is x86-64 baseline.
    unsafe { (_mm_loadu_si128(r.as_ptr().cast()), _mm_loadu_si128(r.as_ptr().add(4).cast())) }
}

/// Ask the host CPU to start loading the cache line at `p` (any address: a prefetch reads
/// nothing architecturally and cannot fault).
#[inline(always)]
fn host_prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no architectural effect and cannot fault, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

struct L2 {
    /// Set records (`Hierarchy::l2_layout`, no extra words).
    rec: Vec<u32>,
    off: usize,
    cat: u32,
}

pub struct Hierarchy {
    /// LLC set records; the two extra words hold the PLRU MRU bits (first word) or the QLRU ages
    /// (2 bits per way, low and high word).
    layout: Layout,
    l2_layout: Layout,
    l2_sets: u32,
    inclusive: bool,
    io_mask: u32,
    recycled_mask: u32,
    policy: Replacement,
    /// Physical line → slice.
    map: SliceMap,
    sets_per_slice: u32,
    llc: Vec<u32>,
    llc_off: usize,
    l2: Vec<L2>,
    dir: Vec<Dir>,
    rng: Rng,
    /// Set-dueling selector of device allocations' insertion (see the module docs); `duel` is
    /// false when a slice has too few sets for leader sets.
    psel: u32,
    duel: bool,
    /// Bimodal insertions since the last one at the MRU position.
    bip_count: u32,
    pub stats: HierStats,
    /// Dirty lines evicted since the caller last took them (to charge DRAM bandwidth).
    pending_writebacks: u32,
    /// LLC victims of a batch of device writes ([`Hierarchy::dev_write_each`]) whose eviction
    /// waits; empty between calls.
    waiting: Waiting,
}

/// Evictions a batch of device writes keeps waiting at most.
const WAIT_CAP: usize = 64;
/// Waiting evictions a full queue keeps: an eviction completes `WAIT_KEEP` to `WAIT_CAP - 1`
/// evicting writes after its allocation (sooner when a waiting victim is written again, or at
/// the batch's end), time for the prefetch of its victim's directory entry.
const WAIT_KEEP: usize = 32;

/// LLC victims whose eviction waits (their directory entries, their L2 copies in an inclusive
/// hierarchy and their write-back counts not yet updated): `q[..len]`, oldest first.
struct Waiting {
    q: [u32; WAIT_CAP],
    len: usize,
    /// Writes to a waiting victim, and full queues (what the tests check they exercise).
    #[cfg(test)]
    early_settles: u32,
    #[cfg(test)]
    full_settles: u32,
}

/// Geometry and policy of one socket's hierarchy.
pub struct HierParams {
    pub slices: u32,
    pub sets_per_slice: u32,
    pub ways: u32,
    pub l2_sets: u32,
    pub l2_ways: u32,
    pub cores: u32,
    pub inclusive: bool,
    pub io_mask: u32,
    pub recycled_mask: u32,
    pub policy: Replacement,
    pub seed: u64,
    pub hash: SliceHash,
    /// Device allocations are inserted by set dueling (true) or always at the most recently used
    /// position (false: strict LRU).
    pub adaptive_io: bool,
}

/// How physical line addresses map to LLC slices.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SliceHash {
    /// No processor's measured map, built the way Intel's are ([`SliceMap`]): for a power-of-two
    /// slice count, XOR parities of the address over fixed pseudo-random masks; for other counts,
    /// a balanced pseudo-random base sequence of 4096 lines permuted by parities of the higher
    /// address bits.
    #[default]
    Parity,
    /// The map measured on Skylake-SP / Cascade Lake Xeons with 18 slices of 2048 sets
    /// (`crate::slice_map`); other geometries use `Parity`.
    Skx,
}

/// Fixed, hand-chosen masks over line-address bits 0..39 (physical bits 6..45), each mixing low
/// and high bits; not Intel's (unpublished) masks.
const SLICE_MASKS: [u64; 8] = [
    0x0b_5ad4_eceda,
    0x0c_79e7_b9d5f,
    0x04_1a2b_3c4d5,
    0x0e_f0f1_e2d3c,
    0x0a_9b8c_7d6e5,
    0x07_3c2d_1e0f9,
    0x0d_4e5f_6a7b8,
    0x09_8877_66554,
];

/// `SLICE_PARITY[k][b]`: bit `i` is the parity of `SLICE_MASKS[i]` over byte `k` of a line
/// address equal to `b`. Parity is linear, so a line's eight parity bits are the XOR of its five
/// low bytes' entries.
const SLICE_PARITY: [[u8; 256]; 5] = {
    let mut t = [[0u8; 256]; 5];
    let mut k = 0;
    while k < 5 {
        let mut b = 0;
        while b < 256 {
            let mut i = 0;
            while i < 8 {
                let p = ((b as u64) << (8 * k) & SLICE_MASKS[i]).count_ones() & 1;
                t[k][b] |= (p as u8) << i;
                i += 1;
            }
            b += 1;
        }
        k += 1;
    }
    t
};

/// XOR-parity slice of a physical line address for a power-of-two slice count: bit `i` is the
/// parity of `pa_line & SLICE_MASKS[i]` (the linear structure Intel's power-of-two maps have:
/// Maurice et al., RAID'15); large aligned blocks give every slice the same share.
fn xor_slice(pa_line: u64, slices: u32) -> u32 {
    let mut v = 0u8;
    for (k, t) in SLICE_PARITY.iter().enumerate() {
        v ^= t[(pa_line >> (8 * k)) as u8 as usize];
    }
    v as u32 & (slices - 1)
}

/// Lines of a base sequence (line-address bits 0..12, 256 KiB), as on the measured map.
const SEQ_LINES: u64 = SKX18_BASE_LINES;

/// Permutation-select masks of the generic sequence map over line-address bits 12..=35
/// (physical bits 18..=41, so the map repeats every 4 TiB), drawn from SplitMix64. Twelve
/// independent masks let the blocks of 4096 lines reach all 4096 XOR translations of the base
/// sequence.
const SEQ_PERM_MASKS: [u64; 12] = {
    let mut m = [0u64; 12];
    let mut i = 0;
    while i < 12 {
        m[i] = crate::rng::mix64(0x5e9_1ce5 + i as u64) & (((1u64 << 24) - 1) << 12);
        i += 1;
    }
    m
};

/// Seed of the generic base sequence's shuffle: the map is the platform's, the same for every
/// run seed.
const SEQ_SEED: u64 = 0x5e9_ba5e;

/// A physical line address → LLC slice map of one geometry ([`SliceHash`]).
///
/// The maps McCalpin measured (TACC TR-2021-03: Skylake-SP / Cascade Lake with 14 to 28 slices,
/// Ice Lake-SP with 28 and 40) take the slice from a base sequence over the low line-address
/// bits (256 to 16384 lines long; 4096 on 18 slices), indexed after an XOR with a permutation
/// whose bits are parities of the higher address bits; with a power-of-two slice count that
/// form is a linear XOR map. The `Skx` hash on 18 slices of 2048 sets uses the measured tables.
/// `Parity` on a slice count that is not a power of two uses the same form with a 4096-line,
/// balanced pseudo-random base sequence (every slice ⌊4096 / slices⌋ or ⌈4096 / slices⌉ times)
/// and masks drawn from SplitMix64: two lines whose addresses differ in one bit between
/// physical bits 18 and 41 share a slice with probability about 1 / slices (as on the measured
/// maps, some multi-bit differences, those the masks cannot see, always share one). On a
/// power-of-two count, `Parity` is XOR parities (`xor_slice`).
pub struct SliceMap {
    slices: u32,
    /// Base sequence and permutation masks over line addresses; `None`: XOR parities.
    seq: Option<(Vec<u8>, [u64; 12])>,
}

impl SliceMap {
    pub fn new(hash: SliceHash, slices: u32, sets_per_slice: u32) -> SliceMap {
        let seq = if hash == SliceHash::Skx && (slices, sets_per_slice) == SKX_GEOMETRY {
            // McCalpin's masks select physical-address bits 18..; on line addresses, bits 12...
            Some((SKX18_BASE.to_vec(), SKX18_PERM_MASKS.map(|m| m >> 6)))
        } else if slices.is_power_of_two() {
            None
        } else {
            let mut base: Vec<u8> = (0..SEQ_LINES).map(|i| (i % slices as u64) as u8).collect();
            let mut rng = Rng::new(SEQ_SEED);
            for i in (1..base.len()).rev() {
                base.swap(i, rng.below(i as u64 + 1) as usize);
            }
            Some((base, SEQ_PERM_MASKS))
        };
        SliceMap { slices, seq }
    }

    /// The base-sequence permutation of the 4096-line block holding `pa_line`.
    fn perm(masks: &[u64; 12], pa_line: u64) -> u64 {
        masks.iter().enumerate().fold(0, |p, (i, m)| p | ((pa_line & m).count_ones() as u64 & 1) << i)
    }

    pub fn slice(&self, pa_line: u64) -> u32 {
        match &self.seq {
            Some((base, masks)) => base[((pa_line % SEQ_LINES) ^ Self::perm(masks, pa_line)) as usize] as u32,
            None => xor_slice(pa_line, self.slices),
        }
    }
}

impl Hierarchy {
    /// `pa_lines[i]` is the physical line address of simulated line `i` (for the slice hash). A
    /// socket nothing uses gets an empty slice: no directory, and its zeroed arrays are never
    /// touched.
    ///
    /// Panics unless the geometry has sets (`slices`, `sets_per_slice`, `l2_sets` at least 1,
    /// at most 2^32 LLC sets) and at most 32 ways per level: the unchecked record accesses rely
    /// on it.
    pub fn new(p: &HierParams, pa_lines: &[u64]) -> Hierarchy {
        assert!(p.slices >= 1 && p.sets_per_slice >= 1 && p.l2_sets >= 1, "a cache level without sets");
        assert!(p.ways <= 32 && p.l2_ways <= 32, "more than 32 ways");
        let nsets = p.slices.checked_mul(p.sets_per_slice).expect("at most 2^32 LLC sets") as usize;
        let layout = Layout::new(p.ways as usize, 2);
        let l2_layout = Layout::new(p.l2_ways as usize, 0);
        let (llc, llc_off) = records(nsets, layout.stride);
        let mut h = Hierarchy {
            layout,
            l2_layout,
            l2_sets: p.l2_sets,
            inclusive: p.inclusive,
            io_mask: p.io_mask,
            recycled_mask: p.recycled_mask,
            policy: p.policy,
            map: SliceMap::new(p.hash, p.slices, p.sets_per_slice),
            sets_per_slice: p.sets_per_slice,
            llc,
            llc_off,
            l2: (0..p.cores)
                .map(|_| {
                    let (rec, off) = records(p.l2_sets as usize, l2_layout.stride);
                    L2 { rec, off, cat: crate::config::full_mask(p.ways) }
                })
                .collect(),
            dir: Vec::new(),
            rng: Rng::new(p.seed ^ 0x5eed_cac4e),
            psel: PSEL_MAX / 2,
            duel: p.adaptive_io && p.sets_per_slice >= LEADER_EVERY,
            bip_count: 0,
            stats: HierStats::default(),
            pending_writebacks: 0,
            waiting: Waiting {
                q: [0; WAIT_CAP],
                len: 0,
                #[cfg(test)]
                early_settles: 0,
                #[cfg(test)]
                full_settles: 0,
            },
        };
        h.add_lines(pa_lines);
        h
    }

    /// Append directory entries for more simulated lines (numbered after the existing ones).
    pub fn add_lines(&mut self, pa_lines: &[u64]) {
        let (slices, sets_per_slice) = (self.map.slices, self.sets_per_slice);
        let cap = self.dir.capacity();
        self.dir.reserve(pa_lines.len());
        if self.dir.capacity() != cap {
            advise_huge_pages(&self.dir);
        }
        if let Some((base, masks)) = &self.map.seq {
            // The permutation depends only on line bits 12.., so it is found once per run of
            // lines that share them.
            let (mut high, mut perm) = (u64::MAX, 0u64);
            self.dir.extend(pa_lines.iter().map(|&pa| {
                if pa / SEQ_LINES != high {
                    high = pa / SEQ_LINES;
                    perm = SliceMap::perm(masks, pa);
                }
                let slice = base[((pa % SEQ_LINES) ^ perm) as usize] as u32;
                Dir::new(slice * sets_per_slice + (pa as u32 & (sets_per_slice - 1)))
            }));
            return;
        }
        // `xor_slice`, with the parity of bytes 2.. taken once per run of lines that share them.
        let (mut high, mut high_parity) = (u64::MAX, 0u8);
        self.dir.extend(pa_lines.iter().map(|&pa| {
            if pa >> 16 != high {
                high = pa >> 16;
                high_parity = (2..5).fold(0, |v, k| v ^ SLICE_PARITY[k][(pa >> (8 * k)) as u8 as usize]);
            }
            let v = SLICE_PARITY[0][pa as u8 as usize] ^ SLICE_PARITY[1][(pa >> 8) as u8 as usize] ^ high_parity;
            Dir::new((v as u32 & (slices - 1)) * sets_per_slice + (pa as u32 & (sets_per_slice - 1)))
        }));
    }

    /// Make room for `n` more lines' directory entries (for `add_lines`), or say that the host's
    /// memory cannot hold them; nothing else changes.
    pub fn try_reserve_lines(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        let cap = self.dir.capacity();
        // Amortised growth first; just `n` more when doubling is refused.
        if self.dir.try_reserve(n).is_err() {
            self.dir.try_reserve_exact(n)?;
        }
        if self.dir.capacity() != cap {
            advise_huge_pages(&self.dir);
        }
        Ok(())
    }

    /// Simulated lines with a directory entry.
    pub fn lines(&self) -> usize {
        self.dir.len()
    }

    /// Set a core's CAT fill mask.
    pub fn set_cat(&mut self, core: usize, mask: u32) {
        self.l2[core].cat = mask;
    }

    /// Dirty lines evicted to DRAM since the last call.
    pub fn take_writebacks(&mut self) -> u32 {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        std::mem::take(&mut self.pending_writebacks)
    }

    /// `line`'s directory entry, unchecked: every caller holds a line below `dir.len()` (public
    /// entries check with [`Hierarchy::check_lines`]; victims come from set records' tags, which
    /// hold only such lines, and the directory never shrinks).
    #[inline(always)]
    fn de(&self, line: u32) -> Dir {
        debug_assert!((line as usize) < self.dir.len());
        // SAFETY: see above.
        unsafe { *self.dir.get_unchecked(line as usize) }
    }

    #[inline(always)]
    fn de_mut(&mut self, line: u32) -> &mut Dir {
        debug_assert!((line as usize) < self.dir.len());
        // SAFETY: as `de`.
        unsafe { self.dir.get_unchecked_mut(line as usize) }
    }

    /// Panic unless lines `first..first + n` have directory entries (the check `de` relies on).
    #[inline(always)]
    fn check_lines(&self, first: u32, n: u32) {
        assert!(first as usize + n as usize <= self.dir.len(), "lines {first}..{} beyond the directory's {}", first as u64 + n as u64, self.dir.len());
    }

    /// `core`'s L2 set record at `b` (from [`Hierarchy::l2_rec`]), unchecked: `core` is below
    /// the core count (public entries check) and `b` inside its records by construction.
    #[inline(always)]
    fn l2_rec_mut(&mut self, core: usize, b: usize) -> &mut [u32] {
        let stride = self.l2_layout.stride;
        debug_assert!(core < self.l2.len() && b + stride <= self.l2[core].rec.len());
        // SAFETY: see above; `b` is `l2_rec`'s, whose set is masked below `l2_sets` (at least
        // 1, checked by `new`).
        unsafe { self.l2.get_unchecked_mut(core).rec.get_unchecked_mut(b..b + stride) }
    }

    /// The LLC set record at `b` (from [`Hierarchy::rec`] of a directory entry's set, always
    /// inside `llc`), unchecked.
    #[inline(always)]
    fn llc_rec_mut(&mut self, b: usize) -> &mut [u32] {
        debug_assert!(b + self.layout.stride <= self.llc.len());
        // SAFETY: sets in directory entries are below the set count `llc` was sized for (`new`
        // checks the geometry; `add_lines` masks each set into it).
        unsafe { self.llc.get_unchecked_mut(b..b + self.layout.stride) }
    }

    /// Start loading `line`'s LLC set record into the host's caches (a hint; no effect on the
    /// model). Callers about to touch several lines issue these first so the loads overlap.
    #[inline]
    pub fn prefetch(&self, line: u32) {
        let Some(d) = self.dir.get(line as usize) else { return };
        let rec = self.llc.as_ptr().wrapping_add(self.rec(d.set));
        host_prefetch(rec);
        let mut l = WORDS_PER_LINE;
        while l < self.layout.stride {
            host_prefetch(rec.wrapping_add(l));
            l += WORDS_PER_LINE;
        }
    }

    /// Start loading `line`'s directory entry (a hint, as `prefetch`).
    #[inline]
    pub fn prefetch_dir(&self, line: u32) {
        host_prefetch(self.dir.as_ptr().wrapping_add(line as usize));
    }

    // -------------------------------------------------------------------------------------------
    // Queries (tests and reports)
    // -------------------------------------------------------------------------------------------

    /// LLC way holding `line`, if any.
    pub fn llc_way(&self, line: u32) -> Option<u32> {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let w = self.dir[line as usize].llc_way;
        (w != NONE).then_some(w as u32)
    }

    /// Core whose L2 holds `line`, if any.
    pub fn l2_owner(&self, line: u32) -> Option<u32> {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let c = self.dir[line as usize].l2_core;
        (c != NONE).then_some(c as u32)
    }

    /// LLC set index (`slice * sets + set`) of `line`.
    pub fn set_of(&self, line: u32) -> u32 {
        self.dir[line as usize].set
    }

    /// LLC set index (`slice * sets + set`) of the line at physical line address `pa_line`: the
    /// set `add_lines` gives it.
    pub fn llc_set_of_pa(&self, pa_line: u64) -> u32 {
        self.map.slice(pa_line) * self.sets_per_slice + (pa_line as u32 & (self.sets_per_slice - 1))
    }

    /// Replacement stamp of `line` in its LLC set (LRU order within the set; larger = more
    /// recent).
    pub fn llc_stamp(&self, line: u32) -> Option<u64> {
        let d = self.dir[line as usize];
        (d.llc_way != NONE).then(|| byte(self.set_rec(d.set), d.llc_way as usize) as u64)
    }

    pub fn is_cached(&self, line: u32) -> bool {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let d = self.dir[line as usize];
        d.llc_way != NONE || d.l2_core != NONE
    }

    // -------------------------------------------------------------------------------------------
    // LLC internals
    // -------------------------------------------------------------------------------------------

    /// Index of `set`'s record in `llc`.
    #[inline]
    fn rec(&self, set: u32) -> usize {
        self.llc_off + set as usize * self.layout.stride
    }

    /// `set`'s record.
    #[inline]
    fn set_rec(&self, set: u32) -> &[u32] {
        let b = self.rec(set);
        &self.llc[b..b + self.layout.stride]
    }

    #[inline]
    fn qlru_ages(&self, b: usize) -> u64 {
        let p = b + self.layout.after_stamps;
        self.llc[p] as u64 | (self.llc[p + 1] as u64) << 32
    }

    #[inline]
    fn set_qlru_ages(&mut self, b: usize, ages: u64) {
        let p = b + self.layout.after_stamps;
        self.llc[p] = ages as u32;
        self.llc[p + 1] = (ages >> 32) as u32;
    }

    #[inline]
    fn set_qlru_age(&mut self, b: usize, w: usize, age: u64) {
        let a = self.qlru_ages(b) & !(3 << (2 * w)) | age << (2 * w);
        self.set_qlru_ages(b, a);
    }

    #[inline(always)]
    fn touch_llc(&mut self, b: usize, w: usize) {
        let (l, policy) = (self.layout, self.policy);
        touch_rec(self.llc_rec_mut(b), l, policy, w);
    }

    /// Victim way in the set at `b` among `mask`: an empty way first, then by policy. Device
    /// allocations (`lru_only`) take empty ways from the highest (as measured for the I/O ways);
    /// core fills from the lowest, so an empty cache does not park code and data in the I/O ways
    /// where the next DMA burst would evict them.
    #[inline(always)]
    fn llc_victim(&mut self, b: usize, mask: u32, lru_only: bool) -> usize {
        let rec = &self.llc[b..b + self.layout.stride];
        let empty = mask & empty_ways(rec);
        if empty != 0 {
            return if lru_only { 31 - empty.leading_zeros() as usize } else { empty.trailing_zeros() as usize };
        }
        let policy = if lru_only { Replacement::Lru } else { self.policy };
        match policy {
            Replacement::Lru => lru_way(rec, mask, true),
            Replacement::Plru => {
                let free = mask & !self.llc[b + self.layout.after_stamps];
                if free != 0 {
                    free.trailing_zeros() as usize
                } else {
                    mask.trailing_zeros() as usize
                }
            }
            Replacement::Qlru => {
                let mut ages = self.qlru_ages(b);
                loop {
                    let mut m = mask;
                    while m != 0 {
                        let w = m.trailing_zeros() as usize;
                        if (ages >> (2 * w)) & 3 >= 3 {
                            self.set_qlru_ages(b, ages);
                            return w;
                        }
                        m &= m - 1;
                    }
                    let mut m = mask;
                    while m != 0 {
                        let w = m.trailing_zeros() as usize;
                        ages += 1 << (2 * w);
                        m &= m - 1;
                    }
                }
            }
            Replacement::Random => {
                let n = mask.count_ones() as u64;
                let mut k = self.rng.below(n);
                let mut m = mask;
                loop {
                    let w = m.trailing_zeros() as usize;
                    if k == 0 {
                        return w;
                    }
                    k -= 1;
                    m &= m - 1;
                }
            }
        }
    }

    /// Remove `line` from the LLC (no write-back: the caller moves or overwrites it).
    fn llc_unlink(&mut self, line: u32) {
        let d = self.de(line);
        if d.llc_way != NONE {
            let b = self.rec(d.set);
            let w = d.llc_way as usize;
            self.de_mut(line).llc_way = NONE;
            let tags = self.layout.tags;
            let rec = self.llc_rec_mut(b);
            rec[tags + w] = EMPTY;
            set_byte(rec, w, 0);
        }
    }

    /// Insert `line` into the LLC within `mask`; evicts (and writes back) the victim.
    /// Returns true when a valid line was evicted.
    #[inline(always)]
    fn llc_insert(&mut self, line: u32, mask: u32, lru_only: bool) -> bool {
        let set = self.de(line).set;
        if lru_only {
            return self.llc_insert_lru::<false>(line, set, mask, false);
        }
        let b = self.rec(set);
        let w = self.llc_victim(b, mask, lru_only);
        let t = self.layout.tags + w;
        let victim = self.llc_rec_mut(b)[t];
        let evicted = victim != EMPTY;
        if evicted {
            self.evict_llc_line(victim - 1);
        }
        self.llc_rec_mut(b)[t] = line + 1;
        self.de_mut(line).llc_way = w as u8;
        self.touch_llc(b, w);
        if self.policy == Replacement::Qlru && !lru_only {
            self.set_qlru_age(b, w, 2);
        }
        evicted
    }

    /// `llc_insert` of `line` (in LLC set `set`) for allocations that evict in LRU order: the
    /// highest empty way of `mask`, else its least recently used way. The line becomes the most
    /// recently used, or, when `bimodal` and a line was evicted, takes the victim's place as the
    /// least recently used (its stamp; the PLRU bits and QLRU ages, which I/O evictions do not
    /// read, are left as the victim's).
    ///
    /// With `DEFER` the victim's eviction waits ([`Hierarchy::dev_write_each`]); the caller keeps
    /// room for it in the queue.
    #[inline(always)]
    fn llc_insert_lru<const DEFER: bool>(&mut self, line: u32, set: u32, mask: u32, bimodal: bool) -> bool {
        let (l, policy) = (self.layout, self.policy);
        let b = self.rec(set);
        let rec = self.llc_rec_mut(b);
        // Empty ways have stamp 0, below every occupied way's: the LRU search finds the
        // highest of them first.
        let w = lru_way(rec, mask, true);
        let victim = std::mem::replace(&mut rec[l.tags + w], line + 1);
        debug_assert_eq!(victim == EMPTY, byte(rec, w) == 0, "stamp 0 marks exactly the empty ways");
        if !(bimodal && victim != EMPTY) {
            touch_rec(rec, l, policy, w);
        }
        self.de_mut(line).llc_way = w as u8;
        // The victim's eviction reads and writes only its directory entry and L2 copy.
        let evicted = victim != EMPTY;
        if evicted {
            if DEFER {
                host_prefetch(self.dir.as_ptr().wrapping_add(victim as usize - 1));
                let wq = &mut self.waiting;
                wq.q[wq.len] = victim - 1;
                wq.len += 1;
            } else {
                self.evict_llc_line(victim - 1);
            }
        }
        evicted
    }

    #[inline(always)]
    fn evict_llc_line(&mut self, victim: u32) {
        let vd = self.de(victim);
        let mut dirty = vd.flags & F_LLC_DIRTY != 0;
        if self.inclusive && vd.l2_core != NONE {
            // Back-invalidation keeps the LLC inclusive.
            dirty |= vd.flags & F_L2_DIRTY != 0;
            self.l2_unlink(victim);
        }
        if dirty {
            self.stats.writebacks += 1;
            self.pending_writebacks += 1;
        }
        let d = self.de_mut(victim);
        d.llc_way = NONE;
        d.flags &= !F_LLC_DIRTY;
        if d.l2_core == NONE {
            d.flags = 0;
        }
    }

    // -------------------------------------------------------------------------------------------
    // L2 internals
    // -------------------------------------------------------------------------------------------

    /// Index of `line`'s set record in `core`'s L2.
    #[inline]
    fn l2_rec(&self, core: usize, line: u32) -> usize {
        debug_assert!(core < self.l2.len());
        // SAFETY: `core` is below the core count (as `l2_rec_mut`).
        unsafe { self.l2.get_unchecked(core) }.off + (line & (self.l2_sets - 1)) as usize * self.l2_layout.stride
    }

    fn l2_unlink(&mut self, line: u32) {
        let d = self.de(line);
        if d.l2_core != NONE {
            let c = d.l2_core as usize;
            let (b, w) = (self.l2_rec(c, line), d.l2_way as usize);
            let d = self.de_mut(line);
            d.l2_core = NONE;
            d.l2_way = NONE;
            d.flags &= !F_L2_DIRTY;
            let tags = self.l2_layout.tags;
            let rec = self.l2_rec_mut(c, b);
            rec[tags + w] = EMPTY;
            set_byte(rec, w, 0);
        }
    }

    fn l2_touch(&mut self, core: usize, line: u32) {
        let w = self.de(line).l2_way as usize;
        let b = self.l2_rec(core, line);
        let l = self.l2_layout;
        stamp(self.l2_rec_mut(core, b), l.ways, w);
    }

    /// Insert `line` into `core`'s L2; the LRU victim goes to the LLC (non-inclusive) or marks the
    /// LLC copy dirty (inclusive).
    fn l2_insert(&mut self, core: usize, line: u32, dirty: bool) {
        let b = self.l2_rec(core, line);
        let l = self.l2_layout;
        let rec = self.l2_rec_mut(core, b);
        // The lowest empty way (stamp 0), else the least recently used.
        let w = lru_way(rec, crate::config::full_mask(l.ways as u32), false);
        let victim = rec[l.tags + w];
        debug_assert_eq!(victim == EMPTY, byte(rec, w) == 0, "stamp 0 marks exactly the empty ways");
        if victim != EMPTY {
            let victim = victim - 1;
            let vd = self.de(victim);
            let vdirty = vd.flags & F_L2_DIRTY != 0;
            {
                let d = self.de_mut(victim);
                d.l2_core = NONE;
                d.l2_way = NONE;
                d.flags &= !F_L2_DIRTY;
            }
            if self.inclusive {
                if vd.llc_way != NONE {
                    if vdirty {
                        self.de_mut(victim).flags |= F_LLC_DIRTY;
                    }
                } else if vdirty {
                    self.stats.writebacks += 1;
                    self.pending_writebacks += 1;
                }
            } else if vd.llc_way == NONE {
                let cat = self.l2[core].cat;
                self.llc_insert(victim, cat, false);
                if vdirty {
                    self.de_mut(victim).flags |= F_LLC_DIRTY;
                }
            } else if vdirty {
                self.de_mut(victim).flags |= F_LLC_DIRTY;
            }
        }
        let rec = self.l2_rec_mut(core, b);
        rec[l.tags + w] = line + 1;
        stamp(rec, l.ways, w);
        let d = self.de_mut(line);
        d.l2_core = core as u8;
        d.l2_way = w as u8;
        if dirty {
            d.flags |= F_L2_DIRTY;
        }
    }

    // -------------------------------------------------------------------------------------------
    // The stage contract: core and device accesses
    // -------------------------------------------------------------------------------------------

    /// A core load (`write = false`) or store (read-for-ownership, then dirty in its L2).
    pub fn core_access(&mut self, core: usize, line: u32, write: bool) -> Src {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        self.check_lines(line, 1);
        assert!(core < self.l2.len(), "core {core} of {}", self.l2.len());
        let d = self.de(line);
        let src = if d.l2_core as usize == core {
            self.l2_touch(core, line);
            Src::L2
        } else if d.l2_core != NONE {
            // Migratory transfer from another core's L2 (dirty data moves with it).
            let dirty = d.flags & F_L2_DIRTY != 0;
            self.l2_unlink(line);
            self.l2_insert(core, line, dirty);
            Src::OtherL2
        } else if d.llc_way != NONE {
            if self.inclusive {
                let b = self.rec(d.set);
                self.touch_llc(b, d.llc_way as usize);
                self.l2_insert(core, line, false);
            } else {
                let dirty = d.flags & F_LLC_DIRTY != 0;
                self.llc_unlink(line);
                self.de_mut(line).flags &= !F_LLC_DIRTY;
                self.l2_insert(core, line, dirty);
            }
            Src::Llc
        } else {
            self.duel_miss(d.set);
            if self.inclusive {
                let cat = self.l2[core].cat;
                self.llc_insert(line, cat, false);
            }
            self.l2_insert(core, line, false);
            Src::Mem
        };
        if write {
            let d = self.de_mut(line);
            d.flags |= F_L2_DIRTY;
            if d.flags & F_DEV != 0 {
                d.flags |= F_RECYCLED;
            }
        }
        src
    }

    /// A device full-line write. `allocating` = DDIO on for this port and the line is homed on
    /// this socket; a miss then allocates in the platform's I/O ways. Returns true for a hit (the
    /// line was cached here).
    #[inline]
    pub fn dev_write(&mut self, line: u32, allocating: bool) -> bool {
        self.dev_write_in(line, allocating, self.io_mask)
    }

    /// [`Hierarchy::dev_write_in`] of `lines` in order, calling `each(i, src)` with where
    /// `lines[i]` was before its write: [`Src::Llc`], [`Src::L2`] (a core's L2 only) or
    /// [`Src::Mem`]. Panics, changing nothing, unless every line has a directory entry.
    ///
    /// Same result as line-by-line writes; faster on the host: directory entries and set
    /// records are prefetched ahead, and each LLC victim's eviction (its directory entry, its L2
    /// copy in an inclusive hierarchy, the write-back count) waits while its directory entry is
    /// prefetched, so that independent writes overlap the host's cache misses. A victim has
    /// already left its set, a device write changes no other line's directory entry or L2 copy
    /// (only places in its set's replacement order, which the victim has left), and a write to
    /// a waiting victim settles every waiting eviction first; all are settled before return.
    /// `each` must not panic: a panic from it would leave evictions waiting.
    pub fn dev_write_each(&mut self, lines: &[u32], allocating: bool, io_mask: u32, mut each: impl FnMut(usize, Src)) {
        const DIR_AHEAD: usize = 16;
        const SET_AHEAD: usize = 8;
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        if let Some(&top) = lines.iter().max() {
            self.check_lines(top, 1);
        }
        for &l in lines.iter().take(DIR_AHEAD) {
            self.prefetch_dir(l);
        }
        let n = lines.len();
        for i in 0..n {
            if i + DIR_AHEAD < n {
                self.prefetch_dir(lines[i + DIR_AHEAD]);
            }
            if i + SET_AHEAD < n {
                self.prefetch(lines[i + SET_AHEAD]);
            }
            let line = lines[i];
            if self.waiting.len == WAIT_CAP {
                self.settle(WAIT_CAP - WAIT_KEEP);
                #[cfg(test)]
                {
                    self.waiting.full_settles += 1;
                }
            }
            let mut d = self.de(line);
            let tag = self.layout.tags + d.llc_way as usize;
            if d.llc_way != NONE && self.llc_rec_mut(self.rec(d.set))[tag] != line + 1 {
                // Its entry names a way that holds another line: it is a waiting victim.
                self.settle(self.waiting.len);
                d = self.de(line);
                #[cfg(test)]
                {
                    self.waiting.early_settles += 1;
                }
            }
            self.dev_write_at::<true>(line, allocating, io_mask);
            each(
                i,
                if d.llc_way != NONE {
                    Src::Llc
                } else if d.l2_core != NONE {
                    Src::L2
                } else {
                    Src::Mem
                },
            );
        }
        self.settle(self.waiting.len);
    }

    /// Complete the oldest `n` waiting evictions (`n` at most the number waiting).
    #[inline(always)]
    fn settle(&mut self, n: usize) {
        let len = self.waiting.len;
        debug_assert!(n <= len);
        for i in 0..n {
            self.evict_llc_line(self.waiting.q[i]);
        }
        self.waiting.q.copy_within(n..len, 0);
        self.waiting.len = len - n;
    }

    /// [`Hierarchy::dev_write`] by a port whose allocations go to the ways `io_mask` (I/O
    /// isolation; the platform's I/O ways unless the port has its own).
    #[inline]
    pub fn dev_write_in(&mut self, line: u32, allocating: bool, io_mask: u32) -> bool {
        self.check_lines(line, 1);
        self.dev_write_at::<false>(line, allocating, io_mask)
    }

    #[inline(always)]
    fn dev_write_at<const DEFER: bool>(&mut self, line: u32, allocating: bool, io_mask: u32) -> bool {
        debug_assert!(DEFER || self.waiting.len == 0, "evictions left waiting");
        let d = self.de(line);
        if allocating && d.l2_core == NONE && (self.recycled_mask == 0 || d.flags & F_RECYCLED == 0) {
            // The common case first: the line in no L2 and not bound for the recycled ways.
            if d.llc_way != NONE {
                let b = self.rec(d.set);
                self.touch_llc(b, d.llc_way as usize);
            } else {
                let bimodal = self.io_insertion(d.set);
                self.stats.io_allocations += 1;
                if self.llc_insert_lru::<DEFER>(line, d.set, io_mask, bimodal) {
                    self.stats.io_evictions += 1;
                }
            }
            self.de_mut(line).flags = F_LLC_DIRTY | F_DEV;
            return d.llc_way != NONE;
        }
        let in_l2 = d.l2_core != NONE;
        let in_llc = d.llc_way != NONE;
        let hit = in_l2 || in_llc;
        if !allocating {
            if in_l2 {
                self.l2_unlink(line);
            }
            if in_llc {
                self.llc_unlink(line);
            }
            self.de_mut(line).flags = 0;
            return hit;
        }
        let recycled = self.recycled_mask != 0 && d.flags & F_RECYCLED != 0;
        if in_l2 {
            // The device overwrites the whole line: the core's copy is simply dropped.
            self.l2_unlink(line);
        }
        if in_llc {
            let way = d.llc_way as u32;
            if recycled && self.recycled_mask & (1 << way) == 0 {
                self.llc_unlink(line);
                if self.llc_insert_lru::<DEFER>(line, d.set, self.recycled_mask, false) {
                    self.stats.io_evictions += 1;
                }
            } else {
                let b = self.rec(d.set);
                self.touch_llc(b, way as usize);
            }
        } else {
            let mask = if recycled { self.recycled_mask } else { io_mask };
            // A write update (the line was in an L2) re-enters at the MRU position, as a hit.
            let bimodal = !hit && self.io_insertion(d.set);
            let evicted = self.llc_insert_lru::<DEFER>(line, d.set, mask, bimodal);
            if !hit {
                self.stats.io_allocations += 1;
            }
            if evicted {
                self.stats.io_evictions += 1;
            }
        }
        self.de_mut(line).flags = F_LLC_DIRTY | F_DEV;
        hit
    }

    /// A miss in LLC set `set`: a leader set's moves the set-dueling selector.
    #[inline(always)]
    fn duel_miss(&mut self, set: u32) {
        duel_step(&mut self.psel, set);
    }

    /// A device read of `line` that no cache here had (it was read from DRAM): counted by the
    /// set dueling of device allocations.
    pub fn dev_read_missed(&mut self, line: u32) {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let set = self.dir[line as usize].set;
        self.duel_miss(set);
    }

    /// Whether a device allocation (a miss) into LLC set `set` inserts bimodally (set dueling,
    /// see the module docs); the miss moves the selector.
    #[inline(always)]
    fn io_insertion(&mut self, set: u32) -> bool {
        if !self.duel {
            return false;
        }
        self.duel_miss(set);
        let bimodal = match set % LEADER_EVERY {
            LEADER_MRU => false,
            LEADER_BIP => true,
            _ => self.psel > PSEL_MAX / 2,
        };
        if !bimodal {
            return false;
        }
        self.bip_count += 1;
        if self.bip_count == BIP_EVERY {
            self.bip_count = 0;
            return false;
        }
        true
    }

    /// `dev_write_in` of lines `first..first + n` with the I/O ways `io_mask`, in order; returns
    /// how many hit. The lines' set records are requested from the host's memory first, so that
    /// those host cache misses overlap (a hint: the model is the same).
    pub fn dev_write_lines(&mut self, first: u32, n: u32, allocating: bool, io_mask: u32) -> u32 {
        self.check_lines(first, n);
        for l in first..first + n {
            self.prefetch(l);
        }
        (first..first + n).map(|l| self.dev_write_at::<false>(l, allocating, io_mask) as u32).sum()
    }

    /// A device full-line write stashed into `core`'s L2 (fine-grained placement): the line ends
    /// Modified in that L2 and nowhere else in a non-inclusive hierarchy (an inclusive one keeps
    /// an LLC copy, allocated in the port's I/O ways `io_mask` if it had none); its L2 victim
    /// goes to the LLC as a core's would. Returns true for a hit (the line was cached here).
    pub fn dev_stash(&mut self, core: usize, line: u32, io_mask: u32) -> bool {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        assert!(core < self.l2.len(), "core {core} of {}", self.l2.len());
        let d = self.dir[line as usize];
        let hit = d.l2_core != NONE || d.llc_way != NONE;
        if d.l2_core as usize == core {
            self.l2_touch(core, line);
        } else {
            if d.l2_core != NONE {
                self.l2_unlink(line);
            }
            if self.inclusive {
                if self.dir[line as usize].llc_way == NONE {
                    if self.llc_insert(line, io_mask, true) {
                        self.stats.io_evictions += 1;
                    }
                    self.stats.io_allocations += 1;
                }
            } else if d.llc_way != NONE {
                self.llc_unlink(line);
            }
            self.l2_insert(core, line, true);
        }
        let d = &mut self.dir[line as usize];
        // Dirty in the L2; an inclusive LLC copy keeps its own dirty bit (a non-inclusive
        // hierarchy has none left); the device wrote it last.
        let llc_dirty = if self.inclusive { d.flags & F_LLC_DIRTY } else { 0 };
        d.flags = llc_dirty | F_L2_DIRTY | F_DEV;
        hit
    }

    /// The platform's I/O ways (where device allocations go unless a port has its own).
    pub fn io_mask(&self) -> u32 {
        self.io_mask
    }

    /// A device read (PCIeRdCur): hit if cached anywhere in this socket; no allocation and no
    /// replacement update.
    pub fn dev_read(&self, line: u32) -> bool {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        self.is_cached(line)
    }

    /// `dev_read` of lines `first..first + n` (the caller makes sure no other socket's caches are
    /// in use): returns how many hit; each miss counts in the set dueling, as `dev_read_missed`.
    pub fn dev_read_lines(&mut self, first: u32, n: u32) -> u32 {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let psel = &mut self.psel;
        let mut hits = 0;
        for d in &self.dir[first as usize..(first + n) as usize] {
            if d.llc_way != NONE || d.l2_core != NONE {
                hits += 1;
            } else {
                duel_step(psel, d.set);
            }
        }
        hits
    }

    /// Drop every copy of `line` (a write by an agent on another socket or by a coherent or
    /// memory-channel NIC, a flush, a clone's destination). Returns true if a dirty copy was
    /// dropped.
    pub fn invalidate(&mut self, line: u32) -> bool {
        debug_assert!(self.waiting.len == 0, "evictions left waiting");
        let d = self.dir[line as usize];
        let dirty = d.flags & (F_L2_DIRTY | F_LLC_DIRTY) != 0;
        if d.l2_core != NONE {
            self.l2_unlink(line);
        }
        if d.llc_way != NONE {
            self.llc_unlink(line);
        }
        self.dir[line as usize].flags = 0;
        dirty
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 1 slice × 4 sets × 11 ways, 2 cores with 2-set × 2-way L2s; I/O mask 0x600.
    pub(crate) fn small_params() -> HierParams {
        HierParams {
            slices: 1,
            sets_per_slice: 4,
            ways: 11,
            l2_sets: 2,
            l2_ways: 2,
            cores: 2,
            inclusive: false,
            io_mask: 0x600,
            recycled_mask: 0,
            policy: Replacement::Lru,
            seed: 1,
            hash: SliceHash::Parity,
            adaptive_io: true,
        }
    }

    fn small(inclusive: bool, recycled: u32) -> Hierarchy {
        let p = HierParams { inclusive, recycled_mask: recycled, ..small_params() };
        let pa: Vec<u64> = (0..256).collect();
        Hierarchy::new(&p, &pa)
    }

    /// The geometry the unchecked record accesses rely on is checked once, at construction, and
    /// a line or core beyond the hierarchy is a panic at a public entry, never a wild access.
    #[test]
    fn geometry_lines_and_cores_outside_the_hierarchy_panic() {
        let bad = [
            HierParams { l2_sets: 0, ..small_params() },
            HierParams { sets_per_slice: 0, ..small_params() },
            HierParams { slices: 0, ..small_params() },
            HierParams { slices: 1 << 16, sets_per_slice: 1 << 16, ..small_params() },
            HierParams { ways: 33, ..small_params() },
        ];
        for p in bad {
            assert!(std::panic::catch_unwind(|| Hierarchy::new(&p, &[0, 1])).is_err());
        }
        let calls: [fn(Hierarchy); 6] = [
            |mut h| _ = h.dev_write(256, true),
            |mut h| h.dev_write_each(&[3, 256], true, 0x600, |_, _| {}),
            |mut h| _ = h.dev_write_lines(250, 7, true, 0x600),
            |mut h| _ = h.dev_write_lines(1, u32::MAX, true, 0x600),
            |mut h| _ = h.core_access(2, 0, false),
            |mut h| _ = h.dev_stash(2, 0, 0x600),
        ];
        for call in calls {
            let h = small(false, 0);
            assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call(h))).is_err());
        }
    }

    /// Panic unless every LLC and L2 record agrees with the directory: a way is empty (tag
    /// `EMPTY`) exactly when its stamp is 0 (the victim searches rely on it), occupied ways
    /// have distinct stamps no later than their set's clock, each tag's directory entry names
    /// that set, way (and core), and each entry that names a way is that way's tag.
    fn check_records(h: &Hierarchy) {
        let check = |rec: &[u32], l: Layout, what: &str, owner: &dyn Fn(u32, usize) -> bool| {
            let mut seen = [false; 256];
            for w in 0..l.ways {
                let (tag, st) = (rec[l.tags + w], byte(rec, w));
                assert_eq!(tag == EMPTY, st == 0, "{what}: way {w} has tag {tag} and stamp {st}");
                if tag != EMPTY {
                    assert!(st <= byte(rec, l.ways) && !seen[st as usize], "{what}: way {w}'s stamp {st} repeats or passes the clock");
                    seen[st as usize] = true;
                    assert!(owner(tag - 1, w), "{what}: way {w} holds line {} whose entry points elsewhere", tag - 1);
                }
            }
        };
        for set in 0..h.map.slices * h.sets_per_slice {
            let rec = h.set_rec(set);
            check(rec, h.layout, &format!("LLC set {set}"), &|line, w| {
                let d = h.dir[line as usize];
                d.set == set && d.llc_way as usize == w
            });
        }
        for (core, c) in h.l2.iter().enumerate() {
            for set in 0..h.l2_sets as usize {
                let rec = &c.rec[c.off + set * h.l2_layout.stride..][..h.l2_layout.stride];
                check(rec, h.l2_layout, &format!("core {core}'s L2 set {set}"), &|line, w| {
                    let d = h.dir[line as usize];
                    line & (h.l2_sets - 1) == set as u32 && d.l2_core as usize == core && d.l2_way as usize == w
                });
            }
        }
        for (line, d) in h.dir.iter().enumerate() {
            if d.llc_way != NONE {
                assert_eq!(h.set_rec(d.set)[h.layout.tags + d.llc_way as usize], line as u32 + 1, "line {line}'s LLC way");
            }
            if d.l2_core != NONE {
                let rec = &h.l2[d.l2_core as usize].rec;
                assert_eq!(rec[h.l2_rec(d.l2_core as usize, line as u32) + h.l2_layout.tags + d.l2_way as usize], line as u32 + 1, "line {line}'s L2 way");
            }
        }
    }

    #[test]
    fn batched_device_writes_equal_line_by_line_ones() {
        // Runs of device writes (allocating or not) as one batch, whose evictions wait, between
        // core accesses, CAT changes and device read misses:
        // every result equals the eager hierarchy's, and after each run every LLC and L2 record,
        // directory entry, the set-dueling state, the RNG and the counters. Every policy,
        // inclusive or not, with or without a recycled region, with set dueling (64 sets per
        // slice); a ring over a third of the lines writes victims again while they wait, and runs
        // longer than the waiting queue fill it.
        let (mut lazy_settles, mut writes) = ((0, 0), 0);
        for (k, policy) in [Replacement::Lru, Replacement::Plru, Replacement::Qlru, Replacement::Random].into_iter().enumerate() {
            for (inclusive, recycled) in [(false, 0), (false, 0x003), (true, 0), (true, 0x003)] {
                let p = HierParams { slices: 2, sets_per_slice: 64, l2_sets: 4, cores: 3, inclusive, recycled_mask: recycled, policy, seed: k as u64, ..small_params() };
                let lines = 2 * 64 * 11 * 2;
                let pa: Vec<u64> = (0..lines as u64).map(|i| i * 7 + (i >> 5)).collect();
                let (mut eager, mut lazy) = (Hierarchy::new(&p, &pa), Hierarchy::new(&p, &pa));
                let mut rng = Rng::new(11 + k as u64);
                let state = |h: &mut Hierarchy| {
                    let n = 2 * 64 * h.layout.stride;
                    let l2: Vec<Vec<u32>> = h.l2.iter().map(|c| c.rec[c.off..][..4 * h.l2_layout.stride].to_vec()).collect();
                    let dir: Vec<_> = h.dir.iter().map(|d| (d.llc_way, d.l2_core, d.l2_way, d.flags)).collect();
                    let s = &h.stats;
                    let counts = (s.writebacks, s.io_allocations, s.io_evictions, h.take_writebacks(), h.psel, h.bip_count, h.rng.below(1 << 40));
                    (h.llc[h.llc_off..][..n].to_vec(), l2, dir, counts)
                };
                for _ in 0..150 {
                    let core = rng.below(3) as usize;
                    if rng.below(10) == 0 {
                        let cat = 1 << rng.below(11);
                        eager.set_cat(core, cat);
                        lazy.set_cat(core, cat);
                    }
                    for _ in 0..rng.below(20) {
                        let (l, w) = (rng.below(lines) as u32, rng.below(2) == 1);
                        assert_eq!(eager.core_access(core, l, w), lazy.core_access(core, l, w));
                    }
                    for _ in 0..rng.below(4) {
                        let l = rng.below(lines) as u32;
                        if !eager.is_cached(l) {
                            eager.dev_read_missed(l);
                            lazy.dev_read_missed(l);
                        }
                    }
                    let (allocating, ring, start) = (rng.below(8) != 0, rng.below(2) == 1, rng.below(lines));
                    let run: Vec<u32> = (0..rng.below(300)).map(|i| if ring { (start + i) % (lines / 3) } else { rng.below(lines) } as u32).collect();
                    let mut want = Vec::new();
                    for &l in &run {
                        want.push(match (eager.llc_way(l), eager.l2_owner(l)) {
                            (Some(_), _) => Src::Llc,
                            (None, Some(_)) => Src::L2,
                            (None, None) => Src::Mem,
                        });
                        eager.dev_write(l, allocating);
                    }
                    let mut got = Vec::new();
                    lazy.dev_write_each(&run, allocating, lazy.io_mask, |i, src| got.push((i, src)));
                    assert_eq!(got, want.into_iter().enumerate().collect::<Vec<_>>());
                    writes += run.len();
                    assert!(state(&mut eager) == state(&mut lazy), "{policy:?}, inclusive {inclusive}, recycled {recycled:#x}");
                    check_records(&lazy);
                }
                lazy_settles.0 += lazy.waiting.early_settles;
                lazy_settles.1 += lazy.waiting.full_settles;
            }
        }
        let (stale, full) = (lazy_settles.0, lazy_settles.1);
        assert!(stale > 500 && full > 500 && writes > 100_000, "the runs write waiting victims ({stale}) and fill the queue ({full}) in {writes} writes");
    }

    #[test]
    fn device_write_allocates_into_io_ways_then_updates() {
        let mut h = small(false, 0x3);
        assert!(!h.dev_write(0, true));
        assert_eq!(h.llc_way(0), Some(10), "filled from the highest I/O way");
        assert_eq!(h.stats.io_allocations, 1);
        assert!(!h.dev_write(4, true));
        assert_eq!(h.llc_way(4), Some(9));
        // Third line in the same set evicts the LRU one (line 0) — only I/O ways are used.
        assert!(!h.dev_write(8, true));
        assert_eq!(h.llc_way(8), Some(10));
        assert_eq!(h.llc_way(0), None);
        assert_eq!(h.stats.io_evictions, 1);
        assert_eq!(h.take_writebacks(), 1, "the evicted device line was dirty");
        // Write update: a line already present hits and stays in its way.
        assert!(h.dev_write(4, true));
        assert_eq!(h.llc_way(4), Some(9));
    }

    #[test]
    fn a_port_with_its_own_io_ways_allocates_only_there() {
        // I/O isolation: one port allocates in 0x180 while the platform's I/O ways are 0x600;
        // neither evicts the other's lines, and a write update still hits in any way.
        let mut h = sets128();
        for l in [0, 128, 256] {
            assert!(!h.dev_write_in(l, true, 0x180));
            assert!(matches!(h.llc_way(l), Some(7) | Some(8)), "{:?}", h.llc_way(l));
        }
        assert_eq!(h.llc_way(0), None, "the third line of the set evicted the first, within 0x180");
        for l in [384, 0] {
            assert!(!h.dev_write(l, true));
            assert!(matches!(h.llc_way(l), Some(9) | Some(10)), "{:?}", h.llc_way(l));
        }
        assert!(h.llc_way(128).is_some() && h.llc_way(256).is_some(), "the platform's I/O ways left 0x180 alone");
        assert!(h.dev_write_in(384, true, 0x180), "a write update hits where the line is");
        assert!(matches!(h.llc_way(384), Some(9) | Some(10)));
    }

    #[test]
    fn a_stashed_line_lands_in_the_cores_l2_only() {
        // Non-inclusive: the line leaves the LLC (a write update) or never enters it; the core
        // then hits in its L2. Another core's copy is dropped.
        let mut h = small(false, 0);
        assert!(!h.dev_write(1, true));
        assert!(h.llc_way(1).is_some());
        assert!(h.dev_stash(0, 1, 0x600), "a write update: the line was cached");
        assert_eq!((h.l2_owner(1), h.llc_way(1)), (Some(0), None));
        assert_eq!(h.core_access(0, 1, false), Src::L2);
        assert!(!h.dev_stash(1, 2, 0x600));
        assert_eq!((h.l2_owner(2), h.llc_way(2)), (Some(1), None));
        assert!(h.dev_stash(0, 2, 0x600), "moved from core 1's L2");
        assert_eq!(h.l2_owner(2), Some(0));
        // ... so core 1's set has both its ways for two other lines, and line 2 stays core 0's.
        h.core_access(1, 4, false);
        h.core_access(1, 6, false);
        assert_eq!((h.core_access(1, 4, false), h.core_access(1, 6, false), h.l2_owner(2)), (Src::L2, Src::L2, Some(0)));
        // Inclusive: an LLC copy is kept (allocated in the I/O ways, counted as such).
        let mut h = small(true, 0);
        assert!(!h.dev_stash(0, 3, 0x600));
        assert_eq!(h.stats.io_allocations, 1);
        assert_eq!(h.l2_owner(3), Some(0));
        assert!(matches!(h.llc_way(3), Some(9) | Some(10)), "{:?}", h.llc_way(3));
        // ... in the port's own I/O ways.
        assert!(!h.dev_stash(0, 5, 0x180));
        assert!(matches!(h.llc_way(5), Some(7) | Some(8)), "{:?}", h.llc_way(5));
    }

    #[test]
    fn a_stashed_line_is_dirty_and_is_written_back_once_it_leaves_the_hierarchy() {
        // The device wrote the line: DRAM holds stale data until the stashed copy is written back,
        // whether it is dropped from the L2 or from the LLC it falls to.
        let mut h = small(false, 0);
        h.dev_stash(0, 2, 0x600);
        assert!(h.invalidate(2), "a dropped stashed copy is dirty");
        // L2 set 0 (even lines) has 2 ways: lines 4 and 6 push line 2 into the LLC (CAT way 0,
        // set 2), and line 10 (set 2) then takes that way, evicting it to DRAM.
        h.set_cat(0, 0x001);
        h.dev_stash(0, 2, 0x600);
        h.take_writebacks();
        for l in [4, 6] {
            h.core_access(0, l, false);
        }
        assert_eq!((h.l2_owner(2), h.llc_way(2)), (None, Some(0)), "the L2 victim falls to the LLC");
        assert_eq!(h.take_writebacks(), 0);
        for l in [8, 10, 12] {
            h.core_access(0, l, false);
        }
        assert_eq!(h.llc_way(2), None);
        assert_eq!(h.take_writebacks(), 1, "the stashed line, and only it, was dirty");
    }

    /// One slice of 128 sets × 11 ways, I/O mask 0x600, no recycled region; line `l` maps to
    /// set `l % 128`.
    fn sets128() -> Hierarchy {
        let p = HierParams { sets_per_slice: 128, cores: 1, ..small_params() };
        let pa: Vec<u64> = (0..128 * 4).collect();
        Hierarchy::new(&p, &pa)
    }

    /// Device writes of `per_set` lines per set, in a cycle, `rounds` times; device-write hits of
    /// the last `last` rounds in (the MRU leader sets 0 and 64, the bimodal leader sets 33 and 97,
    /// the other sets).
    fn cyclic_dev_writes(h: &mut Hierarchy, per_set: u32, rounds: u32, last: u32) -> [f64; 3] {
        let mut hits = [0u32; 3];
        let mut writes = [0u32; 3];
        for r in 0..rounds {
            for l in 0..128 * per_set {
                let g = match l % 64 {
                    0 => 0,
                    33 => 1,
                    _ => 2,
                };
                let hit = h.dev_write(l, true);
                if r >= rounds - last {
                    hits[g] += hit as u32;
                    writes[g] += 1;
                }
            }
        }
        [0, 1, 2].map(|g| hits[g] as f64 / writes[g] as f64)
    }

    #[test]
    fn device_allocations_resist_a_thrashing_ring_by_set_dueling() {
        // Three buffers' lines per 2-way set, reused cyclically: inserting at the MRU position
        // (LRU) evicts every line before its reuse; bimodal insertion keeps one of the three.
        let mut h = sets128();
        let [mru, bip, follow] = cyclic_dev_writes(&mut h, 3, 60, 20);
        assert_eq!(mru, 0.0, "the MRU-insertion leader thrashes as under LRU");
        assert!(bip > 0.25, "the bimodal leader keeps a line of three: {bip}");
        assert!(h.psel > PSEL_MAX / 2, "the MRU leader's misses push the selector to bimodal: {}", h.psel);
        assert!(follow > 0.25, "follower sets take the policy that misses less: {follow}");
    }

    /// A follower set inserts device allocations at the MRU position while the selector is at or
    /// below half its range, and bimodally (at the LRU victim's place) above it.
    #[test]
    fn follower_sets_insert_as_the_selector_says() {
        for (psel, bimodal) in [(PSEL_MAX / 2, false), (PSEL_MAX / 2 + 1, true)] {
            // Set dueling needs leader sets: 128 sets (sets 0 and 33 mod 64 lead).
            let p = HierParams { sets_per_slice: 128, ..small_params() };
            let pa: Vec<u64> = (0..128 * 8).collect();
            let mut h = Hierarchy::new(&p, &pa);
            let follower = 1;
            let lines: Vec<u32> = (0..128 * 8).filter(|&l| h.set_of(l) == follower).take(4).collect();
            assert_eq!(lines.len(), 4);
            h.psel = psel;
            // Two lines fill the two I/O ways; the third evicts the first; the fourth evicts the
            // least recently used: the second, or the third if it was inserted in the victim's place.
            for &l in &lines {
                h.dev_write(l, true);
            }
            let cached = |l: u32| h.llc_way(l).is_some();
            assert_eq!((cached(lines[1]), cached(lines[2])), (bimodal, !bimodal), "selector {psel}");
        }
    }

    #[test]
    fn set_dueling_returns_to_mru_insertion_when_bimodal_misses_more() {
        // After a thrashing phase, a stream of fresh lines each read back (by a device read)
        // after the next one is written: a bimodal leader inserts the new line at the LRU
        // position, so the next allocation evicts it before its read, and those read misses pull
        // the selector back to MRU insertion.
        let p = HierParams { sets_per_slice: 128, ..small_params() };
        let pa: Vec<u64> = (0..128 * 400).collect();
        let mut h = Hierarchy::new(&p, &pa);
        cyclic_dev_writes(&mut h, 3, 60, 1);
        assert!(h.psel > PSEL_MAX / 2, "{}", h.psel);
        for i in 4..400u32 {
            for set in [0, 33, 64, 97] {
                h.dev_write(128 * i + set, true);
                let prev = 128 * (i - 1) + set;
                if !h.dev_read(prev) {
                    h.dev_read_missed(prev);
                }
            }
        }
        assert!(h.psel <= PSEL_MAX / 2, "read misses in the bimodal leaders move the selector back: {}", h.psel);
    }

    /// A device write to a line that only a core's L2 holds is a write update: the line
    /// re-enters the LLC at the MRU position, as a hit, even while set dueling has the follower
    /// sets insert misses bimodally, and it is no miss for the dueling (the selector stays put,
    /// in the leader sets too). Guards `dev_write`'s `bimodal = !hit && io_insertion(..)`: treated
    /// as a miss, the line takes the LRU victim's stamp in a follower set (31 insertions of 32)
    /// and in the bimodal leader, and moves the selector in both leaders.
    #[test]
    fn a_write_update_of_an_l2_only_line_enters_at_mru_under_bimodal_insertion() {
        let mut h = sets128();
        // The thrashing ring (three lines per 2-way set, lines 0..384) drives followers bimodal.
        cyclic_dev_writes(&mut h, 3, 60, 1);
        assert!(h.psel > PSEL_MAX / 2, "selector at bimodal: {}", h.psel);
        let mut not_mru = Vec::new();
        let mut moved = Vec::new();
        // Twenty follower sets, then the MRU and the bimodal leader.
        for set in (1..=20).chain([LEADER_MRU, LEADER_BIP]) {
            // The set's fourth line (never written): the core reads it into its L2 only.
            let line = 3 * 128 + set;
            assert_eq!(h.core_access(0, line, false), Src::Mem);
            assert!(h.l2_owner(line) == Some(0) && h.llc_way(line).is_none(), "line {line} in the L2 only");
            let psel = h.psel;
            assert!(h.dev_write(line, true), "line {line}: a write update is a hit");
            if h.psel != psel {
                moved.push((set, psel, h.psel));
            }
            let mine = h.llc_stamp(line).expect("in the LLC after the write");
            let others = (0..3).filter_map(|k| h.llc_stamp(k * 128 + set)).max().expect("the ring's lines");
            if mine <= others {
                not_mru.push((set, mine, others));
            }
        }
        assert!(not_mru.is_empty(), "(set, line's stamp, newest other stamp) not at MRU: {not_mru:?}");
        assert!(moved.is_empty(), "(set, selector before, after) moved by a write update: {moved:?}");
    }

    #[test]
    fn device_allocations_of_a_ring_that_fits_all_hit() {
        // Two lines per 2-way set fit: every insertion policy keeps them.
        let mut h = sets128();
        assert_eq!(cyclic_dev_writes(&mut h, 2, 10, 9), [1.0; 3]);
    }

    #[test]
    fn device_write_updates_replacement_state_device_read_does_not() {
        let mut h = small(false, 0x3);
        h.dev_write(0, true);
        h.dev_write(4, true);
        let s0 = h.llc_stamp(0).unwrap();
        assert!(h.dev_read(0));
        assert_eq!(h.llc_stamp(0).unwrap(), s0, "PCIeRdCur leaves LRU state alone");
        // Because the read did not refresh line 0, the next allocation evicts it.
        h.dev_write(8, true);
        assert_eq!(h.llc_way(0), None);
        assert!(!h.dev_read(0), "a device read miss does not allocate");
        assert!(!h.is_cached(0));
        // A write update does refresh: line 4 survives the next allocation, line 8 goes.
        h.dev_write(4, true);
        h.dev_write(12, true);
        assert!(h.llc_way(4).is_some());
        assert_eq!(h.llc_way(8), None);
    }

    #[test]
    fn device_read_of_a_run_of_lines_is_line_by_line() {
        // Every third line written by the device, and every line of the bimodal leader sets (so
        // that the reads move the selector one way), one line in the core's L2, the rest uncached.
        let build = || {
            let mut h = sets128();
            for l in 0..512 {
                if l % 3 == 0 || h.set_of(l) % LEADER_EVERY == LEADER_BIP {
                    h.dev_write(l, true);
                }
            }
            h.core_access(0, 7, false);
            h
        };
        let (mut a, mut b) = (build(), build());
        let p0 = a.psel;
        let hits = a.dev_read_lines(0, 512);
        let mut by_line = 0;
        for l in 0..512 {
            if b.dev_read(l) {
                by_line += 1;
            } else {
                b.dev_read_missed(l);
            }
        }
        assert_eq!((hits, a.psel), (by_line, b.psel));
        assert!(a.l2_owner(7).is_some() && hits > 0 && hits < 512);
        // The misses of the leader sets moved the selector: up for the MRU leaders' misses, down
        // for the bimodal leaders'.
        let missed = |r: u32| (0..512).filter(|&l| !b.is_cached(l) && b.set_of(l) % LEADER_EVERY == r).count() as u32;
        let (up, down) = (missed(LEADER_MRU), missed(LEADER_BIP));
        assert!(up > down && p0 + up - down < PSEL_MAX, "{up} {down} {p0}");
        assert_eq!(a.psel, p0 + up - down);
    }

    #[test]
    fn device_write_of_a_run_of_lines_is_line_by_line() {
        let (mut a, mut b) = (small(false, 0x3), small(false, 0x3));
        let mut rng = Rng::new(9);
        for _ in 0..2000 {
            let (first, n, alloc) = (rng.below(200) as u32, 1 + rng.below(40) as u32, rng.below(8) != 0);
            let hits = (first..first + n).filter(|&l| a.dev_write(l, alloc)).count() as u32;
            assert_eq!(b.dev_write_lines(first, n, alloc, b.io_mask()), hits);
            let (l, w) = (rng.below(256) as u32, rng.below(2) == 0);
            assert_eq!(a.core_access(0, l, w), b.core_access(0, l, w));
            assert_eq!(a.take_writebacks(), b.take_writebacks());
        }
        assert!((0..256).all(|l| a.llc_way(l) == b.llc_way(l) && a.llc_stamp(l) == b.llc_stamp(l) && a.l2_owner(l) == b.l2_owner(l)));
        assert_eq!((a.stats.io_allocations, a.stats.io_evictions), (b.stats.io_allocations, b.stats.io_evictions));
    }

    #[test]
    fn non_inclusive_core_read_moves_line_to_l2_and_dram_fill_bypasses_llc() {
        let mut h = small(false, 0x3);
        h.dev_write(0, true);
        assert_eq!(h.core_access(0, 0, false), Src::Llc);
        assert_eq!(h.llc_way(0), None);
        assert_eq!(h.l2_owner(0), Some(0));
        assert_eq!(h.core_access(0, 0, false), Src::L2);
        assert_eq!(h.core_access(1, 0, false), Src::OtherL2);
        assert_eq!(h.core_access(0, 100, false), Src::Mem);
        assert_eq!(h.llc_way(100), None, "DRAM fills go to the L2 only");
    }

    #[test]
    fn l2_victims_go_to_llc_within_cat_ways() {
        let mut h = small(false, 0x3);
        h.set_cat(0, 0x0C0);
        // L2 set 0 (even lines) has 2 ways: the third even line evicts the first.
        h.core_access(0, 2, false);
        h.core_access(0, 4, false);
        h.core_access(0, 6, false);
        assert_eq!(h.l2_owner(2), None);
        let w = h.llc_way(2).expect("L2 victim inserted into the LLC");
        assert!(0x0C0 & (1 << w) != 0, "CAT fill mask respected, got way {w}");
        // But a core hits in any way: a device-allocated line in way 10 is an LLC hit.
        h.dev_write(9, true);
        assert_eq!(h.core_access(0, 9, false), Src::Llc);
    }

    #[test]
    fn recycled_lines_land_in_the_0x003_region() {
        let mut h = small(false, 0x3);
        h.dev_write(0, true);
        assert_eq!(h.llc_way(0), Some(10));
        h.core_access(0, 0, true); // MAC swap: core writes the device-written line
        assert!(h.dev_write(0, true), "found in the core's L2: a hit");
        let w = h.llc_way(0).unwrap();
        assert!(0x3 & (1 << w) != 0, "device→core→device lands in 0x003, got way {w}");
        assert_eq!(h.l2_owner(0), None);
        // A line the core only reads does not move there, nor one the device had not written.
        h.dev_write(4, true);
        h.core_access(0, 4, false);
        h.dev_write(4, true);
        assert!(0x600 & (1 << h.llc_way(4).unwrap()) != 0);
        h.core_access(0, 6, true);
        h.dev_write(6, true);
        assert!(0x600 & (1 << h.llc_way(6).unwrap()) != 0, "a core's own line is no recycled buffer");
        // Without the region (Haswell-like), the rewrite stays in the I/O ways.
        let mut h = small(true, 0);
        h.dev_write(0, true);
        h.core_access(0, 0, true);
        h.dev_write(0, true);
        assert!(0x600 & (1 << h.llc_way(0).unwrap()) != 0);
    }

    /// A line the core rewrote that went back to the LLC from its L2 (in the core's CAT ways) moves
    /// to the recycled region when the device writes it again; once it has left the hierarchy, a
    /// device write allocates it in the I/O ways again (its marks left with it).
    #[test]
    fn a_recycled_line_in_a_core_way_moves_to_the_region_and_its_mark_leaves_with_it() {
        let mut h = small(false, 0x3);
        h.set_cat(0, 0x0C0);
        // Even lines of line 0's LLC set: they share its L2 set (2 sets of 2 ways) too.
        let mates: Vec<u32> = (1..4096).filter(|&l| l % 2 == 0 && h.set_of(l) == h.set_of(0)).take(4).collect();
        assert_eq!(mates.len(), 4);
        h.dev_write(0, true);
        h.core_access(0, 0, true); // the MAC swap: in the core's L2, marked
        h.core_access(0, mates[0], false);
        h.core_access(0, mates[1], false); // line 0 leaves the L2 for the LLC, in the core's ways
        let w = h.llc_way(0).expect("the L2 victim went to the LLC");
        assert!(0x0C0 & (1 << w) != 0, "core way, got {w}");
        assert!(h.dev_write(0, true), "a write update");
        let w = h.llc_way(0).unwrap();
        assert!(0x3 & (1 << w) != 0, "device→core→device lands in 0x003, got way {w}");
        // Rewritten and sent back to the core's ways again, then evicted from them by two more
        // L2 victims: out of the hierarchy, its marks go, and the device allocates it as new.
        h.core_access(0, 0, true);
        h.core_access(0, mates[2], false);
        h.core_access(0, mates[3], false);
        h.core_access(0, mates[0], false);
        h.core_access(0, mates[1], false);
        assert_eq!((h.llc_way(0), h.l2_owner(0)), (None, None), "evicted");
        assert!(!h.dev_write(0, true));
        assert!(0x600 & (1 << h.llc_way(0).unwrap()) != 0, "allocated in the I/O ways, got {:?}", h.llc_way(0));
    }

    /// A recycled line's move into the recycled ways evicts what they held, and that eviction
    /// counts among the device writes' evictions.
    #[test]
    fn a_move_into_the_recycled_ways_counts_its_eviction() {
        let mut h = small(false, 0x3);
        h.set_cat(0, 0x0C0);
        h.set_cat(1, 0x3);
        let set: Vec<u32> = (1..256).filter(|&l| h.set_of(l) == h.set_of(0)).collect();
        let mates = &set[..2]; // all even: they share line 0's L2 set
        // Line 0 recycled (device, then the core's store), then pushed from the L2 into a core way.
        h.dev_write(0, true);
        h.core_access(0, 0, true);
        h.core_access(0, mates[0], false);
        h.core_access(0, mates[1], false);
        assert!(0x0C0 & (1 << h.llc_way(0).unwrap()) != 0);
        // Core 1's L2 victims fill both recycled ways of the set.
        for &l in &set[2..14] {
            h.core_access(1, l, false);
        }
        let held = set[2..14].iter().filter(|&&l| h.llc_way(l).is_some_and(|w| 0x3 & (1 << w) != 0)).count();
        assert_eq!(held, 2, "the recycled ways are full");
        let before = h.stats.io_evictions;
        assert!(h.dev_write(0, true), "a write update");
        assert!(0x3 & (1 << h.llc_way(0).unwrap()) != 0, "moved into the recycled ways");
        assert_eq!(h.stats.io_evictions, before + 1, "the move's victim counts");
    }

    /// A line's dirtiness travels with it: from one core's L2 to another's, from the LLC back to an
    /// L2 (non-inclusive), and it is written back once it leaves the hierarchy dirty, never clean.
    #[test]
    fn dirtiness_travels_with_a_line_and_only_a_dirty_one_is_written_back() {
        for dirty in [false, true] {
            let mut h = small(false, 0);
            h.set_cat(1, 0x1); // core 1's L2 victims go to way 0 of their LLC set
            let mates: Vec<u32> = (1..4096).filter(|&l| l % 2 == 0 && h.set_of(l) == h.set_of(0)).take(4).collect();
            h.core_access(0, 0, dirty);
            assert_eq!(h.core_access(1, 0, false), Src::OtherL2);
            // Out of core 1's L2 (two lines of its set) into the LLC, back into the L2, out again.
            h.core_access(1, mates[0], false);
            h.core_access(1, mates[1], false);
            assert!(h.llc_way(0).is_some());
            assert_eq!(h.core_access(1, 0, false), Src::Llc);
            h.core_access(1, mates[2], false);
            h.core_access(1, mates[3], false);
            assert_eq!(h.llc_way(0), Some(0));
            assert_eq!(h.take_writebacks(), 0, "nothing has left the hierarchy yet");
            // The next L2 victim takes way 0: line 0 leaves the hierarchy.
            h.core_access(1, mates[0], false);
            h.core_access(1, mates[1], false);
            assert_eq!((h.llc_way(0), h.l2_owner(0)), (None, None));
            assert_eq!(h.take_writebacks(), dirty as u32, "written back only if the core wrote it");
        }
    }

    /// An L2 set holds as many lines as it has ways; the next one evicts the least recently used.
    #[test]
    fn an_l2_set_holds_its_ways_and_evicts_the_lru() {
        let mut h = small(false, 0);
        // Lines 0, 2 and 4 share L2 set 0 (2 sets of 2 ways).
        assert_eq!(h.core_access(0, 0, false), Src::Mem);
        assert_eq!(h.core_access(0, 2, false), Src::Mem);
        assert_eq!((h.core_access(0, 0, false), h.core_access(0, 2, false)), (Src::L2, Src::L2), "both ways hold a line");
        assert_eq!(h.core_access(0, 4, false), Src::Mem);
        assert_eq!((h.l2_owner(0), h.l2_owner(2)), (None, Some(0)), "line 0 was the least recently used");
        assert_eq!(h.core_access(0, 0, false), Src::Llc, "the victim went to the LLC");
    }

    #[test]
    fn inclusive_llc_back_invalidates_l2() {
        let mut h = small(true, 0);
        h.set_cat(0, 0x1);
        assert_eq!(h.core_access(0, 0, false), Src::Mem);
        assert_eq!(h.llc_way(0), Some(0), "inclusive fill into the CAT way");
        assert_eq!(h.l2_owner(0), Some(0));
        h.core_access(0, 4, false); // same LLC set (4 sets), same single CAT way → evicts line 0
        assert_eq!(h.llc_way(0), None);
        assert_eq!(h.l2_owner(0), None, "back-invalidated");
    }

    #[test]
    fn non_allocating_write_invalidates_and_misses() {
        let mut h = small(false, 0x3);
        assert!(!h.dev_write(0, false));
        assert!(!h.is_cached(0));
        h.core_access(0, 0, false);
        assert!(h.dev_write(0, false));
        assert!(!h.is_cached(0));
        assert_eq!(h.stats.io_allocations, 0);
    }

    #[test]
    fn stamps_keep_lru_order_across_clock_wrap() {
        let mut h = small(false, 0x3);
        h.dev_write(0, true);
        h.dev_write(4, true);
        let b = h.rec(h.set_of(0));
        set_byte(&mut h.llc[b..], h.layout.ways, MAX_STAMP - 1); // the set's clock is about to wrap
        h.dev_write(0, true); // refresh line 0 (clock MAX_STAMP)
        h.dev_write(4, true); // renumbers, then refreshes line 4
        assert!(h.llc_stamp(4).unwrap() > h.llc_stamp(0).unwrap());
        assert!(h.llc_stamp(4).unwrap() < 100, "renumbered by rank");
        h.dev_write(8, true); // evicts the least recent, line 0
        assert_eq!(h.llc_way(0), None);
        assert!(h.llc_way(4).is_some());
    }

    #[test]
    fn stamp_searches_match_a_scalar_reference() {
        let mut rng = Rng::new(11);
        let mut rec = [0u32; 16];
        for _ in 0..20_000 {
            for w in rec.iter_mut() {
                *w = rng.next_u64() as u32;
            }
            // Some zero (empty) stamps, often a few equal ones.
            for _ in 0..rng.below(6) {
                set_byte(&mut rec, rng.below(32) as usize, 0);
            }
            let dup = byte(&rec, rng.below(32) as usize);
            set_byte(&mut rec, rng.below(32) as usize, dup);
            let empty = (0..32).fold(0u32, |m, i| m | ((byte(&rec, i) == 0) as u32) << i);
            assert_eq!(empty_ways(&rec), empty);
            let mask = (rng.next_u64() as u32) | 1 << rng.below(32);
            // Masks within ways 0..16 take the one-vector path; masks of one or two ways are
            // compared without vectors.
            let (one, two) = (1 << rng.below(32), 1 << rng.below(32) | 1 << rng.below(32));
            for mask in [mask, mask & 0xFFFF | 1 << rng.below(16), one, two] {
                let min = (0..32).filter(|&i| mask >> i & 1 != 0).map(|i| byte(&rec, i)).min().unwrap();
                let ties: Vec<usize> = (0..32).filter(|&i| mask >> i & 1 != 0 && byte(&rec, i) == min).collect();
                assert_eq!(lru_way(&rec, mask, true), *ties.last().unwrap());
                assert_eq!(lru_way(&rec, mask, false), ties[0]);
            }
        }
    }

    #[test]
    fn renumbering_keeps_order_and_empty_ways() {
        let mut rec = [0u32; 16];
        for (w, s) in [(0, 200), (1, 0), (2, 17), (3, 254), (4, 0), (5, 90)] {
            set_byte(&mut rec, w, s);
        }
        set_byte(&mut rec, 6, MAX_STAMP); // the clock of a 6-way set
        stamp(&mut rec, 6, 1);
        let got: Vec<u32> = (0..7).map(|i| byte(&rec, i)).collect();
        // Occupied ways 2, 5, 0, 3 get ranks 1..=4; way 1 is stamped with the new clock 5.
        assert_eq!(got, [3, 5, 1, 4, 0, 2, 5]);
    }

    #[test]
    fn the_set_of_a_physical_line_is_the_one_its_directory_entry_gets() {
        let mut rng = Rng::new(5);
        for (slices, sets, hash) in [(18, 2048, SliceHash::Skx), (18, 2048, SliceHash::Parity), (16, 2048, SliceHash::Parity), (4, 64, SliceHash::Parity)] {
            let p = HierParams { slices, sets_per_slice: sets, hash, ..small_params() };
            let pa: Vec<u64> = (0..5000).map(|_| rng.next_u64() >> (26 + rng.below(10) as u32)).collect();
            let h = Hierarchy::new(&p, &pa);
            for (i, &a) in pa.iter().enumerate() {
                assert_eq!(h.llc_set_of_pa(a), h.set_of(i as u32), "{a:#x}, {slices} slices, {hash:?}");
            }
        }
    }

    #[test]
    fn renumbering_by_vector_matches_the_scalar_ranks() {
        let mut rng = Rng::new(3);
        for _ in 0..20_000 {
            let ways = 1 + rng.below(31) as usize;
            let mut rec = [0u32; 16];
            for w in 0..ways {
                // Few distinct values, so ties and empty ways are common.
                let range = if rng.below(2) == 0 { 6 } else { 254 };
                let v = if rng.below(4) == 0 { 0 } else { 1 + rng.below(range) as u32 };
                set_byte(&mut rec, w, v);
            }
            set_byte(&mut rec, ways, MAX_STAMP);
            let mut want = rec;
            let next = renumber_scalar(&mut want, ways);
            assert_eq!(renumber(&mut rec, ways), next);
            assert_eq!(rec, want, "{ways} ways");
        }
    }

    #[test]
    fn xor_slice_tables_match_the_parity_definition() {
        let direct = |pa: u64, slices: u32| {
            let mut v = 0u32;
            for (i, m) in SLICE_MASKS.iter().enumerate().take(slices.trailing_zeros() as usize) {
                v |= ((pa & m).count_ones() & 1) << i;
            }
            v
        };
        let mut rng = Rng::new(7);
        for slices in [1, 2, 4, 8, 16, 32, 64] {
            let map = SliceMap::new(SliceHash::Parity, slices, 2048);
            assert!(map.seq.is_none());
            for _ in 0..2000 {
                let pa = rng.next_u64() >> (rng.below(40) as u32);
                assert_eq!(map.slice(pa), direct(pa, slices), "{pa:#x} {slices}");
            }
        }
        let map = SliceMap::new(SliceHash::Parity, 4, 2048);
        let mut c4 = [0u32; 4];
        for l in 0..4096u64 {
            c4[map.slice(l) as usize] += 1;
        }
        assert!(c4.iter().all(|&c| c == 1024), "{c4:?}");
    }

    #[test]
    fn directory_sets_follow_the_slice_hash() {
        let mut rng = Rng::new(3);
        // Runs of consecutive lines across 64 Ki-line boundaries, and scattered lines.
        let mut pa: Vec<u64> = (0..3000).map(|i| 0x3_fff0_0000 + 65536 - 1500 + i).collect();
        // A run across 4096-line boundaries that are not 64 Ki-line ones.
        pa.extend((0..9000).map(|i| 0x2_0000_1000 + 5000 + i));
        pa.extend((0..3000).map(|_| rng.next_u64() >> (rng.below(30) as u32)));
        for (slices, sets) in [(1, 64), (4, 256), (18, 2048), (22, 2048)] {
            let p = HierParams { slices, sets_per_slice: sets, cores: 1, ..small_params() };
            let h = Hierarchy::new(&p, &pa);
            let map = SliceMap::new(SliceHash::Parity, slices, sets);
            for (l, &a) in pa.iter().enumerate() {
                assert_eq!(h.set_of(l as u32), map.slice(a) * sets + (a as u32 & (sets - 1)), "{a:#x}");
            }
        }
    }

    #[test]
    fn skylake_map_follows_the_measured_tables() {
        // Line address → slice, worked out from McCalpin's tables by an independent script.
        let known = [
            (0x0, 0), (0x1000, 13), (0x48d_159e, 13), (0xfff_c001, 10), (0x1e96_9697, 14),
            (0x35cf_3c95, 14), (0x363d_34f8, 6), (0x33b2_6442, 8), (0x1ddc_d35f, 4), (0x3608_078a, 5),
            (0x4048_d159, 5), (0xc02a_f378, 11),
        ];
        // Checksums of the tables, from the data files: Σ i·slice over the base sequence and
        // Σ (i + 1)·mask over the masks.
        assert_eq!(SKX18_BASE.iter().enumerate().map(|(i, &v)| i as u64 * v as u64).sum::<u64>(), 69_975_360);
        assert_eq!(SKX18_PERM_MASKS.iter().enumerate().map(|(i, &m)| (i as u64 + 1) * m).sum::<u64>(), 11_359_811_272_704);
        let pa: Vec<u64> = known.iter().map(|k| k.0).collect();
        let p = HierParams { slices: 18, sets_per_slice: 2048, cores: 1, hash: SliceHash::Skx, ..small_params() };
        let h = Hierarchy::new(&p, &pa);
        for (l, &(a, slice)) in known.iter().enumerate() {
            assert_eq!(h.set_of(l as u32), slice * 2048 + (a as u32 & 2047), "{a:#x}");
        }
        // The base sequence: 16 slices get 232 of 4096 lines, two get 192.
        let mut count = [0u32; 18];
        for &s in SKX18_BASE.iter() {
            count[s as usize] += 1;
        }
        count.sort();
        assert_eq!(count[..2], [192, 192]);
        assert!(count[2..].iter().all(|&c| c == 232), "{count:?}");
        // One 2 MiB page reaches 20992 of the 36864 (slice, set) pairs, up to three lines each.
        let page: Vec<u64> = (0..32768).map(|l| (5 << 15) + l).collect();
        let h = Hierarchy::new(&p, &page);
        let mut per = std::collections::HashMap::new();
        for l in 0..32768 {
            *per.entry(h.set_of(l)).or_insert(0u32) += 1;
        }
        let mut hist = [0u32; 4];
        for &c in per.values() {
            hist[c as usize] += 1;
        }
        assert_eq!(hist, [0, 10112, 9984, 896]);
        // Another geometry keeps the parity hash.
        for (slices, sets) in [(22, 2048), (18, 4096)] {
            let h = Hierarchy::new(&HierParams { slices, sets_per_slice: sets, ..p }, &pa);
            let map = SliceMap::new(SliceHash::Parity, slices, sets);
            for (l, &a) in pa.iter().enumerate() {
                assert_eq!(h.set_of(l as u32), map.slice(a) * sets + (a as u32 & (sets - 1)), "{slices} x {sets}");
            }
        }
    }

    #[test]
    fn generic_sequence_map_is_balanced_and_has_no_aliased_bits() {
        for slices in [3, 18, 22, 28, 63] {
            let map = SliceMap::new(SliceHash::Parity, slices, 2048);
            let (base, masks) = map.seq.as_ref().expect("a sequence map");
            // Every slice ⌊4096 / slices⌋ or ⌈4096 / slices⌉ times in the base sequence.
            let mut count = vec![0u32; slices as usize];
            for &s in base.iter() {
                count[s as usize] += 1;
            }
            let lo = 4096 / slices;
            assert!(count.iter().all(|&c| c == lo || c == lo + 1), "{slices}: {count:?}");
            // Twelve independent masks (Gaussian elimination over GF(2)): every block
            // permutation is reachable.
            let mut rows = masks.to_vec();
            let mut rank = 0;
            for bit in (0..64).rev() {
                if let Some(i) = (rank..rows.len()).find(|&i| rows[i] >> bit & 1 == 1) {
                    rows.swap(rank, i);
                    for j in 0..rows.len() {
                        if j != rank && rows[j] >> bit & 1 == 1 {
                            rows[j] ^= rows[rank];
                        }
                    }
                    rank += 1;
                }
            }
            assert_eq!(rank, 12, "{slices}");
        }
        // Lines 2^b apart (12 <= b < 36: other blocks) share a slice about 1/18 of the time,
        // whichever bit differs (an XOR hash reduced modulo 18 shares it half the time for some
        // bits); from bit 36 (4 TiB) on, the map repeats.
        let map = SliceMap::new(SliceHash::Parity, 18, 2048);
        let mut rng = Rng::new(5);
        for b in 36..44 {
            let x = rng.next_u64() >> 28;
            assert_eq!(map.slice(x), map.slice(x ^ 1 << b), "bit {b}");
        }
        for b in 12..36 {
            let n = 4000;
            let same = (0..n).filter(|_| {
                let x = rng.next_u64() >> 30;
                map.slice(x) == map.slice(x ^ 1 << b)
            });
            let f = same.count() as f64 / n as f64;
            assert!((0.02..0.11).contains(&f), "bit {b}: {f}");
        }
    }

    /// Bimodal insertion (the module docs): in a bimodal leader set, an allocation that evicts
    /// takes the LRU position, except every `BIP_EVERY`th (32nd) allocation, which goes to the
    /// MRU position. Allocations 1 and 2 fill the set's two empty I/O ways.
    #[test]
    fn a_bimodal_leader_inserts_every_32nd_allocation_at_mru() {
        let p = HierParams { sets_per_slice: 128, cores: 1, ..small_params() };
        let pa: Vec<u64> = (0..128 * 100).collect();
        let mut h = Hierarchy::new(&p, &pa);
        let set = LEADER_BIP;
        let mut at_mru = Vec::new();
        for i in 0..96u32 {
            let line = 128 * i + set;
            assert!(!h.dev_write(line, true));
            let others: Vec<u64> = (0..i).filter_map(|j| h.llc_stamp(128 * j + set)).collect();
            if i >= 2 {
                assert_eq!(others.len(), 1, "two I/O ways: one other line stays");
                if h.llc_stamp(line).unwrap() > others[0] {
                    at_mru.push(i + 1);
                }
            }
        }
        assert_eq!(at_mru, [32, 64, 96], "allocations inserted at the MRU position");
    }

    /// `HierStats::writebacks` counts every dirty victim written back to DRAM: the same lines
    /// `take_writebacks` hands out (device-written victims, back-invalidated dirty L2 copies,
    /// dirty L2 victims of an inclusive hierarchy, dirty LLC victims).
    #[test]
    fn the_writeback_counter_counts_every_dirty_victim_taken() {
        for inclusive in [false, true] {
            let mut h = small(inclusive, 0x3);
            h.set_cat(1, 0x0F0);
            let mut rng = Rng::new(13);
            let mut taken = 0u64;
            for _ in 0..5000 {
                let l = rng.below(256) as u32;
                match rng.below(4) {
                    0 => {
                        h.dev_write(l, rng.below(4) != 0);
                    }
                    1 => {
                        h.core_access(rng.below(2) as usize, l, true);
                    }
                    _ => {
                        h.core_access(rng.below(2) as usize, l, false);
                    }
                }
                taken += h.take_writebacks() as u64;
            }
            assert!(taken > 100, "{taken}");
            assert_eq!(h.stats.writebacks, taken, "inclusive {inclusive}");
        }
    }

    /// Inclusive LLC: an LLC victim's back-invalidated L2 copy that a core wrote is dirty, so
    /// the eviction writes it back (the LLC copy itself was clean).
    #[test]
    fn a_back_invalidated_dirty_l2_copy_is_written_back() {
        let mut h = small(true, 0);
        h.set_cat(0, 0x1);
        assert_eq!(h.core_access(0, 0, true), Src::Mem);
        assert_eq!(h.take_writebacks(), 0);
        h.core_access(0, 4, false); // same LLC set, single CAT way: evicts line 0 from the LLC
        assert_eq!((h.llc_way(0), h.l2_owner(0)), (None, None), "back-invalidated");
        assert_eq!(h.take_writebacks(), 1, "the core's dirty copy was written back");
        assert_eq!(h.stats.writebacks, 1);
        // A clean copy is dropped without a write-back.
        let mut h = small(true, 0);
        h.set_cat(0, 0x1);
        assert_eq!(h.core_access(0, 0, false), Src::Mem);
        h.core_access(0, 4, false);
        assert_eq!((h.llc_way(0), h.l2_owner(0)), (None, None), "back-invalidated");
        assert_eq!((h.take_writebacks(), h.stats.writebacks), (0, 0), "a clean copy is not written back");
    }

    /// Inclusive LLC: a dirty L2 victim is not written back; it marks the LLC copy dirty, which
    /// is written back when it leaves the LLC.
    #[test]
    fn an_inclusive_dirty_l2_victim_makes_the_llc_copy_dirty() {
        let mut h = small(true, 0);
        h.set_cat(0, 0x3);
        h.core_access(0, 0, true); // LLC set 0, way 0; dirty in the L2
        // L2 set 0 (even lines) has 2 ways: lines 2 and 6 (LLC set 2) push line 0 out of it.
        h.core_access(0, 2, false);
        h.core_access(0, 6, false);
        assert_eq!((h.l2_owner(0), h.llc_way(0)), (None, Some(0)), "in the LLC only");
        assert_eq!(h.take_writebacks(), 0, "an inclusive L2 victim stays in the LLC");
        // Lines 4 and 8 (LLC set 0, CAT ways 0x3) evict line 0 from the LLC: a dirty victim.
        h.core_access(0, 4, false);
        h.core_access(0, 8, false);
        assert_eq!(h.llc_way(0), None);
        assert_eq!(h.take_writebacks(), 1, "the LLC copy was dirty");
    }

    /// A core access that misses this socket's caches counts in the set dueling: up in an MRU
    /// leader set, down in a bimodal one; hits (L2 or LLC) and other sets leave the selector.
    #[test]
    fn core_misses_in_leader_sets_move_the_set_dueling_selector() {
        let mut h = sets128();
        let p0 = h.psel;
        assert_eq!(h.core_access(0, LEADER_MRU, false), Src::Mem);
        assert_eq!(h.psel, p0 + 1, "a miss in the MRU leader");
        assert_eq!(h.core_access(0, LEADER_MRU, false), Src::L2);
        assert_eq!(h.psel, p0 + 1, "a hit does not count");
        assert_eq!(h.core_access(0, 5, false), Src::Mem);
        assert_eq!(h.psel, p0 + 1, "a follower set's miss does not count");
        assert_eq!(h.core_access(0, LEADER_BIP, true), Src::Mem);
        assert_eq!(h.core_access(0, 128 + LEADER_BIP, false), Src::Mem);
        assert_eq!(h.psel, p0 - 1, "two misses in the bimodal leader");
        h.dev_write(64, true); // MRU leader (set 64): an allocation counts too
        assert_eq!(h.psel, p0);
        assert_eq!(h.core_access(0, 64, false), Src::Llc);
        assert_eq!(h.psel, p0, "an LLC hit does not count");
    }

    /// Inclusive LLC: a core's LLC hit refreshes the line's replacement state, so the next miss
    /// in the set evicts the other, older line.
    #[test]
    fn an_inclusive_llc_hit_refreshes_the_lines_lru_position() {
        let mut h = small(true, 0);
        h.set_cat(0, 0x3);
        h.set_cat(1, 0x3);
        h.core_access(0, 0, false); // LLC set 0, way 0
        h.core_access(0, 4, false); // LLC set 0, way 1: now line 0 is the LRU
        // Lines 2 and 6 (LLC set 2) push lines 0 and 4 out of core 0's L2 (set 0, 2 ways).
        h.core_access(0, 2, false);
        h.core_access(0, 6, false);
        assert_eq!((h.l2_owner(0), h.l2_owner(4)), (None, None));
        assert!(h.llc_way(0).is_some() && h.llc_way(4).is_some());
        assert_eq!(h.core_access(1, 0, false), Src::Llc, "an LLC hit refreshes line 0");
        assert_eq!(h.core_access(1, 8, false), Src::Mem); // LLC set 0: evicts the LRU
        assert!(h.llc_way(0).is_some(), "the refreshed line stays");
        assert_eq!(h.llc_way(4), None, "the older line goes");
    }

    /// A device read that misses every socket's caches counts in the home LLC's set dueling
    /// (the module docs) also when both sockets' caches are in use, where
    /// `MemSys::dev_read_lines` looks each line up in every socket; a hit does not count.
    #[test]
    fn device_read_misses_count_in_the_home_dueling_with_both_sockets_in_use() {
        use crate::mem::Memory;
        use crate::memsys::{MemSys, Socket, Timing};
        let p = HierParams { sets_per_slice: 128, ..small_params() };
        let pa: Vec<u64> = (0..2 * 32768).collect();
        let socket = || Socket { hier: Hierarchy::new(&p, &pa), mem: Memory::new(90.0, 100.0, &crate::config::SKX_LOAD_CURVE), used: true };
        let t = Timing { cycle_ps: 400.0, l2_ps: 5_000, llc_ps: 30_000, c2c_ps: 50_000, upi_ps: 55_000, remote_cache_ps: 110_000 };
        let mut m = MemSys::new(vec![socket(), socket()], vec![0, 1], Vec::new(), 0, t);
        // Line 97 (set 97, a bimodal leader) is cached on socket 1 only: a hit.
        m.sockets[1].hier.core_access(0, 97, false);
        let p0 = m.sockets[0].hier.psel;
        // Lines 0..129 of socket 0's memory: misses in the MRU leader sets 0 and 64 (lines 0, 64
        // and 128: +3) and the bimodal leader set 33 (line 33: -1).
        // Read by a device on socket 0, the hit is the other socket's (one far hit).
        assert_eq!(m.dev_read_lines(0, 0, 129, 0), (1, 1));
        assert_eq!((m.c.rd_hit, m.c.rd_miss), (1, 128));
        assert_eq!(m.sockets[0].hier.psel, p0 + 2);
        assert!(!m.sockets[0].hier.is_cached(0), "a device read does not allocate");
    }
}
