//! Building the endgame database by retrograde analysis: the exact gain of every board with at
//! most `B` seeds, one seed count after another.
//!
//! Seeds never come back from a store, so a board with `b` seeds leads only to boards with at most
//! `b` seeds; and a sowing that keeps all its seeds on the board stays in the mover's own row and
//! moves every sown seed closer to the mover's store. Boards with the same seed count therefore
//! form an acyclic graph: levels `b = 0, 1, ..` are built in order, each in parallel over its
//! boards, and a board whose same-level successor is not known yet works that successor out first.
//!
//! A board is two rows of one byte a pit packed into integers ([`Rows`]), so that a sowing is a
//! few additions of precomputed rows ([`Sowing`]) and turning the board round swaps two words.

use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use super::endgame::BuildProgress;
use super::key::Encoder;
use super::mem::{ZeroBuf, prefetch};
use crate::rules::{Capture, End, Leftover, Rules};

/// While building, a slot holds `gain as u8 ^ FLIP`, so that zeroed memory reads as unknown (a
/// gain of -128 never occurs); the finished database holds the gains as plain `i8`.
const UNKNOWN: u8 = 0;
const FLIP: u8 = 0x80;

/// Boards handed to [`Builder::batch`] at a time: all their successors' slots are fetched before
/// any is read.
const BATCH: usize = 32;

/// Boards of one seed count that one task of the thread pool builds.
const CHUNK: u64 = 1 << 14;

/// A board seen from the player to move, one byte a pit, pit 0 in the lowest byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rows {
    /// The mover's pits.
    mine: u128,
    /// The opponent's pits.
    theirs: u128,
}

/// The seeds in pit `i` of a row.
#[inline(always)]
fn pit(row: u128, i: usize) -> u8 {
    (row >> (8 * i)) as u8
}

/// A row with pit `i` emptied.
#[inline(always)]
fn emptied(row: u128, i: usize) -> u128 {
    row & !(0xFFu128 << (8 * i))
}

/// The precomputed sowings of one board size: sowing `s = q (2m + 1) + r` seeds from pit `i`
/// adds `q` to every pit and the store (full laps), then one seed to each of the `r` places after
/// `i` in the mover's cycle (the mover's pits, the store, the opponent's pits).
struct Sowing {
    m: usize,
    /// A one in each of the `m` pits of a row.
    ones: u128,
    /// `(q, r)` for each seed count `s < 256`.
    split: [(u8, u8); 256],
    /// `[i * 32 + r]`: what the rest adds to the mover's row and to the opponent's.
    add: Vec<(u128, u128)>,
    /// `[i * 32 + r]`: whether the rest passes the store, and the place of the last seed
    /// (`0..m` a pit of the mover's, `m` the store, more than `m` the opponent's row).
    last: Vec<(u8, u8)>,
}

impl Sowing {
    fn new(m: usize) -> Sowing {
        let len = 2 * m + 1;
        let mut split = [(0u8, 0u8); 256];
        for (s, x) in split.iter_mut().enumerate() {
            *x = ((s / len) as u8, (s % len) as u8);
        }
        let mut add = vec![(0u128, 0u128); 32 * m];
        let mut last = vec![(0u8, 0u8); 32 * m];
        for i in 0..m {
            for r in 0..len {
                let (mut a, mut b, mut hit) = (0u128, 0u128, 0u8);
                for k in 1..=r {
                    match (i + k) % len {
                        p if p < m => a += 1 << (8 * p),
                        p if p == m => hit = 1,
                        p => b += 1 << (8 * (p - m - 1)),
                    }
                }
                add[i * 32 + r] = (a, b);
                last[i * 32 + r] = (hit, ((i + r) % len) as u8);
            }
        }
        Sowing {
            m,
            ones: (0..m).map(|j| 1u128 << (8 * j)).sum(),
            split,
            add,
            last,
        }
    }

    /// Seeds in a row.
    #[inline(always)]
    fn sum(&self, row: u128) -> u32 {
        // Byte `m - 1` of the product is the sum of bytes `0..m` (no byte passes 255).
        (row.wrapping_mul(self.ones) >> (8 * (self.m - 1))) as u8 as u32
    }
}

/// The rules a database depends on, with the board size and the slots being filled.
struct Builder<'a, const M: usize> {
    capture: Capture,
    leftover: Leftover,
    end: End,
    sowing: &'a Sowing,
    enc: &'a Encoder,
    values: &'a [AtomicU8],
}

/// A successor of a board in a batch: its slot, its board, the seeds banked on the way and
/// whether the mover moves again.
#[derive(Clone, Copy)]
struct Succ {
    slot: usize,
    rows: Rows,
    gain: i8,
    extra: bool,
}

impl<const M: usize> Builder<'_, M> {
    /// Whether the game is over at board `a`: the mover's row is empty, or either row under
    /// [`End::Immediate`].
    #[inline(always)]
    fn over(&self, a: &Rows) -> bool {
        a.mine == 0 || (self.end == End::Immediate && a.theirs == 0)
    }

    /// Gain of a finished game for the player to move.
    #[inline]
    fn terminal(&self, a: &Rows) -> i32 {
        let mine = self.sowing.sum(a.mine) as i32;
        let theirs = self.sowing.sum(a.theirs) as i32;
        match self.leftover {
            Leftover::Owner => mine - theirs,
            Leftover::Discard => 0,
            // The game is over, so one row is empty; if it is the mover's, the mover takes all.
            Leftover::Emptier => {
                if mine == 0 {
                    theirs
                } else {
                    -mine
                }
            }
        }
    }

    /// Sows the mover's pit `i` (not empty): the board after it (turned to the opponent's point
    /// of view unless the mover moves again), the seeds banked and whether the mover moves again.
    #[inline(always)]
    fn sow(&self, a: &Rows, i: usize) -> (Rows, i32, bool) {
        let sw = self.sowing;
        let (q, r) = sw.split[pit(a.mine, i) as usize];
        let laps = sw.ones * q as u128;
        let at = i * 32 + r as usize;
        let (da, db) = sw.add[at];
        let (hit, p) = sw.last[at];
        let mut mine = emptied(a.mine, i) + laps + da;
        let mut theirs = a.theirs + laps + db;
        let mut gain = q as i32 + hit as i32;
        let p = p as usize;
        if p == M {
            return (Rows { mine, theirs }, gain, true);
        }
        if p < M && self.capture != Capture::Off && pit(mine, p) == 1 {
            let o = M - 1 - p;
            let facing = pit(theirs, o);
            if facing > 0 || self.capture == Capture::Empty {
                gain += facing as i32 + 1;
                mine = emptied(mine, p);
                theirs = emptied(theirs, o);
            }
        }
        let turned = Rows {
            mine: theirs,
            theirs: mine,
        };
        (turned, gain, false)
    }

    /// The slot of board `a`: its rank (see [`super::key`]).
    #[inline(always)]
    fn rank(&self, a: &Rows) -> usize {
        let (x, y) = (a.mine.to_le_bytes(), a.theirs.to_le_bytes());
        let head = |b: &[u8; 16]| -> [u8; M] { b[..M].try_into().expect("M pits") };
        self.enc.rank_rows::<M>(&head(&x), &head(&y)).0 as usize
    }

    /// The gain held in `slot`, if known yet.
    #[inline(always)]
    fn read(&self, slot: usize) -> Option<i32> {
        let v = self.values[slot].load(Ordering::Relaxed);
        (v != UNKNOWN).then_some((v ^ FLIP) as i8 as i32)
    }

    /// Records gain `v` in `slot`.
    #[inline(always)]
    fn write(&self, slot: usize, v: i32) {
        self.values[slot].store(v as i8 as u8 ^ FLIP, Ordering::Relaxed);
    }

    /// Plays every move of board `a` (not over) and fetches each successor's slot, handing the
    /// successors to `out`: fetching all of them before any is read lets the reads overlap.
    #[inline(always)]
    fn successors(&self, a: &Rows, mut out: impl FnMut(Succ)) {
        for i in 0..M {
            if pit(a.mine, i) == 0 {
                continue;
            }
            let (rows, gain, extra) = self.sow(a, i);
            let slot = self.rank(&rows);
            prefetch(self.values[slot..].as_ptr());
            out(Succ {
                slot,
                rows,
                gain: gain as i8,
                extra,
            });
        }
    }

    /// The best gain over the moves `succ` of one board, working out unknown successors first.
    #[inline(always)]
    fn best(&self, succ: &[Succ]) -> i32 {
        let mut best = i32::MIN;
        for s in succ {
            let v = self.value(s.slot, &s.rows);
            best = best.max(s.gain as i32 + if s.extra { v } else { -v });
        }
        best
    }

    /// Gain of board `a` (not over) for the player to move, working out unknown successors
    /// first.
    fn solve(&self, a: &Rows) -> i32 {
        let none = Succ {
            slot: 0,
            rows: *a,
            gain: 0,
            extra: false,
        };
        let mut next = [none; M];
        let mut n = 0;
        self.successors(a, |s| {
            next[n] = s;
            n += 1;
        });
        self.best(&next[..n])
    }

    /// The gain of board `a` in `slot`, worked out (and stored) if not known yet.
    #[inline(always)]
    fn value(&self, slot: usize, a: &Rows) -> i32 {
        match self.read(slot) {
            Some(v) => v,
            None => {
                let v = if self.over(a) {
                    self.terminal(a)
                } else {
                    self.solve(a)
                };
                self.write(slot, v);
                v
            }
        }
    }

    /// Solves the boards of ranks `r..r + n` (`n <= BATCH`; `a` is the board of rank `r`, left
    /// at the first board not done). Every successor of the batch is played and its slot fetched
    /// before any is read, so that many random reads are in flight at once.
    fn batch(&self, a: &mut [u8; 32], r: usize, n: usize, succ: &mut Vec<Succ>) {
        let mut first = [0u32; BATCH + 1];
        let mut todo = [false; BATCH];
        succ.clear();
        for j in 0..n {
            first[j] = succ.len() as u32;
            let b = rows_of::<M>(a);
            if self.read(r + j).is_none() {
                if self.over(&b) {
                    self.write(r + j, self.terminal(&b));
                } else {
                    todo[j] = true;
                    self.successors(&b, |c| succ.push(c));
                }
            }
            next_board(&mut a[..2 * M]);
        }
        first[n] = succ.len() as u32;
        for j in 0..n {
            if !todo[j] {
                continue;
            }
            let best = self.best(&succ[first[j] as usize..first[j + 1] as usize]);
            self.write(r + j, best);
        }
    }

    /// Builds every level up to `max_seeds`, posting each finished chunk to `progress`.
    fn run(&self, max_seeds: u32, progress: Option<&BuildProgress>) {
        for b in 0..=max_seeds {
            let lo = if b == 0 {
                0
            } else {
                super::endgame::entries(M, b - 1) as u64
            };
            let hi = super::endgame::entries(M, b) as u64;
            let chunks = (hi - lo).div_ceil(CHUNK);
            (0..chunks).into_par_iter().for_each(|c| {
                let start = lo + c * CHUNK;
                let end = (start + CHUNK).min(hi);
                let mut a = [0u8; 32];
                self.enc.unrank(start, &mut a[..2 * M]);
                let mut succ = Vec::with_capacity(BATCH * M);
                let mut r = start;
                while r < end {
                    let n = ((end - r) as usize).min(BATCH);
                    self.batch(&mut a, r as usize, n, &mut succ);
                    r += n as u64;
                }
                if let Some(p) = progress {
                    p.add(end - start);
                }
            });
        }
    }
}

/// The rows of a board held as bytes (the mover's `M` pits, then the opponent's).
#[inline(always)]
fn rows_of<const M: usize>(a: &[u8; 32]) -> Rows {
    let mask = u128::MAX >> (128 - 8 * M);
    let word = |at: usize| u128::from_le_bytes(a[at..at + 16].try_into().expect("16 bytes"));
    Rows {
        mine: word(0) & mask,
        theirs: word(M) & mask,
    }
}

/// Next board of the same seed count in rank order (see [`super::key`]); false after the last.
pub(super) fn next_board(a: &mut [u8]) -> bool {
    let k = a.len();
    let mut prefix = 0u32;
    for j in 0..k - 1 {
        prefix += a[j] as u32;
        if a[j + 1] > 0 {
            for x in &mut a[..j] {
                *x = 0;
            }
            a[j] = prefix as u8 + 1;
            a[j + 1] -= 1;
            return true;
        }
    }
    false
}

/// The gains of every board with at most `max_seeds` seeds under `rules` (only `m` and the
/// capture, leftover and end rules matter), indexed by rank, built on the rayon pool and posted
/// to `progress` as it goes; `None` if the memory cannot be had.
pub(super) fn build(
    rules: &Rules,
    max_seeds: u32,
    progress: Option<&BuildProgress>,
) -> Option<ZeroBuf<u8>> {
    let m = rules.pits();
    let count = super::endgame::entries(m, max_seeds) as usize;
    if let Some(p) = progress {
        p.start(count as u64);
    }
    let enc = Encoder::new(m, max_seeds);
    let sowing = Sowing::new(m);
    let values = ZeroBuf::<AtomicU8>::new(count)?;
    macro_rules! by_size {
        ($($m:literal)*) => {
            match m {
                $($m => Builder::<$m> {
                    capture: rules.capture,
                    leftover: rules.leftover,
                    end: rules.end,
                    sowing: &sowing,
                    enc: &enc,
                    values: &values,
                }
                .run(max_seeds, progress),)*
                _ => unreachable!("at most 15 pits a side"),
            }
        };
    }
    by_size!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    let mut v = values.into_plain();
    v.par_chunks_mut(1 << 16).for_each(|c| {
        for x in c {
            *x ^= FLIP;
        }
    });
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Position, Side};

    #[test]
    fn boards_of_one_seed_count_come_in_rank_order() {
        let enc = Encoder::new(3, 6);
        for b in 0..=6u32 {
            let mut a = [0u8; 6];
            a[5] = b as u8;
            let lo = if b == 0 {
                0
            } else {
                super::super::endgame::entries(3, b - 1) as u64
            };
            let hi = super::super::endgame::entries(3, b) as u64;
            for r in lo..hi {
                assert_eq!(enc.rank_board(&a).0, r);
                assert_eq!(next_board(&mut a), r + 1 < hi);
            }
        }
    }

    /// The builder's sowing agrees with the rules core's on every board of a few seeds, for
    /// every capture rule, laps and wrap-arounds included.
    #[test]
    fn sowing_agrees_with_the_rules_core() {
        for m in [1usize, 2, 3, 4] {
            let sowing = Sowing::new(m);
            let enc = Encoder::new(m, 3 * m as u32 + 4);
            let values: Vec<AtomicU8> = Vec::new();
            for capture in [Capture::Standard, Capture::Empty, Capture::Off] {
                let rules = Rules::new(m as u32, 1)
                    .expect("rules")
                    .with_capture(capture);
                let count = super::super::endgame::entries(m, 3 * m as u32 + 4) as u64;
                for rank in (0..count).step_by(7) {
                    let mut cells = [0u8; 32];
                    enc.unrank(rank, &mut cells[..2 * m]);
                    let b = rows_of_dyn(&cells, m);
                    for i in 0..m {
                        if cells[i] == 0 {
                            continue;
                        }
                        let (after, gain, extra) = match m {
                            1 => sow_with::<1>(&sowing, &enc, &values, capture, &b, i),
                            2 => sow_with::<2>(&sowing, &enc, &values, capture, &b, i),
                            3 => sow_with::<3>(&sowing, &enc, &values, capture, &b, i),
                            _ => sow_with::<4>(&sowing, &enc, &values, capture, &b, i),
                        };
                        let pos = Position::from_parts(
                            &rules,
                            (&cells[..m], 0),
                            (&cells[m..2 * m], 0),
                            Side::South,
                            false,
                        )
                        .expect("a board of the rules' size");
                        if pos.is_over() {
                            continue;
                        }
                        let (next, o) = pos.after(Move::Pit(i as u8 + 1)).expect("legal");
                        if o.game_over {
                            continue;
                        }
                        assert_eq!(gain, next.store(Side::South) as i32, "{pos:?} pit {i}");
                        assert_eq!(extra, o.extra_turn, "{pos:?} pit {i}");
                        let me = next.to_move();
                        let want = Rows {
                            mine: row_word(next.row(me)),
                            theirs: row_word(next.row(me.other())),
                        };
                        assert_eq!(after, want, "{pos:?} pit {i}");
                    }
                }
            }
        }
    }

    fn row_word(row: &[u8]) -> u128 {
        row.iter()
            .enumerate()
            .map(|(j, &c)| (c as u128) << (8 * j))
            .sum()
    }

    fn rows_of_dyn(cells: &[u8; 32], m: usize) -> Rows {
        Rows {
            mine: row_word(&cells[..m]),
            theirs: row_word(&cells[m..2 * m]),
        }
    }

    fn sow_with<const M: usize>(
        sowing: &Sowing,
        enc: &Encoder,
        values: &[AtomicU8],
        capture: Capture,
        b: &Rows,
        i: usize,
    ) -> (Rows, i32, bool) {
        Builder::<M> {
            capture,
            leftover: Leftover::Owner,
            end: End::Immediate,
            sowing,
            enc,
            values,
        }
        .sow(b, i)
    }
}
