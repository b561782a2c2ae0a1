//! One evaluation from request to report: the players made ready, the openings drawn or read,
//! the arena played, the ratings fitted, one player judged by the solver, and the report (with
//! its charts) written. Progress goes to a [`Progress`]; nothing is printed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::Context as _;

use super::chart::{self, RatingBar};
use super::report::{self, Report};
use super::{Arena, Judgement, Mode, OpeningSet, PairingResult, tally, verdict};
use crate::bots::{BotContext, BotSpec, Player};
use crate::rules::{Position, Rules};
use crate::solver::{Solver, SolverConfig};

/// What to evaluate, and where to write the report.
#[derive(Clone, Debug)]
pub struct Request {
    /// The rules of every game.
    pub rules: Rules,
    /// Gauntlet (the first player against each other) or round robin.
    pub mode: Mode,
    /// The players, at least two, each named once.
    pub players: Vec<BotSpec>,
    /// Games per pairing: a positive even number (pairs of games, one from each seat).
    pub games: u32,
    /// Random moves that make each opening.
    pub opening_moves: u32,
    /// An opening set to reuse if the file exists, else to draw and save there.
    pub openings: Option<PathBuf>,
    /// Seed of the openings and of the bots' randomness.
    pub seed: u64,
    /// The player held at 0 Elo (default: `random` if it plays, else the first player).
    pub anchor: Option<BotSpec>,
    /// The player whose moves the solver judges.
    pub judge: Option<BotSpec>,
    /// Memory of the judging solver's table and endgame database, in MiB.
    pub judge_memory: usize,
    /// Folder to write `report.json`, `report.md` and `ratings.svg` to.
    pub output: Option<PathBuf>,
    /// A training run (checkpoint folder, `meta.json` or `experiments/<run>`) whose evaluation
    /// curve is charted as `run-curve.svg` beside the report (needs `output`).
    pub run: Option<PathBuf>,
    /// The command line that asked for it, recorded in the report.
    pub command: String,
    /// Players the caller supplies ([`Player::external`]), each named in `players` as its
    /// [`BotSpec::External`].
    pub external: Vec<Player>,
    /// Batch the network players' evaluations across games ([`Arena::batch`]).
    pub batch: bool,
}

/// What an evaluation reports as it goes; every method may be left as it is (no report).
pub trait Progress: Sync {
    /// The games are about to be played: `planned` of them.
    fn games_planned(&self, planned: usize) {
        let _ = planned;
    }
    /// One game finished (called from any thread).
    fn game_done(&self) {}
    /// `done` of `total` distinct positions have been judged.
    fn judged(&self, done: usize, total: usize) {
        let _ = (done, total);
    }
}

/// No progress reports.
impl Progress for () {}

/// An evaluation's results.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The report.
    pub report: Report,
    /// The report as Markdown (with links to the charts when they were written).
    pub markdown: String,
    /// The folder the report was written to.
    pub written: Option<PathBuf>,
}

/// The request's players by index: the anchor and the judged player.
struct Roles {
    names: Vec<String>,
    anchor: usize,
    judged: Option<usize>,
}

/// Refuses a request that cannot run, before anything is loaded or played.
fn check(req: &Request) -> anyhow::Result<Roles> {
    let names: Vec<String> = req.players.iter().map(|p| p.to_string()).collect();
    if names.len() < 2 {
        anyhow::bail!("an evaluation needs at least two players");
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            anyhow::bail!("player {n} is named twice");
        }
    }
    if req.games == 0 || req.games % 2 == 1 {
        anyhow::bail!(
            "--games must be a positive even number (pairs of games, one from each seat), not {}",
            req.games
        );
    }
    let find = |what: &str, spec: &BotSpec| -> anyhow::Result<usize> {
        let s = spec.to_string();
        names
            .iter()
            .position(|n| *n == s)
            .ok_or_else(|| anyhow::anyhow!("{what} {s} is not one of the players"))
    };
    let anchor = match &req.anchor {
        Some(s) => find("anchor", s)?,
        None => names.iter().position(|n| n == "random").unwrap_or(0),
    };
    let judged = req
        .judge
        .as_ref()
        .map(|s| find("judged player", s))
        .transpose()?;
    if req.run.is_some() && req.output.is_none() {
        anyhow::bail!("a training run's curve needs a folder to write the report to");
    }
    Ok(Roles {
        names,
        anchor,
        judged,
    })
}

/// The opening positions: `pairs` of them, from the request's file if it exists, else drawn (and
/// saved to that file).
fn openings(req: &Request, pairs: usize) -> anyhow::Result<(OpeningSet, Vec<Position>)> {
    let set = match &req.openings {
        Some(path) if path.exists() => {
            let set = OpeningSet::load(path)?;
            if set.openings.len() < pairs {
                anyhow::bail!(
                    "{} holds {} openings; {} games per pairing need {pairs}",
                    path.display(),
                    set.openings.len(),
                    req.games
                );
            }
            set
        }
        other => {
            let set = OpeningSet::generate(&req.rules, pairs, req.opening_moves, req.seed);
            if let Some(path) = other {
                set.save(path)?;
            }
            set
        }
    };
    let mut starts = set.positions(&req.rules)?;
    starts.truncate(pairs);
    Ok((set, starts))
}

/// The solver's judgement of player `p`'s moves in `games`.
fn judge_player(
    req: &Request,
    arena: &Arena,
    games: &[super::ArenaGame],
    p: usize,
    progress: &dyn Progress,
    stop: &AtomicBool,
) -> anyhow::Result<Judgement> {
    let solver = Solver::new(
        &req.rules,
        &SolverConfig {
            memory_mb: req.judge_memory,
            ..SolverConfig::default()
        },
    )?;
    Ok(verdict(
        &solver,
        &arena.players,
        &arena.pairings(),
        games,
        p,
        &|done, total| progress.judged(done, total),
        stop,
    ))
}

/// Runs the evaluation `req` asks for. Once `stop` is set no new game starts and the report
/// covers the games played (`interrupted`); the flag is then cleared so the judging runs, and
/// stops too if it is set again.
pub fn run(req: &Request, progress: &dyn Progress, stop: &AtomicBool) -> anyhow::Result<Outcome> {
    let roles = check(req)?;
    let sidecar = req.run.as_deref().map(report::find_sidecar).transpose()?;
    let mut ctx = BotContext::new();
    let players: Vec<Player> = req
        .players
        .iter()
        .map(|spec| match spec {
            BotSpec::External(_) => req
                .external
                .iter()
                .find(|p| p.spec() == spec)
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("player {spec} was named but not supplied")),
            _ => ctx.prepare(spec, &req.rules),
        })
        .collect::<anyhow::Result<_>>()?;
    let (set, starts) = openings(req, (req.games / 2) as usize)?;
    let arena = Arena {
        players,
        mode: req.mode.clone(),
        openings: starts,
        seed: req.seed,
        batch: req.batch,
    };
    let planned = arena.total_games();
    progress.games_planned(planned);
    let t = Instant::now();
    let games = arena.run(&|| progress.game_done(), stop);
    let seconds = t.elapsed().as_secs_f64();
    let interrupted = stop.swap(false, Ordering::Relaxed);
    let pairings = arena.pairings();
    let table: Vec<PairingResult> = tally(&arena.players, &pairings, &games);
    let (ratings, regularized) = report::ratings(&roles.names, &pairings, &table, roles.anchor)?;
    let judgement = roles
        .judged
        .map(|p| judge_player(req, &arena, &games, p, progress, stop))
        .transpose()?;
    let report = Report {
        command: req.command.clone(),
        rules: req.rules.describe(),
        mode: arena.mode.name().to_string(),
        players: roles.names.clone(),
        games_per_pairing: req.games,
        opening_moves: set.opening_moves,
        openings: arena.openings.len(),
        seed: req.seed,
        games_planned: planned,
        games_played: games.len(),
        interrupted,
        seconds,
        anchor: roles.names[roles.anchor].clone(),
        regularized,
        ratings,
        pairings: table,
        judge: judgement,
    };
    let mut markdown = report.markdown();
    if let Some(dir) = &req.output {
        write_report(&report, &mut markdown, dir, req, sidecar.as_deref())?;
    }
    Ok(Outcome {
        report,
        markdown,
        written: req.output.clone(),
    })
}

/// Writes the report, its ratings chart and (with a run's `sidecar`) the run's curve to `dir`,
/// adding the charts' links to `markdown`.
fn write_report(
    report: &Report,
    markdown: &mut String,
    dir: &Path,
    req: &Request,
    sidecar: Option<&Path>,
) -> anyhow::Result<()> {
    let write = |name: &str, bytes: &[u8]| -> anyhow::Result<()> {
        let path = dir.join(name);
        crate::files::write_bytes(&path, bytes)
            .with_context(|| format!("writing {}", path.display()))
    };
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
    let title = format!(
        "Elo ratings, {} ({} games)",
        report.rules, report.games_played
    );
    write("ratings.svg", chart::ratings_svg(&title, &bars)?.as_bytes())?;
    *markdown += "\n![ratings](ratings.svg)\n";
    if let (Some(run), Some(sidecar)) = (&req.run, sidecar) {
        let series = report::run_curve(sidecar)?;
        let svg = chart::curve_svg(
            &format!("Training evaluation: {}", run.display()),
            "iteration",
            &series,
        )?;
        write("run-curve.svg", svg.as_bytes())?;
        *markdown += &format!(
            "\n## Training run\n\nEvaluation curve of `{}` over training:\n\n![run curve](run-curve.svg)\n",
            sidecar.display()
        );
    }
    write("report.md", markdown.as_bytes())?;
    write(
        "report.json",
        serde_json::to_string_pretty(report)?.as_bytes(),
    )
}
