//! The solver's verdict on one player's moves in the arena's games: how often it played an optimal
//! move, how many seeds each move gave away, which moves changed the game-theoretic result, split
//! by phase; and, against `solver` itself, whether it reached the result its start position is
//! worth.
//!
//! Phases go by the seeds still on the board (in the pits, not the stores) before the move, as a
//! share of all seeds: **opening** above 3/4 (more than 36 of Kalah(6,4)'s 48), **endgame** at most
//! 1/3 (16 or fewer), **middle** in between.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::arena::ArenaGame;
use crate::bots::Player;
use crate::bots::guard::Proof;
use crate::rules::{Move, Position, Side};
use crate::solver::{Analysis, Solver, swap_answer_agrees};

/// Game phase by seeds left on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// More than 3/4 of the seeds on the board.
    Opening,
    /// Between.
    Middle,
    /// At most 1/3 of the seeds on the board.
    Endgame,
}

impl Phase {
    /// The phase of a position.
    pub fn of(pos: &Position) -> Phase {
        let on_board = pos.board_seeds();
        let total = pos.rules().total_seeds();
        if 4 * on_board > 3 * total {
            Phase::Opening
        } else if 3 * on_board <= total {
            Phase::Endgame
        } else {
            Phase::Middle
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middle => "middle",
            Phase::Endgame => "endgame",
        }
    }
}

/// Figures over a set of judged moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MoveStats {
    /// Moves judged (exactly solved).
    pub moves: u32,
    /// Moves whose value equals the position's.
    pub optimal: u32,
    /// `optimal / moves`.
    pub optimal_rate: f64,
    /// Mean seeds given up per move (best move's value minus the chosen move's, for the mover).
    pub mean_loss: f64,
    /// Moves that turned a won position into a draw or loss, or a drawn one into a loss.
    pub result_changes: u32,
}

impl MoveStats {
    fn add(&mut self, loss: i32, changed: bool) {
        self.moves += 1;
        self.optimal += u32::from(loss == 0);
        self.result_changes += u32::from(changed);
        // Running sum in mean_loss until `finish`.
        self.mean_loss += loss as f64;
    }

    fn finish(&mut self) {
        if self.moves > 0 {
            self.optimal_rate = self.optimal as f64 / self.moves as f64;
            self.mean_loss /= self.moves as f64;
        }
    }
}

/// The judged player's answers where `swap` was open (the pie rule's one decision).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SwapAnswers {
    /// Answers judged.
    pub answers: u32,
    /// Of them, `swap`.
    pub swapped: u32,
    /// Answers that agree with the solver's: `swap` where swapping is optimal, a pit where a pit
    /// move is (either, where both are).
    pub agree: u32,
}

/// A move that changed the game-theoretic result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResultChange {
    /// Game number in the arena's order (0-based).
    pub game: usize,
    /// Move number within the game, from its opening (1-based).
    pub ply: usize,
    /// The position before the move, in notation.
    pub position: String,
    /// The move played.
    pub played: String,
    /// The best moves.
    pub best: Vec<String>,
    /// Value of the position for the mover (the best move's).
    pub value: i32,
    /// Value of the move played.
    pub played_value: i32,
    /// `win->draw`, `win->loss` or `draw->loss`.
    pub change: String,
    /// The phase.
    pub phase: Phase,
}

/// One game of the judged player against `solver`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolverGame {
    /// Game number in the arena's order.
    pub game: usize,
    /// The seat the judged player started in.
    pub seat: Side,
    /// The start position, in notation.
    pub start: String,
    /// The start's exact value for the judged player.
    pub value: i32,
    /// The judged player's final margin.
    pub margin: i32,
    /// Whether it got the result the start is worth (win, draw or loss as perfect play gives).
    pub reached: bool,
}

/// Starts worth at most this many seeds to the judged player (and not lost) are **close**: the
/// games a one-seed slip decides. Wider wins are **wide**; starts worth less than 0 are **lost**.
pub const CLOSE_SEEDS: i32 = 4;

/// Games against `solver` of one kind of start, and how many reached what the start is worth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Held {
    /// Games.
    pub games: u32,
    /// Of them, games that reached the start's result.
    pub held: u32,
    /// `held / games` (0 without games).
    pub share: f64,
    /// Wilson's 95% interval of that share.
    pub interval: [f64; 2],
}

impl Default for Held {
    /// No games: a share of 0 whose interval is everything, [0, 1].
    fn default() -> Held {
        Held {
            games: 0,
            held: 0,
            share: 0.0,
            interval: wilson(0, 0),
        }
    }
}

impl Held {
    fn add(&mut self, reached: bool) {
        self.games += 1;
        self.held += u32::from(reached);
        self.share = self.held as f64 / self.games as f64;
        self.interval = wilson(self.held, self.games);
    }
}

/// Wilson's score interval (95%) of `k` successes in `n` trials.
pub fn wilson(k: u32, n: u32) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, 1.959_964);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// The games against `solver` by what their start is worth to the judged player: the yardstick
/// that shows where games are lost (a lost start is always "reached"; a wide win almost always).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ByStart {
    /// Every game.
    pub all: Held,
    /// Starts worth less than 0.
    pub lost: Held,
    /// Starts worth 0 to [`CLOSE_SEEDS`] seeds: the close games.
    pub close: Held,
    /// Starts worth more than [`CLOSE_SEEDS`].
    pub wide: Held,
    /// The close starts by their exact value (a draw, +1, +2, ...).
    pub close_by_value: std::collections::BTreeMap<i32, Held>,
}

impl ByStart {
    /// The tally of `games`.
    pub fn of(games: &[SolverGame]) -> ByStart {
        let mut b = ByStart::default();
        for g in games {
            b.all.add(g.reached);
            if g.value < 0 {
                b.lost.add(g.reached);
            } else if g.value <= CLOSE_SEEDS {
                b.close.add(g.reached);
                b.close_by_value.entry(g.value).or_default().add(g.reached);
            } else {
                b.wide.add(g.reached);
            }
        }
        b
    }
}

/// A proving player's judged moves by the proof it gave each (see [`crate::bots::guard::Proof`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProofTally {
    /// Moves it proved best.
    pub optimal: MoveStats,
    /// Moves it proved to keep the result.
    pub keeps_result: MoveStats,
    /// Moves it proved nothing about in time.
    pub not_proven: MoveStats,
}

/// The judgement of one player.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Judgement {
    /// The player judged.
    pub player: String,
    /// All its moves.
    pub all: MoveStats,
    /// By phase: opening, middle, endgame.
    pub opening: MoveStats,
    /// Middle game.
    pub middle: MoveStats,
    /// Endgame.
    pub endgame: MoveStats,
    /// Moves that could not be solved (the run was stopped).
    pub unsolved: u32,
    /// The moves that changed the result, in game order.
    pub changes: Vec<ResultChange>,
    /// Its moves by what it proved itself when it played them (a `guard:` bot), each judged:
    /// a proven label the judge contradicts would be a bug.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proofs: Option<ProofTally>,
    /// Its games against `solver`, if there were any.
    pub vs_solver: Vec<SolverGame>,
    /// Those games by what their start is worth (lost, close, wide), with the share held.
    pub vs_solver_by_start: ByStart,
    /// Its answers where `swap` was open (pie rule), if it had any.
    pub swap_answers: SwapAnswers,
    /// Distinct positions the solver analysed.
    pub positions: usize,
    /// Seconds the solver took.
    pub seconds: f64,
}

fn class(v: i32) -> i32 {
    v.signum()
}

fn class_name(c: i32) -> &'static str {
    match c {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

/// Judges the moves `player` (an index into `players`) made in `games`; `pairings` maps each
/// game's pairing to its two players. `on_batch(done, total)` reports progress in positions;
/// once `stop` is set the remaining positions are skipped and counted as unsolved.
pub fn verdict(
    solver: &Solver,
    players: &[Player],
    pairings: &[(usize, usize)],
    games: &[ArenaGame],
    player: usize,
    on_batch: &dyn Fn(usize, usize),
    stop: &AtomicBool,
) -> Judgement {
    let started = std::time::Instant::now();
    // (game, ply, position, move, what the player proved of it) of every move the player made.
    let mut moves: Vec<(usize, usize, Position, Move, Option<Proof>)> = Vec::new();
    for (gi, g) in games.iter().enumerate() {
        let (a, b) = pairings[g.pairing];
        if a != player && b != player {
            continue;
        }
        let is_a = a == player;
        for (ply, (h, by_a)) in g.game.history().iter().zip(g.movers_are_a()).enumerate() {
            if by_a == is_a {
                let proof = g.proofs.get(ply).copied().flatten();
                moves.push((gi, ply + 1, h.before, h.mv, proof));
            }
        }
    }
    // Distinct positions, in first-seen order, judged in batches so progress can be shown.
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut distinct: Vec<Position> = Vec::new();
    for m in &moves {
        index.entry(m.2.to_string()).or_insert_with(|| {
            distinct.push(m.2);
            distinct.len() - 1
        });
    }
    let mut analyses: Vec<Option<Analysis>> = Vec::with_capacity(distinct.len());
    const BATCH: usize = 16;
    for chunk in distinct.chunks(BATCH) {
        if stop.load(Ordering::Relaxed) {
            analyses.extend(chunk.iter().map(|_| None));
        } else {
            analyses.extend(solver.judge(chunk).into_iter().map(Some));
        }
        on_batch(analyses.len(), distinct.len());
    }

    let mut j = Judgement {
        player: players[player].to_string(),
        positions: distinct.len(),
        ..Judgement::default()
    };
    for (gi, ply, pos, mv, proof) in &moves {
        let a = analyses[index[&pos.to_string()]].as_ref();
        let (Some(value), Some(chosen)) = (
            a.and_then(|a| a.value()),
            a.and_then(|a| a.moves.iter().find(|m| m.mv == *mv))
                .and_then(|m| m.value()),
        ) else {
            j.unsolved += 1;
            continue;
        };
        if pos.swap_allowed() {
            let swap = *mv == Move::Swap;
            let optimal_kind = a.is_some_and(|a| {
                let moves = a.moves.iter().map(|m| (m.mv == Move::Swap, m.value()));
                swap_answer_agrees(swap, value, moves)
            });
            j.swap_answers.answers += 1;
            j.swap_answers.swapped += u32::from(swap);
            j.swap_answers.agree += u32::from(optimal_kind);
        }
        let loss = value - chosen;
        let changed = class(chosen) < class(value);
        let phase = Phase::of(pos);
        j.all.add(loss, changed);
        if let Some(p) = proof {
            let t = j.proofs.get_or_insert_with(ProofTally::default);
            match p {
                Proof::Optimal => t.optimal.add(loss, changed),
                Proof::KeepsResult => t.keeps_result.add(loss, changed),
                Proof::NotProven => t.not_proven.add(loss, changed),
            }
        }
        match phase {
            Phase::Opening => j.opening.add(loss, changed),
            Phase::Middle => j.middle.add(loss, changed),
            Phase::Endgame => j.endgame.add(loss, changed),
        }
        if changed {
            j.changes.push(ResultChange {
                game: *gi,
                ply: *ply,
                position: pos.to_string(),
                played: mv.to_string(),
                best: a.map_or(Vec::new(), |a| {
                    a.best().iter().map(|m| m.to_string()).collect()
                }),
                value,
                played_value: chosen,
                change: format!(
                    "{}->{}",
                    class_name(class(value)),
                    class_name(class(chosen))
                ),
                phase,
            });
        }
    }
    for s in [&mut j.all, &mut j.opening, &mut j.middle, &mut j.endgame] {
        s.finish();
    }
    if let Some(t) = j.proofs.as_mut() {
        for s in [&mut t.optimal, &mut t.keeps_result, &mut t.not_proven] {
            s.finish();
        }
    }
    j.vs_solver = versus_solver(solver, players, pairings, games, player, stop);
    j.vs_solver_by_start = ByStart::of(&j.vs_solver);
    j.seconds = started.elapsed().as_secs_f64();
    j
}

/// The player's games against a player named `solver`: did it get what the start is worth?
fn versus_solver(
    solver: &Solver,
    players: &[Player],
    pairings: &[(usize, usize)],
    games: &[ArenaGame],
    player: usize,
    stop: &AtomicBool,
) -> Vec<SolverGame> {
    let mut out = Vec::new();
    let mut values: HashMap<String, i32> = HashMap::new();
    for (gi, g) in games.iter().enumerate() {
        let (a, b) = pairings[g.pairing];
        let other = if a == player {
            b
        } else if b == player {
            a
        } else {
            continue;
        };
        if players[other].to_string() != "solver" || stop.load(Ordering::Relaxed) {
            continue;
        }
        let is_a = a == player;
        let seat = if g.a_south == is_a {
            Side::South
        } else {
            Side::North
        };
        let start = *g.game.start();
        let key = start.to_string();
        let v = *values
            .entry(key.clone())
            .or_insert_with(|| solver.value(&start));
        let value = if start.to_move() == seat { v } else { -v };
        let margin = if is_a { g.a_margin() } else { -g.a_margin() };
        out.push(SolverGame {
            game: gi,
            seat,
            start: key,
            value,
            margin,
            reached: class(margin) >= class(value),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(value: i32, reached: bool) -> SolverGame {
        SolverGame {
            game: 0,
            seat: Side::South,
            start: String::new(),
            value,
            margin: 0,
            reached,
        }
    }

    #[test]
    fn games_against_the_solver_are_told_apart_by_what_their_start_is_worth() {
        let games = [
            game(-10, true),
            game(-2, true),
            game(0, false),
            game(0, true),
            game(2, false),
            game(4, true),
            game(5, false),
            game(12, true),
        ];
        let b = ByStart::of(&games);
        assert_eq!((b.all.games, b.all.held), (8, 5));
        assert_eq!((b.lost.games, b.lost.held), (2, 2));
        assert_eq!(
            (b.close.games, b.close.held),
            (4, 2),
            "0, 0, +2 and +4 are close"
        );
        assert_eq!((b.wide.games, b.wide.held), (2, 1), "+5 and +12 are wide");
        let none = ByStart::of(&games[..2]);
        assert_eq!(
            (none.close.games, none.close.interval),
            (0, [0.0, 1.0]),
            "no games, no knowledge"
        );
        assert_eq!(b.close.share, 0.5);
        let values: Vec<(i32, u32, u32)> = (b.close_by_value.iter())
            .map(|(v, h)| (*v, h.games, h.held))
            .collect();
        assert_eq!(values, [(0, 2, 1), (2, 1, 0), (4, 1, 1)]);
    }

    #[test]
    fn wilson_intervals_hold_the_share_and_narrow_with_games() {
        // 58 of 124 (the close starts of the committed network's 400 games): about 38-56%.
        let [lo, hi] = wilson(58, 124);
        assert!(
            (lo - 0.381).abs() < 0.005 && (hi - 0.555).abs() < 0.005,
            "{lo} {hi}"
        );
        let [lo2, hi2] = wilson(580, 1240);
        assert!(lo2 > lo && hi2 < hi);
        assert_eq!(wilson(0, 0), [0.0, 1.0]);
        let [lo, hi] = wilson(10, 10);
        assert!(hi > 0.9999 && lo > 0.70 && lo < 0.74, "{lo} {hi}");
    }
}
