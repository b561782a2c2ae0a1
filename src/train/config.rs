//! The training configuration: a TOML file with `--set key.sub=value` overrides, checked before
//! anything runs. Unknown keys and impossible values are errors that name the key and say where
//! its value came from: the `--set` that gave it, else its line in the config file.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::bots::{BotContext, BotSpec, Player};
use crate::nn::NetConfig;
use crate::rules::{RuleChoices, Rules};
use crate::search::SearchConfig;

/// Everything a training run needs to know.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Name, seed, length, folders.
    pub run: RunConfig,
    /// The rule set the network learns.
    #[serde(default)]
    pub rules: RuleChoices,
    /// Network shape.
    pub network: NetConfig,
    /// Search used in self-play.
    pub search: SearchConfig,
    /// Self-play games and exploration.
    pub selfplay: SelfPlayConfig,
    /// The replay buffer.
    pub replay: ReplayConfig,
    /// The optimiser.
    pub optim: OptimConfig,
    /// Periodic evaluation.
    pub eval: EvalConfig,
}

/// Run identity and length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Run name: checkpoints go to `<checkpoint_dir>/<name>`, logs to `<experiment_dir>/<name>`.
    pub name: String,
    /// Seed of every random choice of the run.
    pub seed: u64,
    /// Training iterations (self-play, then gradient steps).
    pub iterations: u32,
    /// Save a checkpoint every this many iterations (and always at the end).
    pub checkpoint_every: u32,
    /// Folder of the runs' checkpoints, one sub-folder per run (`checkpoints/runs` in the shipped
    /// configs: run output, kept apart from the released networks `checkpoints/<name>/` and the
    /// judge sets, see `checkpoints/README.md`).
    pub checkpoint_dir: PathBuf,
    /// Optional: folder of the solved judge sets, read and (for a set not there yet) written by
    /// the run's judging; default `checkpoints/judge`, the committed sets.
    #[serde(default = "default_judge_dir")]
    pub judge_dir: PathBuf,
    /// Folder of TensorBoard logs and experiment notes.
    pub experiment_dir: PathBuf,
    /// `cpu` (burn's flex backend), `wgpu` (a GPU through Vulkan; needs the `wgpu` cargo feature)
    /// or `cuda` (needs the `cuda` cargo feature).
    pub device: String,
    /// Optional: a checkpoint (folder or sidecar) whose weights a fresh run starts from instead of
    /// random ones; it must have the same network shape and pits per side (rules may differ),
    /// except that a plain network may be made wider (`network.hidden` larger: the new units start
    /// with zero outgoing weights, so the run starts from the same outputs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<PathBuf>,
    /// Optional: the release id (`NAME-YYYYMMDD-HASH8`, see [`crate::lineage`]) of a released
    /// network to start from, as `init` does; found among the released networks
    /// ([`crate::nn::model::checkpoint_roots`]) and refused unless its weights check out. A
    /// recipe names its parent this way, so that the release it makes records the parent's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

fn default_judge_dir() -> PathBuf {
    PathBuf::from("checkpoints/judge")
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games played in parallel (one search tree each; one network call per simulation step).
    pub games: usize,
    /// New positions generated per iteration before training on the buffer.
    pub positions_per_iteration: usize,
    /// Gumbel noise scale at the root at the first move of a game (1 = sample as Gumbel AZ).
    pub temperature_start: f32,
    /// Gumbel noise scale from `temperature_moves` on.
    pub temperature_end: f32,
    /// Moves over which the noise scale goes linearly from start to end.
    pub temperature_moves: u32,
    /// Weight of the root search value in the value target (0: the game result alone). The search
    /// value is its utility, so with `search.margin_weight > 0` it mixes in a margin: keep it 0.
    pub value_target_mix: f32,
    /// Each game starts after 0 to this many opening moves (not trained on), uniformly random
    /// unless `opening_greedy` says, so both seats see won and lost positions (default 0).
    #[serde(default)]
    pub opening_random_moves: u32,
    /// Chance that an opening move is `greedy`'s instead of uniformly random (default 0), so that
    /// self-play also starts from the lopsided middle games of greedy play that the judge's
    /// random/greedy source draws.
    #[serde(default)]
    pub opening_greedy: f32,
    /// Positions with at most this many seeds on the board are answered exactly by the endgame
    /// database (built once into the solver's cache): exact targets, and solved leaves in the
    /// search. 0 turns it off (the default).
    #[serde(default)]
    pub endgame_db_seeds: u32,
    /// How value and margin targets are made: `result` (the game's final margin, the default) or
    /// `truncated` (cut at exploratory moves and at the first exactly known position; needs
    /// `search.margin_weight = 1` to take the search's value as the margin there).
    #[serde(default)]
    pub targets: super::selfplay::Targets,
    /// Where samples come from: `selfplay` (the default) or `exact` (the supervised upper bound:
    /// positions of random and greedy games labelled by perfect play, see
    /// [`super::labelled`]; needs `endgame_db_seeds`).
    #[serde(default)]
    pub labels: Labels,
    /// With `labels = "exact"`: seconds the solver may take a position outside the database
    /// (0, the default: only positions the database covers are drawn).
    #[serde(default)]
    pub label_time_limit: f64,
    /// With self-play and `endgame_db_seeds`: besides each iteration's self-play positions, this
    /// share of `positions_per_iteration` more positions inside the database, drawn from random
    /// and greedy games and labelled exactly (the endgames self-play rarely reaches). Default 0.
    #[serde(default)]
    pub exact_share: f32,
    /// Policy target of the labelled positions (`labels = "exact"` and `exact_share`): 0, the
    /// default, is uniform over the optimal moves; above 0 every legal move weighs
    /// `exp((its value - the best) / exact_temperature)`, values in final-margin units.
    #[serde(default)]
    pub exact_temperature: f32,
    /// Where labelled positions are drawn (`games`, the default: random and greedy games stopped
    /// at a uniform ply; `judge`: where the judge set looks, see [`LabelDraw`]).
    #[serde(default)]
    pub label_draw: LabelDraw,
    /// Leave labelled positions with a single legal move out (they carry no policy gradient).
    /// Default false; `label_draw = "judge"` always leaves them out.
    #[serde(default)]
    pub label_skip_forced: bool,
    /// A file of exactly labelled positions outside the database (JSON lines, as
    /// `python -m kalaha.labels` writes them; see [`super::label_file`]), mixed into
    /// each iteration with `label_file_share`, beside self-play or beside the database's labels
    /// (`labels = "exact"`) alike. A relative path is read from the working directory. Default
    /// none.
    #[serde(default)]
    pub label_file: Option<String>,
    /// With `label_file`: this share of `positions_per_iteration` more positions drawn from the
    /// file each iteration, uniformly with replacement. Default 0.
    #[serde(default)]
    pub label_file_share: f32,
    /// With `label_file`: the lines whose index is a multiple of this are held out and never
    /// trained on (default 5, a fifth; 0 trains on every line).
    #[serde(default = "default_label_file_holdout")]
    pub label_file_holdout: u64,
}

fn default_label_file_holdout() -> u64 {
    5
}

/// How labelled positions are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelDraw {
    /// Games of random and greedy moves mixed, stopped at a uniformly drawn ply.
    #[default]
    Games,
    /// As the judge set's endgames are drawn: games of random and greedy moves (two in three) or
    /// of `minimax` after a few random moves (one in three), every position from the one where
    /// the database is entered to 6 plies later, those with two legal moves at least.
    Judge,
}

/// The policy loss.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyLoss {
    /// Cross-entropy against the policy target (uniform over tied optimal moves).
    #[default]
    CrossEntropy,
    /// On exactly labelled positions, `-log` of the probability the network gives the set of
    /// optimal moves (it need not split it among ties); cross-entropy on searched positions.
    Set,
}

/// Where training samples come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Labels {
    /// Self-play games searched with the network.
    #[default]
    Selfplay,
    /// Positions labelled by perfect play.
    Exact,
}

/// Replay buffer settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    /// Most recent positions kept.
    pub capacity: usize,
    /// No training before the buffer holds this many positions.
    pub min_size: usize,
}

/// Optimiser settings (AdamW with linear warm-up and cosine decay).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimConfig {
    /// Positions per gradient step.
    pub batch_size: usize,
    /// Gradient steps per iteration.
    pub steps_per_iteration: u32,
    /// Peak learning rate.
    pub lr: f64,
    /// Learning rate at the end of the run (cosine decay from `lr`).
    pub lr_min: f64,
    /// Gradient steps of linear warm-up.
    pub warmup_steps: u32,
    /// Decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the value loss (policy loss weight is 1).
    pub value_weight: f32,
    /// Weight of the margin loss.
    pub margin_weight: f32,
    /// The policy loss (optional; `cross_entropy` by default).
    #[serde(default)]
    pub policy_loss: PolicyLoss,
    /// Weight of the move head's loss: Huber loss (in seeds) of every legal move's predicted
    /// seeds lost against its target (optional, default 0; needs `network.moves = true`).
    #[serde(default)]
    pub moves_weight: f32,
    /// Train the move head on the search's Q gaps of searched positions too, not only on exact
    /// labels (optional, default false).
    #[serde(default)]
    pub moves_from_search: bool,
    /// Decay per gradient step of the weights' moving average (optional, default 0: none). With
    /// it, a checkpoint's network, the one evaluated and released, is that average (Polyak
    /// averaging); self-play and the gradient steps go on with the trained weights, which the
    /// checkpoint keeps beside it for `--resume` (`src/train/ema.rs`).
    #[serde(default)]
    pub ema_decay: f64,
    /// Share of each batch's positions whose stored seeds are split afresh between the two
    /// stores before the step (optional, default 0: none). Under every rule set the
    /// margin-optimal moves do not depend on that split, so the policy and move targets stay as
    /// they are and the margin and value targets move with the stores
    /// (`train/learn.rs`, `resplit_stores`). Needs `selfplay.value_target_mix = 0`.
    #[serde(default)]
    pub store_resplit: f32,
}

/// Periodic evaluation settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalConfig {
    /// Evaluate every this many iterations (0: never; the last iteration always is).
    pub every: u32,
    /// Games per opponent and seat.
    pub games: u32,
    /// Opponents, as bot names (`random`, `greedy`, `minimax:4`, ...).
    pub opponents: Vec<String>,
    /// Positions judged by the exact solver (0: skip; needs the solver).
    pub solver_positions: usize,
    /// Optional: seconds the solver may spend on each judged position (0: no limit); positions
    /// it cannot prove in time are left out of the set and counted.
    #[serde(default)]
    pub solver_time_limit: f64,
    /// Optional: positions in each of the two held-out sets inside the endgame database
    /// ([`crate::eval::heldout`]; 0, the default: none). Needs `selfplay.endgame_db_seeds`.
    #[serde(default)]
    pub heldout_positions: usize,
}

/// A time limit in seconds from the config's `key`: 0 for none, else a duration; anything
/// outside the one range of time limits ([`crate::solver::seconds`]: 0 to 366 days) is an error
/// naming the key.
fn time_limit(seconds: f64, key: &str) -> anyhow::Result<Option<std::time::Duration>> {
    match crate::solver::seconds::seconds(seconds) {
        Ok(d) => Ok((!d.is_zero()).then_some(d)),
        Err(e) => Err(KeyError::new(key, format!("{key} {e} (0: no limit)")).into()),
    }
}

/// `Ok` if `ok`, else an error naming `key` and saying `why`.
fn check(ok: bool, key: &str, why: &str) -> anyhow::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(KeyError::new(key, format!("{key} {why}")).into())
    }
}

/// A value the config cannot take, with the dotted key it is under; [`locate`] adds where the
/// value came from. (The merged table the config is read from is no file anyone wrote: a line of
/// it would point nowhere.)
#[derive(Debug)]
pub(crate) struct KeyError {
    /// The dotted key (`search.simulations`; an unknown key's own name).
    key: String,
    /// What is wrong, the key named in it.
    text: String,
}

impl KeyError {
    fn new(key: &str, text: String) -> KeyError {
        KeyError {
            key: key.to_string(),
            text,
        }
    }
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for KeyError {}

/// Reads the merged table (file, stages' sets, overrides) into a config; a value of the wrong
/// type, out of its type's range, or under an unknown key is a [`KeyError`] naming the key.
fn read_table(table: toml::Table) -> anyhow::Result<TrainConfig> {
    toml::Value::Table(table)
        .try_into::<TrainConfig>()
        .map_err(|e| {
            // toml keeps the key path private and shows it as the last line, "in `a.b`", of an
            // error without a source text.
            let shown = e.to_string();
            let mut key = shown
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("in `")?.strip_suffix('`'))
                .unwrap_or("")
                .to_string();
            let message = e.message().trim_end().to_string();
            // An unknown or missing key is reported at the table above it.
            let named = ["unknown field `", "missing field `"]
                .iter()
                .find_map(|p| message.strip_prefix(p)?.split('`').next());
            if let Some(field) = named {
                key = if key.is_empty() {
                    field.to_string()
                } else {
                    format!("{key}.{field}")
                };
            }
            let text = if key.is_empty() {
                message
            } else {
                format!("{key}: {message}")
            };
            KeyError { key, text }.into()
        })
}

/// Says where the value behind a [`KeyError`] came from, as context: the last of `sets` (the
/// `--set` overrides) that names its key, else the line of the config `text` that holds it (in the
/// `set` of stage `stage` (0-based) or of an earlier stage, else the file's own settings). Other
/// errors, and a key found nowhere (a missing one), pass as they are.
pub(crate) fn locate(
    err: anyhow::Error,
    text: &str,
    sets: &[String],
    stage: Option<usize>,
) -> anyhow::Error {
    let Some(key) = err.downcast_ref::<KeyError>().map(|k| k.key.clone()) else {
        return err;
    };
    let covers = |a: &str, b: &str| a == b || b.starts_with(a) && b[a.len()..].starts_with('.');
    if let Some(set) = sets
        .iter()
        .rev()
        .find(|s| covers(override_key(s), &key) || covers(&key, override_key(s)))
    {
        return err.context(format!("--set '{set}'"));
    }
    match key_line(text, &key, stage) {
        Some((line, Some(j))) => err.context(format!("line {line} (the set of stage {})", j + 1)),
        Some((line, None)) => err.context(format!("line {line}")),
        None => err,
    }
}

/// The 1-based line of `text` that holds the dotted `key`, and the stage (0-based) whose `set`
/// holds it: searched in the sets of stage `stage` down to the first, then in the file's own
/// settings.
fn key_line(text: &str, key: &str, stage: Option<usize>) -> Option<(usize, Option<usize>)> {
    use toml::de::{DeTable, DeValue};
    fn find(t: &DeTable<'_>, path: &[&str]) -> Option<std::ops::Range<usize>> {
        let (first, rest) = path.split_first()?;
        let (k, v) = t.iter().find(|(k, _)| k.get_ref().as_ref() == *first)?;
        match (rest.is_empty(), v.get_ref()) {
            (true, _) => Some(k.span()),
            (false, DeValue::Table(inner)) => find(inner, rest),
            _ => None,
        }
    }
    let doc = DeTable::parse(text).ok()?;
    let path: Vec<&str> = key.split('.').collect();
    let stages = doc
        .get_ref()
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == "stage")
        .and_then(|(_, v)| v.get_ref().as_array());
    let in_stage = stage.zip(stages).and_then(|(i, stages)| {
        (0..=i).rev().find_map(|j| {
            let table = stages.get(j)?.get_ref().as_table()?;
            let (_, set) = table.iter().find(|(k, _)| k.get_ref().as_ref() == "set")?;
            find(set.get_ref().as_table()?, &path).map(|span| (span, Some(j)))
        })
    });
    let (span, j) = in_stage.or_else(|| find(doc.get_ref(), &path).map(|s| (s, None)))?;
    Some((text[..span.start].matches('\n').count() + 1, j))
}

impl TrainConfig {
    /// Reads a config file and applies `key.sub=value` overrides.
    pub fn load(path: &Path, sets: &[String]) -> anyhow::Result<TrainConfig> {
        super::Recipe::load(path, sets)?.single()
    }

    /// Parses config text and applies overrides. A recipe of several stages
    /// ([`super::recipe`]) is refused: [`super::Recipe`] reads those.
    pub fn parse(text: &str, sets: &[String]) -> anyhow::Result<TrainConfig> {
        super::Recipe::parse(text, sets, "the config")?.single()
    }

    /// A config from a parsed TOML table (no `[[stage]]`) with overrides, checked.
    pub(crate) fn from_table(table: toml::Table, sets: &[String]) -> anyhow::Result<TrainConfig> {
        TrainConfig::from_table_with(table, sets, |_| Ok(()))
    }

    /// [`TrainConfig::from_table`], with `fix` applied to the table after the overrides.
    pub(crate) fn from_table_with(
        mut table: toml::Table,
        sets: &[String],
        fix: impl FnOnce(&mut toml::Table) -> anyhow::Result<()>,
    ) -> anyhow::Result<TrainConfig> {
        for set in sets {
            apply_set(&mut table, set)?;
        }
        fix(&mut table)?;
        let cfg = read_table(table)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The checkpoint a fresh run starts from: `run.init`, or the folder of the release
    /// `run.parent` names (checked), or none.
    pub fn init_source(&self) -> anyhow::Result<Option<PathBuf>> {
        if let Some(id) = &self.run.parent {
            let roots = crate::nn::model::checkpoint_roots();
            let (dir, _) = crate::lineage::resolve_parent(id, &roots).context("run.parent")?;
            return Ok(Some(dir));
        }
        Ok(self.run.init.clone())
    }

    /// The rules the config names.
    pub fn rules(&self) -> anyhow::Result<Rules> {
        Ok(self.rules.build()?)
    }

    /// The evaluation opponents, ready to play under the config's rules (loaded through a fresh
    /// [`BotContext`]: call once per run).
    pub fn opponents(&self) -> anyhow::Result<Vec<Player>> {
        BotContext::new().prepare_all(&self.opponent_specs()?, &self.rules()?)
    }

    /// The evaluation opponents' names, parsed.
    pub fn opponent_specs(&self) -> anyhow::Result<Vec<BotSpec>> {
        self.eval
            .opponents
            .iter()
            .map(|s| {
                s.parse::<BotSpec>()
                    .map_err(|e| anyhow::anyhow!("eval.opponents: {e}"))
            })
            .collect()
    }

    /// Refuses impossible values, naming the key.
    pub fn validate(&self) -> anyhow::Result<()> {
        self.validate_run()?;
        self.rules().context("rules")?;
        self.validate_network()?;
        self.validate_search()?;
        self.validate_selfplay()?;
        self.validate_learning()?;
        self.opponent_specs()?;
        check(
            self.eval.heldout_positions <= 1_000_000,
            "eval.heldout_positions",
            "must be 0 to 1000000",
        )?;
        check(
            self.eval.heldout_positions == 0 || self.selfplay.endgame_db_seeds > 0,
            "eval.heldout_positions",
            "needs selfplay.endgame_db_seeds (the sets are labelled by the endgame database)",
        )?;
        time_limit(self.eval.solver_time_limit, "eval.solver_time_limit")?;
        Ok(())
    }

    /// The solver's time limit per judged position (`eval.solver_time_limit`), if any.
    pub fn judge_time_limit(&self) -> Option<std::time::Duration> {
        time_limit(self.eval.solver_time_limit, "eval.solver_time_limit")
            .ok()
            .flatten()
    }

    /// The solver's time limit per labelled position outside the database
    /// (`selfplay.label_time_limit`), if any.
    pub fn label_time_limit(&self) -> Option<std::time::Duration> {
        time_limit(self.selfplay.label_time_limit, "selfplay.label_time_limit")
            .ok()
            .flatten()
    }

    /// The `[run]` keys.
    fn validate_run(&self) -> anyhow::Result<()> {
        let r = &self.run;
        check(
            !r.name.is_empty() && !r.name.contains(['/', '\\']) && r.name != "..",
            "run.name",
            "must be a plain folder name",
        )?;
        check(
            r.checkpoint_dir.join(&r.name) != r.judge_dir,
            "run.name",
            "names the judge sets' folder (run.judge_dir), not a run's",
        )?;
        check(r.iterations >= 1, "run.iterations", "must be at least 1")?;
        check(
            r.checkpoint_every >= 1,
            "run.checkpoint_every",
            "must be at least 1",
        )?;
        check(
            matches!(r.device.as_str(), "cpu" | "wgpu" | "cuda"),
            "run.device",
            "must be cpu, wgpu or cuda",
        )?;
        check(
            r.init.is_none() || r.parent.is_none(),
            "run.parent",
            "and run.init both name a start: give one",
        )?;
        Ok(())
    }

    /// The `[network]` keys.
    fn validate_network(&self) -> anyhow::Result<()> {
        let n = &self.network;
        check(
            (1..=4096).contains(&n.hidden),
            "network.hidden",
            "must be 1 to 4096",
        )?;
        check(
            (1..=16).contains(&n.layers),
            "network.layers",
            "must be 1 to 16",
        )?;
        check(
            n.block != crate::nn::Block::Transformer
                || (n.input == crate::nn::Input::Onehot && n.hidden.is_multiple_of(4)),
            "network.block",
            "= \"transformer\" needs network.input = \"onehot\" and network.hidden a multiple of 4 (its heads)",
        )?;
        let total = self.rules()?.total_seeds();
        check(
            n.margin_bins_fit(total),
            "network.margin_bins",
            &format!(
                "must be 0 (value and margin outputs) or all seeds + 1 = {} (a bin for every final margin)",
                crate::nn::NetConfig::margin_bins_for(total)
            ),
        )?;
        Ok(())
    }

    /// The `[search]` keys.
    fn validate_search(&self) -> anyhow::Result<()> {
        let s = &self.search;
        check(
            (1..=4096).contains(&s.simulations),
            "search.simulations",
            "must be 1 to 4096",
        )?;
        check(
            s.considered_actions >= 1,
            "search.considered_actions",
            "must be at least 1",
        )?;
        check(
            s.c_visit >= 0.0 && s.c_visit.is_finite(),
            "search.c_visit",
            "must be 0 or more",
        )?;
        check(
            s.c_scale > 0.0 && s.c_scale.is_finite(),
            "search.c_scale",
            "must be positive",
        )?;
        check(
            (0.0..=1.0).contains(&s.margin_weight),
            "search.margin_weight",
            "must be 0 to 1",
        )?;
        Ok(())
    }

    /// The `[selfplay]` keys.
    fn validate_selfplay(&self) -> anyhow::Result<()> {
        let (p, s) = (&self.selfplay, &self.search);
        check(
            (1..=65536).contains(&p.games),
            "selfplay.games",
            "must be 1 to 65536",
        )?;
        check(
            p.positions_per_iteration >= 1,
            "selfplay.positions_per_iteration",
            "must be at least 1",
        )?;
        check(
            p.temperature_start >= 0.0,
            "selfplay.temperature_start",
            "must be 0 or more",
        )?;
        check(
            p.temperature_end >= 0.0,
            "selfplay.temperature_end",
            "must be 0 or more",
        )?;
        check(
            (0.0..=1.0).contains(&p.value_target_mix),
            "selfplay.value_target_mix",
            "must be 0 to 1",
        )?;
        check(
            (0.0..=1.0).contains(&p.opening_greedy),
            "selfplay.opening_greedy",
            "must be 0 to 1",
        )?;
        check(
            p.endgame_db_seeds <= crate::solver::endgame::MAX_DB_SEEDS
                && p.endgame_db_seeds < self.rules()?.total_seeds(),
            "selfplay.endgame_db_seeds",
            "must be 0 (off) to fewer than the seeds in the game (at most 100)",
        )?;
        check(
            p.labels == Labels::Selfplay || p.endgame_db_seeds > 0,
            "selfplay.labels",
            "= \"exact\" needs selfplay.endgame_db_seeds > 0",
        )?;
        check(
            (0.0..=4.0).contains(&p.exact_share)
                && (p.exact_share == 0.0 || p.endgame_db_seeds > 0),
            "selfplay.exact_share",
            "must be 0 to 4, and needs selfplay.endgame_db_seeds > 0",
        )?;
        check(
            (0.0..=4.0).contains(&p.label_file_share)
                && (p.label_file_share > 0.0) == p.label_file.is_some()
                && (p.label_file.is_none() || p.endgame_db_seeds > 0),
            "selfplay.label_file_share",
            "must be 0 to 4, above 0 exactly when selfplay.label_file is set (which needs \
             selfplay.endgame_db_seeds > 0)",
        )?;
        check(
            (0.0..=100.0).contains(&p.exact_temperature),
            "selfplay.exact_temperature",
            "must be 0 (uniform over the optimal moves) to 100",
        )?;
        time_limit(p.label_time_limit, "selfplay.label_time_limit")?;
        check(
            p.targets != super::selfplay::Targets::Truncated || s.margin_weight == 1.0,
            "selfplay.targets",
            "= \"truncated\" needs search.margin_weight = 1 (the search's value is then a margin)",
        )?;
        Ok(())
    }

    /// The `[replay]` and `[optim]` keys.
    fn validate_learning(&self) -> anyhow::Result<()> {
        let b = &self.replay;
        check(b.capacity >= 1, "replay.capacity", "must be at least 1")?;
        check(
            b.min_size <= b.capacity,
            "replay.min_size",
            "must not exceed replay.capacity",
        )?;
        let o = &self.optim;
        check(o.batch_size >= 1, "optim.batch_size", "must be at least 1")?;
        check(
            o.lr > 0.0 && o.lr.is_finite(),
            "optim.lr",
            "must be positive",
        )?;
        check(
            o.lr_min >= 0.0 && o.lr_min <= o.lr,
            "optim.lr_min",
            "must be 0 to optim.lr",
        )?;
        check(
            o.weight_decay >= 0.0,
            "optim.weight_decay",
            "must be 0 or more",
        )?;
        check(
            o.value_weight >= 0.0,
            "optim.value_weight",
            "must be 0 or more",
        )?;
        check(
            o.margin_weight >= 0.0,
            "optim.margin_weight",
            "must be 0 or more",
        )?;
        check(
            o.moves_weight >= 0.0 && o.moves_weight.is_finite(),
            "optim.moves_weight",
            "must be 0 or more",
        )?;
        check(
            o.moves_weight == 0.0 || self.network.moves,
            "optim.moves_weight",
            "needs network.moves = true (a move head to train)",
        )?;
        check(
            (0.0..1.0).contains(&o.ema_decay),
            "optim.ema_decay",
            "must be at least 0 (off) and below 1 (e.g. 0.999)",
        )?;
        check(
            (0.0..=1.0).contains(&o.store_resplit),
            "optim.store_resplit",
            "must be 0 (off) to 1",
        )?;
        check(
            o.store_resplit == 0.0 || self.selfplay.value_target_mix == 0.0,
            "optim.store_resplit",
            "needs selfplay.value_target_mix = 0 (a value target that is the game's result)",
        )?;
        Ok(())
    }
}

/// Applies one `a.b.c=value` override; the value is read as TOML, or as a string if it is not.
pub(crate) fn apply_set(table: &mut toml::Table, set: &str) -> anyhow::Result<()> {
    let (key, raw) = set
        .split_once('=')
        .with_context(|| format!("--set '{set}' is not key=value"))?;
    let value: toml::Value = match format!("v = {}", raw.trim()).parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("parsed above"),
        Err(_) => toml::Value::String(raw.trim().to_string()),
    };
    apply_set_value(table, key.trim(), value).with_context(|| format!("--set '{set}'"))
}

/// The dotted key a `--set KEY=VALUE` override names.
pub(crate) fn override_key(set: &str) -> &str {
    set.split_once('=').map_or(set, |(k, _)| k).trim()
}

/// Sets the dotted `key` (`section.key`) of `table` to `value`, creating sections on the way.
pub(crate) fn apply_set_value(
    table: &mut toml::Table,
    key: &str,
    value: toml::Value,
) -> anyhow::Result<()> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("bad key '{key}'");
    }
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .with_context(|| format!("'{p}' is not a section"))?;
    }
    t.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMOKE: &str = include_str!("../../configs/smoke.toml");

    #[test]
    fn shipped_configs_parse() {
        TrainConfig::parse(SMOKE, &[]).unwrap();
        // The shipped Kalah(6,4) network's recipe: a 4x256 network from nothing, widened to 4x512.
        let r = super::super::Recipe::parse(include_str!("../../configs/kalah64.toml"), &[], "k")
            .unwrap();
        assert_eq!(r.names(), ["base", "widen", "ema"]);
        assert!(r.stages[0].config.run.init.is_none() && r.stages[0].config.run.parent.is_none());
        assert_eq!(r.last().config.network.hidden, 512);
        // Every shipped config, its `[rules]` table included, loads and names valid rules, and
        // none starts from a path into the records: a start is a release id or a recipe's stage.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).unwrap();
                let r = super::super::Recipe::parse(&text, &[], "x")
                    .unwrap_or_else(|e| panic!("{p:?}: {e:#}"));
                for s in &r.stages {
                    s.config.rules().unwrap();
                    let init = s.config.run.init.as_deref().unwrap_or(Path::new(""));
                    assert!(!init.starts_with("experiments"), "{p:?}: run.init {init:?}");
                    assert!(
                        !s.config.run.experiment_dir.starts_with("experiments"),
                        "{p:?}"
                    );
                }
                n += 1;
            }
        }
        assert!(n >= 2);
    }

    /// Run output goes to `checkpoints/runs/` in the shipped configs; the judge sets have a key
    /// of their own, and a run's folder may not be theirs.
    #[test]
    fn the_judge_sets_folder_is_its_own_key() {
        let c = TrainConfig::parse(SMOKE, &[]).unwrap();
        assert_eq!(c.run.checkpoint_dir, Path::new("checkpoints/runs"));
        assert_eq!(c.run.judge_dir, Path::new("checkpoints/judge"));
        let c = TrainConfig::parse(SMOKE, &["run.judge_dir=\"sets\"".to_string()]).unwrap();
        assert_eq!(c.run.judge_dir, Path::new("sets"));
        let sets = [
            "run.checkpoint_dir=\"checkpoints\"".to_string(),
            "run.name=\"judge\"".to_string(),
        ];
        let e = format!("{:#}", TrainConfig::parse(SMOKE, &sets).unwrap_err());
        assert!(e.contains("run.name") && e.contains("run.judge_dir"), "{e}");
    }

    #[test]
    fn overrides_apply() {
        let sets = [
            "search.simulations=8".to_string(),
            "run.name=other".to_string(),
        ];
        let c = TrainConfig::parse(SMOKE, &sets).unwrap();
        assert_eq!(c.search.simulations, 8);
        assert_eq!(c.run.name, "other");
    }

    #[test]
    fn errors_name_the_key() {
        let e = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            format!("{:#}", TrainConfig::parse(SMOKE, &sets).unwrap_err())
        };
        assert!(e(&["selfplay.games=0"]).contains("selfplay.games"));
        assert!(e(&["search.bogus=1"]).contains("bogus"));
        assert!(e(&["optim.lr=-1"]).contains("optim.lr"));
        assert!(e(&["search.margin_weight=2"]).contains("search.margin_weight"));
        assert!(e(&["network.activation=\"swish\""]).contains("swish"));
        assert!(e(&["rules.pits=40"]).contains("rules"));
        assert!(e(&["eval.opponents=[\"deep-blue\"]"]).contains("eval.opponents"));
        // A decay of 1 would never move the average, one above 1 or below 0 would diverge.
        for d in ["1.0", "1.5", "-0.1"] {
            assert!(e(&[&format!("optim.ema_decay={d}")]).contains("optim.ema_decay"));
        }
        let c = TrainConfig::parse(SMOKE, &["optim.ema_decay=0.99".to_string()]).unwrap();
        assert_eq!(c.optim.ema_decay, 0.99);
        for share in ["1.5", "-0.5"] {
            let msg = e(&[&format!("optim.store_resplit={share}")]);
            assert!(msg.contains("optim.store_resplit") && msg.contains("0 (off) to 1"));
        }
        // A value target mixed with the search's value cannot be moved with the stores.
        let msg = e(&["optim.store_resplit=0.5", "selfplay.value_target_mix=0.5"]);
        assert!(msg.contains("optim.store_resplit") && msg.contains("value_target_mix"));
        let c = TrainConfig::parse(SMOKE, &["optim.store_resplit=0.5".to_string()]).unwrap();
        assert_eq!(c.optim.store_resplit, 0.5);
    }

    /// The config's time limits go through one range check (`solver::seconds`): a number past
    /// `Duration`'s range, infinite, negative or not a number is an error naming the key (it
    /// panicked in `Duration::from_secs_f64` before, issue 54); 0 (no limit) and plain seconds pass.
    #[test]
    fn time_limits_out_of_range_are_refused_by_key() {
        for key in ["selfplay.label_time_limit", "eval.solver_time_limit"] {
            for bad in ["1e30", "inf", "-inf", "nan", "-1.0", "1e300"] {
                let e = TrainConfig::parse(SMOKE, &[format!("{key}={bad}")]).unwrap_err();
                let shown = format!("{e:#}");
                assert!(
                    shown.contains(key) && shown.contains("out of range"),
                    "{key}={bad}: {shown}"
                );
            }
            for good in ["0", "0.5", "30"] {
                let c = TrainConfig::parse(SMOKE, &[format!("{key}={good}")]).unwrap();
                let limit = if key.starts_with("selfplay") {
                    c.label_time_limit()
                } else {
                    c.judge_time_limit()
                };
                let want: f64 = good.parse().unwrap();
                assert_eq!(limit.map_or(0.0, |d| d.as_secs_f64()), want, "{key}={good}");
            }
        }
    }

    /// A value the config cannot take names its key and where it came from: the `--set` that gave
    /// it, or its line in the file (in a stage's set or the file's own settings), never a line of
    /// the merged table the config is read from (no one wrote that text).
    #[test]
    fn a_bad_value_names_its_key_and_its_source() {
        let recipe = |text: &str, sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let e = super::super::Recipe::parse(text, &sets, "c.toml").unwrap_err();
            let shown = format!("{e:#}");
            assert!(!shown.contains("TOML parse error"), "{shown}");
            shown
        };
        let e = |sets: &[&str]| recipe(SMOKE, sets);
        // Overrides: a wrong type, a number out of its type's range, an unknown key, a value the
        // checks refuse, a section replaced by a number.
        let m = e(&["search.simulations=\"abc\""]);
        assert!(
            m.starts_with("--set 'search.simulations=\"abc\"': search.simulations: invalid type"),
            "{m}"
        );
        let m = e(&["run.seed=1", "search.simulations=-5"]);
        assert!(
            m.starts_with("--set 'search.simulations=-5': search.simulations: invalid value"),
            "{m}"
        );
        let m = e(&["search.simulationz=3"]);
        assert!(
            m.starts_with("--set 'search.simulationz=3': search.simulationz: unknown field"),
            "{m}"
        );
        let m = e(&["selfplay.games=0"]);
        assert!(
            m.starts_with("--set 'selfplay.games=0': selfplay.games must be"),
            "{m}"
        );
        let m = e(&["search=3"]);
        assert!(
            m.starts_with("--set 'search=3': search: invalid type"),
            "{m}"
        );
        // The file's own line: `simulations = 4` is on line 30 of configs/smoke.toml.
        let line = SMOKE
            .lines()
            .position(|l| l.starts_with("simulations ="))
            .unwrap()
            + 1;
        let bad = SMOKE.replacen("simulations = 4", "simulations = 4.5", 1);
        let m = recipe(&bad, &[]);
        assert!(
            m.starts_with(&format!("line {line}: search.simulations: invalid type")),
            "{m}"
        );
        // An override of another key leaves the file's line to blame.
        let m = recipe(&bad, &["search.c_visit=40"]);
        assert!(m.starts_with(&format!("line {line}: ")), "{m}");
        let bad = SMOKE.replacen("simulations = 4", "simulations = 0", 1);
        let m = recipe(&bad, &[]);
        assert!(
            m.starts_with(&format!("line {line}: search.simulations must be")),
            "{m}"
        );
        // A stage's set: its own line, and the stage named; later stages inherit it.
        let staged = format!(
            "{SMOKE}\n[[stage]]\nname = \"a\"\niterations = 1\n\n[[stage]]\nname = \"b\"\niterations = 1\nset = {{ search.simulations = \"many\" }}\n\n[[stage]]\nname = \"c\"\niterations = 1\n"
        );
        let line = staged.lines().count() - 4;
        let m = recipe(&staged, &[]);
        assert!(
            m.starts_with(&format!(
                "stage 2 (b): line {line} (the set of stage 2): search.simulations: invalid type"
            )),
            "{m}"
        );
        let m = recipe(&staged, &["search.simulations=\"x\""]);
        assert!(
            m.contains("--set 'search.simulations=\"x\"': search.simulations"),
            "{m}"
        );
    }
}
