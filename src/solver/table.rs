//! The transposition table: proven lower and upper bounds on a position's gain, shared by threads.
//!
//! Each entry is one `u64` written and read atomically, so threads share the table without locks
//! and a reader never sees half an entry. Entries sit in buckets of eight (64 bytes, one cache
//! line); a store replaces the entry of its key, else the one with the least search work.
//!
//! Keys (see [`super::key`]) take `key_bits` bits. They are scrambled by a bijection of that many
//! bits; the high bits pick the bucket (any number of buckets, so the table fills its memory
//! budget) and the low bits are kept as the tag. A bucket holds the scrambled keys of one interval,
//! so while the intervals are no longer than the tags can tell apart, a hit is never a different
//! position. Entry layout, low bit first:
//!
//! | bits | field |
//! | --- | --- |
//! | 0..9 | lower bound + 255 |
//! | 9..18 | upper bound + 255 |
//! | 18..22 | best move: pit index 0..14, 15 for swap or none |
//! | 22..26 | search work, about log4 of the nodes below |
//! | 26 | 1: the entry is in use |
//! | 27..64 | tag (the scrambled key's low 37 bits; exact unless keys have more bits than 37 plus log2 of the buckets, which only very large boards with tiny tables need) |
//!
//! Every stored bound is true whatever window found it, so entries written by any thread, in any
//! order, never make an answer wrong; a store intersects the new bounds with those already held.

use std::sync::atomic::{AtomicU64, Ordering};

use super::mem::ZeroBuf;

/// Bytes of one entry.
pub(crate) const ENTRY_BYTES: usize = 8;
/// Entries in a bucket.
pub(crate) const WAYS: usize = 8;
const DATA_BITS: u32 = 27;
const TAG_BITS: u32 = 64 - DATA_BITS;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
const VALID: u64 = 1 << (DATA_BITS - 1);

/// The lower bound held by an entry.
#[inline(always)]
fn lower_of(e: u64) -> i32 {
    (e & 511) as i32 - 255
}

/// The upper bound held by an entry.
#[inline(always)]
fn upper_of(e: u64) -> i32 {
    ((e >> 9) & 511) as i32 - 255
}

/// The best move held by an entry.
#[inline(always)]
fn best_of(e: u64) -> u8 {
    ((e >> 18) & 15) as u8
}

/// The search work held by an entry (0..16).
#[inline(always)]
fn work_of(e: u64) -> u64 {
    (e >> 22) & 15
}

/// The best-move field for "no move known".
pub(crate) const NO_MOVE: u8 = 15;

/// Bounds read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The gain is at least this.
    pub lower: i32,
    /// The gain is at most this.
    pub upper: i32,
    /// The move that was best or refuted last time ([`NO_MOVE`] if none).
    pub best: u8,
}

/// A lock-free table of bounds.
pub(crate) struct Table {
    /// Buckets of [`WAYS`] entries, each 64-byte aligned.
    slots: ZeroBuf<AtomicU64>,
    buckets: usize,
    key_bits: u32,
    key_mask: u64,
}

impl Table {
    /// A table of at most `bytes` bytes (at least one bucket) for keys of `key_bits` bits;
    /// `None` if the memory cannot be had.
    pub fn new(bytes: usize, key_bits: u32) -> Option<Table> {
        let count = (bytes / (WAYS * ENTRY_BYTES)).max(1);
        // Zeroed memory is all empty entries; the system hands it out page by page as the search
        // touches it (huge pages where it can), so a large table costs nothing up front.
        let slots = ZeroBuf::<AtomicU64>::new(count * WAYS)?;
        let key_mask = if key_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << key_bits) - 1
        };
        Some(Table {
            slots,
            buckets: count,
            key_bits: key_bits.min(64),
            key_mask,
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.buckets * WAYS * ENTRY_BYTES
    }

    /// Scrambles a key with a bijection of `key_bits` bits: what the `_hashed` methods take, so
    /// that a caller who needs one key several times scrambles it once.
    #[inline(always)]
    pub fn hash(&self, key: u64) -> u64 {
        let s = self.key_bits.div_ceil(2);
        let mut h = key & self.key_mask;
        h ^= h >> s;
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) & self.key_mask;
        h ^= h >> s;
        h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93) & self.key_mask;
        h ^ (h >> s)
    }

    /// The bucket index of a scrambled key in a table of `buckets` buckets for keys of
    /// `key_bits` bits: the keys in `0..2^key_bits` cut into `buckets` intervals. The key, shifted
    /// to the top of 64 bits, is a fraction of `2^64`: one multiplication scales it.
    #[inline(always)]
    fn bucket_index(h: u64, buckets: usize, key_bits: u32) -> usize {
        (((h << (64 - key_bits)) as u128 * buckets as u128) >> 64) as usize
    }

    /// The entries of bucket `i`.
    #[inline(always)]
    fn bucket(&self, i: usize) -> &[AtomicU64] {
        &self.slots[i * WAYS..i * WAYS + WAYS]
    }

    /// The bucket and tag of a scrambled key.
    #[inline(always)]
    fn locate_hashed(&self, h: u64) -> (&[AtomicU64], u64) {
        let i = Table::bucket_index(h, self.buckets, self.key_bits);
        (self.bucket(i), h & TAG_MASK)
    }

    /// Hints the processor to fetch the bucket of a scrambled key ([`Table::hash`]).
    #[inline(always)]
    pub fn prefetch_hashed(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let (bucket, _) = self.locate_hashed(h);
            // SAFETY: prefetching is a hint; the pointer is to a live bucket.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    bucket.as_ptr() as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The bounds held for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        self.probe_hashed(self.hash(key))
    }

    /// [`Table::probe`] of a scrambled key ([`Table::hash`]).
    #[inline]
    pub fn probe_hashed(&self, h: u64) -> Option<Hit> {
        let (bucket, tag) = self.locate_hashed(h);
        // The in-use bit sits just below the tag: one comparison checks both.
        let want = (tag << 1) | 1;
        for slot in bucket {
            let e = slot.load(Ordering::Relaxed);
            if e >> (DATA_BITS - 1) == want {
                return Some(Hit {
                    lower: lower_of(e),
                    upper: upper_of(e),
                    best: best_of(e),
                });
            }
        }
        None
    }

    /// Records that the gain of `key` lies in `lower..=upper`, with the best move and the nodes
    /// the search took. Bounds must lie in `-255..=255`.
    #[cfg(test)]
    pub fn store(&self, key: u64, lower: i32, upper: i32, best: u8, nodes: u64) {
        self.store_hashed(self.hash(key), lower, upper, best, nodes);
    }

    /// [`Table::store`] of a scrambled key ([`Table::hash`]).
    #[inline]
    pub fn store_hashed(&self, h: u64, lower: i32, upper: i32, best: u8, nodes: u64) {
        let (bucket, tag) = self.locate_hashed(h);
        let work = ((64 - nodes.leading_zeros()) / 2).min(15) as u64;
        Table::store_in(bucket, tag, lower, upper, best, work);
    }

    /// Stores bounds with search work `work` (0..16) under `tag` in `bucket`.
    #[inline(always)]
    fn store_in(
        bucket: &[AtomicU64],
        tag: u64,
        mut lower: i32,
        mut upper: i32,
        best: u8,
        work: u64,
    ) {
        let mut victim = 0;
        let mut victim_work = u64::MAX;
        let mut best = best;
        let want = (tag << 1) | 1;
        for (i, slot) in bucket.iter().enumerate() {
            let e = slot.load(Ordering::Relaxed);
            if e >> (DATA_BITS - 1) == want {
                lower = lower.max(lower_of(e));
                upper = upper.min(upper_of(e));
                if best == NO_MOVE {
                    best = best_of(e);
                }
                victim = i;
                break;
            }
            let w = if e & VALID == 0 { 0 } else { work_of(e) + 1 };
            if w < victim_work {
                victim = i;
                victim_work = w;
            }
        }
        debug_assert!(lower <= upper, "contradictory bounds {lower}..{upper}");
        let e = (tag << DATA_BITS)
            | VALID
            | (work << 22)
            | ((best as u64 & 15) << 18)
            | (((upper + 255) as u64 & 511) << 9)
            | ((lower + 255) as u64 & 511);
        bucket[victim].store(e, Ordering::Relaxed);
    }

    /// Whether the raw entries of one bucket, read from a file, can be trusted for a game of
    /// `total` seeds: each entry in use holds bounds from `-total` to `total` with the lower at
    /// most the upper, and two entries of the same position (threads racing to store it) hold
    /// bounds that overlap, as true bounds of one value do: a search never writes otherwise, and
    /// such bounds would merge into a contradiction.
    pub fn sound_bucket(entries: &[u64], total: i32) -> bool {
        let used: Vec<u64> = entries
            .iter()
            .copied()
            .filter(|&e| Table::in_use(e))
            .collect();
        used.iter().enumerate().all(|(i, &e)| {
            let (lower, upper) = (lower_of(e), upper_of(e));
            -total <= lower
                && lower <= upper
                && upper <= total
                && used[..i].iter().all(|&f| {
                    f >> DATA_BITS != e >> DATA_BITS
                        || (lower.max(lower_of(f)) <= upper.min(upper_of(f)))
                })
        })
    }

    /// Whether a raw entry is in use.
    pub fn in_use(e: u64) -> bool {
        e & VALID != 0
    }

    /// Entries held (in use or not).
    pub fn len(&self) -> usize {
        self.buckets * WAYS
    }

    /// Buckets.
    #[cfg(test)]
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Bits of the keys the table is for.
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// The raw entries `at..at + out.len()` (for saving the table).
    pub fn read_raw(&self, at: usize, out: &mut [u64]) {
        for (o, slot) in out.iter_mut().zip(&self.slots[at..]) {
            *o = slot.load(Ordering::Relaxed);
        }
    }

    /// Whether raw entries of a table of `buckets` buckets, for keys of the same bits as this
    /// table's, can be moved into this table (their whole scrambled key is known, or the two
    /// tables have the same shape).
    pub fn can_take(&self, buckets: usize) -> bool {
        buckets == self.buckets || (1u128 << self.key_bits) <= (buckets as u128) << TAG_BITS
    }

    /// Adds the raw entry `e`, found at index `at` of a table of `buckets` buckets for the same
    /// keys, as [`Table::store`] would (bounds merged with any entry of the same key).
    /// Precondition: [`Table::can_take`] of `buckets`.
    pub fn put_raw(&self, at: usize, buckets: usize, e: u64) {
        if !Table::in_use(e) {
            return;
        }
        let b = at / WAYS;
        let tag = e >> DATA_BITS;
        let (lower, upper, best, work) = (lower_of(e), upper_of(e), best_of(e), work_of(e));
        if buckets == self.buckets {
            Table::store_in(self.bucket(b), tag, lower, upper, best, work);
            return;
        }
        // The scrambled keys of bucket `b` are those from `ceil(b * 2^K / buckets)` on, fewer than
        // `2^TAG_BITS` of them: the one with this tag is the first at or above that start.
        let start = ((b as u128) << self.key_bits).div_ceil(buckets as u128) as u64;
        let h = start + (tag.wrapping_sub(start) & TAG_MASK);
        if h & !self.key_mask != 0 || Table::bucket_index(h, buckets, self.key_bits) != b {
            return;
        }
        let (bucket, tag) = self.locate_hashed(h);
        Table::store_in(bucket, tag, lower, upper, best, work);
    }

    /// Empties every entry.
    pub fn clear(&self) {
        for slot in self.slots.iter() {
            slot.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_round_trip_and_merge() {
        let t = Table::new(1 << 12, 40).unwrap();
        assert_eq!(t.probe(12345), None);
        t.store(12345, -3, 7, 2, 100);
        assert_eq!(
            t.probe(12345),
            Some(Hit {
                lower: -3,
                upper: 7,
                best: 2
            })
        );
        t.store(12345, 1, 255, NO_MOVE, 10);
        assert_eq!(
            t.probe(12345),
            Some(Hit {
                lower: 1,
                upper: 7,
                best: 2
            })
        );
        t.store(7, -255, -255, NO_MOVE, 1);
        assert_eq!(t.probe(7).map(|h| (h.lower, h.upper)), Some((-255, -255)));
    }

    #[test]
    fn raw_entries_move_into_a_table_of_another_size() {
        let big = Table::new(1 << 16, 30).unwrap();
        let keys: Vec<u64> = (0..500u64).map(|k| k * 2_654_435_761 % (1 << 30)).collect();
        for (i, &k) in keys.iter().enumerate() {
            big.store(
                k,
                -(i as i32 % 50),
                i as i32 % 60,
                (i % 6) as u8,
                1 << (i % 20),
            );
        }
        let mut raw = vec![0u64; big.len()];
        big.read_raw(0, &mut raw);
        let n = big.buckets();
        for buckets in [n, n / 8, n / 3, 2 * n, 3 * n + 5] {
            let t = Table::new(buckets * WAYS * ENTRY_BYTES, 30).unwrap();
            assert_eq!(t.buckets(), buckets);
            assert!(t.can_take(n));
            for (at, &e) in raw.iter().enumerate() {
                t.put_raw(at, n, e);
            }
            let mut kept = 0;
            for &k in &keys {
                if let Some(h) = t.probe(k) {
                    assert_eq!(Some(h), big.probe(k), "key {k} moved with other bounds");
                    kept += 1;
                }
            }
            // A table as large or larger keeps everything; a smaller one what fits.
            if buckets >= n {
                assert_eq!(kept, keys.len());
            } else {
                assert!(kept > 0 && kept <= t.len());
            }
        }
    }

    #[test]
    fn long_keys_in_a_small_table_are_told_apart() {
        // 40-bit keys in 8 buckets: each bucket holds 2^37 scrambled keys, as many as the tags.
        let t = Table::new(8 * WAYS * ENTRY_BYTES, 40).unwrap();
        assert_eq!(t.buckets(), 8);
        assert!(t.can_take(8) && !t.can_take(7) && t.can_take(9));
        let keys: Vec<u64> = (0..3000u64)
            .map(|i| (i * 0x9E37_79B9_7F4A_7C15) >> 24)
            .chain((0..64).map(|i| i << 34))
            .collect();
        for &k in &keys {
            t.store(k, (k % 201) as i32, (k % 201) as i32, NO_MOVE, 1);
            assert_eq!(t.probe(k).map(|h| h.lower), Some((k % 201) as i32));
        }
        for &k in &keys {
            if let Some(h) = t.probe(k) {
                assert_eq!(
                    h.lower,
                    (k % 201) as i32,
                    "key {k} read another key's entry"
                );
            }
        }
    }

    #[test]
    fn distinct_keys_never_share_an_entry() {
        let t = Table::new(1 << 10, 20).unwrap();
        for k in 0..(1u64 << 12) {
            t.store(k, (k % 200) as i32, (k % 200) as i32, NO_MOVE, k);
        }
        for k in 0..(1u64 << 12) {
            if let Some(h) = t.probe(k) {
                assert_eq!(h.lower, (k % 200) as i32);
            }
        }
    }
}
