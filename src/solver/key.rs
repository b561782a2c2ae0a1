//! Position keys: the pits seen from the player to move, ranked in the combinatorial number system.
//!
//! The value the solver computes for a position is the *gain*: the player to move's final margin
//! minus the current store difference. It depends only on the seeds in the pits (and the pie
//! state), never on the stores, so positions that differ only in their stores share one key.
//!
//! The `2m` pits, the mover's row first, form a composition of the `b` seeds on the board. With
//! prefix sums `P_j = c_0 + .. + c_j`, the rank `sum_j C(P_j + j, j + 1)` is a bijection from all
//! boards holding at most `T` seeds onto `0..C(T + 2m, 2m)`, and it lists the boards by their seed
//! count first: the boards with at most `B` seeds are exactly the ranks below `C(B + 2m, 2m)`.
//! The endgame database is indexed by this rank, and the transposition table keys on it.

use crate::rules::Position;

/// Columns of the rank table: one per seed count `0..=255` (no board holds more).
const COLS: usize = 256;
/// Rows of the rank table: one per pit, up to 32 (the rules allow at most 15 pits a side).
const ROWS: usize = 32;

/// Ranks boards of `m` pits a side holding at most `total` seeds.
#[derive(Clone, Debug)]
pub(crate) struct Encoder {
    m: usize,
    /// `table[j * COLS + p] = C(p + j, j + 1)`, saturating; indexes are masked into range, so
    /// ranking needs no bounds checks.
    table: Box<[u64; ROWS * COLS]>,
    /// Seeds the encoder covers.
    total: usize,
    /// Every rank fits in a `u64` with room for the pie state: keys are exact.
    exact: bool,
    /// Bits a key needs (64 when keys are hashes).
    key_bits: u32,
}

/// Index of `C(p + j, j + 1)` in [`Encoder::table`].
#[inline(always)]
fn cell(j: usize, p: usize) -> usize {
    ((j & (ROWS - 1)) << 8) | (p & (COLS - 1))
}

/// `C(n, k)` as a `u128`, saturating.
pub(crate) fn binomial(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        c = match c.checked_mul((n - i) as u128) {
            Some(x) => x / (i as u128 + 1),
            None => return u128::MAX,
        };
    }
    c
}

/// Pie states a key tells apart: none, South's opening turn, North's pie answer.
pub(crate) const PIE_STATES: u64 = 3;

/// Where a position stands with the pie rule: the part of its state beyond the board that the
/// search and the transposition keys tell apart ([`PIE_STATES`] of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum PieState {
    /// No pie answer to come (the pie rule off, or the answer given or passed).
    None = 0,
    /// South's opening turn under the pie rule, extra turns included.
    Opening = 1,
    /// North may answer `swap` now.
    Answer = 2,
}

impl PieState {
    /// The state of `pos`.
    #[inline(always)]
    pub(crate) fn of(pos: &Position) -> PieState {
        if pos.swap_allowed() {
            PieState::Answer
        } else if pos.in_opening_turn() {
            PieState::Opening
        } else {
            PieState::None
        }
    }
}

impl Encoder {
    /// An encoder for boards of `m` pits a side with at most `total` seeds on the board.
    pub fn new(m: usize, total: u32) -> Encoder {
        assert!(
            2 * m <= ROWS && (total as usize) < COLS,
            "boards of at most 16 pits a side and 255 seeds"
        );
        let mut table: Box<[u64; ROWS * COLS]> = vec![0u64; ROWS * COLS]
            .into_boxed_slice()
            .try_into()
            .expect("a table of ROWS * COLS entries");
        for j in 0..2 * m {
            for p in 0..=total as usize {
                table[cell(j, p)] =
                    binomial((p + j) as u64, j as u64 + 1).min(u64::MAX as u128) as u64;
            }
        }
        let count =
            binomial(total as u64 + 2 * m as u64, 2 * m as u64).saturating_mul(PIE_STATES as u128);
        let exact = count < (1u128 << 63);
        let key_bits = if exact {
            128 - (count - 1).max(1).leading_zeros()
        } else {
            64
        };
        Encoder {
            m,
            table,
            total: total as usize,
            exact,
            key_bits,
        }
    }

    /// Whether keys identify boards exactly (else they are 64-bit hashes).
    #[cfg(test)]
    pub fn exact(&self) -> bool {
        self.exact
    }

    /// Bits a key needs.
    pub fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// Rank of a position's pits from the mover's point of view, and the seeds on the board.
    #[inline(always)]
    pub fn rank_position(&self, pos: &Position) -> (u64, u32) {
        let cells = pos.cells();
        let me = pos.to_move().index() << 4;
        let opp = me ^ 16;
        self.rank_split(&cells[me..me + self.m], &cells[opp..opp + self.m])
    }

    /// Rank of the pits `a[..2m]` (a composition, the mover's row first) and the seeds they
    /// hold. Precondition: they hold at most `total` seeds.
    #[cfg(test)]
    #[inline(always)]
    pub fn rank_board(&self, a: &[u8]) -> (u64, u32) {
        self.rank_split(&a[..self.m], &a[self.m..2 * self.m])
    }

    /// Rank of the rows `mine` and `theirs` (`m` pits each) and the seeds in them: one unrolled
    /// loop per board size, since ranking is the search's and the database builder's most
    /// frequent work.
    #[inline(always)]
    fn rank_split(&self, mine: &[u8], theirs: &[u8]) -> (u64, u32) {
        macro_rules! by_size {
            ($($m:literal)*) => {
                match self.m {
                    $($m => self.rank_rows::<$m>(
                        mine.try_into().expect("m pits"),
                        theirs.try_into().expect("m pits"),
                    ),)*
                    _ => unreachable!("at most 15 pits a side"),
                }
            };
        }
        by_size!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    }

    /// [`Encoder::rank_split`] for `M` pits a side.
    #[inline(always)]
    pub(crate) fn rank_rows<const M: usize>(&self, mine: &[u8; M], theirs: &[u8; M]) -> (u64, u32) {
        let mut p = 0usize;
        let mut r = 0u64;
        for (j, &c) in mine.iter().enumerate() {
            p += c as usize;
            r = r.wrapping_add(self.table[cell(j, p)]);
        }
        for (j, &c) in theirs.iter().enumerate() {
            p += c as usize;
            r = r.wrapping_add(self.table[cell(M + j, p)]);
        }
        (r, p as u32)
    }

    /// The transposition key of a position in pie state `pie` (see [`PIE_STATES`]), its rank
    /// (exact while the board holds few enough seeds for the table) and the seeds on the board.
    #[inline(always)]
    pub fn key(&self, pos: &Position, pie: PieState) -> (u64, u64, u32) {
        let (r, b) = self.rank_position(pos);
        if self.exact {
            return (r * PIE_STATES + pie as u64, r, b);
        }
        let cells = pos.cells();
        let me = pos.to_move().index() << 4;
        let opp = me ^ 16;
        let mut h = pie as u64 + 1;
        for &c in cells[me..me + self.m]
            .iter()
            .chain(&cells[opp..opp + self.m])
        {
            h = (h ^ c as u64)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(29);
        }
        (h, r, b)
    }

    /// The pits of rank `r` (the mover's row first), written into `out` (`2m` long).
    /// Precondition: `r` is below `C(total + 2m, 2m)`.
    pub fn unrank(&self, mut r: u64, out: &mut [u8]) {
        let k = 2 * self.m;
        let mut prefix = vec![0usize; k];
        for j in (0..k).rev() {
            // The largest P with C(P + j, j + 1) <= r.
            let row = &self.table[cell(j, 0)..=cell(j, self.total)];
            let p = row.partition_point(|&c| c <= r) - 1;
            prefix[j] = p;
            r -= row[p];
        }
        let mut prev = 0;
        for j in 0..k {
            out[j] = (prefix[j] - prev) as u8;
            prev = prefix[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_ordered_by_seed_count() {
        let enc = Encoder::new(2, 5);
        let mut seen = vec![false; binomial(9, 4) as usize];
        let mut last_b = 0;
        let mut by_rank = vec![0u32; seen.len()];
        for a in 0..=5u8 {
            for b in 0..=5 - a {
                for c in 0..=5 - a - b {
                    for d in 0..=5 - a - b - c {
                        let (r, s) = enc.rank_board(&[a, b, c, d]);
                        assert_eq!(s, (a + b + c + d) as u32);
                        assert!(!seen[r as usize], "rank {r} twice");
                        seen[r as usize] = true;
                        by_rank[r as usize] = s;
                        let mut back = [0u8; 4];
                        enc.unrank(r, &mut back);
                        assert_eq!(back, [a, b, c, d]);
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        for &b in &by_rank {
            assert!(b >= last_b, "ranks list boards by seed count");
            last_b = b;
        }
        for b in 0..=5u64 {
            // Boards with fewer than b seeds are the ranks below C(b - 1 + 4, 4).
            let below = by_rank.iter().filter(|&&s| (s as u64) < b).count() as u128;
            assert_eq!(below, if b == 0 { 0 } else { binomial(b - 1 + 4, 4) });
        }
    }

    #[test]
    fn standard_boards_have_exact_keys() {
        assert!(Encoder::new(6, 72).exact());
        assert!(Encoder::new(6, 72).key_bits() <= 50);
        assert!(!Encoder::new(15, 255).exact());
    }
}
