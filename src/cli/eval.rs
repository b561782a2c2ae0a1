//! `kalaha eval`: a gauntlet or round robin between bots, rated, optionally judged by the solver,
//! and reported under `experiments/<name>/` ([`crate::eval::run`] does the work).

use std::path::PathBuf;

use clap::Args;

use super::progress::{EvalBars, command_line, stop_on_ctrl_c};
use super::{RuleArgs, emit, emit_json};
use crate::bots::BotSpec;
use crate::eval::Mode;
use crate::eval::run::{self, Request};

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Gauntlet: this player against each of --opponents. Bot specs: random, greedy, minimax:D,
    /// mcts:N, solver, guard:SECONDS:SPEC, policy:PATH[:SIMS][:margin=W][:c_scale=X][:prove=on][:minimax=A][:alphabeta=100ms|N][:db=off|N], policy:auto[:SIMS] (the network trained for
    /// exactly these rules; policy bots answer endgames from the database unless :db=off).
    #[arg(
        long,
        value_name = "SPEC",
        requires = "opponents",
        conflicts_with = "players"
    )]
    player: Option<String>,
    /// Gauntlet opponents, comma-separated bot specs.
    #[arg(long, value_name = "SPEC,SPEC,..")]
    opponents: Option<String>,
    /// Round robin: every one of these (comma-separated) against every other.
    #[arg(long, value_name = "SPEC,SPEC,..")]
    players: Option<String>,
    /// Games per pairing (even: pairs of games, one from each seat, share an opening).
    #[arg(long, default_value_t = 20)]
    games: u32,
    /// Random moves that make each opening.
    #[arg(long, value_name = "K", default_value_t = 4)]
    opening_moves: u32,
    /// Opening set: reused if the file exists, else drawn and saved there (JSON).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Seed of the openings and of the bots' randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The player held at 0 Elo (default `random` if it plays, else the first player).
    #[arg(long, value_name = "SPEC")]
    anchor: Option<String>,
    /// Judge this player's moves with the exact solver.
    #[arg(long, value_name = "SPEC")]
    judge: Option<String>,
    /// Memory for the judging solver's table and endgame database, in MiB.
    #[arg(long, value_name = "MB", default_value_t = 1024)]
    judge_memory: usize,
    /// Write report.json, report.md and ratings.svg to <experiments>/<NAME>/.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Folder the --name reports go under.
    #[arg(long, value_name = "DIR", default_value = "experiments")]
    experiments: PathBuf,
    /// A training run (its checkpoint folder, meta.json, or experiments/<run>): chart its
    /// evaluation curve as run-curve.svg beside the report.
    #[arg(long, value_name = "DIR", requires = "name")]
    run: Option<PathBuf>,
    /// Each game calls its network alone, one position at a time, as many games at once as
    /// cores (by default a network player's evaluations from 64 games at once share forward
    /// passes; the games are the same either way).
    #[arg(long)]
    no_batch: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

fn specs(list: &str) -> anyhow::Result<Vec<BotSpec>> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Ok(s.parse::<BotSpec>()?))
        .collect()
}

/// The request the flags describe.
fn request(a: EvalArgs) -> anyhow::Result<Request> {
    let (mode, players) = match (&a.player, &a.opponents, &a.players) {
        (Some(p), Some(o), None) => {
            let mut v = specs(p)?;
            if v.len() != 1 {
                anyhow::bail!("--player takes one bot spec; use --players for a round robin");
            }
            v.extend(specs(o)?);
            (Mode::Gauntlet, v)
        }
        (None, None, Some(p)) => (Mode::RoundRobin, specs(p)?),
        _ => anyhow::bail!("give --player SPEC with --opponents SPEC,.. or --players SPEC,.."),
    };
    Ok(Request {
        rules: a.rules.rules()?,
        mode,
        players,
        games: a.games,
        opening_moves: a.opening_moves,
        openings: a.openings,
        seed: a.seed,
        anchor: a.anchor.as_deref().map(str::parse).transpose()?,
        judge: a.judge.as_deref().map(str::parse).transpose()?,
        judge_memory: a.judge_memory,
        output: a.name.map(|n| a.experiments.join(n)),
        run: a.run,
        command: command_line(),
        external: Vec::new(),
        batch: !a.no_batch,
    })
}

pub fn run(a: EvalArgs) -> anyhow::Result<()> {
    let json = a.json;
    let req = request(a)?;
    let stop = stop_on_ctrl_c();
    let bars = EvalBars::new();
    let out = run::run(&req, &bars, &stop);
    bars.finish();
    let out = out?;
    let r = &out.report;
    if r.interrupted {
        eprintln!(
            "kalaha: interrupted: {} of {} games played",
            r.games_played, r.games_planned
        );
    }
    if let Some(dir) = out.written.as_ref().filter(|_| !json) {
        eprintln!("kalaha: report written to {}", dir.display());
    }
    if json {
        emit_json(r)
    } else {
        emit(&out.markdown)
    }
}
