//! `solver`: perfect play from the exact solver, random among the equally optimal moves.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rand::RngExt;
use rand::rngs::SmallRng;

use super::Bot;
use crate::rules::{Move, Position, RulesSpec};
use crate::solver::{Detail, Solver, SolverConfig};

/// Memory of the solver the bots share, in MiB.
const BOT_MEMORY_MB: usize = 1024;

/// Plays a move of the best exact value; the solver (table and endgame database) is made once
/// per set of rules and shared by every solver bot of the process.
#[derive(Clone, Default)]
pub struct SolverBot {
    solver: Option<Arc<Solver>>,
}

impl SolverBot {
    /// A bot that sets up its solver on its first move.
    pub fn new() -> SolverBot {
        SolverBot::default()
    }

    /// The shared solver for the rules of `pos`.
    fn solver_for(&mut self, pos: &Position) -> Arc<Solver> {
        if let Some(s) = &self.solver
            && s.rules() == pos.rules()
        {
            return Arc::clone(s);
        }
        static SOLVERS: OnceLock<Mutex<HashMap<RulesSpec, Arc<Solver>>>> = OnceLock::new();
        let mut all = SOLVERS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let s = all
            .entry(pos.rules().spec())
            .or_insert_with(|| {
                let config = SolverConfig {
                    memory_mb: BOT_MEMORY_MB,
                    ..SolverConfig::default()
                };
                Arc::new(Solver::new(pos.rules(), &config).expect("the default solver set-up fits"))
            })
            .clone();
        self.solver = Some(Arc::clone(&s));
        s
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
