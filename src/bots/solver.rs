//! `solver`: perfect play from the exact solver, random among the equally optimal moves.

use std::sync::Arc;

use rand::RngExt;

use super::Bot;
use crate::env::rng::GameRng;
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
#[derive(Clone)]
pub struct SolverBot {
    solver: Arc<Solver>,
}

impl SolverBot {
    /// A bot over a solver already set up (by [`super::BotContext::prepare`]) for the rules of
    /// the positions it will be asked about.
    pub fn with_solver(solver: Arc<Solver>) -> SolverBot {
        SolverBot { solver }
    }
}

impl Bot for SolverBot {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        debug_assert_eq!(self.solver.rules(), pos.rules(), "a solver of other rules");
        let analysis = self.solver.analyse_with(pos, None, Detail::Optimal, None);
        let best = analysis.best();
        best[rng.random_range(0..best.len())]
    }
}
