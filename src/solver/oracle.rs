//! Exact answers from the endgame database alone, in microseconds: the perfect-play value of a
//! position with few seeds on the board and the value of each of its moves, for training targets
//! and for searches that treat such positions as solved leaves.

use std::path::Path;

use super::endgame::{BuildProgress, DbSource, Endgame};
use super::key::Encoder;
use super::search::terminal_gain;
use crate::env::obs::pie_to_come;
use crate::rules::{Move, Position, Rules};

/// The endgame database of one rule set with the ranking it needs: exact values of every position
/// with at most [`EndgameOracle::max_seeds`] seeds on the board and no pie answer to come.
pub struct EndgameOracle {
    db: Endgame,
    enc: Encoder,
}

/// Every legal move's exact final margin for the player to move, and the best of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactMoves {
    /// The position's final margin under perfect play, for the player to move.
    pub value: i32,
    /// `(move, final margin for the player to move if it is played)`, in legal-move order.
    pub moves: Vec<(Move, i32)>,
}

impl ExactMoves {
    /// The moves that keep the exact value.
    pub fn best(&self) -> impl Iterator<Item = Move> + '_ {
        self.moves.iter().filter(|m| m.1 == self.value).map(|m| m.0)
    }
}

impl EndgameOracle {
    /// Loads the database for `rules` with `max_seeds` seeds from `cache_dir` (the solver's
    /// cache), or builds it there; with no folder it is built in memory.
    pub fn load_or_build(
        rules: &Rules,
        max_seeds: u32,
        cache_dir: Option<&Path>,
        progress: Option<&BuildProgress>,
    ) -> (EndgameOracle, DbSource) {
        let (db, source) = Endgame::load_or_build(cache_dir, rules, max_seeds, progress);
        (EndgameOracle::from_db(rules, db), source)
    }

    /// Wraps a database built for `rules`. Panics if it was built for other rules.
    pub fn from_db(rules: &Rules, db: Endgame) -> EndgameOracle {
        assert!(db.fits(rules), "an endgame database of other rules");
        EndgameOracle {
            enc: Encoder::new(rules.pits(), rules.total_seeds()),
            db,
        }
    }

    /// Most seeds on the board that the database answers for.
    pub fn max_seeds(&self) -> u32 {
        self.db.max_seeds()
    }

    /// Whether the database answers for `pos` (a finished game always counts).
    pub fn covers(&self, pos: &Position) -> bool {
        self.gain(pos).is_some()
    }

    /// The exact gain of `pos` for the player to move (final margin minus the current store
    /// difference), if the database covers it.
    #[inline]
    pub fn gain(&self, pos: &Position) -> Option<i32> {
        if pos.is_over() {
            return Some(terminal_gain(pos));
        }
        if pie_to_come(pos) {
            return None;
        }
        let (rank, seeds) = self.enc.rank_position(pos);
        (seeds <= self.db.max_seeds()).then(|| self.db.gain(rank))
    }

    /// The exact final margin of `pos` for the player to move, if the database covers it.
    #[inline]
    pub fn final_margin(&self, pos: &Position) -> Option<i32> {
        let me = pos.to_move();
        let stores = pos.store(me) as i32 - pos.store(me.other()) as i32;
        self.gain(pos).map(|g| g + stores)
    }

    /// Every legal move's exact value, if the database covers `pos` (not over).
    pub fn moves(&self, pos: &Position) -> Option<ExactMoves> {
        if pos.is_over() || !self.covers(pos) {
            return None;
        }
        let me = pos.to_move();
        let mut moves = Vec::with_capacity(pos.legal_moves().len());
        for mv in pos.legal_moves().iter() {
            let (child, _) = pos.after(mv).expect("legal moves play");
            let v = self
                .final_margin(&child)
                .expect("a covered position's children are covered");
            moves.push((mv, if child.to_move() == me { v } else { -v }));
        }
        let value = moves.iter().map(|m| m.1).max().expect("a legal move");
        Some(ExactMoves { value, moves })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Solver, SolverConfig};

    #[test]
    fn agrees_with_the_solver_on_positions_it_covers() {
        let rules = Rules::new(4, 3).unwrap();
        let oracle = EndgameOracle::from_db(&rules, Endgame::build(&rules, 10, None));
        let solver = Solver::new(
            &rules,
            &SolverConfig {
                memory_mb: 64,
                db: crate::solver::DbSize::Off,
                cache_dir: None,
                ..SolverConfig::default()
            },
        )
        .unwrap();
        let mut rng = crate::env::GameRng::for_game(5, 0);
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Position::start(&rules);
            while !pos.is_over() {
                if let Some(exact) = oracle.moves(&pos) {
                    let a = solver.analyse(&pos);
                    assert_eq!(Some(exact.value), a.value(), "{pos}");
                    for (mv, v) in &exact.moves {
                        let s = a.moves.iter().find(|m| m.mv == *mv).unwrap();
                        assert_eq!(Some(*v), s.value(), "{pos} move {mv:?}");
                    }
                    checked += 1;
                }
                let a = crate::env::random_legal(pos.legal_moves().pits, &mut rng);
                pos.play(Move::from_action(a, 4)).unwrap();
            }
        }
        assert!(checked > 100, "{checked}");
    }
}
