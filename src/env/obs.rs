//! The observation encoding: a position seen from one seat, as `2m + 4` floats.
//!
//! | entries | meaning |
//! | --- | --- |
//! | `0 .. m` | the viewer's pits 1..m (from the viewer's left) |
//! | `m .. 2m` | the opponent's pits 1..m, numbered from the opponent's left, so entry `m + j` (pit `j + 1`) faces the viewer's pit `m - j` |
//! | `2m` | the viewer's store |
//! | `2m + 1` | the opponent's store |
//! | `2m + 2` | `1.0` if the pie answer `swap` is legal now, else `0.0` |
//! | `2m + 3` | `1.0` while the pie answer is still to come (pie rule on and the opening player's first turn is still going), else `0.0` |
//!
//! Seed counts are divided by the seeds on the board at the start, `2mn`, so every count lies in
//! `[0, 1]` and the counts sum to 1. The two flags make the observation a complete state: two
//! positions with equal observations have the same legal moves and the same future.
//!
//! Actions are numbered the same way for every seat: action `p - 1` sows the mover's pit `p`, and
//! action `m` is the pie answer (see [`crate::rules::Move::action`]).

use crate::rules::{Phase, Position, Side};

/// Length of an observation for `pits` pits per side: `2 * pits + 4`.
pub const fn obs_dim(pits: usize) -> usize {
    2 * pits + 4
}

/// Bins of the one-hot seed counts of [`encode_onehot`]: counts `0..=2m` and one bin for more
/// (a pit that sows round past every other pit), `2m + 2`.
pub const fn count_bins(pits: usize) -> usize {
    2 * pits + 2
}

/// Bins of the one-hot seed counts of [`encode_onehot_wide`]: counts `0..=4m + 1` (a pit that
/// sows twice round the board) and one bin for more, `4m + 3`. For Kalah(6,4) every count a pit
/// holds in the endgame database (up to 18) has a bin of its own, 13 (a lap back to an empty pit)
/// apart from 14.
pub const fn wide_count_bins(pits: usize) -> usize {
    4 * pits + 3
}

/// Length of [`encode_onehot_wide`]'s output for `pits` pits per side.
pub const fn onehot_wide_dim(pits: usize) -> usize {
    obs_dim(pits) + 2 * pits * wide_count_bins(pits)
}

/// Length of [`encode_onehot`]'s output for `pits` pits per side: the observation, then each pit's
/// count one-hot, `obs_dim + 2m * count_bins`.
pub const fn onehot_dim(pits: usize) -> usize {
    obs_dim(pits) + 2 * pits * count_bins(pits)
}

/// Floats per action in [`encode_lookahead`]'s one-move lookahead.
pub const LOOKAHEAD_FEATURES: usize = 6;

/// Length of [`encode_lookahead`]'s output for `pits` pits per side: [`onehot_dim`] and
/// [`LOOKAHEAD_FEATURES`] per action.
pub const fn lookahead_dim(pits: usize) -> usize {
    onehot_dim(pits) + LOOKAHEAD_FEATURES * action_count(pits)
}

/// Number of actions for `pits` pits per side: one per pit plus the pie answer, `pits + 1`.
pub const fn action_count(pits: usize) -> usize {
    pits + 1
}

/// Writes `pos` as seen from the player to move into `out` (length [`obs_dim`]).
///
/// The straightforward encoder: the environment writes the same values with a faster kernel,
/// and a test checks they agree.
pub fn encode(pos: &Position, out: &mut [f32]) {
    encode_as(pos, pos.to_move(), out);
}

/// Writes `pos` as seen from `seat` into `out` (length [`obs_dim`]). The flags are those of the
/// position (the pie answer is only ever legal for the seat to move).
pub fn encode_as(pos: &Position, seat: Side, out: &mut [f32]) {
    let m = pos.rules().pits();
    assert_eq!(out.len(), obs_dim(m), "observation buffer length");
    let scale = 1.0 / pos.rules().total_seeds() as f32;
    let other = seat.other();
    for p in 1..=m {
        out[p - 1] = pos.pit(seat, p) as f32 * scale;
        out[m + p - 1] = pos.pit(other, p) as f32 * scale;
    }
    out[2 * m] = pos.store(seat) as f32 * scale;
    out[2 * m + 1] = pos.store(other) as f32 * scale;
    out[2 * m + 2] = pos.swap_allowed() as u8 as f32;
    out[2 * m + 3] = pie_to_come(pos) as u8 as f32;
}

/// Writes the observation of `pos` for the player to move (as [`encode`]) followed by each of the
/// `2m` pits' seed count one-hot in [`count_bins`] bins, in the observation's pit order, into `out`
/// (length [`onehot_dim`]). Where a sowing ends (the store, an empty pit, round the board) is a
/// step function of the exact count; one bin per count lets a network read it linearly.
pub fn encode_onehot(pos: &Position, out: &mut [f32]) {
    let m = pos.rules().pits();
    assert_eq!(out.len(), onehot_dim(m), "observation buffer length");
    encode_with_bins(pos, out, count_bins(m));
}

/// The observation followed by each pit's count one-hot in `nb` bins (the last one for more).
fn encode_with_bins(pos: &Position, out: &mut [f32], nb: usize) {
    let m = pos.rules().pits();
    let (base, bins) = out.split_at_mut(obs_dim(m));
    encode(pos, base);
    bins.fill(0.0);
    let me = pos.to_move();
    for (j, &c) in pos.row(me).iter().chain(pos.row(me.other())).enumerate() {
        bins[j * nb + (c as usize).min(nb - 1)] = 1.0;
    }
}

/// [`encode_onehot`] with [`wide_count_bins`] bins a pit (length [`onehot_wide_dim`]).
pub fn encode_onehot_wide(pos: &Position, out: &mut [f32]) {
    let m = pos.rules().pits();
    assert_eq!(out.len(), onehot_wide_dim(m), "observation buffer length");
    encode_with_bins(pos, out, wide_count_bins(m));
}

/// Writes [`encode_onehot`]'s floats followed by what each action does at once, in action order,
/// [`LOOKAHEAD_FEATURES`] floats each: legal (1/0), an extra turn, the game ends, the mover's
/// store gain, seeds captured, and the seeds that leave the mover's row for the opponent's, the
/// counts divided by `2mn` (all 0 for an illegal action). A network reads in one layer what the
/// rules core computes in a few nanoseconds: where each sowing ends.
pub fn encode_lookahead(pos: &Position, out: &mut [f32]) {
    let m = pos.rules().pits();
    assert_eq!(out.len(), lookahead_dim(m), "observation buffer length");
    let (head, moves) = out.split_at_mut(onehot_dim(m));
    encode_onehot(pos, head);
    moves.fill(0.0);
    let scale = 1.0 / pos.rules().total_seeds() as f32;
    let me = pos.to_move();
    let (store, mine) = (pos.store(me) as f32, pos.row_sum(me) as f32);
    for mv in pos.legal_moves().iter() {
        let f = &mut moves[mv.action(m) * LOOKAHEAD_FEATURES..][..LOOKAHEAD_FEATURES];
        f[0] = 1.0;
        if mv == crate::rules::Move::Swap {
            continue;
        }
        let Ok((next, o)) = pos.after(mv) else {
            continue;
        };
        f[1] = o.extra_turn as u8 as f32;
        f[2] = o.game_over as u8 as f32;
        f[3] = (next.store(me) as f32 - store) * scale;
        f[4] = o.captured as f32 * scale;
        if !o.game_over {
            let stays = next.row_sum(me) as f32 + next.store(me) as f32 - store;
            f[5] = (mine - stays).max(0.0) * scale;
        }
    }
}

/// Whether the pie answer is still to come: pie rule on, game not over, opening turn going on.
pub fn pie_to_come(pos: &Position) -> bool {
    pos.rules().pie && pos.phase == Phase::Opening && !pos.is_over()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Rules, Setup};

    #[test]
    fn layout_puts_the_mover_first_and_scales_by_the_seed_total() {
        let rules = Rules::kalah64();
        let pos: Position = "1,2,3,4,5,6,7/8,0,0,0,0,9,3 n"
            .parse::<Setup>()
            .unwrap()
            .position(&rules)
            .unwrap();
        let mut o = vec![0.0; obs_dim(6)];
        encode(&pos, &mut o);
        let seeds: Vec<u32> = o.iter().map(|x| (x * 48.0).round() as u32).collect();
        assert_eq!(seeds, [8, 0, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 3, 7, 0, 0]);
        encode_as(&pos, Side::South, &mut o);
        let seeds: Vec<u32> = o.iter().map(|x| (x * 48.0).round() as u32).collect();
        assert_eq!(seeds, [1, 2, 3, 4, 5, 6, 8, 0, 0, 0, 0, 9, 7, 3, 0, 0]);
        let total: f32 = o[..14].iter().sum();
        assert!((total - 1.0).abs() < 1e-6);
    }

    #[test]
    fn onehot_marks_one_bin_per_pit_and_caps_large_counts() {
        let rules = Rules::kalah64();
        let pos: Position = "1,2,3,0,5,16,7/8,0,0,0,0,3,3 n"
            .parse::<Setup>()
            .unwrap()
            .position(&rules)
            .unwrap();
        let mut o = vec![0.0; onehot_dim(6)];
        encode_onehot(&pos, &mut o);
        let mut base = vec![0.0; obs_dim(6)];
        encode(&pos, &mut base);
        assert_eq!(&o[..16], &base[..]);
        let bins = &o[16..];
        assert_eq!(bins.len(), 12 * 14);
        for (j, want) in [8, 0, 0, 0, 0, 3, 1, 2, 3, 0, 5, 13]
            .into_iter()
            .enumerate()
        {
            let row = &bins[j * 14..(j + 1) * 14];
            assert_eq!(row.iter().sum::<f32>(), 1.0);
            assert_eq!(row[want], 1.0, "pit {j}");
        }
    }

    #[test]
    fn wide_onehot_tells_thirteen_from_sixteen() {
        let rules = Rules::kalah64();
        let pos: Position = "0,0,0,0,2,16,7/8,0,0,0,0,13,2 n"
            .parse::<Setup>()
            .unwrap()
            .position(&rules)
            .unwrap();
        let mut o = vec![0.0; onehot_wide_dim(6)];
        encode_onehot_wide(&pos, &mut o);
        let mut narrow = vec![0.0; onehot_dim(6)];
        encode_onehot(&pos, &mut narrow);
        assert_eq!(&o[..16], &narrow[..16]);
        let nb = wide_count_bins(6);
        assert_eq!(nb, 27);
        let bins = &o[16..];
        // North to move: its own row first (8, 0, 0, 0, 0, 13), then South's.
        for (j, want) in [8, 0, 0, 0, 0, 13, 0, 0, 0, 0, 2, 16]
            .into_iter()
            .enumerate()
        {
            let row = &bins[j * nb..(j + 1) * nb];
            assert_eq!(row.iter().sum::<f32>(), 1.0);
            assert_eq!(row[want], 1.0, "pit {j}");
        }
    }

    #[test]
    fn lookahead_says_what_each_move_does() {
        let rules = Rules::kalah64();
        // South to move: pit 3 (4 seeds) ends in the store; pit 1 (1 seed) lands in the empty pit
        // 2 and captures the 4 seeds facing it.
        let pos: Position = "1,0,4,4,4,4,6/4,4,4,4,4,4,1 s"
            .parse::<Setup>()
            .unwrap()
            .position(&rules)
            .unwrap();
        let mut o = vec![0.0; lookahead_dim(6)];
        encode_lookahead(&pos, &mut o);
        let f = |a: usize| {
            let x = &o[onehot_dim(6) + a * LOOKAHEAD_FEATURES..][..LOOKAHEAD_FEATURES];
            x.iter()
                .map(|v| (v * 48.0).round() / 48.0)
                .collect::<Vec<f32>>()
        };
        assert_eq!(f(1), [0.0; 6], "pit 2 is empty");
        assert_eq!(f(2)[..3], [1.0, 1.0, 0.0], "pit 3 ends in the store");
        assert_eq!(f(2)[3], 1.0 / 48.0);
        assert_eq!(f(0)[..3], [1.0, 0.0, 0.0]);
        assert_eq!(f(0)[3], 5.0 / 48.0, "the capture goes to the store");
        assert_eq!(f(0)[4], 5.0 / 48.0);
        assert_eq!(f(6), [0.0; 6], "no pie answer without the pie rule");
    }

    #[test]
    fn pie_flags_follow_the_opening() {
        let rules = Rules::kalah64().with_pie(true);
        let mut pos = Position::start(&rules);
        let mut o = vec![0.0; obs_dim(6)];
        let flags = |pos: &Position, o: &mut Vec<f32>| {
            encode(pos, o);
            (o[14], o[15])
        };
        assert_eq!(flags(&pos, &mut o), (0.0, 1.0));
        pos.play(Move::Pit(3)).unwrap(); // extra turn: still the opening
        assert_eq!(flags(&pos, &mut o), (0.0, 1.0));
        pos.play(Move::Pit(1)).unwrap();
        assert_eq!(flags(&pos, &mut o), (1.0, 0.0));
        pos.play(Move::Swap).unwrap();
        assert_eq!(flags(&pos, &mut o), (0.0, 0.0));
        assert_eq!(
            flags(&Position::start(&Rules::kalah64()), &mut o),
            (0.0, 0.0)
        );
    }
}
