//! The crate's one seeded random stream: SplitMix64, seeded from a `(seed, index)` pair.
//!
//! Every layer draws from it: the environment, the search, the bots (`Bot::choose` takes a
//! `&mut GameRng`), matches, evaluation and openings, play and the server, training (self-play,
//! labelled positions, batches), the benchmarks (`bench`, a layer below this one, is handed a
//! stream), the Python bindings and the tests.
//!
//! [`stream`]`(seed, i)` is the `i`-th stream of `seed`: the environment's game `i`, a search's
//! root `i`, a match's game `i`. Each stream depends only on the seed and its own index, never on
//! how work is split between threads, and streams of different indices (or seeds) are unrelated.
//! [`derive()`]`(seed, i)` is the first output of that stream, for callers that need a `u64` seed
//! (to seed another generator, or to derive again one level down).
//!
//! Pinned exceptions, which still draw from `rand::rngs::SmallRng` because they redraw committed
//! or cached data that must come out exactly as it was drawn: the held-out sets
//! (`eval::heldout`, seeded by [`pinned_heldout_seed`], checked by their checksums) and the judge
//! sets (`eval::judge::draw`, the committed sets in `checkpoints/judge`, whose draw the judge-like
//! held-out set shares). The bots' moves in those draws come from `Greedy::pick` and
//! `Minimax::pick`, generic over the generator, so they draw exactly what they drew before.
//!
//! The algorithm is fixed here, unlike `rand::rngs::SmallRng` (whose algorithm, and whose
//! `seed_from_u64`, may change between releases of `rand`), so a seed gives the same draws on every
//! version of this crate; the tests pin the first outputs. [`GameRng`] implements `rand`'s
//! [`TryRng`](rand::TryRng) (hence `Rng`), so `rand`'s distributions and `random_range` work on it.
//!
//! Derivation, fixed: with `GAMMA = 0x9E37_79B9_7F4A_7C15` and `mix64` SplitMix64's output
//! function, stream `(seed, i)` starts from state `mix64(seed ^ mix64(i + GAMMA))`, and each output
//! adds `GAMMA` to the state and returns `mix64(state)`.

use std::convert::Infallible;

/// Adds the golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function (a strong 64-bit mixer).
#[inline(always)]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream `i` of `seed` (see the module's documentation for the exact, stable derivation).
#[inline]
pub fn stream(seed: u64, i: u64) -> GameRng {
    GameRng(mix64(seed ^ mix64(i.wrapping_add(GAMMA))))
}

/// A `u64` seed derived from `(seed, i)`: the first output of [`stream`]`(seed, i)`. Stable across
/// versions like the stream itself; use it where a caller needs a seed rather than a generator.
#[inline]
pub fn derive(seed: u64, i: u64) -> u64 {
    stream(seed, i).next_u64()
}

/// The seed of chunk `chunk` of a held-out set of kind seed `kind_seed`: `kind_seed ^ chunk << 20`,
/// given to `SmallRng::seed_from_u64`. Pinned, not [`derive()`]: the cached 100,000-position
/// held-out sets (`eval::heldout`, files `heldout-*-100000-db*.bin`, named in records and
/// checkpoints' meta by their checksums, e.g. `2e799e3c20792358` and `6f886c59c1486491` for the
/// children's game) were drawn with it, and must be drawn again exactly.
#[inline]
pub fn pinned_heldout_seed(kind_seed: u64, chunk: u64) -> u64 {
    kind_seed ^ chunk << 20
}

/// One random stream (SplitMix64), made by [`stream`]. Cheap to copy; 8 bytes of state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRng(u64);

impl GameRng {
    /// The stream's whole state (8 bytes), for saving it: [`GameRng::from_state`] gives it back.
    pub fn state(&self) -> u64 {
        self.0
    }

    /// The stream whose state is `state` (as [`GameRng::state`] read it).
    pub fn from_state(state: u64) -> GameRng {
        GameRng(state)
    }

    /// The stream of game `game` under environment seed `seed`: [`stream`]`(seed, game)`.
    pub fn for_game(seed: u64, game: usize) -> GameRng {
        stream(seed, game as u64)
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

impl rand::TryRng for GameRng {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(GameRng::next_u32(self))
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(GameRng::next_u64(self))
    }

    /// Little-endian bytes of successive [`GameRng::next_u64`] outputs (the last one cut short).
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        rand::rand_core::utils::fill_bytes_via_next_word(dst, || Ok(GameRng::next_u64(self)))
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, RngExt};

    use super::*;

    #[test]
    fn a_stream_is_rebuilt_from_its_state() {
        let mut r = stream(7, 3);
        r.next_u64();
        let mut back = GameRng::from_state(r.state());
        assert_eq!(back, r);
        assert!((0..100).all(|_| back.next_u64() == r.next_u64()));
    }

    /// The reference SplitMix64 (Vigna's `splitmix64.c`) from state 0: the generator is that one.
    #[test]
    fn the_generator_is_splitmix64() {
        let mut r = GameRng(0);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            first,
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
    }

    /// Pins the derivation: these outputs may never change (the environment's games and every
    /// seeded draw of the crate depend on them).
    #[test]
    fn streams_and_derived_seeds_are_pinned() {
        let outputs = |seed, i| {
            let mut r = stream(seed, i);
            [r.next_u64(), r.next_u64(), r.next_u64()]
        };
        assert_eq!(outputs(0, 0), GOLDEN[0]);
        assert_eq!(outputs(1, 0), GOLDEN[1]);
        assert_eq!(outputs(1, 7), GOLDEN[2]);
        assert_eq!(outputs(0xDEAD_BEEF, 1 << 40), GOLDEN[3]);
        assert_eq!(derive(1, 7), GOLDEN[2][0]);
        assert_eq!(GameRng::for_game(1, 7), stream(1, 7));
        assert_eq!(pinned_heldout_seed(0x4E1D_0001, 3), 0x4E1D_0001 ^ 3 << 20);
    }

    /// Computed apart from this code (a Python transcription of the derivation).
    const GOLDEN: [[u64; 3]; 4] = [
        [
            0x568A_9B0B_1A2C_05EC,
            0x44E5_B8B1_47EF_718B,
            0x4585_63AB_5552_1133,
        ],
        [
            0x85C6_1A30_0EC7_0FA1,
            0x4952_C2A6_E1EF_0B78,
            0xF30F_1E31_8359_884B,
        ],
        [
            0x57C3_24C9_6EEA_3787,
            0x45A3_C0CE_45DA_CD67,
            0x1123_2915_1D0E_AE7A,
        ],
        [
            0x49EB_5B0D_3CB3_1DF9,
            0xC853_781E_D07D_3E15,
            0xEEDD_D2DF_F639_84E7,
        ],
    ];

    /// The `rand` traits draw from the same outputs: 32-bit draws are the high halves, bytes are
    /// little-endian words, and `random_range` works on the stream.
    #[test]
    fn rand_traits_use_the_same_outputs() {
        let mut a = stream(5, 2);
        let mut b = a;
        assert_eq!(Rng::next_u64(&mut a), b.next_u64());
        assert_eq!(Rng::next_u32(&mut a), b.next_u32());
        let mut bytes = [0u8; 12];
        a.fill_bytes(&mut bytes);
        let w0 = b.next_u64().to_le_bytes();
        let w1 = b.next_u64().to_le_bytes();
        assert_eq!(bytes[..8], w0);
        assert_eq!(bytes[8..], w1[..4]);
        let x = a.random_range(10..20u32);
        assert!((10..20).contains(&x));
    }

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
