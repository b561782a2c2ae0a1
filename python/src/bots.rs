//! `Bot` (the library's players by their command-line names) and `solve` (the exact solver).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use kalaha::bots::{Bot, BotContext, BotSpec, game_rng};
use kalaha::env::GameRng;
use kalaha::rules::{Position, RulesSpec};
use kalaha::solver::{DbSize, Detail, Solver, SolverConfig};
use pyo3::exceptions::{PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::position::{move_to_py, position_from};
use crate::rules::value_error;

/// A player from its command-line name: `random`, `greedy`, `minimax:D` (alpha-beta, depth D),
/// `mcts:N` (UCT with N random-rollout simulations), `solver` (perfect play, random among the
/// optimal moves), `policy:PATH[:SIMS]` (a trained network alone, or searching SIMS simulations,
/// with the endgame database at play; `policy:auto:64` is the network shipped for the position's
/// rules, the `hard` level).
///
/// `seed` drives the bot's tie-breaking and randomness (`None`: from the operating system), so
/// the same seed and positions give the same moves. `act` releases the GIL while the bot thinks.
#[pyclass(name = "Bot", module = "kalaha._kalaha", frozen)]
pub struct PyBot {
    spec: BotSpec,
    seed: Option<u64>,
    state: Mutex<BotState>,
}

/// The bot prepared for the rules of the last position it was asked about, the context that
/// holds what it needs (a solver), and its random stream.
struct BotState {
    ctx: BotContext,
    bot: Option<(RulesSpec, Box<dyn Bot>)>,
    rng: GameRng,
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (spec, seed=None))]
    fn new(spec: &str, seed: Option<u64>) -> PyResult<PyBot> {
        let spec: BotSpec = spec.parse().map_err(value_error)?;
        let rng = game_rng(seed.unwrap_or_else(rand::random), 0);
        Ok(PyBot {
            state: Mutex::new(BotState {
                ctx: BotContext::with_checkpoint_roots(crate::embedded::checkpoint_roots()),
                bot: None,
                rng,
            }),
            spec,
            seed,
        })
    }

    /// The bot's name, as given (normalised).
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The bot's move in `position` (a `kalaha.Position`, or notation parsed under `rules`): a
    /// pit number or `"swap"`. A finished game raises `ValueError`.
    #[pyo3(signature = (position, rules=None))]
    fn act<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
        rules: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let pos = position_from(position, rules)?;
        let mv = self.choose(py, &pos)?;
        move_to_py(py, mv)
    }

    /// Like `act`, as an action index (`p - 1` for pit `p`, `m` for `swap`).
    #[pyo3(signature = (position, rules=None))]
    fn act_action(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        rules: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let pos = position_from(position, rules)?;
        let mv = self.choose(py, &pos)?;
        Ok(mv.action(pos.rules().pits()))
    }

    fn __repr__(&self) -> String {
        match self.seed {
            Some(s) => format!("Bot('{}', seed={s})", self.spec),
            None => format!("Bot('{}')", self.spec),
        }
    }

    /// Pickles as `(spec, seed)`: an unpickled bot starts its random stream afresh.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let me = slf.get();
        let args = (me.spec.to_string(), me.seed).into_pyobject(slf.py())?;
        Ok((slf.get_type().into_any(), args))
    }
}

impl PyBot {
    /// The bot's spec.
    pub fn spec_parsed(&self) -> &BotSpec {
        &self.spec
    }

    fn choose(&self, py: Python<'_>, pos: &Position) -> PyResult<kalaha::rules::Move> {
        if pos.is_over() {
            return Err(PyValueError::new_err(format!(
                "bot '{}': the game is over in {pos}",
                self.spec
            )));
        }
        py.detach(|| {
            let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let st = &mut *guard;
            let rules = pos.rules().spec();
            if st.bot.as_ref().is_none_or(|(r, _)| *r != rules) {
                let player = st
                    .ctx
                    .prepare(&self.spec, pos.rules())
                    .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
                st.bot = Some((rules, player.build()));
            }
            let (_, bot) = st.bot.as_mut().expect("prepared above");
            Ok(bot.choose(pos, &mut st.rng))
        })
    }
}

/// Solvers made so far, by rules, memory budget and database size: the transposition table and
/// the endgame database are kept between calls.
type SolverKey = (RulesSpec, usize, Option<u32>);

fn solver_for(key: SolverKey) -> PyResult<Arc<Solver>> {
    static SOLVERS: OnceLock<Mutex<HashMap<SolverKey, Arc<Solver>>>> = OnceLock::new();
    let mut all = SOLVERS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(s) = all.get(&key) {
        return Ok(Arc::clone(s));
    }
    let (spec, memory_mb, db_seeds) = key;
    let rules = spec.build().map_err(value_error)?;
    let config = SolverConfig {
        memory_mb,
        db: match db_seeds {
            None => DbSize::Auto,
            Some(0) => DbSize::Off,
            Some(s) => DbSize::Seeds(s),
        },
        ..SolverConfig::default()
    };
    let solver = Arc::new(Solver::new(&rules, &config).map_err(value_error)?);
    all.insert(key, Arc::clone(&solver));
    Ok(solver)
}

/// The exact value of `position` (a `kalaha.Position`, or notation parsed under `rules`) and of
/// each of its legal moves, as final margins (the mover's seeds minus the opponent's) under
/// perfect play: `(value, {move: value})`, moves as pit numbers and `"swap"`.
///
/// `memory_mb` is the budget of the transposition table and the endgame database together;
/// `db_seeds` sizes the database (`None`: automatic, cached in `~/.cache/kalaha`; `0`: none).
/// The solver is kept between calls with the same rules and settings. `time_limit` (seconds)
/// stops a long solve with `TimeoutError` giving the bounds proven. The GIL is released while
/// the solver works.
#[pyfunction]
#[pyo3(signature = (position, rules=None, *, memory_mb=1024, db_seeds=None, time_limit=None))]
pub fn solve<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    rules: Option<&Bound<'py, PyAny>>,
    memory_mb: usize,
    db_seeds: Option<u32>,
    time_limit: Option<f64>,
) -> PyResult<(i32, Bound<'py, PyDict>)> {
    let pos = position_from(position, rules)?;
    let limit = match time_limit {
        Some(t) if t.is_finite() && t > 0.0 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "time_limit must be a positive number of seconds, got {t}"
            )));
        }
        None => None,
    };
    let key = (pos.rules().spec(), memory_mb, db_seeds);
    let analysis = py.detach(|| {
        let solver = solver_for(key)?;
        Ok::<_, PyErr>(solver.analyse_with(&pos, limit, Detail::All, None))
    })?;
    if !analysis.complete() {
        return Err(PyTimeoutError::new_err(format!(
            "no exact answer for {pos} within {:.1} s: the value lies in {}..{}",
            time_limit.unwrap_or(0.0),
            analysis.lower,
            analysis.upper
        )));
    }
    let moves = PyDict::new(py);
    for m in &analysis.moves {
        moves.set_item(move_to_py(py, m.mv)?, m.lower)?;
    }
    Ok((analysis.lower, moves))
}
