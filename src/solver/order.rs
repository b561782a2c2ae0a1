//! Move generation and ordering: every move of a position played out, with what it banked, sorted
//! so that the moves most likely to be best are searched first.

use super::key::PieState;
use crate::rules::{Move, Position};

/// The move field for the pie answer (the table's "none" too: pit indexes take 0..15).
pub(crate) const SWAP: u8 = super::table::NO_MOVE;

/// A move of a position, played.
#[derive(Clone, Copy)]
pub(crate) struct Child {
    /// The position after the move.
    pub pos: Position,
    /// Its pie state.
    pub pie: PieState,
    /// What the move adds to the mover's gain at once: the seeds it banked (sown into the store
    /// or captured); for the pie answer, twice the store difference the swapper takes over.
    pub delta: i32,
    /// Seeds on the board after the move.
    pub seeds: i32,
    /// The mover moves again (an extra turn); otherwise the opponent moves next.
    pub same: bool,
    /// The game is over after the move.
    pub over: bool,
    /// Pit index 0..m, or [`SWAP`].
    pub mv: u8,
    /// Ordering score: higher is searched first.
    pub score: i32,
    /// The database rank of the position after the move, or its scrambled table key (filled in
    /// by the search).
    pub key: u64,
    /// Bounds on the mover's gain through this move (filled in by the search).
    pub lo: i32,
    /// See `lo`.
    pub hi: i32,
}

impl Child {
    /// The move as the rules name it.
    pub fn to_move(self) -> Move {
        if self.mv == SWAP {
            Move::Swap
        } else {
            Move::Pit(self.mv + 1)
        }
    }

    /// The window on the gain of the position after this move, for its mover, that matches the
    /// window `(alpha, beta)` on the mover's gain through the move (bounds map the same way).
    #[inline(always)]
    pub fn window(&self, (alpha, beta): (i32, i32)) -> (i32, i32) {
        if self.same {
            (alpha - self.delta, beta - self.delta)
        } else {
            (self.delta - beta, self.delta - alpha)
        }
    }

    /// Bounds on the mover's gain through this move, given bounds `lo..=hi` on the gain of the
    /// position after it for its mover.
    #[inline(always)]
    pub fn through_bounds(&self, (lo, hi): (i32, i32)) -> (i32, i32) {
        if self.same {
            (self.delta + lo, self.delta + hi)
        } else {
            (self.delta - hi, self.delta - lo)
        }
    }

    /// The mover's gain through this move, given the gain of the position after it for its mover.
    #[inline(always)]
    pub fn through(&self, child_gain: i32) -> i32 {
        if self.same {
            self.delta + child_gain
        } else {
            self.delta - child_gain
        }
    }
}

/// The pie state after a sowing from a position in pie state `pie`.
#[inline(always)]
fn pie_after(pie: PieState, next: &Position, extra_turn: bool, over: bool) -> PieState {
    match pie {
        PieState::None => PieState::None,
        _ if over => PieState::None,
        _ if next.swap_allowed() => PieState::Answer,
        PieState::Opening if extra_turn => PieState::Opening,
        _ => PieState::None,
    }
}

/// Plays every legal move of `pos` (not over, pie state `pie`) into `out`, cleared first: pits
/// nearest the store first, the order [`order`] wants for most moves, so that it rarely has to
/// move a child.
#[inline]
pub(crate) fn expand(pos: &Position, pie: PieState, out: &mut Vec<Child>) {
    out.clear();
    let me = pos.to_move();
    let banked = pos.store(me) as i32;
    let board = pos.row_sum(me) as i32 + pos.row_sum(me.other()) as i32;
    let mut bits = pos.nonempty_pits();
    while bits != 0 {
        let i = 15 - bits.leading_zeros() as usize;
        bits &= !(1 << i);
        // Played in place, in the vector's own slot, rather than copied in after.
        out.push(Child {
            pos: *pos,
            pie: PieState::None,
            delta: 0,
            seeds: 0,
            same: false,
            over: false,
            mv: i as u8,
            score: 0,
            key: 0,
            lo: 0,
            hi: 0,
        });
        let k = out.last_mut().expect("just pushed");
        let o = k.pos.play_index_unchecked(i);
        let delta = k.pos.store(me) as i32 - banked;
        k.pie = pie_after(pie, &k.pos, o.extra_turn, o.game_over);
        k.delta = delta;
        k.seeds = board - delta;
        k.same = o.extra_turn;
        k.over = o.game_over;
    }
    if pie == PieState::Answer {
        let (next, o) = pos
            .after(Move::Swap)
            .expect("the pie answer is legal in PieState::Answer");
        // The swapper's store difference changes sign with the seat.
        let delta = 2 * (pos.store(me.other()) as i32 - banked);
        out.push(Child {
            pos: next,
            pie: PieState::None,
            delta,
            seeds: board,
            same: false,
            over: o.game_over,
            mv: SWAP,
            score: 0,
            key: 0,
            lo: 0,
            hi: 0,
        });
    }
}

/// Scores the moves for the search order: the move the table remembers, then extra turns (the
/// one nearest the store first, since it leaves the others' counts intact), then by seeds
/// banked (captures), then pits nearer the store.
#[inline]
pub(crate) fn order(kids: &mut [Child], remembered: u8) {
    for k in kids.iter_mut() {
        k.score = if k.mv == remembered {
            1 << 20
        } else if k.same {
            (1 << 16) + k.mv as i32
        } else {
            (k.delta << 5) + k.mv as i32
        };
    }
    // Insertion sort: at most 16 moves.
    for i in 1..kids.len() {
        let mut j = i;
        while j > 0 && kids[j - 1].score < kids[j].score {
            kids.swap(j - 1, j);
            j -= 1;
        }
    }
}
