//! The evaluation report: ratings, the table per pairing and the judgement, as JSON and Markdown,
//! plus a training run's evaluation curve read from its checkpoint sidecar.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::arena::PairingResult;
use super::chart::Series;
use super::elo::{self, PairScore};
use super::verdict::{Judgement, MoveStats};
use crate::bots::Tally;

/// One player's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    /// The bot spec.
    pub player: String,
    /// Elo relative to the anchor.
    pub elo: f64,
    /// 95% interval, lower end.
    pub lower: f64,
    /// 95% interval, upper end.
    pub upper: f64,
    /// Games played.
    pub games: u32,
    /// Share of points scored (a draw is half).
    pub score: f64,
}

/// Everything an evaluation found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The command line that made it.
    pub command: String,
    /// The rules, described.
    pub rules: String,
    /// `gauntlet` or `round robin`.
    pub mode: String,
    /// The players.
    pub players: Vec<String>,
    /// Games per pairing asked for.
    pub games_per_pairing: u32,
    /// Random moves in each opening.
    pub opening_moves: u32,
    /// Openings used (one per pair of games).
    pub openings: usize,
    /// Seed of the bots' randomness.
    pub seed: u64,
    /// Games planned.
    pub games_planned: usize,
    /// Games finished.
    pub games_played: usize,
    /// Stopped by Ctrl-C before all games were played.
    pub interrupted: bool,
    /// Wall-clock seconds of the games.
    pub seconds: f64,
    /// The player held at 0 Elo.
    pub anchor: String,
    /// Whether virtual draws were added because a player scored all or nothing (see `elo`).
    pub regularized: bool,
    /// Ratings, best first.
    pub ratings: Vec<PlayerRating>,
    /// Results per pairing.
    pub pairings: Vec<PairingResult>,
    /// The solver's verdict on one player's moves, with `--judge`.
    pub judge: Option<Judgement>,
}

/// Fits ratings from the pairing table; `anchor` indexes `players`.
pub fn ratings(
    players: &[String],
    pairings: &[(usize, usize)],
    results: &[PairingResult],
    anchor: usize,
) -> anyhow::Result<(Vec<PlayerRating>, bool)> {
    let scores: Vec<PairScore> = pairings
        .iter()
        .zip(results)
        .map(|(&(a, b), r)| PairScore {
            a,
            b,
            games: r.games as f64,
            score: r.a_score(),
        })
        .collect();
    let fit = elo::fit(players.len(), &scores, anchor).map_err(|e| match e {
        elo::FitError::Disconnected(i) => {
            anyhow::anyhow!("no finished games link {} to the others", players[i])
        }
        other => anyhow::anyhow!(other),
    })?;
    let mut out: Vec<PlayerRating> = players
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let (mut games, mut pts) = (0u32, 0.0f64);
            for (&(a, b), r) in pairings.iter().zip(results) {
                if a == i {
                    games += r.games;
                    pts += r.a_score();
                } else if b == i {
                    games += r.games;
                    pts += r.games as f64 - r.a_score();
                }
            }
            let f = fit.ratings[i];
            PlayerRating {
                player: name.clone(),
                elo: f.elo,
                lower: f.lower,
                upper: f.upper,
                games,
                score: if games > 0 { pts / games as f64 } else { 0.0 },
            }
        })
        .collect();
    out.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    Ok((out, fit.regularized))
}

fn stats_row(name: &str, s: &MoveStats) -> String {
    format!(
        "| {name} | {} | {:.1}% | {:.3} | {} |\n",
        s.moves,
        100.0 * s.optimal_rate,
        s.mean_loss,
        s.result_changes
    )
}

impl Report {
    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        s += "# Evaluation\n\n";
        s += &format!("Command:\n\n```\n{}\n```\n\n", self.command);
        s += &format!(
            "Rules: {}. Mode: {}. {} games per pairing from {} openings of {} random moves \
             (each opening played once from each seat), seed {}. {} of {} games played in {:.1} s{}.\n\n",
            self.rules,
            self.mode,
            self.games_per_pairing,
            self.openings,
            self.opening_moves,
            self.seed,
            self.games_played,
            self.games_planned,
            self.seconds,
            if self.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        );
        s += "## Ratings\n\n";
        s += &format!(
            "Elo by maximum likelihood (Bradley–Terry, draws as half points), anchored at `{}` = 0, \
             with 95% confidence intervals from the Fisher information.{}\n\n",
            self.anchor,
            if self.regularized {
                " Some player scored all or nothing against the rest, so every pairing got one \
                 virtual draw: the extreme ratings are lower bounds of a sort, not estimates."
            } else {
                ""
            }
        );
        s += "| player | Elo | 95% CI | games | score |\n| --- | ---: | --- | ---: | ---: |\n";
        for r in &self.ratings {
            s += &format!(
                "| `{}` | {:.0} | {:.0} .. {:.0} | {} | {:.1}% |\n",
                r.player,
                r.elo,
                r.lower,
                r.upper,
                r.games,
                100.0 * r.score
            );
        }
        s += "\n## Pairings\n\n";
        s += "Wins, draws and losses are for the first player; the margin is its seeds minus the \
              other's; by seat: W-D-L when the first player started South / North.\n\n";
        s += "| player | opponent | games | wins | draws | losses | mean margin | as South | as North |\n\
              | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
        for p in &self.pairings {
            s += &format!(
                "| `{}` | `{}` | {} | {} | {} | {} | {:+.2} | {}-{}-{} | {}-{}-{} |\n",
                p.a,
                p.b,
                p.games,
                p.a_wins,
                p.draws,
                p.b_wins,
                p.a_mean_margin,
                p.a_as_south[0],
                p.a_as_south[1],
                p.a_as_south[2],
                p.a_as_north[0],
                p.a_as_north[1],
                p.a_as_north[2]
            );
        }
        s += "\n## Move times\n\nWall seconds a move, as the arena played them (games in parallel \
              share the machine and a network's batches).\n\n\
              | player | opponent | moves | mean | median | p95 | max |\n\
              | --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
        for p in &self.pairings {
            for (who, other, t) in [
                (&p.a, &p.b, &p.a_move_seconds),
                (&p.b, &p.a, &p.b_move_seconds),
            ] {
                s += &format!(
                    "| `{who}` | `{other}` | {} | {:.4} | {:.4} | {:.4} | {:.4} |\n",
                    t.moves, t.mean, t.median, t.p95, t.max
                );
            }
        }
        for p in &self.pairings {
            for (who, other, t) in [(&p.a, &p.b, &p.a_proofs), (&p.b, &p.a, &p.b_proofs)] {
                if let Some(t) = t {
                    s += &format!(
                        "\n`{who}` against `{other}` proved {} moves best and {} to keep the \
                         result; nothing in time for {}.\n",
                        t.optimal, t.keeps_result, t.not_proven
                    );
                }
            }
        }
        if let Some(j) = &self.judge {
            s += &judgement_markdown(j);
        }
        s
    }
}

/// The judgement's section of the Markdown report.
fn judgement_markdown(j: &Judgement) -> String {
    let mut s = String::new();
    s += &format!(
        "\n## Judgement of `{}` by the exact solver\n\n\
         Every move it made in these games, scored against perfect play ({} distinct \
         positions, {:.1} s). Loss = the best move's value minus the chosen move's, in \
         seeds, for the mover. Phases by seeds still on the board: opening above 3/4 of all \
         seeds, endgame at most 1/3, middle between.\n\n",
        j.player, j.positions, j.seconds
    );
    s += "| phase | moves | optimal | mean loss | result changes |\n| --- | ---: | ---: | ---: | ---: |\n";
    s += &stats_row("all", &j.all);
    s += &stats_row("opening", &j.opening);
    s += &stats_row("middle", &j.middle);
    s += &stats_row("endgame", &j.endgame);
    if j.unsolved > 0 {
        s += &format!("\n{} moves were not solved (stopped).\n", j.unsolved);
    }
    if !j.changes.is_empty() {
        s += "\nMoves that changed the game-theoretic result:\n\n\
              | game | ply | phase | position | played | best | value -> after | change |\n\
              | ---: | ---: | --- | --- | --- | --- | --- | --- |\n";
        for c in j.changes.iter().take(50) {
            s += &format!(
                "| {} | {} | {} | `{}` | {} | {} | {:+} -> {:+} | {} |\n",
                c.game,
                c.ply,
                c.phase.name(),
                c.position,
                c.played,
                c.best.join(" "),
                c.value,
                c.played_value,
                c.change
            );
        }
        if j.changes.len() > 50 {
            s += &format!("\n({} more in report.json.)\n", j.changes.len() - 50);
        }
    }
    let sw = j.swap_answers;
    if sw.answers > 0 {
        s += &format!(
            "\nPie rule: {} answers where `swap` was open ({} swaps); {} of them ({:.1}%) agree with the solver's (swap exactly where swapping is optimal).\n",
            sw.answers,
            sw.swapped,
            sw.agree,
            100.0 * sw.agree as f64 / sw.answers as f64
        );
    }
    if let Some(t) = &j.proofs {
        s += "\nIts own proofs, judged by the solver:\n\n| proven | moves | judged optimal | result changes |\n| --- | ---: | ---: | ---: |\n";
        for (name, m) in [
            ("best", &t.optimal),
            ("keeps the result", &t.keeps_result),
            ("nothing in time", &t.not_proven),
        ] {
            s += &format!(
                "| {name} | {} | {} | {} |\n",
                m.moves, m.optimal, m.result_changes
            );
        }
    }
    if !j.vs_solver.is_empty() {
        let reached = j.vs_solver.iter().filter(|g| g.reached).count();
        let b = &j.vs_solver_by_start;
        let held = |h: &crate::eval::verdict::Held| {
            format!(
                "{} of {} ({:.0}%, 95% interval {:.0}-{:.0}%)",
                h.held,
                h.games,
                100.0 * h.share,
                100.0 * h.interval[0],
                100.0 * h.interval[1]
            )
        };
        let by_value: Vec<String> = (b.close_by_value.iter())
            .map(|(v, h)| format!("{v:+}: {} of {}", h.held, h.games))
            .collect();
        s += &format!(
            "\nAgainst `solver`: reached the game-theoretic result of the start in {reached} of {} games.\n\n\
             | starts worth | games held |\n| --- | --- |\n\
             | less than 0 (lost) | {} |\n\
             | 0 to +{} (close: {}) | {} |\n\
             | more than +{} (wide) | {} |\n\n\
             | game | seat | start | value | margin | reached |\n| ---: | --- | --- | ---: | ---: | --- |\n",
            j.vs_solver.len(),
            held(&b.lost),
            crate::eval::verdict::CLOSE_SEEDS,
            by_value.join(", "),
            held(&b.close),
            crate::eval::verdict::CLOSE_SEEDS,
            held(&b.wide),
        );
        for g in &j.vs_solver {
            s += &format!(
                "| {} | {} | `{}` | {:+} | {:+} | {} |\n",
                g.game,
                g.seat.name(),
                g.start,
                g.value,
                g.margin,
                if g.reached { "yes" } else { "no" }
            );
        }
    }
    s
}

/// Finds a training run's checkpoint sidecar: `DIR` may be the sidecar itself, a checkpoint
/// folder holding `meta.json`, or an experiment folder `.../experiments/<run>` whose checkpoint is
/// `.../checkpoints/runs/<run>/meta.json` (or, for a run from before run output moved there,
/// `.../checkpoints/<run>/meta.json`).
pub fn find_sidecar(dir: &Path) -> anyhow::Result<PathBuf> {
    if dir.is_file() {
        return Ok(dir.to_path_buf());
    }
    let direct = dir.join("meta.json");
    if direct.is_file() {
        return Ok(direct);
    }
    if let (Some(run), Some(parent)) = (dir.file_name(), dir.parent()) {
        let root = parent.parent().unwrap_or(Path::new(""));
        for folder in ["checkpoints/runs", "checkpoints"] {
            let sibling = root.join(folder).join(run).join("meta.json");
            if sibling.is_file() {
                return Ok(sibling);
            }
        }
    }
    anyhow::bail!(
        "no checkpoint sidecar (meta.json) for run {}: give the checkpoint folder or its meta.json",
        dir.display()
    )
}

/// The parts of a training run's sidecar (`meta.json`, written by training) that the run curve
/// charts; every other field is ignored, and a missing one is an error.
#[derive(Clone, Debug, Deserialize)]
pub struct RunSidecar {
    /// The evaluations, in the order they ran.
    pub evaluations: Vec<RunEvaluation>,
}

/// One evaluation of a training run.
#[derive(Clone, Debug, Deserialize)]
pub struct RunEvaluation {
    /// The iteration after which it ran.
    pub iteration: u32,
    /// The network's games, by opponent and seat.
    pub games: Vec<RunGames>,
    /// The solver's judgement of the network's moves, when the run judged them.
    #[serde(default)]
    pub solver: Option<RunJudgement>,
}

/// The network's games against one opponent from one seat.
#[derive(Clone, Debug, Deserialize)]
pub struct RunGames {
    /// The opponent's bot name.
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// Games the network won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
}

/// The solver's judgement of a network in training.
#[derive(Clone, Debug, Deserialize)]
pub struct RunJudgement {
    /// Share of its moves that are optimal.
    pub optimal_rate: f64,
    /// The same over the positions with more seeds than the endgame database holds (absent in
    /// older sidecars).
    #[serde(default)]
    pub outside_db: Option<RunRate>,
}

/// An optimal-move rate over some positions.
#[derive(Clone, Debug, Deserialize)]
pub struct RunRate {
    /// Positions counted.
    pub positions: usize,
    /// Share of them where the network's move is optimal.
    pub optimal_rate: f64,
}

impl RunSidecar {
    /// Reads the sidecar at `path`; errors name the file and the field.
    pub fn load(path: &Path) -> anyhow::Result<RunSidecar> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// The curves: the score against each opponent (both seats together), the solver's
    /// optimal-move rate, and that rate outside the endgame database where it was measured.
    pub fn curves(&self) -> Vec<Series> {
        let mut series: Vec<Series> = Vec::new();
        let mut push =
            |name: String, point: (f64, f64)| match series.iter_mut().find(|s| s.name == name) {
                Some(s) => s.points.push(point),
                None => series.push(Series {
                    name,
                    points: vec![point],
                }),
            };
        for e in &self.evaluations {
            let it = e.iteration as f64;
            // Points and games by opponent, in first-seen order.
            let mut by_opp: Vec<(&str, f64, f64)> = Vec::new();
            for g in &e.games {
                let losses = g.games.saturating_sub(g.wins + g.draws);
                let pts = Tally::counts(g.wins, g.draws, losses).score();
                match by_opp.iter_mut().find(|o| o.0 == g.opponent) {
                    Some(o) => {
                        o.1 += pts;
                        o.2 += g.games as f64;
                    }
                    None => by_opp.push((&g.opponent, pts, g.games as f64)),
                }
            }
            for (opp, pts, n) in by_opp {
                if n > 0.0 {
                    push(format!("score vs {opp}"), (it, pts / n));
                }
            }
        }
        // The solver's curves after the scores, as before.
        for e in &self.evaluations {
            if let Some(j) = &e.solver {
                push(
                    "solver: optimal-move rate".into(),
                    (e.iteration as f64, j.optimal_rate),
                );
            }
        }
        for e in &self.evaluations {
            if let Some(r) = e.solver.as_ref().and_then(|j| j.outside_db.as_ref())
                && r.positions > 0
            {
                push(
                    "solver: optimal-move rate outside the database".into(),
                    (e.iteration as f64, r.optimal_rate),
                );
            }
        }
        series
    }
}

/// The evaluation curves of the training run whose sidecar is `sidecar` (see
/// [`RunSidecar::curves`]); a run not yet evaluated is an error.
pub fn run_curve(sidecar: &Path) -> anyhow::Result<Vec<Series>> {
    let series = RunSidecar::load(sidecar)?.curves();
    if series.is_empty() {
        anyhow::bail!("{} has no evaluations yet", sidecar.display());
    }
    Ok(series)
}
