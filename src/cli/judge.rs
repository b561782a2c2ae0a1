//! `kalaha judge`: a network alone (its best move by policy) scored on the judge set, the fixed
//! solved positions every training run is judged on, so any checkpoint can be compared with the
//! curves of the runs.

use std::path::PathBuf;

use clap::Args;

use super::{emit, emit_json};
use crate::eval::judge::JUDGE_SEED;
use crate::eval::judge::report::{JudgeOptions, judge};

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The network: a checkpoint folder, its meta.json or its weights (`policy:PATH` also works).
    #[arg(long, value_name = "PATH")]
    network: String,
    /// Positions in the judge set (default: those of the set already solved for the network's
    /// rules in --cache, else 1200).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    positions: Option<u64>,
    /// Folder of solved judge sets (solved once there, at the seed every run uses).
    #[arg(long, value_name = "DIR", default_value = "checkpoints/judge")]
    cache: PathBuf,
    /// Draw the set from this seed instead of the one every run is judged on (a fresh sample of
    /// the same sources, solved once into --cache): how far a figure is from one sample's luck.
    /// Judge sets in the cache are left out of training, so keep other seeds' sets elsewhere.
    #[arg(long, default_value_t = JUDGE_SEED)]
    seed: u64,
    /// Seconds the solver may spend on each position when it solves the set (0: no limit);
    /// positions it cannot prove in time are left out and counted (default: the limit of the set
    /// already solved for the network's rules, else none; the six-seed sets use 10).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Also write the positions the network gets wrong to this file (JSON: position, source,
    /// ply, seeds on the board, exact value, the network's action and its value, every move's).
    #[arg(long, value_name = "FILE")]
    misses: Option<PathBuf>,
    /// Compare with this network on the same positions: the positions only one of the two gets
    /// right and an exact sign test of their difference (`against` in the JSON).
    #[arg(long, value_name = "PATH")]
    against: Option<String>,
    /// Judge the network searching this many simulations a move (its self-play search, without
    /// noise) instead of alone; `--against` then searches as much.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    simulations: Option<u32>,
    /// With `--simulations`: the search proves subtrees (MCTS-solver, `:prove=on` of a
    /// `policy:` bot), for both networks.
    #[arg(long, requires = "simulations")]
    prove: bool,
    /// With `--simulations`: the search's utility `(1 - W) * value + W * margin` (`:margin=W` of a
    /// `policy:` bot), for both networks. Default: the checkpoint's.
    #[arg(long, value_name = "W", requires = "simulations")]
    margin_weight: Option<f64>,
    /// With `--simulations`: the scale of the search's Q transform `(c_visit + max visits) * X * q`
    /// (`:c_scale=X` of a `policy:` bot), for both networks. Default: the checkpoint's.
    #[arg(long, value_name = "X", requires = "simulations")]
    c_scale: Option<f64>,
    /// With `--simulations`: the weight A of implicit minimax backups, each edge's Q being
    /// `(1 - A) * mean + A * minimax` (`:minimax=A` of a `policy:` bot), for both networks.
    /// Default: the checkpoint's (0).
    #[arg(long, value_name = "A", requires = "simulations")]
    minimax_weight: Option<f64>,
    /// Also score the network alone on the two held-out sets inside the endgame database (drawn
    /// as training draws and as the judge draws; built once into the solver's cache), with
    /// `--against` paired on them too (`heldout` in the JSON).
    #[arg(long)]
    heldout: bool,
    /// Positions in each held-out set.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
    heldout_positions: u64,
    /// Seeds on the board of the database that labels the held-out sets.
    #[arg(long, value_name = "SEEDS", default_value_t = crate::eval::judge::DB_REPORT_SEEDS, value_parser = clap::value_parser!(u32).range(1..=30))]
    heldout_db_seeds: u32,
    /// Weight of a network's move head in the logits it plays by (logits minus this times each
    /// move's predicted seeds lost; 0: the policy alone). Default: the players' own.
    #[arg(long, value_name = "W")]
    moves_mix: Option<f32>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: JudgeArgs) -> anyhow::Result<()> {
    let time_limit = a
        .time_limit
        .map(|t| {
            crate::solver::seconds::seconds(t).map_err(|e| anyhow::anyhow!("--time-limit: {e}"))
        })
        .transpose()?;
    // The one check of the search options (`bots::options`, as a bot spec's), naming the flag.
    if a.margin_weight
        .is_some_and(|w| crate::bots::options::margin_weight(w).is_err())
    {
        anyhow::bail!("--margin-weight must be a number from 0 to 1");
    }
    if a.c_scale
        .is_some_and(|x| crate::bots::options::c_scale(x).is_err())
    {
        let scales = crate::bots::PLAY_C_SCALES;
        anyhow::bail!(
            "--c-scale must be a number from {} to {}",
            scales.start(),
            scales.end()
        );
    }
    if a.minimax_weight
        .is_some_and(|w| crate::bots::options::minimax_weight(w).is_err())
    {
        anyhow::bail!("--minimax-weight must be a number from 0 to 1");
    }
    if a.moves_mix.is_some_and(|w| !(0.0..=100.0).contains(&w)) {
        anyhow::bail!("--moves-mix must be a number from 0 to 100");
    }
    let options = JudgeOptions {
        network: a.network,
        against: a.against,
        positions: a.positions.map(|n| n as usize),
        cache: a.cache,
        seed: a.seed,
        time_limit: time_limit.map(|t| (!t.is_zero()).then_some(t)),
        misses: a.misses,
        simulations: a.simulations,
        prove: a.prove,
        margin_weight: a.margin_weight,
        c_scale: a.c_scale,
        minimax_weight: a.minimax_weight,
        heldout: a
            .heldout
            .then_some((a.heldout_positions as usize, a.heldout_db_seeds)),
        moves_mix: a.moves_mix,
    };
    let report = judge(&options, a.json)?;
    if a.json {
        emit_json(&report)
    } else {
        emit(&report.text())
    }
}
