//! Per-game random streams: SplitMix64, seeded from (environment seed, game index).
//!
//! Each game owns one 8-byte stream, so a game's trajectory depends only on the seed and its own
//! index, never on how games are split between threads. The algorithm is fixed here (unlike
//! `rand::rngs::SmallRng`, whose algorithm may change between releases), so a seed gives the same
//! games on every version of this crate.

/// Adds the golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function (a strong 64-bit mixer).
#[inline(always)]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One game's random stream (SplitMix64). Cheap to copy; 8 bytes of state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRng(u64);

impl GameRng {
    /// The stream of game `game` under environment seed `seed`.
    pub fn for_game(seed: u64, game: usize) -> GameRng {
        GameRng(mix64(seed ^ mix64((game as u64).wrapping_add(GAMMA))))
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix64(self.0)
    }

    /// The next 32 random bits (the high half of [`GameRng::next_u64`]).
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A uniform float in `[0, 1)` with 24 random bits.
    #[inline(always)]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A uniform integer in `0..n` (multiply-shift; the bias is below `n / 2^32`). `n` must be
    /// at least 1.
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next_u32() as u64 * n as u64) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_game_and_seed_and_repeat_exactly() {
        let a: Vec<u64> = (0..4).map(|_| GameRng::for_game(1, 0).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let firsts: std::collections::HashSet<u64> = (0..1000)
            .flat_map(|g| {
                [
                    GameRng::for_game(1, g).next_u64(),
                    GameRng::for_game(2, g).next_u64(),
                ]
            })
            .collect();
        assert_eq!(firsts.len(), 2000);
    }

    #[test]
    fn below_and_next_f32_stay_in_range_and_cover_it() {
        let mut r = GameRng::for_game(9, 3);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[r.below(7) as usize] += 1;
            let f = r.next_f32();
            assert!((0.0..1.0).contains(&f));
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
    }
}
