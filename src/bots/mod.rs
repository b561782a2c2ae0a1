//! Players behind one interface: baseline bots, their command-line names, and the match runner.
//!
//! A bot goes from its name to a player in three steps, each of which can fail only where it
//! says: [`BotSpec`] is the name's syntax (parsing reads no file); [`BotContext::prepare`] loads
//! what the bot needs (a network, a solver shared by every solver bot) and checks it against the
//! rules, returning an error that says what is wrong; [`Player::build`] then makes a fresh
//! [`Bot`] for each game and cannot fail. Network players consult the endgame database their
//! checkpoint was trained with (module [`db`]) unless told not to.

#[cfg(feature = "train")]
pub mod db;
mod greedy;
pub mod guard;
mod matches;
mod mcts;
mod minimax;
pub mod options;
mod player;
#[cfg(feature = "train")]
pub mod policy;
mod solver;
mod tally;
pub mod view;

use std::fmt;
use std::str::FromStr;

use rand::{Rng, RngExt};

use crate::env::rng::GameRng;
use crate::rules::{Move, Position};

pub use greedy::Greedy;
pub use matches::{
    BATCHED_GAMES, Gate, MatchConfig, MatchSummary, Place, PlayedGame, game_rng, play_game,
    play_game_gated, play_game_proved, play_on_threads, run_match, run_match_until,
};
pub use mcts::Mcts;
pub use minimax::Minimax;
pub use player::{BotContext, BotFactory, Player};
pub use solver::{BOT_MEMORY_MB, SolverBot, bot_solver_config};
pub use tally::Tally;
pub use view::{BotView, MoveView, NetworkView};

/// A player: picks a legal move in any position that is not over.
pub trait Bot: Send {
    /// Picks a move; `rng` breaks ties and drives any randomness, so the same seed replays a game.
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move;

    /// Picks one of `moves` (legal, not empty): the move it would choose if that is one of them,
    /// else one of them at random. Bots that rank moves (the network players) pick their best
    /// among `moves` instead; a [`guard::GuardBot`] asks this of the bot it guards.
    fn choose_among(&mut self, pos: &Position, moves: &[Move], rng: &mut GameRng) -> Move {
        let mv = self.choose(pos, rng);
        if moves.contains(&mv) {
            mv
        } else {
            moves[rng.random_range(0..moves.len())]
        }
    }

    /// What was proven about the last move chosen, for bots that prove ([`guard::GuardBot`]).
    fn last_proof(&self) -> Option<guard::Proof> {
        None
    }
}

/// Plays uniformly at random among the legal moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl Bot for RandomBot {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        random_move(pos, rng)
    }
}

/// A uniformly random legal move. Precondition: the game is not over.
pub fn random_move(pos: &Position, rng: &mut impl Rng) -> Move {
    let moves: Vec<Move> = pos.legal_moves().iter().collect();
    moves[rng.random_range(0..moves.len())]
}

/// With chance `greedy_share` the greedy bot's move, else a uniformly random legal move: the
/// move of the random-and-greedy games that training and judging draw positions from.
/// Precondition: the game is not over.
pub fn greedy_or_random(pos: &Position, greedy_share: f64, rng: &mut impl Rng) -> Move {
    if rng.random::<f64>() < greedy_share {
        Greedy.pick(pos, rng)
    } else {
        random_move(pos, rng)
    }
}

/// Picks uniformly among the moves whose score equals the best (highest) one.
pub(crate) fn best_at_random<T: PartialOrd + Copy>(
    scored: &[(Move, T)],
    rng: &mut impl Rng,
) -> Move {
    let best = scored
        .iter()
        .map(|s| s.1)
        .fold(scored[0].1, |a, b| if b > a { b } else { a });
    let ties: Vec<Move> = scored.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
    ties[rng.random_range(0..ties.len())]
}

/// A bot as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotSpec {
    /// `random`
    Random,
    /// `greedy`
    Greedy,
    /// `minimax:D`
    Minimax(u32),
    /// `mcts:N`
    Mcts(u32),
    /// `solver`: perfect play, random among the equally optimal moves.
    Solver,
    /// `guard:T:SPEC`: the exact solver works T seconds a move (T in thousandths here) and plays a
    /// move it proves best; otherwise it keeps SPEC's bot from any move it proves to change the
    /// result, and SPEC chooses among the rest, preferring the moves proven to keep the result
    /// ([`guard`]). E.g. `guard:1:policy:auto:64`.
    Guard {
        /// The solver's time a move, in milliseconds.
        millis: u32,
        /// The bot it guards.
        inner: Box<BotSpec>,
    },
    /// A bot supplied by the program that embeds the library (e.g. a Python agent), under this
    /// name; never parsed from text. Played through [`Player::external`].
    External(String),
    /// `policy:PATH` (the network's best move) or `policy:PATH:SIMS` (with search): a trained
    /// checkpoint, loaded and checked by [`BotContext::prepare`]. Positions the endgame database
    /// covers are answered exactly (a move of the best exact value, the network's choice among
    /// several) and are solved leaves of the search; the database is the one the checkpoint was
    /// trained with (see [`BotContext::endgame_db`]). Options after it, in any order:
    /// `:margin=W` (with SIMS: the search's utility `(1 - W) * value + W * margin` instead of the
    /// checkpoint's), `:c_scale=X` (with SIMS: the scale of the search's Q transform,
    /// [`crate::search::SearchConfig::c_scale`], instead of the checkpoint's), `:prove=on` or
    /// `:prove=off` (with SIMS: whether the search proves subtrees,
    /// [`crate::search::SearchConfig::prove`]; the checkpoint's setting by default), `:minimax=A`
    /// (with SIMS: the weight of implicit minimax backups,
    /// [`crate::search::SearchConfig::minimax_weight`]; 0 by default), `:alphabeta=BUDGET`
    /// (without SIMS: alpha-beta with iterative deepening over the network's margin head, its
    /// policy ordering the moves, within `100ms` a move or `5000` network evaluations a move;
    /// [`crate::search::alphabeta`]), `:db=off`
    /// (no database: the network and its search alone) and `:db=N` (the database of N seeds on
    /// the board, e.g. 24 for Kalah(6,4): 1.25 GB, built in minutes on first use), e.g.
    /// `policy:PATH:64:margin=0.5:db=off`. `policy:auto[:SIMS]` ([`AUTO`]) is the network trained
    /// for exactly the rules the bot is prepared for, wherever [`crate::nn::model::find_for`]
    /// finds it.
    #[cfg(feature = "train")]
    Policy {
        /// The checkpoint: its folder, `meta.json` or weights file; or [`AUTO`].
        path: String,
        /// Simulations of search per move (none: the policy's best move).
        sims: Option<u32>,
        /// Margin weight in thousandths.
        margin: Option<u16>,
        /// The Q transform's scale in thousandths (none: the checkpoint's).
        c_scale: Option<u32>,
        /// Whether the search proves subtrees (none: as the checkpoint's search).
        prove: Option<bool>,
        /// The weight of implicit minimax backups in thousandths (none: the checkpoint's).
        minimax: Option<u16>,
        /// The endgame database that answers the positions it covers (`:db=off`: none).
        db: PlayDb,
        /// `:alphabeta=BUDGET` (without SIMS): alpha-beta over the network's margin head instead
        /// of the Gumbel search ([`crate::search::alphabeta`]).
        alphabeta: Option<crate::search::alphabeta::Budget>,
    },
}

/// The endgame database a `policy:` bot consults: the `:db=` option.
#[cfg(feature = "train")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayDb {
    /// `db=off`: none; the network and its search alone.
    Off,
    /// `db=on`, the default: the checkpoint's own, at most the rules' default
    /// ([`db::db_seeds`]).
    Default,
    /// `db=N`: the database of N seeds on the board.
    Seeds(u32),
}

/// The path of `policy:auto`: the network found for the rules (`./auto` names a folder so
/// called).
#[cfg(feature = "train")]
pub const AUTO: &str = "auto";

/// Why a bot name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BotSpecError {
    /// Not a known bot.
    #[error(
        "unknown bot '{0}' (expected random, greedy, minimax:D, mcts:N, solver, guard:T:BOT or policy:PATH)"
    )]
    Unknown(String),
    /// A parameter that is missing, not a number or out of range.
    #[error("bot '{spec}': {why}")]
    Parameter {
        /// The name as given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
}

impl FromStr for BotSpec {
    type Err = BotSpecError;

    fn from_str(s: &str) -> Result<BotSpec, BotSpecError> {
        #[cfg(feature = "train")]
        if let Some(rest) = s.strip_prefix("policy:") {
            return parse_policy(s, rest);
        }
        if let Some(rest) = s.strip_prefix("guard:") {
            return parse_guard(s, rest);
        }
        let (name, arg) = match s.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (s, None),
        };
        let param = |max: u32, what: &str| -> Result<u32, BotSpecError> {
            let bad = |why: String| BotSpecError::Parameter {
                spec: s.to_string(),
                why,
            };
            let a = arg.ok_or_else(|| bad(format!("needs {what}, e.g. {name}:4")))?;
            let v: u32 = a
                .parse()
                .map_err(|_| bad(format!("{what} '{a}' is not a whole number")))?;
            if v == 0 || v > max {
                return Err(bad(format!("{what} must be 1 to {max}")));
            }
            Ok(v)
        };
        match (name, arg) {
            ("random", None) => Ok(BotSpec::Random),
            ("greedy", None) => Ok(BotSpec::Greedy),
            ("solver", None) => Ok(BotSpec::Solver),
            ("minimax", _) => Ok(BotSpec::Minimax(param(64, "a search depth")?)),
            ("mcts", _) => Ok(BotSpec::Mcts(param(10_000_000, "a simulation count")?)),
            _ => Err(BotSpecError::Unknown(s.to_string())),
        }
    }
}

/// The most seconds a move `guard:T:SPEC` may give its solver.
pub const MAX_GUARD_SECONDS: f64 = 3600.0;

/// Parses the part of `guard:T:SPEC` after `guard:` (`rest`; `spec` is the whole name).
fn parse_guard(spec: &str, rest: &str) -> Result<BotSpec, BotSpecError> {
    let bad = |why: String| BotSpecError::Parameter {
        spec: spec.to_string(),
        why,
    };
    let (t, inner) = rest.split_once(':').ok_or_else(|| {
        bad("expected guard:SECONDS:BOT, e.g. guard:1:policy:auto:64".to_string())
    })?;
    let seconds: f64 = t
        .parse()
        .map_err(|_| bad(format!("seconds '{t}' is not a number")))?;
    if !(0.001..=MAX_GUARD_SECONDS).contains(&seconds) {
        return Err(bad(format!(
            "seconds {t} is not from 0.001 to {MAX_GUARD_SECONDS}"
        )));
    }
    let inner: BotSpec = inner.parse()?;
    if matches!(inner, BotSpec::Guard { .. } | BotSpec::Solver) {
        return Err(bad(format!(
            "'{inner}' cannot be guarded (the guarded bot is one that does not solve)"
        )));
    }
    Ok(BotSpec::Guard {
        millis: (seconds * 1000.0).round() as u32,
        inner: Box::new(inner),
    })
}

/// Parses the part of `policy:PATH[:SIMS][:OPTION...]` after `policy:` (`rest`; `spec` is the
/// whole name, for errors). Options are read from the end back, so a path may hold colons.
#[cfg(feature = "train")]
fn parse_policy(spec: &str, rest: &str) -> Result<BotSpec, BotSpecError> {
    let bad = |why: String| BotSpecError::Parameter {
        spec: spec.to_string(),
        why,
    };
    /// `key=value`, where the key is a word of lowercase letters.
    fn option(segment: &str) -> Option<(&str, &str)> {
        segment.split_once('=').filter(|(k, _)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        })
    }
    // A number option, checked by its one parser (`options`), kept in thousandths.
    let milli = |value: &str, check: fn(f64) -> Result<f32, String>, what: &str, range: &str| {
        (value.parse::<f64>().map_err(|e| e.to_string()))
            .and_then(check)
            .map(|x| (f64::from(x) * 1000.0).round() as u32)
            .map_err(|_| bad(format!("{what} '{value}' is not a number in {range}")))
    };
    let c_scales = format!("{}..={}", PLAY_C_SCALES.start(), PLAY_C_SCALES.end());
    let (mut rest, mut margin, mut c_scale, mut prove, mut minimax, mut db) =
        (rest, None, None, None, None, None);
    let mut alphabeta = None;
    while let Some((before, (key, value))) = rest
        .rsplit_once(':')
        .and_then(|(before, last)| option(last).map(|kv| (before, kv)))
    {
        let seen = match key {
            "margin" => margin
                .replace(milli(value, options::margin_weight, "margin weight", "0..=1")? as u16)
                .is_some(),
            "c_scale" => c_scale
                .replace(milli(value, options::c_scale, "c_scale", &c_scales)?)
                .is_some(),
            "prove" => prove.replace(options::prove(value).map_err(bad)?).is_some(),
            "minimax" => minimax
                .replace(milli(value, options::minimax_weight, "minimax weight", "0..=1")? as u16)
                .is_some(),
            "alphabeta" => alphabeta
                .replace(value.parse().map_err(|e: String| bad(e))?)
                .is_some(),
            "db" => db
                .replace(match value {
                    "on" => PlayDb::Default,
                    "off" => PlayDb::Off,
                    n => match n.parse::<u32>() {
                        Ok(n) if (1..=MAX_PLAY_DB_SEEDS).contains(&n) => PlayDb::Seeds(n),
                        _ => {
                            return Err(bad(format!(
                                "db={value}: expected db=off, db=on or db=N with N seeds on the \
                                 board, 1 to {MAX_PLAY_DB_SEEDS}"
                            )));
                        }
                    },
                })
                .is_some(),
            _ => {
                return Err(bad(format!(
                    "unknown option '{key}' (expected margin=W, c_scale=X, prove=on, prove=off, minimax=A, alphabeta=BUDGET, db=off or db=N)"
                )));
            }
        };
        if seen {
            return Err(bad(format!("{key}= is given twice")));
        }
        rest = before;
    }
    let (path, sims) = match rest.rsplit_once(':') {
        Some((p, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            let n: u32 = n
                .parse()
                .map_err(|_| bad(format!("simulations '{n}' out of range")))?;
            if n == 0 || n > 100_000 {
                return Err(bad("simulations must be 1 to 100000".to_string()));
            }
            (p, Some(n))
        }
        _ => (rest, None),
    };
    if path
        .rsplit_once(':')
        .is_some_and(|(_, last)| option(last).is_some())
    {
        return Err(bad(
            "options (margin=W, c_scale=X, db=off) go after the simulation count".to_string(),
        ));
    }
    // Options of the search need a search.
    for (given, key) in [
        (margin.is_some(), "margin=W"),
        (c_scale.is_some(), "c_scale=X"),
        (prove.is_some(), "prove="),
        (minimax.is_some(), "minimax=A"),
    ] {
        if given && sims.is_none() {
            return Err(bad(format!("{key} needs a simulation count before it")));
        }
    }
    if alphabeta.is_some() && sims.is_some() {
        return Err(bad(
            "alphabeta=BUDGET replaces the simulations' search: give one or the other".into(),
        ));
    }
    if path.is_empty() {
        return Err(bad(
            "needs a checkpoint path, e.g. policy:checkpoints/kalah64, or auto".into(),
        ));
    }
    Ok(BotSpec::Policy {
        path: path.to_string(),
        sims,
        margin,
        c_scale,
        prove,
        minimax,
        db: db.unwrap_or(PlayDb::Default),
        alphabeta,
    })
}

#[cfg(feature = "train")]
impl BotSpec {
    /// What a `policy:` name's options change in its checkpoint's search (none for other bots).
    pub fn search_options(&self) -> SearchOptions {
        match self {
            BotSpec::Policy {
                margin,
                c_scale,
                prove,
                minimax,
                alphabeta,
                ..
            } => SearchOptions {
                margin: margin.map(|w| w as f32 / 1000.0),
                c_scale: c_scale.map(|x| x as f32 / 1000.0),
                prove: *prove,
                minimax: minimax.map(|a| a as f32 / 1000.0),
                alphabeta: *alphabeta,
            },
            _ => SearchOptions::default(),
        }
    }
}

pub use options::{PLAY_C_SCALES, SearchOptions};

/// The largest `db=N` a name may ask for (what fits in memory is checked when the bot is
/// prepared).
#[cfg(feature = "train")]
pub const MAX_PLAY_DB_SEEDS: u32 = 64;

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Random => f.write_str("random"),
            BotSpec::Greedy => f.write_str("greedy"),
            BotSpec::Solver => f.write_str("solver"),
            BotSpec::Guard { millis, inner } => {
                write!(f, "guard:{}:{inner}", *millis as f64 / 1000.0)
            }
            BotSpec::Minimax(d) => write!(f, "minimax:{d}"),
            BotSpec::Mcts(n) => write!(f, "mcts:{n}"),
            BotSpec::External(name) => f.write_str(name),
            #[cfg(feature = "train")]
            BotSpec::Policy {
                path,
                sims,
                margin,
                c_scale,
                prove,
                minimax,
                db,
                alphabeta,
            } => {
                write!(f, "policy:{path}")?;
                if let Some(n) = sims {
                    write!(f, ":{n}")?;
                }
                if let Some(w) = margin {
                    write!(f, ":margin={}", *w as f32 / 1000.0)?;
                }
                if let Some(x) = c_scale {
                    write!(f, ":c_scale={}", *x as f32 / 1000.0)?;
                }
                if let Some(p) = prove {
                    f.write_str(if *p { ":prove=on" } else { ":prove=off" })?;
                }
                if let Some(a) = minimax {
                    write!(f, ":minimax={}", *a as f32 / 1000.0)?;
                }
                if let Some(b) = alphabeta {
                    write!(f, ":alphabeta={b}")?;
                }
                match db {
                    PlayDb::Off => f.write_str(":db=off")?,
                    PlayDb::Seeds(n) => write!(f, ":db={n}")?,
                    PlayDb::Default => {}
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for s in ["random", "greedy", "minimax:4", "mcts:1000"] {
            assert_eq!(s.parse::<BotSpec>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let e = |s: &str| s.parse::<BotSpec>().unwrap_err().to_string();
        assert!(e("alphazero").contains("unknown bot 'alphazero'"));
        assert!(e("minimax").contains("needs a search depth"));
        assert!(e("minimax:x").contains("'x' is not a whole number"));
        assert!(e("mcts:0").contains("must be 1 to"));
        assert!(e("random:3").contains("unknown bot"));
    }

    #[cfg(feature = "train")]
    #[test]
    fn network_options_parse_in_any_order_and_print_back() {
        let p = |s: &str| s.parse::<BotSpec>().unwrap();
        let spec = |sims, margin, db| BotSpec::Policy {
            path: "ck/run".into(),
            sims,
            margin,
            c_scale: None,
            prove: None,
            minimax: None,
            db,
            alphabeta: None,
        };
        let (on, off) = (PlayDb::Default, PlayDb::Off);
        assert_eq!(p("policy:ck/run"), spec(None, None, on));
        assert_eq!(p("policy:ck/run:db=off"), spec(None, None, off));
        assert_eq!(p("policy:ck/run:64:db=off"), spec(Some(64), None, off));
        assert_eq!(p("policy:ck/run:64:db=on"), spec(Some(64), None, on));
        assert_eq!(
            p("policy:ck/run:64:db=24"),
            spec(Some(64), None, PlayDb::Seeds(24))
        );
        assert_eq!(
            p("policy:ck/run:64:margin=0.5:db=off"),
            spec(Some(64), Some(500), off)
        );
        assert_eq!(
            p("policy:ck/run:64:db=off:margin=0.5"),
            spec(Some(64), Some(500), off)
        );
        for s in [
            "policy:ck/run",
            "policy:ck/run:db=off",
            "policy:ck/run:64",
            "policy:ck/run:64:db=off",
            "policy:ck/run:64:margin=0.5",
            "policy:ck/run:64:margin=0.5:db=off",
            "policy:auto:16:db=off",
            "policy:ck/run:64:db=24",
            "policy:ck/run:db=12",
            "policy:ck/run:256:prove=on",
            "policy:ck/run:256:margin=0.5:prove=off:db=off",
            "policy:ck/run:64:c_scale=3",
            "policy:ck/run:64:margin=0.9:c_scale=0.25:db=off",
            "policy:ck/run:alphabeta=100ms",
            "policy:auto:alphabeta=5000:db=off",
        ] {
            assert_eq!(p(s).to_string(), s);
            assert_eq!(p(&p(s).to_string()), p(s));
        }
        let BotSpec::Policy { c_scale, .. } = p("policy:ck/run:64:db=off:c_scale=2.5") else {
            unreachable!("a policy spec")
        };
        assert_eq!(c_scale, Some(2500));
        let options = p("policy:ck/run:64:c_scale=3:margin=0.5").search_options();
        assert_eq!((options.c_scale, options.margin), (Some(3.0), Some(0.5)));
        // The default is not printed.
        assert_eq!(p("policy:ck/run:64:db=on").to_string(), "policy:ck/run:64");
        use crate::search::alphabeta::Budget;
        let ab = |s: &str| p(s).search_options().alphabeta;
        assert_eq!(ab("policy:ck:alphabeta=100ms"), Some(Budget::Millis(100)));
        assert_eq!(
            ab("policy:ck:db=off:alphabeta=5000"),
            Some(Budget::Evals(5000))
        );
        assert_eq!(ab("policy:ck:64"), None);
    }

    #[cfg(feature = "train")]
    #[test]
    fn bad_network_options_name_the_problem() {
        let e = |s: &str| s.parse::<BotSpec>().unwrap_err().to_string();
        assert!(e("policy:ck:64:db=no").contains("expected db=off, db=on or db=N"));
        assert!(e("policy:ck:64:db=").contains("expected db=off, db=on or db=N"));
        assert!(e("policy:ck:64:db=0").contains("1 to 64"));
        assert!(e("policy:ck:64:db=65").contains("1 to 64"));
        assert!(e("policy:ck:64:dbs=off").contains("unknown option 'dbs'"));
        assert!(e("policy:ck:64:db=off:db=off").contains("db= is given twice"));
        assert!(e("policy:ck:db=off:64").contains("go after the simulation count"));
        assert!(e("policy:ck:margin=0.5").contains("needs a simulation count"));
        assert!(e("policy:ck:db=off:margin=0.5").contains("needs a simulation count"));
        assert!(e("policy:ck:64:margin=2").contains("not a number in 0..=1"));
        assert!(e("policy:ck:64:prove=yes").contains("expected prove=on or prove=off"));
        for bad in ["0", "-1", "101", "x", "nan", "inf", ""] {
            assert!(
                e(&format!("policy:ck:64:c_scale={bad}"))
                    .contains("is not a number in 0.001..=100"),
                "c_scale={bad}"
            );
        }
        assert!(e("policy:ck:c_scale=3").contains("c_scale=X needs a simulation count"));
        assert!(e("policy:ck:64:c_scale=3:c_scale=4").contains("c_scale= is given twice"));
        assert!(e("policy:ck:prove=on").contains("prove= needs a simulation count"));
        assert!(e("policy:ck:64:prove=on:prove=off").contains("prove= is given twice"));
        assert!(e("policy::db=off").contains("needs a checkpoint path"));
        assert!(e("policy:ck:0:db=off").contains("simulations must be 1 to"));
        for bad in [
            "0",
            "0ms",
            "ms",
            "1.5ms",
            "-3",
            "100s",
            "600001ms",
            "100000001",
            "",
        ] {
            assert!(
                e(&format!("policy:ck:alphabeta={bad}")).contains("alpha-beta budget"),
                "alphabeta={bad}"
            );
        }
        assert!(e("policy:ck:64:alphabeta=100ms").contains("give one or the other"));
        assert!(e("policy:ck:alphabeta=9:alphabeta=9").contains("alphabeta= is given twice"));
    }

    #[cfg(feature = "train")]
    #[test]
    fn parsing_a_network_reads_no_file() {
        let spec: BotSpec = "policy:/nonexistent/run:8".parse().unwrap();
        assert_eq!(spec.to_string(), "policy:/nonexistent/run:8");
        let e = BotContext::new()
            .prepare(&spec, &crate::rules::Rules::kalah64())
            .unwrap_err();
        assert!(
            format!("{e:#}").contains("no checkpoint at /nonexistent/run"),
            "{e:#}"
        );
    }
}
