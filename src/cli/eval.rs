//! `kalaha eval`: a gauntlet or round robin between bots, rated, optionally judged by the solver,
//! and reported under `experiments/<name>/`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{RuleArgs, emit, emit_json};
use crate::bots::{BotContext, BotSpec};
use crate::eval::chart::{self, RatingBar};
use crate::eval::report::{self, Report};
use crate::eval::{Arena, Mode, OpeningSet, judge, tally};
use crate::solver::{Solver, SolverConfig};

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Gauntlet: this player against each of --opponents.
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
    /// Write report.json, report.md and ratings.png to <experiments>/<NAME>/.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Folder the --name reports go under.
    #[arg(long, value_name = "DIR", default_value = "experiments")]
    experiments: PathBuf,
    /// A training run (its checkpoint folder, meta.json, or experiments/<run>): chart its
    /// evaluation curve as run-curve.png beside the report.
    #[arg(long, value_name = "DIR", requires = "name")]
    run: Option<PathBuf>,
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

/// Writes a report file whole, naming it in the error.
fn write_bytes(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    crate::files::write_bytes(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn bar(len: u64, what: &str) -> ProgressBar {
    ProgressBar::new(len).with_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}, {{elapsed}} elapsed, eta {{eta}}"
        ))
        .expect("valid template"),
    )
}

pub fn run(a: EvalArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
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
    let names: Vec<String> = players.iter().map(|p| p.to_string()).collect();
    if players.len() < 2 {
        anyhow::bail!("an evaluation needs at least two players");
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            anyhow::bail!("player {n} is named twice");
        }
    }
    if a.games == 0 || a.games % 2 == 1 {
        anyhow::bail!(
            "--games must be a positive even number (pairs of games, one from each seat), not {}",
            a.games
        );
    }
    let players = BotContext::new().prepare_all(&players, &rules)?;
    let find = |what: &str, spec: &str| -> anyhow::Result<usize> {
        let s = spec.parse::<BotSpec>()?.to_string();
        names
            .iter()
            .position(|n| *n == s)
            .ok_or_else(|| anyhow::anyhow!("{what} {s} is not one of the players"))
    };
    let anchor = match &a.anchor {
        Some(s) => find("anchor", s)?,
        None => names.iter().position(|n| n == "random").unwrap_or(0),
    };
    let judged = a
        .judge
        .as_deref()
        .map(|s| find("judged player", s))
        .transpose()?;

    // Openings: one per pair of games.
    let pairs = (a.games / 2) as usize;
    let set = match &a.openings {
        Some(path) if path.exists() => {
            let set = OpeningSet::load(path)?;
            if set.openings.len() < pairs {
                anyhow::bail!(
                    "{} holds {} openings; {} games per pairing need {pairs}",
                    path.display(),
                    set.openings.len(),
                    a.games
                );
            }
            set
        }
        other => {
            let set = OpeningSet::generate(&rules, pairs, a.opening_moves, a.seed);
            if let Some(path) = other {
                set.save(path)?;
            }
            set
        }
    };
    let mut starts = set.positions(&rules)?;
    starts.truncate(pairs);

    let arena = Arena {
        players: players.clone(),
        mode,
        openings: starts,
        seed: a.seed,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let planned = arena.total_games();
    let progress = bar(planned as u64, "games");
    let t = Instant::now();
    let games = arena.run(&|| progress.inc(1), &stop);
    progress.finish_and_clear();
    let seconds = t.elapsed().as_secs_f64();
    let interrupted = stop.swap(false, Ordering::Relaxed);
    if interrupted {
        eprintln!(
            "kalaha: interrupted: {} of {planned} games played",
            games.len()
        );
    }
    let pairings = arena.pairings();
    let table = tally(&players, &pairings, &games);
    let (ratings, regularized) = report::ratings(&names, &pairings, &table, anchor)?;

    let judgement = match judged {
        Some(p) => {
            let solver = Solver::new(
                &rules,
                &SolverConfig {
                    memory_mb: a.judge_memory,
                    ..SolverConfig::default()
                },
            )?;
            let jbar = bar(0, "positions judged");
            let j = judge(
                &solver,
                &players,
                &pairings,
                &games,
                p,
                &|done, total| {
                    jbar.set_length(total as u64);
                    jbar.set_position(done as u64);
                },
                &stop,
            );
            jbar.finish_and_clear();
            Some(j)
        }
        None => None,
    };

    let command = std::iter::once("kalaha".to_string())
        .chain(std::env::args().skip(1))
        .map(|s| {
            if s.contains([' ', ',', '"']) && !s.starts_with("--") {
                format!("'{s}'")
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let report = Report {
        command,
        rules: rules.describe(),
        mode: arena.mode.name().to_string(),
        players: names.clone(),
        games_per_pairing: a.games,
        opening_moves: set.opening_moves,
        openings: arena.openings.len(),
        seed: a.seed,
        games_planned: planned,
        games_played: games.len(),
        interrupted,
        seconds,
        anchor: names[anchor].clone(),
        regularized,
        ratings,
        pairings: table,
        judge: judgement,
    };

    let mut md = report.markdown();
    if let Some(name) = &a.name {
        let dir = a.experiments.join(name);
        let bars: Vec<RatingBar> = report
            .ratings
            .iter()
            .map(|r| RatingBar {
                name: r.player.clone(),
                elo: r.elo,
                lower: r.lower,
                upper: r.upper,
            })
            .collect();
        let title = format!("Elo ratings, {} ({} games)", rules.describe(), games.len());
        write_bytes(
            &dir.join("ratings.png"),
            &chart::ratings_png(&title, &bars)?,
        )?;
        md += "\n![ratings](ratings.png)\n";
        if let Some(run) = &a.run {
            let sidecar = report::find_sidecar(run)?;
            let series = report::run_curve(&sidecar)?;
            let png = chart::curve_png(
                &format!("Training evaluation: {}", run.display()),
                "iteration",
                &series,
            )?;
            write_bytes(&dir.join("run-curve.png"), &png)?;
            md += &format!(
                "\n## Training run\n\nEvaluation curve of `{}` over training:\n\n![run curve](run-curve.png)\n",
                sidecar.display()
            );
        }
        write_bytes(&dir.join("report.md"), md.as_bytes())?;
        write_bytes(
            &dir.join("report.json"),
            serde_json::to_string_pretty(&report)?.as_bytes(),
        )?;
        if !a.json {
            eprintln!("kalaha: report written to {}", dir.display());
        }
    }
    if a.json {
        emit_json(&report)
    } else {
        emit(&md)
    }
}
