//! `guard:T:SPEC`: the exact solver guards another bot's choice. At each move the solver works on
//! the position for at most T seconds; a move it proves best is played; otherwise no move it
//! proves to change the game-theoretic result is played, the moves it proves to keep the result
//! are preferred, and the guarded bot (the learned search, say) chooses among what is left. Every
//! move says what was proven about it ([`Proof`]), so a player (and the board's hint) can tell a
//! proven best move from the network's guess.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::Bot;
use crate::env::rng::GameRng;
use crate::rules::{Move, Position};
use crate::solver::{Analysis, Detail, Solver};

/// What the solver proved about a move within its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// Proven best: its exact value is the position's.
    Optimal,
    /// Proven to keep the result the position is worth (a win stays a win, a draw at least a
    /// draw), though maybe not by the most seeds.
    KeepsResult,
    /// Nothing proven: the solver ran out of time, and the guarded bot chose among the moves not
    /// proven to change the result.
    NotProven,
}

impl Proof {
    /// What it means, in words for a player.
    pub fn words(self) -> &'static str {
        match self {
            Proof::Optimal => "proven best",
            Proof::KeepsResult => "proven to keep the result",
            Proof::NotProven => "nothing proven in time",
        }
    }

    /// Its name as the JSON writes it (`optimal`, `keeps_result`, `not_proven`).
    pub fn name(self) -> &'static str {
        match self {
            Proof::Optimal => "optimal",
            Proof::KeepsResult => "keeps_result",
            Proof::NotProven => "not_proven",
        }
    }
}

/// What the solver's bounds allow at one position (see [`guard`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// Moves proven best (the position's value is proven): play one of these.
    pub optimal: Vec<Move>,
    /// Moves proven to reach the best result the position allows.
    pub keeps: Vec<Move>,
    /// Moves not proven to change the result: never empty for a position that is not over.
    pub allowed: Vec<Move>,
    /// The position's value is at least this and at most `upper` (final margin for the mover).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
}

impl Guard {
    /// The moves to choose among, best proof first, and the proof of whichever is played.
    pub fn choices(&self) -> (&[Move], Proof) {
        if !self.optimal.is_empty() {
            (&self.optimal, Proof::Optimal)
        } else if !self.keeps.is_empty() {
            (&self.keeps, Proof::KeepsResult)
        } else {
            (&self.allowed, Proof::NotProven)
        }
    }

    /// The proof of playing `mv` here.
    pub fn proof_of(&self, mv: Move) -> Proof {
        if self.optimal.contains(&mv) {
            Proof::Optimal
        } else if self.keeps.contains(&mv) {
            Proof::KeepsResult
        } else {
            Proof::NotProven
        }
    }
}

/// Win, draw or loss of a final margin.
fn class(v: i32) -> i32 {
    v.signum()
}

/// Reads a (maybe partial) analysis: the moves proven best; the moves whose lower bound already
/// reaches the best result class the position's upper bound allows (they keep the result); and
/// every move whose upper bound does not fall below the result class the position is proven to
/// reach (a move that does is proven to change the result, and is never played).
pub fn guard(analysis: &Analysis) -> Guard {
    let moves = &analysis.moves;
    let lower =
        (moves.iter().map(|m| m.lower).max()).map_or(analysis.lower, |l| l.max(analysis.lower));
    let upper =
        (moves.iter().map(|m| m.upper).max()).map_or(analysis.upper, |u| u.min(analysis.upper));
    let optimal = if lower == upper {
        (moves.iter())
            .filter(|m| m.value() == Some(lower))
            .map(|m| m.mv)
            .collect()
    } else {
        Vec::new()
    };
    let keeps = (moves.iter())
        .filter(|m| class(m.lower) >= class(upper))
        .map(|m| m.mv)
        .collect();
    let allowed = (moves.iter())
        .filter(|m| class(m.upper) >= class(lower))
        .map(|m| m.mv)
        .collect();
    Guard {
        optimal,
        keeps,
        allowed,
        lower,
        upper,
    }
}

/// The guarded bot (see the module's documentation).
pub struct GuardBot {
    solver: Arc<Solver>,
    limit: Duration,
    inner: Box<dyn Bot>,
    /// What was proven about the last move chosen.
    last: Option<Proof>,
}

impl GuardBot {
    /// `inner` guarded by `solver` (for the rules of the positions it will be asked about), which
    /// works at most `limit` a move.
    pub fn new(solver: Arc<Solver>, limit: Duration, inner: Box<dyn Bot>) -> GuardBot {
        GuardBot {
            solver,
            limit,
            inner,
            last: None,
        }
    }

    /// The solver's guard at `pos` (not over), within the bot's time.
    pub fn guard(&self, pos: &Position) -> Guard {
        guard(&(self.solver).analyse_with(pos, Some(self.limit), Detail::Optimal, None))
    }
}

impl Bot for GuardBot {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        let g = self.guard(pos);
        let (moves, proof) = g.choices();
        let mv = if moves.len() == 1 {
            moves[0]
        } else {
            self.inner.choose_among(pos, moves, rng)
        };
        self.last = Some(proof);
        mv
    }

    fn last_proof(&self) -> Option<Proof> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::MoveValue;

    fn analysis(lower: i32, upper: i32, moves: &[(u8, i32, i32)]) -> Analysis {
        Analysis {
            lower,
            upper,
            moves: (moves.iter())
                .map(|&(pit, lower, upper)| MoveValue {
                    mv: Move::Pit(pit),
                    lower,
                    upper,
                })
                .collect(),
            nodes: 0,
            seconds: 0.0,
            value_seconds: None,
        }
    }

    #[test]
    fn a_proven_value_plays_a_proven_best_move() {
        let g = guard(&analysis(
            4,
            4,
            &[(1, 4, 4), (2, -2, -2), (3, 4, 4), (4, -48, 2)],
        ));
        assert_eq!(g.optimal, [Move::Pit(1), Move::Pit(3)]);
        assert_eq!(
            g.choices(),
            (&[Move::Pit(1), Move::Pit(3)][..], Proof::Optimal)
        );
        assert_eq!(g.proof_of(Move::Pit(4)), Proof::NotProven);
    }

    #[test]
    fn unproven_bounds_keep_the_result_and_never_throw_it_away() {
        // The position is a win (move 2 is at least +2) but not solved: move 1 is proven to lose,
        // move 3 to draw at best; move 4 might win. Moves 2 keeps the win; 4 is allowed.
        let g = guard(&analysis(
            -48,
            48,
            &[(1, -48, -2), (2, 2, 20), (3, -6, 0), (4, -10, 14)],
        ));
        assert!(g.optimal.is_empty());
        assert_eq!((g.lower, g.upper), (2, 20));
        assert_eq!(g.keeps, [Move::Pit(2)]);
        assert_eq!(g.allowed, [Move::Pit(2), Move::Pit(4)]);
        assert_eq!(g.choices().1, Proof::KeepsResult);
    }

    #[test]
    fn nothing_proven_allows_every_move_and_says_so() {
        let g = guard(&analysis(-48, 48, &[(1, -48, 48), (2, -48, 48)]));
        assert_eq!(g.allowed.len(), 2);
        assert!(g.keeps.is_empty() && g.optimal.is_empty());
        assert_eq!(g.choices().1, Proof::NotProven);
    }

    #[test]
    fn a_drawn_position_keeps_moves_that_draw_at_least() {
        // The best is a draw (move 1 is proven to draw, no move can do better): move 1 is best;
        // move 2 might lose or draw (allowed), move 3 is proven to lose (never played).
        let g = guard(&analysis(-48, 48, &[(1, 0, 0), (2, -4, 0), (3, -8, -2)]));
        assert_eq!((g.lower, g.upper), (0, 0));
        assert_eq!(g.optimal, [Move::Pit(1)]);
        assert_eq!(g.choices().1, Proof::Optimal);
        assert_eq!(g.allowed, [Move::Pit(1), Move::Pit(2)]);
        assert_eq!(g.keeps, [Move::Pit(1)]);
    }
}
