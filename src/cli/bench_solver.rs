//! `kalaha bench solver` and `kalaha bench endgame`: the solver's and the database builder's
//! throughput.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::solve::{show, spinner};
use super::{RuleArgs, emit, emit_json};
use crate::solver::request;

#[derive(Debug, Args)]
pub struct BenchEndgameArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// The most seeds on the board the database covers.
    #[arg(long, value_name = "SEEDS", default_value_t = 18)]
    db_seeds: u32,
    /// Builds timed; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Memory the database may take, in MiB.
    #[arg(long, value_name = "MB", default_value_t = crate::solver::DEFAULT_MEMORY_MB)]
    memory: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Flags of `kalaha bench solver`.
#[derive(Debug, Args)]
pub struct BenchSolverArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Positions to analyse.
    #[arg(long, default_value_t = 200)]
    positions: usize,
    /// Fewest random moves into the game.
    #[arg(long, default_value_t = 10)]
    from: usize,
    /// Most random moves into the game.
    #[arg(long, default_value_t = 30)]
    to: usize,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory for the transposition table and endgame database, in MiB.
    #[arg(long, value_name = "MB", default_value_t = crate::solver::DEFAULT_MEMORY_MB)]
    memory: usize,
    /// Endgame database: the most seeds on the board it covers (0 for none; default: automatic).
    #[arg(long, value_name = "SEEDS")]
    db_seeds: Option<u32>,
    /// Folder for endgame databases (default $KALAHA_CACHE, else ~/.cache/kalaha).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `kalaha bench solver`.
pub fn solver(a: BenchSolverArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
    anyhow::ensure!(a.from <= a.to, "--from must not exceed --to");
    anyhow::ensure!(a.positions > 0, "--positions must be at least 1");
    let config = request::config(a.memory, a.db_seeds, a.cache.as_deref());
    let t = Instant::now();
    let spinner = spinner();
    let solver = request::set_up(&rules, config, &|s| show(&spinner, &s));
    spinner.finish_and_clear();
    let solver = solver?;
    let setup = t.elapsed().as_secs_f64();
    let positions =
        crate::solver::bench::midgame_positions(&rules, a.positions, a.from, a.to, a.seed);
    let r = crate::solver::bench::bench_solver(&solver, &positions, setup);
    if a.json {
        emit_json(&r)
    } else {
        emit(&format!(
            "{}: {:.1} positions/s fully analysed ({} positions {}..{} moves into random games, {:.0} nodes each, {:.2} s on {} threads; database {} seeds, set up in {:.1} s)\n",
            r.rules,
            r.positions_per_sec,
            r.positions,
            a.from,
            a.to,
            r.nodes_per_position,
            r.seconds,
            r.threads,
            r.db_seeds,
            r.setup_seconds
        ))
    }
}

/// Runs `kalaha bench endgame`.
pub fn endgame(a: BenchEndgameArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
    anyhow::ensure!(a.runs >= 1, "--runs must be at least 1");
    let max = crate::solver::endgame::MAX_DB_SEEDS;
    anyhow::ensure!(
        a.db_seeds <= max,
        "--db-seeds must be at most {max}, got {}",
        a.db_seeds
    );
    crate::solver::endgame::check_budget(rules.pits(), a.db_seeds, a.memory)
        .map_err(|e| anyhow::anyhow!("{e} (--memory)"))?;
    let r = crate::solver::bench::bench_endgame(&rules, a.db_seeds, a.runs);
    if a.json {
        emit_json(&r)
    } else {
        emit(&format!(
            "{}: {:.1} M boards/s solved by retrograde analysis ({} seeds, {} boards, {:.2} s a build, median of {} on {} threads)\n",
            r.rules,
            r.boards_per_sec / 1e6,
            r.db_seeds,
            r.entries,
            r.seconds,
            r.runs.len(),
            r.threads
        ))
    }
}
