//! One game on the server: the record, the person's seat, the opponent, and what each move did
//! (the cells its seeds passed through, for the page to sow them one by one).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rand::RngExt;
use serde::Serialize;
use serde_json::{Value, json};

use super::error::ApiError;
use super::jobs::{Cancel, Place, Watch, flag};
use crate::bots::{Bot, game_rng};
use crate::env::rng::GameRng;
use crate::play::{Level, Seats};
use crate::rules::{Game, IllegalMove, Move, Played, Position, Rules, Side};
use crate::solver::{Detail, Solver};

/// Plies a bot may play in one turn before the server stops it (extra turns chain, but never
/// this far: a safety net, not a rule).
const MAX_BOT_PLIES: usize = 256;

/// The opponent of a game.
pub enum Opponent {
    /// Practice: the person plays both sides.
    None,
    /// A bot that picks its own moves (easy, medium, hard).
    Bot(Box<dyn Bot>),
    /// A network player whose evaluations ride the batch its games share (level hard).
    Network(Box<dyn Bot>),
    /// Level perfect: the solver of the game's rules (shared, taken from the server's pool for
    /// each turn: the game holds none between its moves), stopped after this time limit with
    /// the best move proven so far.
    Solver(Duration),
}

/// One game and who plays it.
pub struct GameState {
    /// The game so far.
    pub game: Game,
    /// The level (meaningless in practice mode).
    pub level: Level,
    /// The opponent's name, e.g. `minimax:6`.
    pub bot_name: String,
    /// The person's seat and whether they practise.
    pub seats: Seats,
    opponent: Opponent,
    rng: GameRng,
    /// Set when the game is deleted or dropped from the store: its jobs stop.
    abandoned: Arc<AtomicBool>,
    /// Set (and replaced by a new flag) whenever the game changes: the hints and reviews asked
    /// for before stop.
    moved: Arc<AtomicBool>,
    /// Changes made to the game so far (moves, undos, redos).
    generation: u64,
    /// The review's analyses so far, one a position before a move, in the order played: a
    /// review after more moves (or after an undo) reuses those of the positions still in the
    /// game and works out only the rest.
    reviewed: Vec<(Position, crate::solver::Analysis)>,
}

/// A level by its name in the API.
pub fn level_name(level: Level) -> &'static str {
    match level {
        Level::Easy => "easy",
        Level::Medium => "medium",
        Level::Hard => "hard",
        Level::Perfect => "perfect",
    }
}

/// A move as JSON: a pit number, or `"swap"`.
pub fn move_json(mv: Move) -> Value {
    match mv {
        Move::Pit(p) => json!(p),
        Move::Swap => json!("swap"),
    }
}

/// Reads a move from JSON: a pit number (number or text) or `"swap"`.
pub fn move_from_json(v: &Value) -> Result<Move, ApiError> {
    let bad = || ApiError::bad(format!("'move' must be a pit number or \"swap\", got {v}"));
    match v {
        Value::Number(n) => {
            let p = n.as_u64().ok_or_else(bad)?;
            u8::try_from(p).map(Move::Pit).map_err(|_| {
                ApiError::unprocessable(format!("there is no pit {p}: pits are numbered from 1"))
            })
        }
        Value::String(s) => crate::rules::parse_move(s).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// A cell's name: `s3` (South's pit 3), `S` (South's store), `n1`, `N`.
fn cell(side: Side, pit: Option<usize>) -> String {
    match pit {
        Some(p) => format!("{}{p}", side.letter()),
        None => side.letter().to_ascii_uppercase().to_string(),
    }
}

/// The cells the seeds of `mv` from `before` land in, in order (empty for `swap`): the mover's
/// pits after the start pit, its store, the opponent's pits, round again (the start pit included
/// on a full lap), never the opponent's store.
pub fn sowing_path(before: &Position, mv: Move) -> Vec<String> {
    let Move::Pit(p) = mv else {
        return Vec::new();
    };
    let m = before.rules().pits();
    let me = before.to_move();
    if p == 0 || p as usize > m {
        return Vec::new();
    }
    let seeds = before.pit(me, p as usize) as usize;
    let mut cycle: Vec<String> = Vec::with_capacity(2 * m + 1);
    for i in p as usize + 1..=m {
        cycle.push(cell(me, Some(i)));
    }
    cycle.push(cell(me, None));
    for i in 1..=m {
        cycle.push(cell(me.other(), Some(i)));
    }
    for i in 1..=p as usize {
        cycle.push(cell(me, Some(i)));
    }
    (0..seeds).map(|i| cycle[i % cycle.len()].clone()).collect()
}

/// A position as JSON: notation, rows, stores, side to move, legal moves, result.
pub fn position_json(pos: &Position) -> Value {
    let result = pos.result().map(|r| {
        let [s, n] = pos.score();
        json!({
            "winner": r.winner().map(|w| w.letter().to_string()),
            "score": [s, n],
        })
    });
    json!({
        "notation": pos.to_string(),
        "south": pos.row(Side::South),
        "north": pos.row(Side::North),
        "stores": [pos.store(Side::South), pos.store(Side::North)],
        "to_move": pos.to_move().letter().to_string(),
        "legal": pos.legal_moves().iter().map(move_json).collect::<Vec<_>>(),
        "over": pos.is_over(),
        "score": pos.score(),
        "result": result,
    })
}

/// What one move did, as JSON.
pub fn ply_json(index: usize, played: &Played, by: &str, after: &Position) -> Value {
    let o = &played.outcome;
    let path = sowing_path(&played.before, played.mv);
    let mut text = format!("{} played {}", played.before.to_move().name(), played.mv);
    if o.swapped {
        text += ": the players swap seats";
    } else if o.extra_turn {
        text += ": last seed in the kalaha, extra turn";
    } else if o.captured > 0 {
        text += &format!(": capture, {} seeds to the kalaha", o.captured);
    }
    json!({
        "index": index,
        "by": by,
        "side": played.before.to_move().letter().to_string(),
        "move": move_json(played.mv),
        "before": played.before.to_string(),
        "after": after.to_string(),
        "path": path,
        "last": path.last(),
        "extra_turn": o.extra_turn,
        "captured": o.captured,
        "swapped": o.swapped,
        "game_over": o.game_over,
        "text": text,
    })
}

impl GameState {
    /// A new game from `start` (the rules' start, or a loaded record's) with `moves` played.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: Game,
        level: Level,
        bot_name: String,
        human: Side,
        practice: bool,
        opponent: Opponent,
        seed: u64,
    ) -> GameState {
        GameState {
            game,
            level,
            bot_name,
            seats: Seats { human, practice },
            opponent,
            rng: game_rng(seed, 0),
            abandoned: flag(),
            moved: flag(),
            generation: 0,
            reviewed: Vec::new(),
        }
    }

    /// The flag the store sets when it drops the game.
    pub fn abandoned_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.abandoned)
    }

    /// Whether the game was deleted or dropped from the store.
    pub fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
    }

    /// The flags that cancel a job for game `id` asked for now: its abandonment, and if
    /// `moves_cancel` any change to the game from now on.
    pub fn watch(&self, id: &str, moves_cancel: bool) -> Watch {
        Watch {
            id: id.to_string(),
            abandoned: self.abandoned_flag(),
            moved: moves_cancel.then(|| Arc::clone(&self.moved)),
        }
    }

    /// Changes made to the game so far: a result worked out for an earlier generation is stale.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Marks a change: the jobs that watch for one stop.
    fn changed(&mut self) {
        self.generation += 1;
        self.moved.store(true, Ordering::Relaxed);
        self.moved = flag();
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        self.position().rules()
    }

    /// The person's seat now (after a pie swap, the other one).
    pub fn human_seat(&self) -> Side {
        self.seats.human_seat(&self.game)
    }

    /// Whether the person is to move (always in practice mode, until the game ends).
    pub fn human_to_move(&self) -> bool {
        self.seats.human_to_move(&self.game)
    }

    /// Whether the bot is to move.
    pub fn bot_to_move(&self) -> bool {
        self.seats.bot_to_move(&self.game)
    }

    /// Who played ply `i` (0-based): `you`, `bot`, or in practice mode the seat.
    fn by(&self, i: usize) -> &'static str {
        let played = &self.game.history()[i];
        if self.seats.practice {
            return if played.before.to_move() == Side::South {
                "south"
            } else {
                "north"
            };
        }
        if played.before.to_move() == self.seats.human_seat_at(&self.game, i) {
            "you"
        } else {
            "bot"
        }
    }

    /// Ply `i` as JSON.
    pub fn ply(&self, i: usize) -> Value {
        let after = self
            .game
            .history()
            .get(i + 1)
            .map_or(*self.position(), |p| p.before);
        ply_json(i, &self.game.history()[i], self.by(i), &after)
    }

    /// Checks that the person may play `mv` now, and plays it.
    pub fn play_human(&mut self, mv: Move) -> Result<(), ApiError> {
        if self.position().is_over() {
            return Err(ApiError::conflict("the game is over"));
        }
        if !self.human_to_move() {
            return Err(ApiError::conflict(
                "it is not your move: the bot is to move (POST .../bot)",
            ));
        }
        self.game.play(mv).map_err(|e| {
            ApiError::unprocessable(match e {
                IllegalMove::EmptyPit(p) => format!("pit {p} is empty; pick a pit with seeds"),
                IllegalMove::OutOfRange { pits, .. } => {
                    format!("there is no pit {mv}: pits are numbered 1 to {pits}")
                }
                other => format!("illegal move {mv}: {other}"),
            })
        })?;
        self.changed();
        Ok(())
    }

    /// Plays the bot's moves while it is to move (its extra turns included); the number played.
    /// Stops as soon as `cancel` is set: a move found after that is not played (the level
    /// perfect's proof stops within milliseconds; a network's or a search bot's move ends within
    /// its own budget, and is then dropped). Level perfect's moves need `solver` (the solver of
    /// the game's rules, see [`GameState::needs_solver`]); without it none is played. Blocking:
    /// call off the async path.
    pub fn play_bot(&mut self, cancel: &Cancel, solver: Option<&Solver>) -> usize {
        let flags = cancel.flags();
        let mut n = 0;
        while self.bot_to_move() && n < MAX_BOT_PLIES && !cancel.is_set() {
            let pos = *self.position();
            let mv = match &mut self.opponent {
                Opponent::None => break,
                Opponent::Bot(bot) | Opponent::Network(bot) => bot.choose(&pos, &mut self.rng),
                Opponent::Solver(limit) => match solver {
                    Some(solver) => perfect_move(solver, &pos, *limit, &mut self.rng, &flags),
                    None => break,
                },
            };
            if cancel.is_set() || self.game.play(mv).is_err() {
                break;
            }
            self.changed();
            n += 1;
        }
        n
    }

    /// The review's analyses kept from earlier reviews of the positions before the moves
    /// played now (the longest such run from the start).
    pub fn reviewed(&self) -> Vec<crate::solver::Analysis> {
        self.game
            .history()
            .iter()
            .zip(&self.reviewed)
            .take_while(|(p, (before, _))| p.before == *before)
            .map(|(_, (_, a))| a.clone())
            .collect()
    }

    /// Keeps `analyses`, those of the positions before the moves played now (from the first),
    /// for the next review.
    pub fn keep_review(&mut self, analyses: &[crate::solver::Analysis]) {
        self.reviewed = self
            .game
            .history()
            .iter()
            .zip(analyses)
            .map(|(p, a)| (p.before, a.clone()))
            .collect();
    }

    /// Whether the bot's moves need the solver of the game's rules (level perfect).
    pub fn needs_solver(&self) -> bool {
        matches!(self.opponent, Opponent::Solver(_))
    }

    /// The queue the bot's move waits in: the network queue for a batched network, the heavy
    /// queue for a search or the solver, none for the quick bots.
    pub fn bot_place(&self) -> Place {
        match (&self.opponent, self.level) {
            (Opponent::Network(_), _) => Place::Network,
            (_, Level::Hard | Level::Perfect) => Place::Heavy,
            _ => Place::Free,
        }
    }

    /// Takes back moves until the person is to move again (one move in practice mode); the
    /// number taken back.
    pub fn undo(&mut self) -> Result<usize, ApiError> {
        let n = self.seats.undo(&mut self.game);
        if n == 0 {
            Err(ApiError::conflict("nothing to undo"))
        } else {
            self.changed();
            Ok(n)
        }
    }

    /// Replays undone moves until the person is to move again (one in practice mode).
    pub fn redo(&mut self) -> Result<usize, ApiError> {
        let n = self.seats.redo(&mut self.game);
        if n == 0 {
            Err(ApiError::conflict("nothing to redo"))
        } else {
            self.changed();
            Ok(n)
        }
    }

    /// Whether there is something to redo (checked without changing the game).
    pub fn can_redo(&self) -> bool {
        let mut g = self.game.clone();
        g.redo().is_some()
    }

    /// The game record in the project's notation (see [`super::record`]).
    pub fn record(&self) -> String {
        super::record::write(&self.game)
    }

    /// The whole state as JSON, with `plies` (the moves this request played) at the end.
    pub fn json(&self, id: &str, from_ply: usize) -> Value {
        let pos = self.position();
        let rules = self.rules();
        let spec = rules.spec();
        let n = self.game.history().len();
        let result_text = pos.result().map(|r| {
            let [s, no] = pos.score();
            let score = format!("South {s}, North {no}");
            match r.winner() {
                None => format!("Game over: a draw, {score}."),
                Some(w) if self.seats.practice => format!("Game over: {} wins, {score}.", w.name()),
                Some(w) if w == self.human_seat() => format!("Game over: you win, {score}."),
                Some(_) => format!("Game over: you lose, {score}."),
            }
        });
        let plies: Vec<Value> = (from_ply.min(n)..n).map(|i| self.ply(i)).collect();
        let history: Vec<Value> = (0..n)
            .map(|i| {
                let p = &self.game.history()[i];
                json!({
                    "side": p.before.to_move().letter().to_string(),
                    "move": move_json(p.mv),
                    "by": self.by(i),
                    "extra_turn": p.outcome.extra_turn,
                    "captured": p.outcome.captured,
                    "swapped": p.outcome.swapped,
                })
            })
            .collect();
        json!({
            "id": id,
            "rules": rules_json(rules),
            "level": level_name(self.level),
            "bot": if self.seats.practice { Value::Null } else { json!(self.bot_name) },
            "practice": self.seats.practice,
            "you": if self.seats.practice { Value::Null } else { json!(self.human_seat().letter().to_string()) },
            "bottom": if self.seats.practice { "s".to_string() } else { self.human_seat().letter().to_string() },
            "position": position_json(pos),
            "start": self.game.start().to_string(),
            "your_turn": self.human_to_move(),
            "bot_to_move": self.bot_to_move(),
            "moves": self.game.move_list(),
            "history": history,
            "can_undo": n > 0,
            "can_redo": self.can_redo(),
            "record": self.record(),
            "result_text": result_text,
            "pie": spec.pie,
            "plies": plies,
        })
    }
}

/// The rules as JSON: their name, description and options.
pub fn rules_json(rules: &Rules) -> Value {
    let s = rules.spec();
    json!({
        "name": rules.canonical_name(),
        "describe": rules.describe(),
        "pits": s.pits,
        "seeds": s.seeds,
        "capture": s.capture.name(),
        "leftover": s.leftover.name(),
        "end": s.end.name(),
        "pie": s.pie,
    })
}

/// Level perfect's move: one of the moves proven optimal within `limit`, at random; where the
/// proof did not finish (its time ran out, or one of `cancel` was set), the move with the best
/// proven bounds.
pub fn perfect_move(
    solver: &Solver,
    pos: &Position,
    limit: Duration,
    rng: &mut GameRng,
    cancel: &[&AtomicBool],
) -> Move {
    let a = solver.analyse_cancellable(pos, Some(limit), Detail::Optimal, None, cancel);
    let best = a.best();
    if !best.is_empty() {
        return best[rng.random_range(0..best.len())];
    }
    a.moves
        .iter()
        .max_by_key(|m| (m.lower + m.upper, m.upper))
        .map(|m| m.mv)
        .or_else(|| pos.legal_moves().iter().next())
        .expect("a position that is not over has a legal move")
}

/// A review item for the move `played` (index `i`), judged by `a` (the solver's analysis of the
/// position before it).
#[derive(Serialize)]
pub struct Judged {
    /// Ply index (0-based).
    pub index: usize,
    /// The mover's seat letter.
    pub side: String,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: Value,
    /// The moves proven optimal (empty where the value was not proven).
    pub best: Vec<Value>,
    /// The position's exact value for the mover, if proven.
    pub value: Option<i32>,
    /// Bounds on the move played's value for the mover.
    pub lower: i32,
    /// Upper bound.
    pub upper: i32,
    /// Seeds the move gave up against the best, if both are exact.
    pub loss: Option<i32>,
    /// Whether the move lost seeds (proven).
    pub mistake: bool,
    /// The position before the move.
    pub before: String,
}

/// Judges move `i` of `game`'s history with analysis `a` of the position before it.
pub fn judge_move(i: usize, played: &Played, a: &crate::solver::Analysis) -> Judged {
    let mv = a.moves.iter().find(|m| m.mv == played.mv);
    let loss = a.loss(played.mv);
    Judged {
        index: i,
        side: played.before.to_move().letter().to_string(),
        mv: move_json(played.mv),
        best: a.best().into_iter().map(move_json).collect(),
        value: a.value(),
        lower: mv.map_or(a.lower, |m| m.lower),
        upper: mv.map_or(a.upper, |m| m.upper),
        loss,
        mistake: loss.is_some_and(|l| l > 0),
        before: played.before.to_string(),
    }
}
