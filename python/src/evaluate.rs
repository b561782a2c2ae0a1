//! `evaluate`: the arena's gauntlet (`kalaha eval`) with a Python agent as the first player:
//! games from random openings in both seats, Elo with 95% intervals, and the solver's judgement of
//! every move the agent made.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use kalaha::bots::{Bot, BotSpec, Player, random_move};
use kalaha::env::GameRng;
use kalaha::eval::Mode;
use kalaha::eval::run::{self, Request};
use kalaha::rules::{Move, Position};
use kalaha::search::best_logit;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;

use crate::rules::{rules_from, value_error};
use crate::{args, interrupt};

/// What the agents of one evaluation share: the first error any of them met, and the flag that
/// then stops new games.
struct Shared {
    error: Mutex<Option<PyErr>>,
    stop: Arc<AtomicBool>,
}

/// A Python agent asked one position at a time: `agent(obs [1, 2m + 4], mask [1, m + 1])` gives
/// an action `[1]` or logits `[1, m + 1]`.
struct AgentBot {
    f: Arc<Py<PyAny>>,
    shared: Arc<Shared>,
}

impl AgentBot {
    fn ask(&self, pos: &Position) -> PyResult<Move> {
        let rules = pos.rules();
        let (m, d) = (rules.pits(), kalaha::env::obs::obs_dim(rules.pits()));
        let one = std::slice::from_ref(pos);
        let (obs, mask) = (
            crate::position::observations(one),
            crate::position::action_masks(one),
        );
        Python::attach(|py| {
            py.check_signals()?;
            let o = PyArray1::from_vec(py, obs).reshape([1, d])?;
            let k = PyArray1::from_vec(py, mask.clone()).reshape([1, m + 1])?;
            let out = self.f.bind(py).call1((o, k))?;
            let np = py.import("numpy")?;
            let a = np.call_method1("asarray", (out, np.getattr("float64")?))?;
            let a = a.call_method0("ravel")?.cast_into::<PyArray1<f64>>()?;
            let v: Vec<f64> = a.readonly().as_array().to_vec();
            let action = match v.len() {
                1 if v[0].fract() == 0.0 => v[0] as i64,
                n if n == m + 1 => {
                    // The best legal logit, as the Rust players pick it.
                    best_logit(&v, (0..=m).filter(|&i| mask[i]))
                        .expect("a position that is not over has a legal move")
                        as i64
                }
                n => {
                    return Err(value_error(format!(
                        "the agent returned {n} numbers for one position: expected an action or {} logits",
                        m + 1
                    )));
                }
            };
            let legal = usize::try_from(action).is_ok_and(|a| a <= m && mask[a]);
            if !legal {
                return Err(value_error(format!(
                    "the agent played action {action} in {pos}, which is not a legal move"
                )));
            }
            Ok(Move::from_action(action as usize, m))
        })
    }
}

impl Bot for AgentBot {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        if !self.shared.stop.load(Ordering::Relaxed) {
            match self.ask(pos) {
                Ok(mv) => return mv,
                Err(e) => {
                    let mut slot = self.shared.error.lock().unwrap_or_else(|e| e.into_inner());
                    slot.get_or_insert(e);
                    self.shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        // The evaluation is failing: finish the game in flight without asking Python again.
        random_move(pos, rng)
    }
}

/// What an evaluation reports as it goes, for the waiting thread's progress callback.
struct Counted(Arc<interrupt::Counter>);

impl run::Progress for Counted {
    fn games_planned(&self, planned: usize) {
        self.0.set("games", 0, planned as u64);
    }
    fn game_done(&self) {
        self.0.add(1);
    }
    fn judged(&self, done: usize, total: usize) {
        self.0.set("judged positions", done as u64, total as u64);
    }
}

/// The arena's gauntlet with `agent` as the first player (see `kalaha.evaluate`); the report as
/// `kalaha eval --json` prints it (JSON text). Ctrl-C stops it within a second
/// (`KeyboardInterrupt`); `progress` is `True` (a bar on stderr), a callable
/// `f(done, total, stage)` or `None`.
#[pyfunction]
#[pyo3(signature = (agent, opponents, *, rules=None, games=None, opening_moves=None, seed=None, judge=true, name="agent", anchor=None, judge_memory=None, output=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    py: Python<'_>,
    agent: &Bound<'_, PyAny>,
    opponents: Vec<String>,
    rules: Option<&Bound<'_, PyAny>>,
    games: Option<&Bound<'_, PyAny>>,
    opening_moves: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    judge: bool,
    name: &str,
    anchor: Option<String>,
    judge_memory: Option<&Bound<'_, PyAny>>,
    output: Option<PathBuf>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let rules = rules_from(rules)?;
    let games = args::opt_int(games, "games", 2u32, 1_000_000)?.unwrap_or(20);
    if games % 2 != 0 {
        return Err(value_error(format!(
            "games must be an even number (each opening is played from both seats), not {games}"
        )));
    }
    let opening_moves = args::opt_int(opening_moves, "opening_moves", 0u32, 1000)?.unwrap_or(4);
    let seed = args::seed(seed, "seed")?.unwrap_or(0);
    let judge_memory =
        args::opt_int(judge_memory, "judge_memory", 16usize, 1 << 20)?.unwrap_or(1024);
    let bar = interrupt::callback(py, progress, "evaluate")?;
    let shared = Arc::new(Shared {
        error: Mutex::new(None),
        stop: Arc::new(AtomicBool::new(false)),
    });
    let mut specs: Vec<BotSpec> = Vec::new();
    let mut external = Vec::new();
    if let Ok(spec) = agent.extract::<String>() {
        specs.push(spec.parse().map_err(value_error)?);
    } else if let Ok(bot) = agent.cast::<crate::bots::PyBot>() {
        specs.push(bot.get().spec_parsed().clone());
    } else {
        if name.is_empty() || name.parse::<BotSpec>().is_ok() {
            return Err(value_error(format!(
                "the agent's name '{name}' must be non-empty and not a bot's"
            )));
        }
        let f = Arc::new(agent.clone().unbind());
        let s = Arc::clone(&shared);
        let make: kalaha::bots::BotFactory = Arc::new(move || {
            Box::new(AgentBot {
                f: Arc::clone(&f),
                shared: Arc::clone(&s),
            }) as Box<dyn Bot>
        });
        let player = Player::external(name, &rules, make);
        specs.push(player.spec().clone());
        external.push(player);
    }
    for o in &opponents {
        specs.push(o.parse().map_err(value_error)?);
    }
    let req = Request {
        rules,
        mode: Mode::Gauntlet,
        judge: judge.then(|| specs[0].clone()),
        players: specs,
        games,
        opening_moves,
        openings: None,
        seed,
        anchor: anchor.map(|a| a.parse()).transpose().map_err(value_error)?,
        judge_memory,
        output,
        run: None,
        command: format!(
            "kalaha.evaluate({name}, {opponents:?}, games={games}, opening_moves={opening_moves}, seed={seed})"
        ),
        external,
        batch: true,
    };
    let counter = Arc::new(interrupt::Counter::default());
    let work = {
        let (stop, counted) = (Arc::clone(&shared.stop), Counted(Arc::clone(&counter)));
        move || run::run(&req, &counted, &stop)
    };
    let outcome = interrupt::run(py, &shared.stop, bar.as_ref().map(|b| (&counter, b)), work)?;
    if let Some(e) = shared
        .error
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        return Err(e);
    }
    let out = outcome.map_err(|e| value_error(format!("{e:#}")))?;
    serde_json::to_string(&out.report).map_err(value_error)
}
