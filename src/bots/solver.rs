//! `solver`: perfect play from the exact solver, random among the equally optimal moves.

use std::sync::Arc;

use rand::RngExt;
use rand::rngs::SmallRng;

use super::Bot;
use crate::rules::{Move, Position};
use crate::solver::{Detail, Solver, SolverConfig};

/// Memory of the solver a [`super::BotContext`] sets up for the solver bots, in MiB.
pub const BOT_MEMORY_MB: usize = 1024;

/// The set-up of a solver bot's solver: [`BOT_MEMORY_MB`], the default endgame database.
pub fn bot_solver_config() -> SolverConfig {
    SolverConfig {
        memory_mb: BOT_MEMORY_MB,
        ..SolverConfig::default()
    }
}

/// Plays a move of the best exact value, with a solver (table and endgame database) shared by
/// every solver bot of a [`super::BotContext`].
#[derive(Clone, Default)]
pub struct SolverBot {
    solver: Option<Arc<Solver>>,
}

impl SolverBot {
    /// A bot over a solver already set up (by [`super::BotContext::prepare`]).
    pub fn with_solver(solver: Arc<Solver>) -> SolverBot {
        SolverBot {
            solver: Some(solver),
        }
    }

    /// A bot that sets up a solver of its own on its first move, for callers without a context.
    ///
    /// # Panics
    /// On its first move, if the solver cannot be set up (too little memory for
    /// [`BOT_MEMORY_MB`]); [`super::BotContext::prepare`] reports that as an error instead.
    pub fn new() -> SolverBot {
        SolverBot::default()
    }

    /// The solver for the rules of `pos`: the one given, else one made now.
    fn solver_for(&mut self, pos: &Position) -> Arc<Solver> {
        match &self.solver {
            Some(s) if s.rules() == pos.rules() => Arc::clone(s),
            _ => {
                let s = Solver::new(pos.rules(), &bot_solver_config())
                    .unwrap_or_else(|e| panic!("the solver bot cannot set up its solver: {e}"));
                let s = Arc::new(s);
                self.solver = Some(Arc::clone(&s));
                s
            }
        }
    }
}

impl Bot for SolverBot {
    fn choose(&mut self, pos: &Position, rng: &mut SmallRng) -> Move {
        let analysis = self
            .solver_for(pos)
            .analyse_with(pos, None, Detail::Optimal, None);
        let best = analysis.best();
        best[rng.random_range(0..best.len())]
    }
}
