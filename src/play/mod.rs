//! `kalaha play`: a person against a bot (or against themself in practice mode), in a terminal
//! UI or, when standard input is not a terminal, line by line so it can be scripted.
//!
//! - [`board`]: the board from the player's side, with the last sowing marked.
//! - [`line`](mod@line): the line-by-line game.
//! - [`tui`]: the terminal game (ratatui).
//!
//! Both front ends drive one [`Session`]: the game record, whose seats a person holds, the
//! opponent bot, and the commands (move, undo, redo, hint).

pub mod board;
pub mod line;
pub mod seats;
pub mod tui;

use std::time::Duration;

use crate::bots::{Bot, BotSpec, Player, game_rng};
use crate::env::rng::GameRng;
use crate::rules::{Game, IllegalMove, Move, Played, Position, Rules, Side, parse_move};
use crate::solver::{Solver, SolverConfig};

use board::BoardView;
pub use seats::Seats;

/// Seconds a hint may take before it shows bounds instead of exact values.
const HINT_SECONDS: u64 = 5;

/// A command typed by the person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Play a move.
    Play(Move),
    /// Take back the last move (and the bot's replies, against a bot).
    Undo,
    /// Replay an undone move.
    Redo,
    /// Show the solver's value of every move.
    Hint,
    /// Leave.
    Quit,
}

impl Command {
    /// Reads a command: a pit number, `swap`, `u`/`undo`, `r`/`redo`, `h`/`hint`, `q`/`quit`.
    pub fn parse(text: &str) -> Result<Command, String> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "" => Err("type a pit number, or h for a hint, u to undo, q to quit".into()),
            "u" | "undo" => Ok(Command::Undo),
            "r" | "redo" => Ok(Command::Redo),
            "h" | "hint" | "?" => Ok(Command::Hint),
            "q" | "quit" | "exit" => Ok(Command::Quit),
            _ => parse_move(&t)
                .map(Command::Play)
                .ok_or_else(|| format!("'{}' is not a move or a command", text.trim())),
        }
    }
}

/// One game and the people and bot in it.
pub struct Session {
    /// The game so far.
    pub game: Game,
    /// The person's seat and whether they practise (South at the bottom in practice mode).
    pub seats: Seats,
    /// The opponent, unless practising.
    pub opponent: Option<Player>,
    bot: Option<Box<dyn Bot>>,
    rng: GameRng,
    seed: u64,
    games: u64,
    hints: Option<Solver>,
}

/// A move in words: `pit 3`, `swap`.
fn move_name(m: Move) -> String {
    match m {
        Move::Pit(p) => format!("pit {p}"),
        Move::Swap => "swap".to_string(),
    }
}

/// What a move did, in words, e.g. `South (you) played 3: extra turn`.
pub fn describe(played: &Played, who: &str) -> String {
    let mut s = format!("{who} played {}", played.mv);
    let o = &played.outcome;
    if o.swapped {
        s += ": the players swap seats";
    } else if o.extra_turn {
        s += ": last seed in the kalaha, extra turn";
    } else if o.captured > 0 {
        s += &format!(": capture, {} seeds to the kalaha", o.captured);
    }
    s
}

impl Session {
    /// A new session; `human` is the person's seat; `opponent` is `None` in practice mode.
    pub fn new(rules: &Rules, human: Side, opponent: Option<Player>, seed: u64) -> Session {
        Session {
            game: Game::new(rules),
            seats: Seats {
                human,
                practice: opponent.is_none(),
            },
            bot: opponent.as_ref().map(|o| o.build()),
            opponent,
            rng: game_rng(seed, 0),
            seed,
            games: 0,
            hints: None,
        }
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The seat the person sits in now (after a pie swap, the other one).
    pub fn human_seat(&self) -> Side {
        self.seats.human_seat(&self.game)
    }

    /// Whether the person is to move (always in practice mode, until the game ends).
    pub fn human_to_move(&self) -> bool {
        self.seats.human_to_move(&self.game)
    }

    /// The side drawn at the bottom.
    pub fn bottom(&self) -> Side {
        if self.seats.practice {
            Side::South
        } else {
            self.human_seat()
        }
    }

    /// The board as the person sees it.
    pub fn view(&self) -> BoardView {
        BoardView::new(self.position(), self.bottom(), self.game.last())
    }

    /// Who sits in `seat`, for messages: `South (you)`, `North (minimax:6)`.
    pub fn label(&self, seat: Side) -> String {
        let side = seat.name();
        let mut cap = side[..1].to_uppercase();
        cap += &side[1..];
        match &self.opponent {
            _ if self.seats.practice => cap,
            _ if seat == self.human_seat() => format!("{cap} (you)"),
            Some(o) => format!("{cap} ({o})"),
            None => cap,
        }
    }

    /// The person's move or command; `Err` explains bad input, which changes nothing.
    pub fn play(&mut self, mv: Move) -> Result<String, String> {
        if !self.human_to_move() {
            return Err("it is not your move".into());
        }
        let who = self.label(self.position().to_move());
        match self.game.play(mv) {
            Ok(_) => Ok(describe(self.game.last().expect("just played"), &who)),
            Err(e) => Err(match e {
                IllegalMove::EmptyPit(p) => format!("pit {p} is empty; pick a pit with seeds"),
                IllegalMove::OutOfRange { pits, .. } => {
                    format!("there is no pit {mv}: pits are numbered 1 to {pits}")
                }
                other => other.to_string(),
            }),
        }
    }

    /// The bot's move, if it is the bot's turn: what it did, in words.
    pub fn bot_move(&mut self) -> Option<String> {
        if self.position().is_over() || self.human_to_move() {
            return None;
        }
        let pos = *self.position();
        let who = self.label(pos.to_move());
        let bot = self.bot.as_mut()?;
        let mv = bot.choose(&pos, &mut self.rng);
        let proof = bot.last_proof();
        self.game.play(mv).expect("bots play legal moves");
        let said = describe(self.game.last().expect("just played"), &who);
        Some(match proof {
            Some(p) => format!("{said} ({})", p.words()),
            None => said,
        })
    }

    /// Takes back moves until the person is to move again (one move in practice mode).
    pub fn undo(&mut self) -> Result<String, String> {
        let n = self.seats.undo(&mut self.game);
        if n == 0 {
            Err("nothing to undo".into())
        } else {
            Ok(format!(
                "took back {n} move{}",
                if n == 1 { "" } else { "s" }
            ))
        }
    }

    /// Replays undone moves until the person is to move again (one in practice mode).
    pub fn redo(&mut self) -> Result<String, String> {
        let n = self.seats.redo(&mut self.game);
        if n == 0 {
            Err("nothing to redo".into())
        } else {
            Ok(format!(
                "replayed {n} move{}",
                if n == 1 { "" } else { "s" }
            ))
        }
    }

    /// The opponent network's view of the position, at once, as one line: its value and
    /// predicted margin for the player to move, and its policy (and search) over the moves, best
    /// first. `None` unless the opponent is a network and the game goes on.
    pub fn network_hint(&self) -> Option<String> {
        let pos = *self.position();
        let opponent = self.opponent.as_ref()?;
        if pos.is_over() || self.seats.practice {
            return None;
        }
        let v = crate::bots::view::view(
            opponent,
            &pos,
            crate::env::rng::derive(self.seed, self.games),
        );
        let n = v.network.as_ref()?;
        let mut moves = v.moves.clone();
        moves.sort_by(|a, b| {
            (b.visits, b.prior.unwrap_or(0.0))
                .partial_cmp(&(a.visits, a.prior.unwrap_or(0.0)))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let list: Vec<String> = moves
            .iter()
            .map(|m| {
                let mut s = format!("{} {:.1}%", move_name(m.mv), 100.0 * m.prior.unwrap_or(0.0));
                if let Some(visits) = m.visits {
                    s += &format!(" ({visits} visits)");
                }
                s
            })
            .collect();
        Some(format!(
            "network ({}): value {:+.2}, predicted margin {:+.1} seeds for the mover; {}",
            opponent,
            n.value,
            n.margin,
            list.join(", ")
        ))
    }

    /// The solver's value of every legal move, best first, as one line.
    pub fn hint(&mut self) -> Result<String, String> {
        let pos = *self.position();
        if pos.is_over() {
            return Err("the game is over".into());
        }
        if self.hints.is_none() {
            let cfg = SolverConfig {
                memory_mb: 512,
                ..SolverConfig::default()
            };
            self.hints = Some(Solver::new(pos.rules(), &cfg).map_err(|e| e.to_string())?);
        }
        // A hint must come back while the person waits: after HINT_SECONDS the moves not yet
        // solved show the bounds proven so far.
        let solver = self.hints.as_ref().expect("just made");
        let a = solver.analyse_within(&pos, Some(Duration::from_secs(HINT_SECONDS)), None);
        let mut moves: Vec<(Move, i32, i32)> =
            a.moves.iter().map(|m| (m.mv, m.lower, m.upper)).collect();
        moves.sort_by_key(|m| std::cmp::Reverse((m.2, m.1)));
        let list: Vec<String> = moves
            .iter()
            .map(|&(m, lo, hi)| {
                let name = move_name(m);
                if lo == hi {
                    format!("{name}: {lo:+}")
                } else {
                    format!("{name}: {lo:+} to {hi:+}")
                }
            })
            .collect();
        let note = if a.complete() {
            ""
        } else {
            " (stopped after the time limit: ranges are proven bounds)"
        };
        Ok(format!(
            "hint (final margin for the mover under perfect play): {}{note}",
            list.join(", ")
        ))
    }

    /// The end of the game in words, once it is over.
    pub fn result(&self) -> Option<String> {
        let pos = self.position();
        let result = pos.result()?;
        let [s, n] = pos.score();
        let score = format!("South {s}, North {n}");
        Some(match result.winner() {
            None => format!("Game over: a draw, {score}."),
            Some(w) if self.seats.practice => format!("Game over: {} wins, {score}.", w.name()),
            Some(w) if w == self.human_seat() => format!("Game over: you win, {score}."),
            Some(_) => format!("Game over: you lose, {score}."),
        })
    }

    /// A fresh game with the person in the other seat (the same seat in practice mode).
    pub fn next_game(&mut self) {
        self.games += 1;
        if !self.seats.practice {
            self.seats.human = self.seats.human.other();
        }
        self.game = Game::new(self.position().rules());
        self.bot = self.opponent.as_ref().map(|o| o.build());
        self.rng = game_rng(self.seed, self.games);
    }
}

/// Simulations of search per move of level `hard`'s network.
pub const HARD_SIMULATIONS: u32 = 64;

/// Seconds the solver of level `strongest` works on each move before the network's search
/// chooses among the moves it has not ruled out.
pub const STRONGEST_SECONDS: f64 = 0.9;

/// An opponent's strength, as `kalaha play --level` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `easy`: greedy.
    Easy,
    /// `medium`: minimax:6.
    Medium,
    /// `hard`: the network trained for the rules, with [`HARD_SIMULATIONS`] simulations of search
    /// and its endgame database (or mcts:2000 without one).
    Hard,
    /// `strongest` (also `perfect`, its older name): the exact solver guarding the `hard`
    /// network's search ([`crate::bots::guard`]): it plays a move it proves best within
    /// [`STRONGEST_SECONDS`], never one it proves to change the result, and says which it played;
    /// without a network for the rules, the exact solver alone.
    Perfect,
}

impl std::str::FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Level, String> {
        match s {
            "easy" => Ok(Level::Easy),
            "medium" => Ok(Level::Medium),
            "hard" => Ok(Level::Hard),
            "strongest" | "perfect" => Ok(Level::Perfect),
            other => Err(format!(
                "unknown level '{other}' (expected easy, medium, hard or strongest)"
            )),
        }
    }
}

impl Level {
    /// The bot this level stands for; `checkpoint` is the network `hard` plays, if there is one
    /// for the rules (`kalaha play` takes the one [`crate::bots::BotContext::find_network`]
    /// finds).
    pub fn spec(self, checkpoint: Option<&str>) -> BotSpec {
        match (self, checkpoint) {
            (Level::Easy, _) => BotSpec::Greedy,
            (Level::Medium, _) => BotSpec::Minimax(6),
            #[cfg(feature = "train")]
            (Level::Hard, Some(path)) => BotSpec::Policy {
                path: path.to_string(),
                sims: Some(HARD_SIMULATIONS),
                margin: None,
                c_scale: None,
                prove: None,
                minimax: None,
                db: crate::bots::PlayDb::Default,
                alphabeta: None,
            },
            (Level::Hard, _) => BotSpec::Mcts(2000),
            #[cfg(feature = "train")]
            (Level::Perfect, Some(path)) => BotSpec::Guard {
                millis: (STRONGEST_SECONDS * 1000.0) as u32,
                inner: Box::new(Level::Hard.spec(Some(path))),
            },
            (Level::Perfect, _) => BotSpec::Solver,
        }
    }
}
