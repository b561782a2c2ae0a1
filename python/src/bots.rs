//! `Bot` (the library's players by their command-line names) and `solve` (the exact solver).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use kalaha::bots::{Bot, BotContext, BotSpec, game_rng};
use kalaha::env::GameRng;
use kalaha::rules::{Position, RulesSpec};
use kalaha::solver::{DbSize, Detail, Progress, Solver, SolverConfig};
use pyo3::exceptions::{PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::position::{move_to_py, position_from};
use crate::rules::value_error;
use crate::{args, interrupt};

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
    fn new(py: Python<'_>, spec: &str, seed: Option<&Bound<'_, PyAny>>) -> PyResult<PyBot> {
        let spec: BotSpec = spec.parse().map_err(value_error)?;
        let seed = args::seed(seed, "seed")?;
        // A network named by its path is loaded now, so that a bad path is refused here and
        // not at the first move (`policy:auto` depends on the rules of the positions asked).
        if let BotSpec::Policy { path, .. } = &spec
            && path != kalaha::bots::AUTO
        {
            py.detach(|| kalaha::nn::model::load(std::path::Path::new(path)))
                .map_err(|e| PyValueError::new_err(format!("bot '{spec}': {e:#}")))?;
        }
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
/// `memory_mb` (16 to 1,048,576) is the budget of the transposition table and the endgame
/// database together; `db_seeds` sizes the database (`None`: automatic, cached in
/// `~/.cache/kalaha`; `0`: none; at most 60). The solver is kept between calls with the same
/// rules and settings. `time_limit` (seconds) stops a long solve with `TimeoutError` giving the
/// bounds proven. Ctrl-C stops it within a second (`KeyboardInterrupt`); `progress=True` shows
/// the moves proven so far on stderr, or give a callable `f(done, total, stage)`.
#[pyfunction]
#[pyo3(signature = (position, rules=None, *, memory_mb=None, db_seeds=None, time_limit=None, progress=None))]
pub fn solve<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    rules: Option<&Bound<'py, PyAny>>,
    memory_mb: Option<&Bound<'py, PyAny>>,
    db_seeds: Option<&Bound<'py, PyAny>>,
    time_limit: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<(i32, Bound<'py, PyDict>)> {
    let pos = position_from(position, rules)?;
    let memory_mb = args::opt_int(memory_mb, "memory_mb", 16usize, 1 << 20)?.unwrap_or(1024);
    let db_seeds = args::opt_int(db_seeds, "db_seeds", 0u32, 60)?;
    let time_limit = args::seconds(time_limit, "time_limit", 366.0 * 86_400.0)?;
    let limit = time_limit.map(Duration::from_secs_f64);
    let bar = interrupt::callback(py, progress, "solve")?;
    let key = (pos.rules().spec(), memory_mb, db_seeds);
    let cancel = Arc::new(AtomicBool::new(false));
    let live = Arc::new(Progress::default());
    let counter = Arc::new(interrupt::Counter::default());
    let work = {
        let (cancel, live, counter) =
            (Arc::clone(&cancel), Arc::clone(&live), Arc::clone(&counter));
        move || -> PyResult<kalaha::solver::Analysis> {
            let solver = solver_for(key)?;
            // The solver posts its bounds to `live`; a watcher turns them into the counter.
            let done = AtomicBool::new(false);
            std::thread::scope(|s| {
                s.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        let moves = live.moves();
                        let proven = moves.iter().filter(|m| m.lower == m.upper).count();
                        counter.set("moves proven", proven as u64, moves.len() as u64);
                        std::thread::sleep(Duration::from_millis(100));
                    }
                });
                let a =
                    solver.analyse_cancellable(&pos, limit, Detail::All, Some(&live), &[&cancel]);
                done.store(true, Ordering::Relaxed);
                let n = a.moves.len() as u64;
                counter.set("moves proven", n, n);
                Ok(a)
            })
        }
    };
    let analysis = interrupt::run(py, &cancel, bar.as_ref().map(|b| (&counter, b)), work)??;
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
