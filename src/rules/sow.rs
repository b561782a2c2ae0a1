//! Precomputed sowing tables: a move adds one constant per full lap plus one mask for the rest.
//!
//! Board cells live in 32 bytes: South's pits at bytes `0..m`, South's store at byte 15, North's
//! pits at bytes `16..16 + m`, North's store at byte 31. Sowing `s` seeds from a pit is then
//! `q = s / (2m + 1)` laps, each adding one seed to every cell of the mover's cycle, and a rest of
//! `r = s % (2m + 1)` seeds that add the mask `masks[side][pit][r]`. No cell can overflow because
//! the whole board holds at most 255 seeds.

use std::sync::OnceLock;

use super::options::MAX_PITS;

/// Byte offset of a side's half of the board.
#[inline(always)]
pub(crate) const fn base(side: usize) -> usize {
    side << 4
}

/// Cell index of a side's store.
#[inline(always)]
pub(crate) const fn store(side: usize) -> usize {
    (side << 4) | 15
}

/// Slots per side in the tables: pit index (< 16) times rest (< 32), so indexes are shifts.
const SLOTS: usize = 16 * 32;

/// Sowing tables for one board size. Every vector is 32 bytes added with per-byte wrapping
/// arithmetic, so a byte of `0xFF` means "minus one".
pub(crate) struct SowTable {
    /// Cycle length `2m + 1`: a full lap skips the opponent's store.
    pub lap_len: u8,
    /// `sow[(side * 16 + pit) * 32 + r]`: one seed in each of the `r` cells after `pit` in the
    /// mover's cycle, minus `r` in the start pit.
    pub sow: Box<[[u8; 32]]>,
    /// `lap[side * 16 + pit]`: one seed in every cell of the mover's cycle, minus a lap
    /// (`2m + 1`) in the start pit.
    pub lap: Box<[[u8; 32]]>,
    /// Cell that receives the last seed, indexed like `sow`; for `r = 0` the start pit itself.
    pub last: Box<[u8]>,
    /// Per last cell, the capture when the facing pit is empty: +1 to the owner's store, -1 in the
    /// last cell. Zero for cells that are not pits.
    pub cap_base: [[u8; 32]; 32],
    /// Per last cell, `0xFF` at the owner's store: adds the captured seeds there.
    pub cap_gain: [[u8; 32]; 32],
    /// Per last cell, `0xFF` at the facing pit: takes the captured seeds from there.
    pub cap_loss: [[u8; 32]; 32],
    /// The pit facing each pit cell (unused entries are 0).
    pub opposite: [u8; 32],
}

impl SowTable {
    /// The shared table for `m` pits per side, built on first use.
    pub fn get(m: u8) -> &'static SowTable {
        static TABLES: [OnceLock<SowTable>; MAX_PITS as usize + 1] =
            [const { OnceLock::new() }; MAX_PITS as usize + 1];
        TABLES[m as usize].get_or_init(|| SowTable::build(m))
    }

    fn build(m: u8) -> SowTable {
        let mu = m as usize;
        let lap_len = 2 * mu + 1;
        let cycle = |side: usize| -> Vec<usize> {
            let mut c: Vec<usize> = (0..mu).map(|i| base(side) + i).collect();
            c.push(store(side));
            c.extend((0..mu).map(|i| base(1 - side) + i));
            c
        };
        let mut sow = vec![[0u8; 32]; 2 * SLOTS].into_boxed_slice();
        let mut last = vec![0u8; 2 * SLOTS].into_boxed_slice();
        let mut lap = vec![[0u8; 32]; 32].into_boxed_slice();
        for side in 0..2 {
            let cyc = cycle(side);
            for pit in 0..mu {
                let start = base(side) + pit;
                let l = &mut lap[side * 16 + pit];
                for &c in &cyc {
                    l[c] = 1;
                }
                l[start] = l[start].wrapping_sub(lap_len as u8);
                for r in 0..lap_len {
                    let i = (side * 16 + pit) * 32 + r;
                    for k in 1..=r {
                        sow[i][cyc[(pit + k) % lap_len]] = 1;
                    }
                    sow[i][start] = (r as u8).wrapping_neg();
                    last[i] = cyc[(pit + r) % lap_len] as u8;
                }
            }
        }
        let mut opposite = [0u8; 32];
        let mut cap_base = [[0u8; 32]; 32];
        let mut cap_gain = [[0u8; 32]; 32];
        let mut cap_loss = [[0u8; 32]; 32];
        for side in 0..2 {
            for i in 0..mu {
                let cell = base(side) + i;
                let opp = base(1 - side) + mu - 1 - i;
                opposite[cell] = opp as u8;
                cap_base[cell][store(side)] = 1;
                cap_base[cell][cell] = 0xFF;
                cap_gain[cell][store(side)] = 0xFF;
                cap_loss[cell][opp] = 0xFF;
            }
        }
        SowTable {
            lap_len: lap_len as u8,
            sow,
            lap,
            last,
            cap_base,
            cap_gain,
            cap_loss,
            opposite,
        }
    }

    /// Index into `sow` and `last`.
    #[inline(always)]
    pub fn index(side: usize, pit: usize, r: usize) -> usize {
        ((side << 4 | pit & 15) << 5 | r & 31) & (2 * SLOTS - 1)
    }
}

/// `SELECT8[byte][k]`: position of the `k`-th set bit of `byte` (8 where there is none).
static SELECT8: [[u8; 8]; 256] = {
    let mut t = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                t[b][k] = i as u8;
                k += 1;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// `POP8[byte]`: set bits in `byte` (a table, because baseline x86-64 has no POPCNT).
static POP8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).count_ones() as u8;
        b += 1;
    }
    t
};

/// Number of set bits of a move mask.
#[inline(always)]
pub fn count_bits(mask: u16) -> u32 {
    POP8[mask as u8 as usize] as u32 + POP8[(mask >> 8) as usize] as u32
}

/// Index of the `k`-th (0-based) set bit of `mask`. Precondition: `k < mask.count_ones()`.
#[inline(always)]
pub fn select_bit(mask: u16, k: u32) -> usize {
    let low = mask as u8;
    let in_low = POP8[low as usize] as u32;
    if k < in_low {
        SELECT8[low as usize][k as usize & 7] as usize
    } else {
        8 + SELECT8[(mask >> 8) as usize][(k - in_low) as usize & 7] as usize
    }
}
