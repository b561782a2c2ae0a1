//! Bots made ready to play: [`BotContext`] loads what a bot needs once (networks by path, one
//! solver per set of rules) and checks it against the rules; a [`Player`] holds the result and
//! makes a fresh [`Bot`] per game. `policy:auto` is the network found for the rules a bot is
//! prepared for ([`crate::nn::model::find_in`]). Network players share one endgame database per
//! rules and size ([`BotContext::endgame_db`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use anyhow::Context as _;

use super::solver::bot_solver_config;
use super::{Bot, BotSpec, Greedy, Mcts, Minimax, RandomBot, SolverBot};
use crate::rules::{Rules, RulesSpec};
use crate::solver::Solver;

#[cfg(feature = "train")]
use super::AUTO;
#[cfg(feature = "train")]
use crate::nn::model::{self, Found, Model, NotFound};
#[cfg(feature = "train")]
use crate::solver::EndgameOracle;

/// What bots share and load from disk, held for as long as the caller wants them kept: the
/// networks read so far (by the path named), one solver per set of rules and one endgame database
/// per set of rules and size; and where `policy:auto` looks for networks.
#[derive(Default)]
pub struct BotContext {
    #[cfg(feature = "train")]
    networks: HashMap<String, Arc<Model>>,
    #[cfg(feature = "train")]
    oracles: HashMap<(RulesSpec, u32), Arc<EndgameOracle>>,
    /// Folders of checkpoints for `policy:auto` (none: [`model::checkpoint_roots`]).
    #[cfg(feature = "train")]
    roots: Option<Vec<std::path::PathBuf>>,
    solvers: HashMap<RulesSpec, Arc<Solver>>,
}

impl BotContext {
    /// An empty context: nothing loaded yet.
    pub fn new() -> BotContext {
        BotContext::default()
    }

    /// An empty context whose `policy:auto` bots look for networks in `roots` only (see
    /// [`model::find_in`]), not in [`model::checkpoint_roots`].
    #[cfg(feature = "train")]
    pub fn with_checkpoint_roots(roots: Vec<std::path::PathBuf>) -> BotContext {
        BotContext {
            roots: Some(roots),
            ..BotContext::default()
        }
    }

    /// The network trained for exactly `rules`, where this context looks (see
    /// [`model::find_in`]); reads sidecars only.
    #[cfg(feature = "train")]
    pub fn find_network(&self, rules: &Rules) -> Result<Found, NotFound> {
        match &self.roots {
            Some(roots) => model::find_in(rules, roots),
            None => model::find_for(rules),
        }
    }

    /// Makes `spec` ready to play under `rules`: loads its network (once per path; for
    /// `policy:auto`, the one found for exactly `rules`), checks the rules it was trained for and
    /// loads its endgame database unless `:db=off` ([`BotContext::endgame_db`]), or sets up the
    /// solver (once per rules). Errors name the bot and what is wrong (a missing checkpoint,
    /// other rules, no network for these rules, too little memory).
    pub fn prepare(&mut self, spec: &BotSpec, rules: &Rules) -> anyhow::Result<Player> {
        let kind = match spec {
            BotSpec::Random => Kind::Random,
            BotSpec::Greedy => Kind::Greedy,
            BotSpec::Minimax(d) => Kind::Minimax(*d),
            BotSpec::Mcts(n) => Kind::Mcts(*n),
            BotSpec::Solver => Kind::Solver(self.solver(rules)?),
            BotSpec::Guard { millis, inner } => Kind::Guard {
                solver: self.solver(rules)?,
                limit: std::time::Duration::from_millis(u64::from(*millis)),
                inner: Box::new(
                    self.prepare(inner, rules)
                        .with_context(|| format!("bot '{spec}'"))?,
                ),
            },
            BotSpec::External(name) => anyhow::bail!(
                "bot '{name}' is supplied by the program that runs it, not prepared from its name"
            ),
            #[cfg(feature = "train")]
            BotSpec::Policy { path, sims, db, .. } => {
                let m = if path == AUTO {
                    self.find_network(rules)
                        .map_err(anyhow::Error::from)
                        .and_then(|found| self.network(&found.dir.display().to_string()))
                } else {
                    self.network(path)
                }
                .with_context(|| format!("bot '{spec}'"))?;
                if m.card.rules != rules.spec() {
                    let trained = m.card.rules.build().map(|r| r.describe());
                    anyhow::bail!(
                        "policy:{path} was trained for {}, not {}",
                        trained.unwrap_or_default(),
                        rules.describe()
                    );
                }
                let oracle = match *db {
                    super::PlayDb::Default => self.endgame_db(rules, m.card.endgame_db_seeds),
                    super::PlayDb::Seeds(n) => self.endgame_db_of(rules, n).map(Some),
                    super::PlayDb::Off => Ok(None),
                }
                .with_context(|| format!("bot '{spec}'"))?;
                Kind::Network {
                    model: m,
                    sims: *sims,
                    options: spec.search_options(),
                    oracle,
                    batcher: None,
                }
            }
        };
        Ok(Player {
            spec: spec.clone(),
            rules: *rules,
            kind,
        })
    }

    /// Prepares each of `specs` (see [`BotContext::prepare`]).
    pub fn prepare_all(&mut self, specs: &[BotSpec], rules: &Rules) -> anyhow::Result<Vec<Player>> {
        specs.iter().map(|s| self.prepare(s, rules)).collect()
    }

    /// The solver the solver bots of `rules` share, set up on first use
    /// ([`super::BOT_MEMORY_MB`] of memory, the default endgame database).
    pub fn solver(&mut self, rules: &Rules) -> anyhow::Result<Arc<Solver>> {
        if let Some(s) = self.solvers.get(&rules.spec()) {
            return Ok(Arc::clone(s));
        }
        let s = Arc::new(
            Solver::new(rules, &bot_solver_config())
                .context("the solver bot cannot set up its solver")?,
        );
        self.solvers.insert(rules.spec(), Arc::clone(&s));
        Ok(s)
    }

    /// The endgame database a network player of `rules` consults, whose checkpoint records
    /// `recorded` as its self-play's (see [`super::db::db_seeds`]; none for 0 seeds): loaded once
    /// per rules and size from the solver's cache, built there the first time (saying so on
    /// stderr).
    #[cfg(feature = "train")]
    pub fn endgame_db(
        &mut self,
        rules: &Rules,
        recorded: Option<u32>,
    ) -> anyhow::Result<Option<Arc<EndgameOracle>>> {
        let seeds = super::db::db_seeds(recorded, rules);
        if seeds == 0 {
            return Ok(None);
        }
        self.endgame_db_of(rules, seeds).map(Some)
    }

    /// The endgame database of `seeds` seeds on the board for `rules`: loaded once per rules and
    /// size (see [`super::db::load`]).
    #[cfg(feature = "train")]
    pub fn endgame_db_of(
        &mut self,
        rules: &Rules,
        seeds: u32,
    ) -> anyhow::Result<Arc<EndgameOracle>> {
        let key = (rules.spec(), seeds);
        if let Some(o) = self.oracles.get(&key) {
            return Ok(Arc::clone(o));
        }
        let o = super::db::load(rules, seeds)?;
        self.oracles.insert(key, Arc::clone(&o));
        Ok(o)
    }

    /// The checkpoint a path names, read on first use (see [`crate::nn::model::load`]).
    #[cfg(feature = "train")]
    pub fn network(&mut self, path: &str) -> anyhow::Result<Arc<Model>> {
        if let Some(m) = self.networks.get(path) {
            return Ok(Arc::clone(m));
        }
        let m = Arc::new(model::load(std::path::Path::new(path))?);
        self.networks.insert(path.to_string(), Arc::clone(&m));
        Ok(m)
    }
}

/// Makes a fresh external bot for each game.
pub type BotFactory = Arc<dyn Fn() -> Box<dyn Bot> + Send + Sync>;

/// A bot's parameters with what it loaded.
#[derive(Clone)]
enum Kind {
    /// A bot supplied by the embedding program.
    External(BotFactory),
    Random,
    Greedy,
    Minimax(u32),
    Mcts(u32),
    /// The shared solver.
    Solver(Arc<Solver>),
    /// The shared solver, its time a move, and the player it guards.
    Guard {
        solver: Arc<Solver>,
        limit: std::time::Duration,
        inner: Box<Player>,
    },
    /// The loaded network, its simulations, search options and endgame database, and the threads
    /// its games share for their evaluations (none: each game calls the network itself).
    #[cfg(feature = "train")]
    Network {
        model: Arc<Model>,
        sims: Option<u32>,
        options: super::policy::SearchOptions,
        oracle: Option<Arc<EndgameOracle>>,
        batcher: Option<crate::nn::batch::Batcher>,
    },
}

/// A bot ready to play under one set of rules (from [`BotContext::prepare`]): its name, and
/// whatever it loaded. Cheap to clone; shows as its name.
#[derive(Clone)]
pub struct Player {
    spec: BotSpec,
    rules: Rules,
    kind: Kind,
}

impl Player {
    /// The bot's name.
    pub fn spec(&self) -> &BotSpec {
        &self.spec
    }

    /// The rules it was prepared for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Its network, for a `policy:` bot.
    #[cfg(feature = "train")]
    pub fn network(&self) -> Option<&Model> {
        match &self.kind {
            Kind::Network { model, .. } => Some(model),
            Kind::Guard { inner, .. } => inner.network(),
            _ => None,
        }
    }

    /// The endgame database a `policy:` bot consults (none with `:db=off`, for a checkpoint
    /// trained without one, and for other bots).
    #[cfg(feature = "train")]
    pub fn endgame_db(&self) -> Option<&Arc<EndgameOracle>> {
        match &self.kind {
            Kind::Network { oracle, .. } => oracle.as_ref(),
            Kind::Guard { inner, .. } => inner.endgame_db(),
            _ => None,
        }
    }

    /// The same network player with its games' evaluations batched on `threads` threads (at
    /// most [`crate::nn::batch::MAX_BATCH`] positions a forward pass): for many games at once, as
    /// a server plays them. A player already batched keeps its threads; other players are
    /// returned as they are.
    #[cfg(feature = "train")]
    pub fn batched(mut self, threads: usize) -> std::io::Result<Player> {
        if let Kind::Network { model, batcher, .. } = &mut self.kind
            && batcher.is_none()
        {
            *batcher = Some(crate::nn::batch::Batcher::spawn(
                &model.net,
                threads,
                crate::nn::batch::MAX_BATCH,
            )?);
        }
        Ok(self)
    }

    /// The threads a batched network player's games share (see [`Player::batched`]).
    #[cfg(feature = "train")]
    pub fn batcher(&self) -> Option<&crate::nn::batch::Batcher> {
        match &self.kind {
            Kind::Network { batcher, .. } => batcher.as_ref(),
            _ => None,
        }
    }

    /// Whether its games share batching threads ([`Player::batched`]).
    pub fn is_batched(&self) -> bool {
        #[cfg(feature = "train")]
        return self.batcher().is_some();
        #[cfg(not(feature = "train"))]
        false
    }

    /// A player the embedding program supplies (a Python agent, say): `make` gives a fresh bot
    /// for each game; it plays as [`BotSpec::External`] of `name`.
    pub fn external(name: &str, rules: &Rules, make: BotFactory) -> Player {
        Player {
            spec: BotSpec::External(name.to_string()),
            rules: *rules,
            kind: Kind::External(make),
        }
    }

    /// A fresh bot for one game.
    pub fn build(&self) -> Box<dyn Bot> {
        match &self.kind {
            Kind::External(make) => make(),
            Kind::Random => Box::new(RandomBot),
            Kind::Greedy => Box::new(Greedy),
            Kind::Minimax(d) => Box::new(Minimax::new(*d)),
            Kind::Mcts(n) => Box::new(Mcts::new(*n)),
            Kind::Solver(s) => Box::new(SolverBot::with_solver(Arc::clone(s))),
            Kind::Guard {
                solver,
                limit,
                inner,
            } => Box::new(super::guard::GuardBot::new(
                Arc::clone(solver),
                *limit,
                inner.build(),
            )),
            #[cfg(feature = "train")]
            Kind::Network {
                model,
                sims,
                options,
                oracle,
                batcher,
            } => {
                let ev: Box<dyn crate::search::Evaluator + Send> = match batcher {
                    Some(b) => Box::new(b.evaluator()),
                    None => Box::new(crate::nn::NetEvaluator::cpu(model.net.clone())),
                };
                Box::new(super::policy::PolicyBot::with_evaluator(
                    ev,
                    model,
                    *sims,
                    *options,
                    oracle.clone(),
                ))
            }
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec.fmt(f)
    }
}

impl fmt::Debug for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Player({})", self.spec)
    }
}
