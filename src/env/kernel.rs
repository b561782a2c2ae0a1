//! The step kernel: one move in every game of a chunk, writing that chunk's outputs in place.
//!
//! The kernel is compiled once per board size (`M` pits, a const generic) so the observation and
//! mask rows have constant lengths and every per-game loop unrolls. Games are independent, so a
//! chunk is a plain loop and chunks run in parallel with `rayon::join`; nothing here allocates.

use crate::rules::{Move, Phase, Position, Rules, Side, count_bits, select_bit};

use super::rng::GameRng;

/// What every game of one environment shares.
#[derive(Clone, Copy)]
pub(crate) struct Ctx {
    /// The rules, copied into each position while it is played.
    pub rules: Rules,
    /// The start position a finished game is reset to.
    pub start: Position,
    /// `1 / 2mn`: scales seed counts in observations.
    pub scale: f32,
    /// Whether the pie rule is on.
    pub pie: bool,
}

/// Mutable views of a run of consecutive games: their state and their output rows.
pub(crate) struct Chunk<'a> {
    /// Index of the chunk's first game.
    pub start: usize,
    pub cells: &'a mut [[u8; 32]],
    pub seat: &'a mut [Side],
    pub phase: &'a mut [Phase],
    pub swapped: &'a mut [bool],
    pub legal: &'a mut [u16],
    pub len: &'a mut [u32],
    pub rng: &'a mut [GameRng],
    pub obs: &'a mut [f32],
    pub mask: &'a mut [bool],
    pub to_play: &'a mut [u8],
    pub reward: &'a mut [f32],
    pub done: &'a mut [bool],
    pub final_obs: &'a mut [f32],
    pub final_score: &'a mut [u8],
    pub final_len: &'a mut [u32],
}

impl<'a> Chunk<'a> {
    /// Number of games.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Splits after `mid` games; `dim` and `actions` are the row lengths of observations and masks.
    pub fn split_at(self, mid: usize, dim: usize, actions: usize) -> (Chunk<'a>, Chunk<'a>) {
        let (cells, cells2) = self.cells.split_at_mut(mid);
        let (seat, seat2) = self.seat.split_at_mut(mid);
        let (phase, phase2) = self.phase.split_at_mut(mid);
        let (swapped, swapped2) = self.swapped.split_at_mut(mid);
        let (legal, legal2) = self.legal.split_at_mut(mid);
        let (len, len2) = self.len.split_at_mut(mid);
        let (rng, rng2) = self.rng.split_at_mut(mid);
        let (obs, obs2) = self.obs.split_at_mut(mid * dim);
        let (mask, mask2) = self.mask.split_at_mut(mid * actions);
        let (to_play, to_play2) = self.to_play.split_at_mut(mid);
        let (reward, reward2) = self.reward.split_at_mut(mid);
        let (done, done2) = self.done.split_at_mut(mid);
        let (final_obs, final_obs2) = self.final_obs.split_at_mut(mid * dim);
        let (final_score, final_score2) = self.final_score.split_at_mut(mid * 2);
        let (final_len, final_len2) = self.final_len.split_at_mut(mid);
        (
            Chunk {
                start: self.start,
                cells,
                seat,
                phase,
                swapped,
                legal,
                len,
                rng,
                obs,
                mask,
                to_play,
                reward,
                done,
                final_obs,
                final_score,
                final_len,
            },
            Chunk {
                start: self.start + mid,
                cells: cells2,
                seat: seat2,
                phase: phase2,
                swapped: swapped2,
                legal: legal2,
                len: len2,
                rng: rng2,
                obs: obs2,
                mask: mask2,
                to_play: to_play2,
                reward: reward2,
                done: done2,
                final_obs: final_obs2,
                final_score: final_score2,
                final_len: final_len2,
            },
        )
    }
}

/// Runs `f` on pieces of `chunk` of at most `grain` games, in parallel on the current rayon pool.
pub(crate) fn for_each_piece<F>(chunk: Chunk<'_>, grain: usize, dim: usize, actions: usize, f: &F)
where
    F: Fn(Chunk<'_>) + Sync,
{
    let n = chunk.len();
    if n <= grain {
        f(chunk);
    } else {
        let (a, b) = chunk.split_at(n / 2, dim, actions);
        rayon::join(
            || for_each_piece(a, grain, dim, actions, f),
            || for_each_piece(b, grain, dim, actions, f),
        );
    }
}

/// Where each game's action comes from in a step.
pub(crate) trait Choose: Sync {
    /// Whether [`Choose::choose`] may answer [`SKIP`] (the kernel tests for it only then).
    const SKIPS: bool = false;
    /// The action of game `game`, whose legal actions are the bits of `legal`, or [`SKIP`].
    fn choose(&self, game: usize, legal: u16, rng: &mut GameRng) -> usize;
}

/// The "action" of a game the step leaves as it is: no move, reward 0, not done, its outputs
/// those it had (a next-step auto-reset's step for a game that ended in the step before, which
/// the kernel reset then).
pub(crate) const SKIP: usize = usize::MAX;

/// Actions given by the caller, already checked to be legal, except in the games marked to be
/// skipped.
pub(crate) struct GivenOrSkip<'a> {
    pub actions: &'a [u32],
    pub skip: &'a [bool],
}

impl Choose for GivenOrSkip<'_> {
    const SKIPS: bool = true;

    #[inline(always)]
    fn choose(&self, game: usize, _legal: u16, _rng: &mut GameRng) -> usize {
        if self.skip[game] {
            SKIP
        } else {
            self.actions[game] as usize
        }
    }
}

/// Actions given by the caller, already checked to be legal.
pub(crate) struct Given<'a>(pub &'a [u32]);

impl Choose for Given<'_> {
    #[inline(always)]
    fn choose(&self, game: usize, _legal: u16, _rng: &mut GameRng) -> usize {
        self.0[game] as usize
    }
}

/// A uniformly random legal action from the game's own stream.
pub(crate) struct Uniform;

impl Choose for Uniform {
    #[inline(always)]
    fn choose(&self, _game: usize, legal: u16, rng: &mut GameRng) -> usize {
        random_legal(legal, rng)
    }
}

/// A uniformly random set bit of `legal` (which must not be 0), drawn from `rng`.
#[inline(always)]
pub fn random_legal(legal: u16, rng: &mut GameRng) -> usize {
    select_bit(legal, rng.below(count_bits(legal)))
}

/// Bit `i` set when the seat's pit `i + 1` holds seeds (pits `0..M`).
#[inline(always)]
fn nonempty<const M: usize>(half: &[u8; 16]) -> u16 {
    #[cfg(target_arch = "x86_64")]
    let bits = {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128,
        };
        // SAFETY: reads the 16 bytes behind a valid `&[u8; 16]`; SSE2 is part of x86-64.
        unsafe {
            let v = _mm_loadu_si128(half.as_ptr().cast());
            !(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) as u16)
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let bits = half
        .iter()
        .enumerate()
        .fold(0u16, |b, (i, &c)| b | ((c != 0) as u16) << i);
    bits & ((1u16 << M) - 1)
}

/// The half of `cells` (pits and store) that belongs to `seat`.
#[inline(always)]
fn half(cells: &[u8; 32], seat: usize) -> &[u8; 16] {
    cells[seat * 16..seat * 16 + 16]
        .try_into()
        .expect("16 bytes")
}

/// Writes the observation of `cells` seen from `seat` (layout in the `obs` module).
#[inline(always)]
fn write_obs<const M: usize>(
    row: &mut [f32],
    cells: &[u8; 32],
    seat: usize,
    flags: [bool; 2],
    scale: f32,
) {
    let own = half(cells, seat).map(|c| c as f32 * scale);
    let opp = half(cells, seat ^ 1).map(|c| c as f32 * scale);
    let row = &mut row[..2 * M + 4];
    row[..M].copy_from_slice(&own[..M]);
    row[M..2 * M].copy_from_slice(&opp[..M]);
    row[2 * M] = own[15];
    row[2 * M + 1] = opp[15];
    row[2 * M + 2] = flags[0] as u8 as f32;
    row[2 * M + 3] = flags[1] as u8 as f32;
}

/// `BITS8[b][i]`: bit `i` of byte `b`, for writing masks eight entries at a time.
static BITS8: [[bool; 8]; 256] = {
    let mut t = [[false; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b][i] = b & (1 << i) != 0;
            i += 1;
        }
        b += 1;
    }
    t
};

/// Legal actions (bit `a` for action `a`) and observation flags of a game that is not over.
#[inline(always)]
fn legal_and_flags<const M: usize>(ctx: &Ctx, pos: &Position) -> (u16, [bool; 2]) {
    let pits = nonempty::<M>(half(&pos.cells, pos.to_move.index()));
    let swap_now = ctx.pie && pos.phase == Phase::PieAnswer;
    let pie_later = ctx.pie && pos.phase == Phase::Opening;
    (pits | (swap_now as u16) << M, [swap_now, pie_later])
}

/// Writes the outputs of a game that is not over: legal bits, observation, mask and player.
#[inline(always)]
fn write_outputs<const M: usize, const WIDE: bool>(
    ctx: &Ctx,
    pos: &Position,
    swapped: bool,
    legal: &mut u16,
    obs: &mut [f32],
    mask: &mut [bool],
    to_play: &mut u8,
) {
    let (bits, flags) = legal_and_flags::<M>(ctx, pos);
    *legal = bits;
    let seat = pos.to_move.index();
    #[cfg(target_arch = "x86_64")]
    if WIDE && M <= 6 {
        // SAFETY: `WIDE` kernels run only on CPUs with AVX2 (see `avx2::detected`).
        unsafe { avx2::write_obs::<M>(obs, &pos.cells, seat, flags, ctx.scale) };
    } else {
        write_obs::<M>(obs, &pos.cells, seat, flags, ctx.scale);
    }
    #[cfg(not(target_arch = "x86_64"))]
    write_obs::<M>(obs, &pos.cells, seat, flags, ctx.scale);
    let mask = &mut mask[..M + 1];
    let low = &BITS8[bits as u8 as usize];
    if M < 8 {
        mask.copy_from_slice(&low[..M + 1]);
    } else {
        mask[..8].copy_from_slice(low);
        mask[8..].copy_from_slice(&BITS8[(bits >> 8) as usize][..M - 7]);
    }
    *to_play = seat as u8 ^ swapped as u8;
}

/// Records a game that just ended: final observation (from the last mover's seat) and scores
/// by player. Returns the last mover's reward.
#[cold]
#[inline(never)]
fn finish<const M: usize>(
    ctx: &Ctx,
    pos: &Position,
    mover: Side,
    swapped: bool,
    final_obs: &mut [f32],
    final_score: &mut [u8],
) -> f32 {
    let score = pos.score();
    let (mine, theirs) = (score[mover.index()], score[mover.other().index()]);
    let player = mover.index() ^ swapped as usize;
    final_score[player] = mine as u8;
    final_score[player ^ 1] = theirs as u8;
    write_obs::<M>(
        final_obs,
        &pos.cells,
        mover.index(),
        [false, false],
        ctx.scale,
    );
    (mine > theirs) as u8 as f32 - (mine < theirs) as u8 as f32
}

/// Plays one action in every game of `c` (actions from `choose`, which must give legal ones),
/// resets finished games and writes every output row of the chunk.
#[inline(always)]
fn step_chunk<const M: usize, const WIDE: bool, C: Choose>(ctx: &Ctx, c: Chunk<'_>, choose: &C) {
    let n = c.len();
    let (dim, na) = (2 * M + 4, M + 1);
    assert!(
        c.seat.len() == n
            && c.phase.len() == n
            && c.swapped.len() == n
            && c.legal.len() == n
            && c.len.len() == n
            && c.rng.len() == n
            && c.to_play.len() == n
            && c.reward.len() == n
            && c.done.len() == n
            && c.final_len.len() == n
            && c.final_score.len() == 2 * n
            && c.obs.len() == n * dim
            && c.final_obs.len() == n * dim
            && c.mask.len() == n * na
    );
    let rows = c
        .obs
        .chunks_exact_mut(dim)
        .zip(c.final_obs.chunks_exact_mut(dim));
    let rows = rows
        .zip(c.mask.chunks_exact_mut(na))
        .zip(c.final_score.chunks_exact_mut(2));
    for (j, (((obs, final_obs), mask), final_score)) in rows.enumerate() {
        let mut pos = Position {
            cells: c.cells[j],
            to_move: c.seat[j],
            phase: c.phase[j],
            rules: ctx.rules,
        };
        let mut swapped = c.swapped[j];
        let mover = pos.to_move;
        let action = choose.choose(c.start + j, c.legal[j], &mut c.rng[j]);
        if C::SKIPS && action == SKIP {
            c.reward[j] = 0.0;
            c.done[j] = false;
            continue;
        }
        let len = c.len[j] + 1;
        let over = if action == M {
            let out = pos.play(Move::Swap);
            debug_assert!(out.is_ok(), "swap was checked to be legal");
            swapped = !swapped;
            false
        } else {
            pos.play_index_unchecked(action).game_over
        };
        let mut reward = 0.0;
        c.len[j] = len;
        if over {
            reward = finish::<M>(ctx, &pos, mover, swapped, final_obs, final_score);
            c.final_len[j] = len;
            pos = ctx.start;
            swapped = false;
            c.len[j] = 0;
        }
        c.reward[j] = reward;
        c.done[j] = over;
        c.cells[j] = pos.cells;
        c.seat[j] = pos.to_move;
        c.phase[j] = pos.phase;
        c.swapped[j] = swapped;
        write_outputs::<M, WIDE>(
            ctx,
            &pos,
            swapped,
            &mut c.legal[j],
            obs,
            mask,
            &mut c.to_play[j],
        );
    }
}

/// Rewrites the legal bits, observation, mask and player of the games of `c` from their state:
/// every game, or those `which` marks (indexed from the chunk's first game).
fn refresh_chunk<const M: usize>(ctx: &Ctx, c: Chunk<'_>, which: Option<&[bool]>) {
    let (dim, na) = (2 * M + 4, M + 1);
    let rows = c.obs.chunks_exact_mut(dim).zip(c.mask.chunks_exact_mut(na));
    for (j, (obs, mask)) in rows.enumerate() {
        if which.is_some_and(|w| !w[j]) {
            continue;
        }
        let pos = Position {
            cells: c.cells[j],
            to_move: c.seat[j],
            phase: c.phase[j],
            rules: ctx.rules,
        };
        write_outputs::<M, false>(
            ctx,
            &pos,
            c.swapped[j],
            &mut c.legal[j],
            obs,
            mask,
            &mut c.to_play[j],
        );
    }
}

/// Calls `$f::<M>($args)` with the board size `$m` (1 to 15) as a constant.
macro_rules! with_pits {
    ($m:expr, $f:ident $(::<$($g:ty),*>)?, $($arg:expr),*) => {
        match $m {
            1 => $f::<1 $($(, $g)*)?>($($arg),*),
            2 => $f::<2 $($(, $g)*)?>($($arg),*),
            3 => $f::<3 $($(, $g)*)?>($($arg),*),
            4 => $f::<4 $($(, $g)*)?>($($arg),*),
            5 => $f::<5 $($(, $g)*)?>($($arg),*),
            6 => $f::<6 $($(, $g)*)?>($($arg),*),
            7 => $f::<7 $($(, $g)*)?>($($arg),*),
            8 => $f::<8 $($(, $g)*)?>($($arg),*),
            9 => $f::<9 $($(, $g)*)?>($($arg),*),
            10 => $f::<10 $($(, $g)*)?>($($arg),*),
            11 => $f::<11 $($(, $g)*)?>($($arg),*),
            12 => $f::<12 $($(, $g)*)?>($($arg),*),
            13 => $f::<13 $($(, $g)*)?>($($arg),*),
            14 => $f::<14 $($(, $g)*)?>($($arg),*),
            15 => $f::<15 $($(, $g)*)?>($($arg),*),
            m => unreachable!("the rules allow 1 to 15 pits, got {m}"),
        }
    };
}

/// Steps every game of `c` with actions from `choose`, in parallel pieces of `grain` games.
pub(crate) fn step<C: Choose>(ctx: &Ctx, c: Chunk<'_>, grain: usize, choose: &C) {
    fn run<const M: usize, C: Choose>(ctx: &Ctx, c: Chunk<'_>, grain: usize, choose: &C) {
        #[cfg(target_arch = "x86_64")]
        if avx2::detected() {
            for_each_piece(c, grain, 2 * M + 4, M + 1, &|piece| {
                // SAFETY: the CPU has the features `step_chunk` was compiled for.
                unsafe { avx2::step_chunk::<M, C>(ctx, piece, choose) }
            });
            return;
        }
        for_each_piece(c, grain, 2 * M + 4, M + 1, &|piece| {
            step_chunk::<M, false, C>(ctx, piece, choose)
        });
    }
    with_pits!(ctx.rules.pits(), run::<C>, ctx, c, grain, choose)
}

/// Rewrites every game's legal bits, observation, mask and player from its state (only those
/// `which` marks, if given).
pub(crate) fn refresh(ctx: &Ctx, c: Chunk<'_>, which: Option<&[bool]>) {
    with_pits!(ctx.rules.pits(), refresh_chunk, ctx, c, which)
}

/// The kernel compiled for AVX2-era x86-64 CPUs, chosen at run time: 32-byte board adds in one
/// instruction, wide byte-to-float conversion, hardware popcount.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{Choose, Chunk, Ctx};

    /// Whether this CPU has every feature [`step_chunk`] is compiled for (cached by std).
    #[inline]
    pub fn detected() -> bool {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
    }

    /// [`super::step_chunk`] with AVX2, BMI1/2, POPCNT and LZCNT enabled.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    pub fn step_chunk<const M: usize, C: Choose>(ctx: &Ctx, c: Chunk<'_>, choose: &C) {
        super::step_chunk::<M, true, C>(ctx, c, choose)
    }

    /// Byte-shuffle controls that gather an observation's seed counts from the two halves of
    /// the board: lanes `0..M` and `2M` from the viewer's half, lanes `M..2M` and `2M + 1` from
    /// the opponent's (`-1` zeroes a lane).
    const fn gather<const M: usize>(own: bool) -> [i8; 16] {
        let mut c = [-1i8; 16];
        if 2 * M + 4 > 16 {
            return c; // never used: wider boards take the portable path
        }
        let mut j = 0;
        while j < M {
            c[if own { j } else { M + j }] = j as i8;
            j += 1;
        }
        c[if own { 2 * M } else { 2 * M + 1 }] = 15;
        c
    }

    /// [`super::write_obs`] for boards of at most 6 pits, where the whole observation fits 16
    /// lanes: two byte shuffles, two widening conversions, one multiply per 8 lanes.
    ///
    /// # Safety
    /// The CPU must have AVX2, and `M <= 6`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub unsafe fn write_obs<const M: usize>(
        row: &mut [f32],
        cells: &[u8; 32],
        seat: usize,
        flags: [bool; 2],
        scale: f32,
    ) {
        debug_assert!(M <= 6);
        let own_c: [i8; 16] = const { gather::<M>(true) };
        let opp_c: [i8; 16] = const { gather::<M>(false) };
        // Scale for seed lanes, 1 for the two flag lanes.
        let mut scales = [scale; 16];
        scales[(2 * M + 2) & 15] = 1.0;
        scales[(2 * M + 3) & 15] = 1.0;
        let flag_bits = (flags[0] as u128 | (flags[1] as u128) << 8) << ((8 * (2 * M + 2)) & 127);
        let mut out = [0f32; 16];
        // SAFETY: every load and store is of a local array or a reference of the right size.
        unsafe {
            let own = _mm_loadu_si128(cells.as_ptr().add((seat & 1) * 16).cast());
            let opp = _mm_loadu_si128(cells.as_ptr().add((seat & 1 ^ 1) * 16).cast());
            let own_c = _mm_loadu_si128(own_c.as_ptr().cast());
            let opp_c = _mm_loadu_si128(opp_c.as_ptr().cast());
            let flag_v = _mm_loadu_si128((&flag_bits as *const u128).cast());
            let bytes = _mm_or_si128(
                _mm_or_si128(_mm_shuffle_epi8(own, own_c), _mm_shuffle_epi8(opp, opp_c)),
                flag_v,
            );
            let lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
            let hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128::<8>(bytes)));
            let lo = _mm256_mul_ps(lo, _mm256_loadu_ps(scales.as_ptr()));
            let hi = _mm256_mul_ps(hi, _mm256_loadu_ps(scales.as_ptr().add(8)));
            _mm256_storeu_ps(out.as_mut_ptr(), lo);
            _mm256_storeu_ps(out.as_mut_ptr().add(8), hi);
        }
        let dim = (2 * M + 4).min(16);
        row[..dim].copy_from_slice(&out[..dim]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::obs::{encode, obs_dim, pie_to_come};

    /// Positions along random games of Kalah(M, 4) with the pie rule.
    fn positions<const M: usize>() -> Vec<Position> {
        let rules = Rules::new(M as u32, 4).unwrap().with_pie(true);
        let mut rng = GameRng::for_game(5, M);
        let mut out = Vec::new();
        for _ in 0..40 {
            let mut pos = Position::start(&rules);
            while !pos.is_over() {
                out.push(pos);
                let legal = pos.legal_moves();
                let bits = legal.pits | (legal.swap as u16) << M;
                let a = random_legal(bits, &mut rng);
                pos.play(Move::from_action(a, M)).unwrap();
            }
            out.push(pos);
        }
        out
    }

    /// Every observation writer and the legal-move bits agree with the reference encoder.
    fn writers_agree<const M: usize>() {
        let ctx_rules = Rules::new(M as u32, 4).unwrap().with_pie(true);
        let scale = 1.0 / ctx_rules.total_seeds() as f32;
        let ctx = Ctx {
            rules: ctx_rules,
            start: Position::start(&ctx_rules),
            scale,
            pie: true,
        };
        for pos in positions::<M>() {
            let mut want = vec![0.0; obs_dim(M)];
            encode(&pos, &mut want);
            let seat = pos.to_move().index();
            let flags = [pos.swap_allowed(), pie_to_come(&pos)];
            let mut got = vec![0.0; obs_dim(M)];
            write_obs::<M>(&mut got, &pos.cells, seat, flags, scale);
            assert_eq!(got, want, "portable writer, {pos}");
            #[cfg(target_arch = "x86_64")]
            if M <= 6 && avx2::detected() {
                got.fill(-1.0);
                // SAFETY: AVX2 was detected and M <= 6.
                unsafe { avx2::write_obs::<M>(&mut got, &pos.cells, seat, flags, scale) };
                assert_eq!(got, want, "AVX2 writer, {pos}");
            }
            if !pos.is_over() {
                let legal = pos.legal_moves();
                let (bits, _) = legal_and_flags::<M>(&ctx, &pos);
                assert_eq!(bits, legal.pits | (legal.swap as u16) << M, "{pos}");
            }
        }
    }

    #[test]
    fn observation_writers_and_legal_bits_agree_with_the_reference_on_every_board_size() {
        writers_agree::<1>();
        writers_agree::<2>();
        writers_agree::<3>();
        writers_agree::<4>();
        writers_agree::<5>();
        writers_agree::<6>();
        writers_agree::<7>();
        writers_agree::<12>();
        writers_agree::<15>();
    }
}
