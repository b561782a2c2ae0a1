//! What the server loads once and shares between games: the network each preset's `hard` level
//! plays (read at start within a memory budget: no request reads a file; its games' evaluations
//! batched on threads of its own), the solvers (one per rule set, built in memory on first use,
//! within a memory budget: [`super::solvers`]), and the time limits of the work done for a
//! request (the queues that bound how many jobs run at once are in [`super::jobs`]).
//!
//! The levels, as [`Engines::spec`] names them (the specs `kalaha play --opponent` and `kalaha
//! eval --player` take; never a path of the server): `easy` is `greedy`, `medium` `minimax:6`,
//! `hard` the network trained for the rules with its endgame database (`policy:auto:64`, or
//! `mcts:2000` where none was loaded), and `strongest` (`perfect` before) the solver guarding
//! `hard` (`guard:0.9:policy:auto:64`): the solver of the server's pool works on each position
//! for [`Limits::perfect_move`], a move it proves best is played, a move it proves to change the
//! result never is, and `hard`'s bot chooses among the rest; every move says which
//! ([`crate::bots::guard::Proof`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::error::ApiError;
use super::game::{GameState, Opponent};
use super::solvers::Solvers;
use crate::bots::{Bot, BotContext, BotSpec, Player};
use crate::play::Level;
use crate::rules::{Game, Preset, Rules, RulesSpec, Side};
use crate::solver::Solver;

/// Time limits of the work done for a request.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The strongest level's (once `perfect`'s) solver time per move, before `hard`'s bot
    /// chooses among the moves not ruled out ([`crate::play::STRONGEST_SECONDS`] by default).
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
    /// The networks' memory, in MiB: networks are loaded at start, in the order of the rule sets
    /// asked for, while their estimated memory ([`network_memory`]) fits; a network past it is
    /// not loaded (its level hard plays `mcts:2000`), which the server says on stderr.
    pub network_memory_mb: usize,
}

/// The networks' memory budget by default, in MiB: the shipped networks of the ten presets
/// (six networks, each with its 18-seed endgame database) estimate 556 MiB.
pub const DEFAULT_NETWORK_BUDGET_MB: usize = 640;

/// Memory a network player's batching threads use besides the weights (their activations for a
/// batch of up to 1,024 positions, the threads' stacks), in MiB: an
/// allowance, checked by `tests/serve_memory.rs` against what the process holds.
pub const NETWORK_THREADS_MB: usize = 8;

/// The estimated memory of a network player under `rules`, in bytes: its weights (the file's
/// size, as many bytes as the weights hold), its endgame database of `db_seeds` seeds (one byte a
/// board: [`crate::solver::endgame::entries`]) and [`NETWORK_THREADS_MB`].
pub fn network_memory(rules: &Rules, weights_bytes: u64, db_seeds: u32) -> u64 {
    let db = if db_seeds == 0 {
        0
    } else {
        u64::try_from(crate::solver::endgame::entries(rules.pits(), db_seeds)).unwrap_or(u64::MAX)
    };
    weights_bytes
        .saturating_add(db)
        .saturating_add((NETWORK_THREADS_MB as u64) << 20)
}

/// A network loaded for level hard, as `/api/info` lists it.
#[derive(Clone, Debug)]
pub struct LoadedNetwork {
    /// The rules it plays.
    pub rules: String,
    /// Its release id, if its folder has a release card (never its path).
    pub release: Option<String>,
    /// Its estimated memory in bytes ([`network_memory`]).
    pub bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            perfect_move: Duration::from_secs_f64(crate::play::STRONGEST_SECONDS),
            hint: Duration::from_secs(3),
            review: Duration::from_millis(300),
            analyse: Duration::from_secs(10),
            heavy_jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            heavy_queue: 64,
            heavy_per_client: 4,
            network_jobs: 256,
            solver_memory_mb: super::solvers::DEFAULT_BUDGET_MB,
            network_memory_mb: DEFAULT_NETWORK_BUDGET_MB,
        }
    }
}

/// Networks, solvers and time limits.
pub struct Engines {
    hard: HashMap<RulesSpec, Player>,
    /// The networks loaded, with their estimated memory.
    networks: Vec<LoadedNetwork>,
    /// Networks not loaded for the memory budget.
    networks_refused: usize,
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
    /// exactly those rules), with its endgame database, while the networks' estimated memory
    /// stays within [`Limits::network_memory_mb`]; says on stderr what it loaded and what it left
    /// out.
    pub fn load(preload: &[Rules], limits: Limits) -> Engines {
        #[allow(unused_mut)]
        let mut hard = HashMap::new();
        #[allow(unused_mut)]
        let mut networks = Vec::new();
        #[allow(unused_mut)]
        let mut networks_refused = 0;
        #[cfg(feature = "train")]
        {
            let budget = (limits.network_memory_mb as u64) << 20;
            let mut used = 0u64;
            let mut ctx = BotContext::new();
            // Each network's games share threads (one a core) that batch their evaluations.
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            for rules in preload {
                let Ok(found) = ctx.find_network(rules) else {
                    continue;
                };
                // Estimated before anything is read: the weights file's size and the database
                // the player will load.
                let weights = std::fs::metadata(found.dir.join(&found.card.model_file))
                    .map_or(0, |m| m.len());
                let db = crate::bots::db::db_seeds(found.card.endgame_db_seeds, rules);
                let bytes = network_memory(rules, weights, db);
                if used + bytes > budget {
                    networks_refused += 1;
                    eprintln!(
                        "kalaha: no network for {}: its {} MiB would pass the networks' budget of {} MiB ({} MiB loaded; --network-memory-mb); level hard plays mcts:2000",
                        rules.canonical_name(),
                        bytes >> 20,
                        limits.network_memory_mb,
                        used >> 20
                    );
                    continue;
                }
                let spec = Level::Hard.spec(Some(&found.dir.display().to_string()));
                match ctx
                    .prepare(&spec, rules)
                    .and_then(|p| Ok(p.batched(threads)?))
                {
                    Ok(p) => {
                        let release = crate::lineage::id_note(&found.dir);
                        let db = p.endgame_db().map_or(0, |o| o.max_seeds());
                        let bytes = network_memory(rules, weights, db);
                        used += bytes;
                        eprintln!(
                            "kalaha: level hard for {} is {p}{} ({} MiB)",
                            rules.canonical_name(),
                            release
                                .as_ref()
                                .map(|id| format!(" (release {id})"))
                                .unwrap_or_default(),
                            bytes >> 20
                        );
                        networks.push(LoadedNetwork {
                            rules: rules.canonical_name(),
                            release,
                            bytes,
                        });
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
            networks,
            networks_refused,
            solvers: Solvers::new(limits.solver_memory_mb),
            limits,
        }
    }

    /// The networks loaded as JSON: each one's rules, release id and estimated memory, their
    /// sum, the budget, and how many were left out for it.
    pub fn networks_json(&self) -> serde_json::Value {
        let total: u64 = self.networks.iter().map(|n| n.bytes).sum();
        let mib = |b: u64| (b as f64 / 1048576.0 * 10.0).round() / 10.0;
        serde_json::json!({
            "loaded": self.networks.iter().map(|n| serde_json::json!({
                "rules": n.rules,
                "release": n.release,
                "memory_mb": mib(n.bytes),
            })).collect::<Vec<_>>(),
            "memory_mb": mib(total),
            "budget_mb": self.limits.network_memory_mb,
            "refused": self.networks_refused,
        })
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

    /// The bot a level plays under `rules`, as a spec other commands take (`kalaha play
    /// --opponent`, `kalaha eval --player`): `greedy`, `minimax:6`, `policy:auto:64` (the network
    /// found for the rules; never the server's path) or `mcts:2000`, and `guard:T:` before hard's
    /// spec for the strongest level.
    pub fn spec(&self, level: Level, rules: &Rules) -> String {
        match level {
            Level::Hard => self.hard_spec(rules).to_string(),
            Level::Perfect => BotSpec::Guard {
                millis: u32::try_from(self.limits.perfect_move.as_millis()).unwrap_or(u32::MAX),
                inner: Box::new(self.hard_spec(rules)),
            }
            .to_string(),
            other => other.spec(None).to_string(),
        }
    }

    /// Level hard's spec under `rules`, without the server's path.
    fn hard_spec(&self, rules: &Rules) -> BotSpec {
        match self.network(rules) {
            #[cfg(feature = "train")]
            Some(_) => Level::Hard.spec(Some(crate::bots::AUTO)),
            _ => Level::Hard.spec(None),
        }
    }

    /// The release id of the network a level plays under `rules` (hard and strongest), if any.
    pub fn release(&self, level: Level, rules: &Rules) -> Option<String> {
        if !matches!(level, Level::Hard | Level::Perfect) {
            return None;
        }
        #[cfg(feature = "train")]
        return self
            .network(rules)
            .and_then(|p| p.network())
            .and_then(|m| m.card.release.clone());
        #[cfg(not(feature = "train"))]
        {
            let _ = rules;
            None
        }
    }

    /// Level hard's bot for one game under `rules`: the network's (its evaluations batched with
    /// the other games') or `mcts:2000`.
    fn hard_bot(&self, rules: &Rules) -> Result<(Box<dyn Bot>, bool), ApiError> {
        Ok(match self.network(rules) {
            Some(p) => (p.build(), p.is_batched()),
            None => (prepare(&Level::Hard.spec(None), rules)?.build(), false),
        })
    }

    /// The solver of `rules` (shared, built in memory on first use; no file is read or written),
    /// for as long as the caller holds it; 503 past the memory budget. Blocking.
    pub fn solver(&self, rules: &Rules) -> Result<Arc<Solver>, ApiError> {
        self.solvers.get(rules)
    }

    /// A new game: `game` (the start, or a loaded record), the person in `human`'s seat against
    /// `level` (or both sides in practice mode). Blocking (the strongest level builds its
    /// solver).
    pub fn new_game(
        &self,
        game: Game,
        level: Level,
        human: Side,
        practice: bool,
        seed: u64,
    ) -> Result<GameState, ApiError> {
        let rules = *game.position().rules();
        let name = (self.spec(level, &rules), self.release(level, &rules));
        let opponent = if practice {
            Opponent::None
        } else {
            match level {
                Level::Perfect => {
                    // Built now, so that a rule set past the budget is refused at once (503);
                    // the game holds no solver between its moves.
                    drop(self.solver(&rules)?);
                    Opponent::Strongest {
                        limit: self.limits.perfect_move,
                        inner: self.hard_bot(&rules)?.0,
                    }
                }
                Level::Hard => match self.hard_bot(&rules)? {
                    (bot, true) => Opponent::Network(bot),
                    (bot, false) => Opponent::Bot(bot),
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
