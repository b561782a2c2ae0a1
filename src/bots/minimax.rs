//! `minimax:D`: alpha-beta search to a fixed depth on the store difference.

use rand::Rng;
use rand::seq::SliceRandom;

use super::Bot;
use crate::env::rng::GameRng;
use crate::rules::{Move, Position};

/// Alpha-beta to `depth` moves (each sowing is one move; an extra turn is searched as the same
/// player's move). Leaves score the store difference for the player to move, finished games the
/// final margin. Ties at the root are broken at random.
#[derive(Clone, Copy, Debug)]
pub struct Minimax {
    depth: u32,
}

impl Minimax {
    /// A searcher of the given depth (at least 1).
    pub fn new(depth: u32) -> Minimax {
        Minimax {
            depth: depth.max(1),
        }
    }
}

/// Value of `pos` for the player to move.
fn static_eval(pos: &Position) -> i32 {
    let [s, n] = pos.score();
    let d = s as i32 - n as i32;
    if pos.to_move().index() == 0 { d } else { -d }
}

/// Negamax value of `pos` for the player to move, searched `depth` moves deep, within `(alpha, beta)`.
pub(crate) fn negamax(pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if depth == 0 || pos.is_over() {
        return static_eval(pos);
    }
    let mut best = i32::MIN + 1;
    for mv in ordered(pos) {
        let v = child_value(pos, mv, depth, alpha, beta);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

/// Value of playing `mv` for the player to move in `pos`.
fn child_value(pos: &Position, mv: Move, depth: u32, alpha: i32, beta: i32) -> i32 {
    let (next, out) = pos.after(mv).expect("searched moves are legal");
    if out.extra_turn {
        negamax(&next, depth - 1, alpha, beta)
    } else {
        -negamax(&next, depth - 1, -beta, -alpha)
    }
}

/// Legal moves with extra-turn moves first (they are usually best and cut early), then pits from
/// the store side.
fn ordered(pos: &Position) -> impl Iterator<Item = Move> + use<> {
    crate::search::alphabeta::heuristic_order(pos).into_iter()
}

impl Minimax {
    /// Every legal move's value for the player to move in `pos` (not over), searched to this
    /// bot's depth with a full window: the scores its choice maximises.
    pub fn scores(&self, pos: &Position) -> Vec<(Move, i32)> {
        pos.legal_moves()
            .iter()
            .map(|mv| (mv, child_value(pos, mv, self.depth, i32::MIN + 1, i32::MAX)))
            .collect()
    }
}

impl Minimax {
    /// The move [`Bot::choose`] picks, from any generator (the pinned draws of
    /// `eval::judge::draw` and `eval::heldout` use `rand`'s `SmallRng`).
    pub fn pick(&self, pos: &Position, rng: &mut impl Rng) -> Move {
        let mut moves: Vec<Move> = pos.legal_moves().iter().collect();
        moves.shuffle(rng);
        // The first strictly best move in a random order is uniform among the equally best.
        let mut best = (moves[0], i32::MIN + 1);
        for &mv in &moves {
            let v = child_value(pos, mv, self.depth, best.1, i32::MAX);
            if v > best.1 {
                best = (mv, v);
            }
        }
        best.0
    }
}

impl Bot for Minimax {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        self.pick(pos, rng)
    }
}
