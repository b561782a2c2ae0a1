//! What the server loads once and shares between games: the network each preset's `hard` level
//! plays (read at start: no request reads a file; its games' evaluations batched on threads of
//! its own), the solvers (one per rule set, built in memory on first use, within a memory
//! budget: [`super::solvers`]), and the time limits of the work done for a request (the queues
//! that bound how many jobs run at once are in [`super::jobs`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::error::ApiError;
use super::game::{GameState, Opponent};
use super::solvers::Solvers;
use crate::bots::{BotContext, BotSpec, Player};
use crate::play::Level;
use crate::rules::{Game, Preset, Rules, RulesSpec, Side};
use crate::solver::Solver;

/// Time limits of the work done for a request.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Level perfect's time per move.
    pub perfect_move: Duration,
    /// Most time a hint's proof may take.
    pub hint: Duration,
    /// Time per position of a review.
    pub review: Duration,
    /// Most time an analysis's proof may take.
    pub analyse: Duration,
    /// Heavy jobs (searches, proofs, a network called alone) running at once.
    pub heavy_jobs: usize,
    /// Heavy jobs waiting for a place, all clients together; past it a request gets 429.
    pub heavy_queue: usize,
    /// Heavy jobs of one client (by address) waiting or running; past it its request gets 429.
    pub heavy_per_client: usize,
    /// Moves of batched networks (level hard) running at once: each waits for its share of one
    /// forward pass a simulation, so many run on few cores (below tokio's 512 blocking threads).
    pub network_jobs: usize,
    /// The solvers' memory, in MiB: one solver a rule set of
    /// [`SOLVER_MEMORY_MB`](super::solvers::SOLVER_MEMORY_MB) each; past it a new rule set
    /// replaces a solver no job uses, or is refused with 503.
    pub solver_memory_mb: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            perfect_move: Duration::from_secs(2),
            hint: Duration::from_secs(3),
            review: Duration::from_millis(300),
            analyse: Duration::from_secs(10),
            heavy_jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            heavy_queue: 64,
            heavy_per_client: 4,
            network_jobs: 256,
            solver_memory_mb: super::solvers::DEFAULT_BUDGET_MB,
        }
    }
}

/// Networks, solvers and time limits.
pub struct Engines {
    hard: HashMap<RulesSpec, Player>,
    /// The solvers, one per rule set, within the memory budget.
    pub solvers: Solvers,
    /// Time limits.
    pub limits: Limits,
}

/// Every rule set of the guides, with and without the pie rule.
pub fn preset_rules() -> Vec<Rules> {
    Preset::ALL
        .iter()
        .flat_map(|p| [p.rules(), p.rules().with_pie(true)])
        .collect()
}

impl Engines {
    /// Loads the network level `hard` plays for each of `preload` (where one was trained for
    /// exactly those rules), with its endgame database; says on stderr what it loaded.
    pub fn load(preload: &[Rules], limits: Limits) -> Engines {
        #[allow(unused_mut)]
        let mut hard = HashMap::new();
        #[cfg(feature = "train")]
        {
            let mut ctx = BotContext::new();
            // Each network's games share threads (one a core) that batch their evaluations.
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            for rules in preload {
                let Ok(found) = ctx.find_network(rules) else {
                    continue;
                };
                let spec = Level::Hard.spec(Some(&found.dir.display().to_string()));
                match ctx
                    .prepare(&spec, rules)
                    .and_then(|p| Ok(p.batched(threads)?))
                {
                    Ok(p) => {
                        let release = crate::lineage::id_note(&found.dir)
                            .map(|id| format!(" (release {id})"))
                            .unwrap_or_default();
                        eprintln!(
                            "kalaha: level hard for {} is {p}{release}",
                            rules.canonical_name()
                        );
                        hard.insert(rules.spec(), p);
                    }
                    Err(e) => eprintln!(
                        "kalaha: no network for {}: {e:#}; level hard plays mcts:2000",
                        rules.canonical_name()
                    ),
                }
            }
        }
        #[cfg(not(feature = "train"))]
        let _ = preload;
        Engines {
            hard,
            solvers: Solvers::new(limits.solver_memory_mb),
            limits,
        }
    }

    /// The batched networks' forward passes and positions evaluated so far, over every rule set
    /// (`{"batches", "positions", "mean_batch"}`).
    pub fn evaluations_json(&self) -> serde_json::Value {
        #[allow(unused_mut)]
        let (mut batches, mut positions) = (0u64, 0u64);
        #[cfg(feature = "train")]
        for b in self.hard.values().filter_map(Player::batcher) {
            batches += b.batches();
            positions += b.positions();
        }
        serde_json::json!({
            "batches": batches,
            "positions": positions,
            "mean_batch": if batches == 0 { 0.0 } else { positions as f64 / batches as f64 },
        })
    }

    /// The network player of `rules`, if one was loaded.
    pub fn network(&self, rules: &Rules) -> Option<&Player> {
        self.hard.get(&rules.spec())
    }

    /// The bot a level plays under `rules`, by name.
    pub fn bot_name(&self, level: Level, rules: &Rules) -> String {
        match level {
            Level::Hard => match self.network(rules) {
                Some(p) => p.to_string(),
                None => Level::Hard.spec(None).to_string(),
            },
            Level::Perfect => format!(
                "solver (exact; {} s a move)",
                self.limits.perfect_move.as_secs_f64()
            ),
            other => other.spec(None).to_string(),
        }
    }

    /// The solver of `rules` (shared, built in memory on first use; no file is read or written),
    /// for as long as the caller holds it; 503 past the memory budget. Blocking.
    pub fn solver(&self, rules: &Rules) -> Result<Arc<Solver>, ApiError> {
        self.solvers.get(rules)
    }

    /// A new game: `game` (the start, or a loaded record), the person in `human`'s seat against
    /// `level` (or both sides in practice mode). Blocking (level perfect builds its solver).
    pub fn new_game(
        &self,
        game: Game,
        level: Level,
        human: Side,
        practice: bool,
        seed: u64,
    ) -> Result<GameState, ApiError> {
        let rules = *game.position().rules();
        let name = self.bot_name(level, &rules);
        let opponent = if practice {
            Opponent::None
        } else {
            match level {
                Level::Perfect => {
                    // Built now, so that a rule set past the budget is refused at once (503);
                    // the game holds no solver between its moves.
                    drop(self.solver(&rules)?);
                    Opponent::Solver(self.limits.perfect_move)
                }
                Level::Hard => match self.network(&rules) {
                    Some(p) if p.is_batched() => Opponent::Network(p.build()),
                    Some(p) => Opponent::Bot(p.build()),
                    None => Opponent::Bot(prepare(&Level::Hard.spec(None), &rules)?.build()),
                },
                other => Opponent::Bot(prepare(&other.spec(None), &rules)?.build()),
            }
        };
        Ok(GameState::new(
            game, level, name, human, practice, opponent, seed,
        ))
    }
}

/// A bot that needs no file (greedy, minimax, mcts).
fn prepare(spec: &BotSpec, rules: &Rules) -> Result<Player, ApiError> {
    BotContext::new()
        .prepare(spec, rules)
        .map_err(|e| ApiError::internal(format!("{e:#}")))
}
