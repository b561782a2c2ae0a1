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

/// Sowing tables for one board size.
pub(crate) struct SowTable {
    /// Pits per side.
    pub m: u8,
    /// Cycle length `2m + 1`: a full lap skips the opponent's store.
    pub lap_len: u8,
    /// One seed in every cell of the mover's cycle, per side.
    pub lap: [[u8; 32]; 2],
    /// `masks[(side * m + pit) * lap_len + r]`: the `r` cells after `pit` in the mover's cycle.
    pub masks: Vec<[u8; 32]>,
    /// Cell that receives the last seed, indexed like `masks`; for `r = 0` the start pit itself.
    pub last: Vec<u8>,
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
        let mut lap = [[0u8; 32]; 2];
        let mut masks = Vec::with_capacity(2 * mu * lap_len);
        let mut last = Vec::with_capacity(2 * mu * lap_len);
        for side in 0..2 {
            let cyc = cycle(side);
            for &c in &cyc {
                lap[side][c] = 1;
            }
            for pit in 0..mu {
                for r in 0..lap_len {
                    let mut mask = [0u8; 32];
                    for k in 1..=r {
                        mask[cyc[(pit + k) % lap_len]] = 1;
                    }
                    masks.push(mask);
                    last.push(cyc[(pit + r) % lap_len] as u8);
                }
            }
        }
        let mut opposite = [0u8; 32];
        for i in 0..mu {
            opposite[base(0) + i] = (base(1) + mu - 1 - i) as u8;
            opposite[base(1) + i] = (base(0) + mu - 1 - i) as u8;
        }
        SowTable { m, lap_len: lap_len as u8, lap, masks, last, opposite }
    }

    /// Index into `masks` and `last`.
    #[inline(always)]
    pub fn index(&self, side: usize, pit: usize, r: usize) -> usize {
        (side * self.m as usize + pit) * self.lap_len as usize + r
    }
}
