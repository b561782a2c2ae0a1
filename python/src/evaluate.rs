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

/// What the agents of one evaluation share: the first error any of them met, and the flag that
/// then stops new games.
struct Shared {
    error: Mutex<Option<PyErr>>,
    stop: AtomicBool,
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

/// The arena's gauntlet with `agent` as the first player (see `kalaha.evaluate`); the report as
/// `kalaha eval --json` prints it (JSON text).
#[pyfunction]
#[pyo3(signature = (agent, opponents, *, rules=None, games=20, opening_moves=4, seed=0, judge=true, name="agent", anchor=None, judge_memory=1024, output=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    py: Python<'_>,
    agent: &Bound<'_, PyAny>,
    opponents: Vec<String>,
    rules: Option<&Bound<'_, PyAny>>,
    games: u32,
    opening_moves: u32,
    seed: u64,
    judge: bool,
    name: &str,
    anchor: Option<String>,
    judge_memory: usize,
    output: Option<PathBuf>,
) -> PyResult<String> {
    let rules = rules_from(rules)?;
    let shared = Arc::new(Shared {
        error: Mutex::new(None),
        stop: AtomicBool::new(false),
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
    let stop = &shared.stop;
    let outcome = py.detach(|| run::run(&req, &(), stop));
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
