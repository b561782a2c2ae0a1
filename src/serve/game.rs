//! One game on the server: the record, the person's seat, the opponent, and what each move did
//! (the cells its seeds passed through, for the page to sow them one by one, and for the
//! strongest level's moves what the solver proved about them).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use super::error::{ApiError, codes};
use super::jobs::{Cancel, Place, Watch, flag};
use crate::bots::guard::{Proof, guard};
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
    /// The strongest level (`perfect` before): the solver of the game's rules (shared, taken
    /// from the server's pool for each turn: the game holds none between its moves) works on the
    /// position for at most `limit`; a move it proves best is played, a move it proves to change
    /// the result never is, and `inner` (level hard's bot) chooses among the rest
    /// ([`crate::bots::guard`]).
    Strongest {
        /// The solver's time a move.
        limit: Duration,
        /// The bot it guards.
        inner: Box<dyn Bot>,
    },
}

/// One game and who plays it.
pub struct GameState {
    /// The game so far.
    pub game: Game,
    /// The level (meaningless in practice mode).
    pub level: Level,
    /// The opponent's bot spec, e.g. `minimax:6` or `policy:auto:64` (never a path).
    pub bot_name: String,
    /// The release id of the network the opponent plays, if it plays one.
    pub network: Option<String>,
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
    /// What the solver proved about the strongest level's moves, by ply: the position before
    /// and the move (a ply undone and played otherwise no longer matches), and the proof.
    proofs: Vec<Option<(Position, Move, Proof)>>,
}

/// A level by its name in the API: `easy`, `medium`, `hard`, `strongest` (the API still takes
/// `perfect`, its older name, but never answers with it: with six seeds a pit no opening is
/// proven within a move's time).
pub fn level_name(level: Level) -> &'static str {
    match level {
        Level::Easy => "easy",
        Level::Medium => "medium",
        Level::Hard => "hard",
        Level::Perfect => "strongest",
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

/// What one move did, as JSON; `proof`: what the solver proved about it, for the strongest
/// level's moves (`null` for the person's moves and the other levels', which prove nothing).
pub fn ply_json(
    index: usize,
    played: &Played,
    by: &str,
    after: &Position,
    proof: Option<Proof>,
) -> Value {
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
        "proof": proof.map(Proof::name),
        "text": text,
    })
}

impl GameState {
    /// A new game from `start` (the rules' start, or a loaded record's) with `moves` played.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: Game,
        level: Level,
        (bot_name, network): (String, Option<String>),
        human: Side,
        practice: bool,
        opponent: Opponent,
        seed: u64,
    ) -> GameState {
        GameState {
            game,
            level,
            bot_name,
            network,
            seats: Seats { human, practice },
            opponent,
            rng: game_rng(seed, 0),
            abandoned: flag(),
            moved: flag(),
            generation: 0,
            reviewed: Vec::new(),
            proofs: Vec::new(),
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

    /// What the solver proved about ply `i` (0-based), if the strongest level played it.
    pub fn proof(&self, i: usize) -> Option<Proof> {
        let played = &self.game.history()[i];
        match self.proofs.get(i) {
            Some(Some((before, mv, proof))) if *before == played.before && *mv == played.mv => {
                Some(*proof)
            }
            _ => None,
        }
    }

    /// Ply `i` as JSON.
    pub fn ply(&self, i: usize) -> Value {
        let after = self
            .game
            .history()
            .get(i + 1)
            .map_or(*self.position(), |p| p.before);
        ply_json(
            i,
            &self.game.history()[i],
            self.by(i),
            &after,
            self.proof(i),
        )
    }

    /// Checks that the person may play `mv` now, and plays it.
    pub fn play_human(&mut self, mv: Move) -> Result<(), ApiError> {
        if self.position().is_over() {
            return Err(ApiError::conflict(codes::GAME_OVER, "the game is over"));
        }
        if !self.human_to_move() {
            return Err(ApiError::conflict(
                codes::NOT_YOUR_MOVE,
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
    /// Stops as soon as `cancel` is set: a move found after that is not played (the strongest
    /// level's proof stops within milliseconds; a network's or a search bot's move ends within
    /// its own budget, and is then dropped). The strongest level's moves need `solver` (the
    /// solver of the game's rules, see [`GameState::needs_solver`]); without it none is played,
    /// and each move it plays keeps what was proven about it ([`GameState::proof`]). Blocking:
    /// call off the async path.
    pub fn play_bot(&mut self, cancel: &Cancel, solver: Option<&Solver>) -> usize {
        let flags = cancel.flags();
        let mut n = 0;
        while self.bot_to_move() && n < MAX_BOT_PLIES && !cancel.is_set() {
            let pos = *self.position();
            let (mv, proof) = match &mut self.opponent {
                Opponent::None => break,
                Opponent::Bot(bot) | Opponent::Network(bot) => {
                    (bot.choose(&pos, &mut self.rng), None)
                }
                Opponent::Strongest { limit, inner } => match solver {
                    Some(solver) => {
                        let (mv, proof) = strongest_move(
                            solver,
                            &pos,
                            *limit,
                            inner.as_mut(),
                            &mut self.rng,
                            &flags,
                        );
                        (mv, Some(proof))
                    }
                    None => break,
                },
            };
            let ply = self.game.history().len();
            if cancel.is_set() || self.game.play(mv).is_err() {
                break;
            }
            if let Some(proof) = proof {
                self.proofs.truncate(ply);
                self.proofs.resize(ply, None);
                self.proofs.push(Some((pos, mv, proof)));
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

    /// Whether the bot's moves need the solver of the game's rules (the strongest level).
    pub fn needs_solver(&self) -> bool {
        matches!(self.opponent, Opponent::Strongest { .. })
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
            Err(ApiError::conflict(
                codes::NOTHING_TO_UNDO,
                "nothing to undo",
            ))
        } else {
            self.changed();
            Ok(n)
        }
    }

    /// Replays undone moves until the person is to move again (one in practice mode).
    pub fn redo(&mut self) -> Result<usize, ApiError> {
        let n = self.seats.redo(&mut self.game);
        if n == 0 {
            Err(ApiError::conflict(
                codes::NOTHING_TO_REDO,
                "nothing to redo",
            ))
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
                    "before": p.before.to_string(),
                    "proof": self.proof(i).map(Proof::name),
                })
            })
            .collect();
        json!({
            "id": id,
            "rules": rules_json(rules),
            "level": level_name(self.level),
            "bot": if self.seats.practice { Value::Null } else { json!(self.bot_name) },
            "network": if self.seats.practice { Value::Null } else { json!(self.network) },
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

/// The strongest level's move and what was proven about it: the solver analyses `pos` for at
/// most `limit` (or until one of `cancel` is set); a move it proves best is played, moves it
/// proves to change the result never are, and `inner` chooses among what is left, preferring
/// the moves proven to keep the result ([`crate::bots::guard::Guard::choices`]).
pub fn strongest_move(
    solver: &Solver,
    pos: &Position,
    limit: Duration,
    inner: &mut dyn Bot,
    rng: &mut GameRng,
    cancel: &[&AtomicBool],
) -> (Move, Proof) {
    let a = solver.analyse_cancellable(pos, Some(limit), Detail::Optimal, None, cancel);
    let g = guard(&a);
    let (moves, proof) = g.choices();
    let legal: Vec<Move>;
    let moves = if moves.is_empty() {
        // An analysis stopped before its first bound: every legal move, nothing proven.
        legal = pos.legal_moves().iter().collect();
        &legal[..]
    } else {
        moves
    };
    let mv = if moves.len() == 1 {
        moves[0]
    } else {
        inner.choose_among(pos, moves, rng)
    };
    (mv, proof)
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
    /// Whether the move is proven to change the result the position was worth (a win thrown to
    /// a draw or a loss, a draw to a loss): a mistake even where the seeds lost are not proven.
    pub changes_result: bool,
    /// What was proven about the move: `optimal`, `keeps_result` or `not_proven`
    /// ([`crate::bots::guard::Proof`]).
    pub proof: &'static str,
    /// Bounds on the position's value for the mover (equal when proven), for the evaluation
    /// graph.
    pub value_lower: i32,
    /// See `value_lower`.
    pub value_upper: i32,
    /// The position before the move.
    pub before: String,
    /// The position after it.
    pub after: String,
    /// The move's last seed fell in the mover's kalaha.
    pub extra_turn: bool,
    /// Seeds it captured.
    pub captured: u8,
}

/// Judges move `i` of a game's history (`played`, followed by `after`) with analysis `a` of the
/// position before it.
pub fn judge_move(
    i: usize,
    played: &Played,
    after: &Position,
    a: &crate::solver::Analysis,
) -> Judged {
    let mv = a.moves.iter().find(|m| m.mv == played.mv);
    let loss = a.loss(played.mv);
    let g = guard(a);
    let changes_result = mv.is_some() && !g.allowed.contains(&played.mv);
    Judged {
        index: i,
        side: played.before.to_move().letter().to_string(),
        mv: move_json(played.mv),
        best: a.best().into_iter().map(move_json).collect(),
        value: a.value(),
        lower: mv.map_or(a.lower, |m| m.lower),
        upper: mv.map_or(a.upper, |m| m.upper),
        loss,
        mistake: loss.is_some_and(|l| l > 0) || changes_result,
        changes_result,
        proof: g.proof_of(played.mv).name(),
        value_lower: g.lower,
        value_upper: g.upper,
        before: played.before.to_string(),
        after: after.to_string(),
        extra_turn: played.outcome.extra_turn,
        captured: played.outcome.captured,
    }
}
