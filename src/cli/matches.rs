//! `kalaha match`: a series between two bots with fixed seats.

use std::sync::atomic::Ordering;
use std::time::Instant;

use clap::Args;
use serde::Serialize;

use super::progress::{bar, stop_on_ctrl_c};
use super::{RuleArgs, emit, emit_json};
use crate::bots::{BotContext, BotSpec, MatchConfig, MatchSummary, run_match_until};

#[derive(Debug, Args)]
pub struct MatchArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// The bot that starts as South: random, greedy, minimax:D, mcts:N, solver,
    /// guard:SECONDS:SPEC, policy:PATH[:SIMS][:margin=W][:c_scale=X][:prove=on][:minimax=A][:alphabeta=100ms|N][:db=off|N], or policy:auto[:SIMS] (the network trained for exactly these
    /// rules; policy bots answer endgames from the database unless :db=off).
    #[arg(long)]
    south: String,
    /// The bot that starts as North.
    #[arg(long)]
    north: String,
    /// Number of games (at least 1).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed of the series; the same seed gives the same results on any number of threads.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Each game calls its network alone, one position at a time, as many games at once as cores
    /// (by default a network player's evaluations from 64 games at once share forward passes; the
    /// games are the same either way)
    #[arg(long)]
    no_batch: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct MatchJson {
    #[serde(flatten)]
    summary: MatchSummary,
    south: String,
    north: String,
    rules: String,
    seed: u64,
    seconds: f64,
    interrupted: bool,
}

/// `cfg` with each network player's evaluations batched across the games played at once, unless
/// `no_batch` or a single game.
fn batched(cfg: MatchConfig, no_batch: bool) -> anyhow::Result<MatchConfig> {
    #[cfg(feature = "train")]
    if !no_batch && cfg.games > 1 {
        let threads = rayon::current_num_threads();
        let batch = |p: crate::bots::Player| {
            p.batched(threads)
                .map_err(|e| anyhow::anyhow!("cannot start the batching threads: {e}"))
        };
        return Ok(MatchConfig {
            south: batch(cfg.south)?,
            north: batch(cfg.north)?,
            ..cfg
        });
    }
    let _ = no_batch;
    Ok(cfg)
}

pub fn run(a: MatchArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
    let south = a.south.parse::<BotSpec>()?;
    let north = a.north.parse::<BotSpec>()?;
    let mut ctx = BotContext::new();
    let cfg = MatchConfig {
        south: ctx.prepare(&south, &rules)?,
        north: ctx.prepare(&north, &rules)?,
        rules,
        games: a.games,
        seed: a.seed,
    };
    let cfg = batched(cfg, a.no_batch)?;
    let bar = bar(cfg.games as u64, "games");
    // Ctrl-C stops starting new games; the games already played are reported.
    let stop = stop_on_ctrl_c();
    let t = Instant::now();
    let summary = run_match_until(&cfg, &|| bar.inc(1), &stop);
    bar.finish_and_clear();
    let interrupted = stop.load(Ordering::Relaxed);
    let seconds = t.elapsed().as_secs_f64();
    if a.json {
        return emit_json(&MatchJson {
            summary,
            south: cfg.south.to_string(),
            north: cfg.north.to_string(),
            rules: cfg.rules.describe(),
            seed: cfg.seed,
            seconds,
            interrupted,
        });
    }
    let s = &summary;
    if interrupted {
        eprintln!(
            "kalaha: interrupted: {} of {} games played",
            s.games, cfg.games
        );
    }
    emit(&format!(
        "{}\n{} (south) vs {} (north), {} games in {:.2} s\nsouth wins {}, north wins {}, draws {}, mean margin {:+.2} (south - north), mean length {:.1} moves\n",
        cfg.rules.describe(),
        cfg.south,
        cfg.north,
        s.games,
        seconds,
        s.south_wins,
        s.north_wins,
        s.draws,
        s.mean_margin,
        s.mean_moves
    ))
}
