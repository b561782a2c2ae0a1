//! `VecEnv`: the library's vectorised environment on a rayon pool of its own, numpy arrays out.
//!
//! Pickling: a pickle holds the constructor's arguments and the library's own saved state
//! ([`VecEnv::save_state`]: every game's position, seats, moves played, random stream and last
//! step's outputs; versioned and checksummed), so an unpickled environment goes on exactly as the
//! original. Pickles of the earlier format (`KVE1`: the last reset's seed and the steps since,
//! replayed on unpickling) still load.

use kalaha::env::bench::default_grain;
use kalaha::env::{DEFAULT_GRAIN, EnvError, VecEnv};
use numpy::{PyArray1, PyArray2, PyArrayMethods, ToPyArray};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::args;
use crate::position::PyPosition;
use crate::rules::{PyRules, rules_from, value_error};

/// Games at or above which the environment's action check runs on the pool (the library checks
/// in parallel from `16 * DEFAULT_GRAIN` games on).
const PARALLEL_CHECK: usize = 16 * DEFAULT_GRAIN;

/// Most games in one environment (2^24: about 1 GB of observations for Kalah(6,4)).
const MAX_GAMES: usize = 1 << 24;

/// Magic bytes of the earlier pickle format, a step record replayed on unpickling.
const REPLAY_MAGIC: &[u8; 4] = b"KVE1";

/// `G` games of Kalah stepped together in native code, on a pool of `threads` threads of its own.
///
/// Arrays out (always fresh copies, never views of buffers the next step overwrites):
///
/// | array | dtype | shape | meaning |
/// | --- | --- | --- | --- |
/// | obs | float32 | `[G, 2m + 4]` | each game from the seat of the player to move (`kalaha.Rules.obs_dim`) |
/// | mask | bool | `[G, m + 1]` | legal actions (`p - 1` sows pit `p`, `m` is the pie answer) |
/// | to_play | uint8 | `[G]` | player to move: 0 opened the game (from South), 1 answered |
/// | reward | float32 | `[G]` | +1/0/-1 for the player who made the step's move, when it ended the game |
/// | done | bool | `[G]` | the step ended the game (it has been reset in the same step) |
/// | final_obs() | float32 | `[G, 2m + 4]` | rows where done: the final board, seen by the last mover |
/// | final_score() | uint8 | `[G, 2]` | rows where done: final scores of player 0 and player 1 |
/// | final_len() | uint32 | `[G]` | entries where done: moves the game lasted |
///
/// `step(actions)` takes any 1-D integer array (or sequence) of length `G`; it releases the GIL
/// while the games are stepped. An illegal action raises `ValueError` naming the first bad game
/// and the move, and no game changes. `threads=None` takes `RAYON_NUM_THREADS` if it is set, else
/// every core; give each of several workers on one machine its share.
#[pyclass(name = "VecEnv", module = "kalaha._kalaha")]
pub struct PyVecEnv {
    env: VecEnv,
    pool: rayon::ThreadPool,
    threads: usize,
    /// Seed of the last reset.
    seed: u64,
    /// Scratch for the actions of a step.
    actions: Vec<u32>,
}

/// `(obs, mask, to_play, reward, done)` as fresh numpy arrays.
type Outputs<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
);

/// `(obs, mask, to_play)` as fresh numpy arrays.
type StartOutputs<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<u8>>,
);

#[pymethods]
impl PyVecEnv {
    /// `games` games of `rules` (a preset name, a `kalaha.Rules`, a dict of options, or `None`
    /// for Kalah(6,4)), reset with `seed`, stepped on `threads` threads.
    #[new]
    #[pyo3(signature = (games, rules=None, seed=None, threads=None))]
    fn new(
        py: Python<'_>,
        games: &Bound<'_, PyAny>,
        rules: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyVecEnv> {
        let games = args::int(games, "games", 1usize, MAX_GAMES)?;
        let seed = args::seed(seed, "seed")?.unwrap_or(0);
        let rules = rules_from(rules)?;
        let threads =
            args::opt_int(threads, "threads", 1usize, 1024)?.unwrap_or_else(default_threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("kalaha-env-{i}"))
            .build()
            .map_err(value_error)?;
        let mut env = py
            .detach(|| VecEnv::new(rules, games, seed))
            .map_err(value_error)?;
        env.set_grain(if threads == 1 {
            games
        } else {
            default_grain(games, threads)
        });
        Ok(PyVecEnv {
            env,
            pool,
            threads,
            seed,
            actions: vec![0; games],
        })
    }

    /// Number of games, `G`.
    #[getter]
    fn games(&self) -> usize {
        self.env.games()
    }

    /// Number of games, `G` (Gymnasium's name).
    #[getter]
    fn num_envs(&self) -> usize {
        self.env.games()
    }

    /// The rules every game is played under.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.env.rules(),
        }
    }

    /// Length of one observation, `2m + 4`.
    #[getter]
    fn obs_dim(&self) -> usize {
        self.env.obs_dim()
    }

    /// Number of actions, `m + 1`.
    #[getter]
    fn action_count(&self) -> usize {
        self.env.action_count()
    }

    /// Threads of this environment's pool.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// Seed of the last reset.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    fn __len__(&self) -> usize {
        self.env.games()
    }

    /// Puts every game at the start and seeds game `i`'s random stream from `(seed, i)`; `None`
    /// draws a seed from the operating system (read it back from `seed`). Returns
    /// `(obs, mask, to_play)`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<StartOutputs<'py>> {
        let seed = args::seed(seed, "seed")?.unwrap_or_else(rand::random);
        let (env, pool) = (&mut self.env, &self.pool);
        py.detach(|| pool.install(|| env.reset(seed)));
        self.seed = seed;
        Ok(self.start_outputs(py))
    }

    /// Puts the games where `which` (bool `[G]`) is true back at the start, leaving the others
    /// as they are (each game keeps its random stream), and returns `(obs, mask, to_play)` of
    /// every game. The reset games' rewards and done flags are cleared. Work grows with the games
    /// reset, not with `G`. For the Gymnasium wrapper's `reset_mask`.
    fn reset_games<'py>(
        &mut self,
        py: Python<'py>,
        which: numpy::PyReadonlyArray1<'py, bool>,
    ) -> PyResult<StartOutputs<'py>> {
        let which = which.as_array().to_vec();
        let env = &mut self.env;
        py.detach(|| env.reset_games(&which)).map_err(value_error)?;
        Ok(self.start_outputs(py))
    }

    /// Plays `actions[i]` in game `i` for every game (games that end are reset in the same
    /// step) and returns `(obs, mask, to_play, reward, done)`. Actions: a 1-D integer array or
    /// sequence of length `G`. An illegal action raises `ValueError` and changes no game.
    /// `skip` (bool `[G]`): games left as they are in this step (reward 0, not done; their action,
    /// in range, is not played): Gymnasium's next-step auto-reset in one call, where a game that
    /// ended in the last step (and was reset then) only shows its new start.
    #[pyo3(signature = (actions, skip=None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        skip: Option<numpy::PyReadonlyArray1<'py, bool>>,
    ) -> PyResult<Outputs<'py>> {
        self.read_actions(actions)?;
        let skip = skip.map(|s| s.as_array().to_vec());
        self.step_actions(py, skip.as_deref())?;
        Ok(self.outputs(py))
    }

    /// Plays a uniformly random legal action in every game, drawn in native code from each
    /// game's own stream, and returns `(obs, mask, to_play, reward, done)` like `step`.
    fn step_random<'py>(&mut self, py: Python<'py>) -> Outputs<'py> {
        self.random_steps(py, 1);
        self.outputs(py)
    }

    /// `steps` steps of `step_random` in one call, returning nothing (read the arrays after).
    fn step_random_n(&mut self, py: Python<'_>, steps: &Bound<'_, PyAny>) -> PyResult<()> {
        let steps = args::int(steps, "steps", 0u64, u64::MAX)?;
        self.random_steps(py, steps);
        Ok(())
    }

    /// Observations `[G, 2m + 4]` (float32) of the current positions.
    fn obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.env.obs().to_pyarray(py)
    }

    /// Legal-action masks `[G, m + 1]` (bool).
    fn mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.env.mask().to_pyarray(py)
    }

    /// The legal actions of each game as bits, `[G]` (uint16; bit `a` set when action `a` is
    /// legal): the mask in one integer per game, for drawing actions in numpy with a table.
    fn legal_bits<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u16>> {
        let v: Vec<u16> = (0..self.env.games())
            .map(|i| self.env.legal_bits(i))
            .collect();
        v.to_pyarray(py)
    }

    /// The player to move in each game, `[G]` (uint8; 0 opened the game).
    fn to_play<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.env.to_play().to_pyarray(py)
    }

    /// The last step's rewards `[G]` (float32), for the player who made each game's move.
    fn reward<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        self.env.reward().to_pyarray(py)
    }

    /// Which games the last step ended, `[G]` (bool).
    fn done<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.env.done().to_pyarray(py)
    }

    /// `[G, 2m + 4]` (float32): for games that ended in the last step, the final board seen from
    /// the seat of the player who made the last move; other rows hold stale data.
    fn final_obs<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.env.final_obs().to_pyarray(py)
    }

    /// `[G, 2]` (uint8): for games that ended in the last step, the final scores of player 0 and
    /// player 1; other rows hold stale data.
    fn final_score<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<u8>> {
        self.env.final_score().to_pyarray(py)
    }

    /// `[G]` (uint32): for games that ended in the last step, the moves they lasted.
    fn final_len<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.env.final_len().to_pyarray(py)
    }

    /// `[G]` (bool): whether the players of each game exchanged seats by the pie rule.
    fn swapped<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let v: Vec<bool> = (0..self.env.games()).map(|i| self.env.swapped(i)).collect();
        v.to_pyarray(py)
    }

    /// `[G]` (uint32): moves played so far in each game.
    fn game_len<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        let v: Vec<u32> = (0..self.env.games())
            .map(|i| self.env.game_len(i))
            .collect();
        v.to_pyarray(py)
    }

    /// Game `game`'s current position.
    fn position(&self, game: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let game = args::int(game, "game", 0usize, self.env.games() - 1)?;
        Ok(PyPosition {
            pos: self.env.position(game),
        })
    }

    /// Every game's current position.
    pub(crate) fn positions(&self) -> Vec<PyPosition> {
        (0..self.env.games())
            .map(|i| PyPosition {
                pos: self.env.position(i),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "VecEnv(games={}, rules={}, seed={}, threads={})",
            self.env.games(),
            PyRules {
                rules: *self.env.rules()
            }
            .repr(),
            self.seed,
            self.threads
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>, Bound<'py, PyBytes>)> {
        let py = slf.py();
        let me = slf.borrow();
        let env = &me.env;
        let state = py.detach(|| env.save_state());
        let args = (
            me.env.games(),
            PyRules {
                rules: *me.env.rules(),
            },
            me.seed,
            me.threads,
        )
            .into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args, PyBytes::new(py, &state)))
    }

    /// Restores a pickled environment from the library's saved state (or, for a pickle of the
    /// earlier format, by resetting with its seed and replaying its steps). Damaged bytes raise
    /// `ValueError` naming the problem, and the environment is left as it was.
    fn __setstate__(&mut self, py: Python<'_>, state: &[u8]) -> PyResult<()> {
        let bad = |why: &str| PyValueError::new_err(format!("not a pickled kalaha VecEnv: {why}"));
        if state.starts_with(REPLAY_MAGIC) {
            let (env, pool) = (&mut self.env, &self.pool);
            let seed = py
                .detach(|| {
                    pool.install(|| {
                        let before = env.save_state();
                        replay(env, state).inspect_err(|_| {
                            env.load_state(&before).expect("a state just saved loads");
                        })
                    })
                })
                .map_err(|e| bad(&e))?;
            self.seed = seed;
            return Ok(());
        }
        let env = &mut self.env;
        py.detach(|| env.load_state(state))
            .map_err(|e| bad(&e.to_string()))
    }
}

impl PyVecEnv {
    /// `(obs, mask, to_play)` as they stand, copied out.
    fn start_outputs<'py>(&self, py: Python<'py>) -> StartOutputs<'py> {
        (
            self.env.obs().to_pyarray(py),
            self.env.mask().to_pyarray(py),
            self.env.to_play().to_pyarray(py),
        )
    }

    /// The outputs of the last step, copied out.
    fn outputs<'py>(&self, py: Python<'py>) -> Outputs<'py> {
        (
            self.env.obs().to_pyarray(py),
            self.env.mask().to_pyarray(py),
            self.env.to_play().to_pyarray(py),
            self.env.reward().to_pyarray(py),
            self.env.done().to_pyarray(py),
        )
    }

    /// Whether a step runs on the pool rather than inline on the caller's thread.
    fn on_pool(&self) -> bool {
        self.threads > 1 || self.env.games() >= PARALLEL_CHECK
    }

    /// Steps with `self.actions` (leaving the games `skip` marks as they are), GIL released.
    fn step_actions(&mut self, py: Python<'_>, skip: Option<&[bool]>) -> PyResult<()> {
        let on_pool = self.on_pool();
        let (env, pool, actions) = (&mut self.env, &self.pool, &self.actions);
        let step = |env: &mut VecEnv| match skip {
            None => env.step(actions),
            Some(skip) => env.step_skipping(actions, skip),
        };
        py.detach(|| {
            if on_pool {
                pool.install(|| step(env))
            } else {
                step(env)
            }
        })
        .map_err(value_error)?;
        Ok(())
    }

    /// `steps` random steps, GIL released.
    fn random_steps(&mut self, py: Python<'_>, steps: u64) {
        let on_pool = self.on_pool();
        let (env, pool) = (&mut self.env, &self.pool);
        py.detach(|| {
            if on_pool {
                pool.install(|| (0..steps).for_each(|_| env.step_random()));
            } else {
                (0..steps).for_each(|_| env.step_random());
            }
        });
    }

    /// Reads a step's actions into `self.actions`: any 1-D integer array or sequence of length
    /// `G`. Values that no `u32` holds are refused here, naming the game; the rest the
    /// environment checks.
    fn read_actions(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let games = self.env.games();
        let max = self.env.action_count() - 1;
        let out = &mut self.actions;
        macro_rules! from_array {
            ($($t:ty),*) => {$(
                if let Ok(a) = obj.cast::<PyArray1<$t>>() {
                    let a = a.try_readonly().map_err(value_error)?;
                    let view = a.as_array();
                    return fill(out, games, max, view.len(), view.iter().map(|&x| x as i128));
                }
            )*};
        }
        from_array!(i64, u8, i32, u32, i8, u16, i16, u64);
        match obj.extract::<Vec<i64>>() {
            Ok(v) => fill(out, games, max, v.len(), v.iter().map(|&x| x as i128)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "actions must be a 1-D integer array or sequence of {games} actions, not {}",
                obj.get_type().name()?
            ))),
        }
    }
}

/// Restores a pickle of the earlier format (`KVE1`, the seed `u64`, then each step since the
/// last reset: `0` and one action byte per game, or `1` and a count `u64` of random steps) by
/// resetting `env` with the seed and replaying the steps; returns the seed. A step that is refused
/// ends the replay with its error.
fn replay(env: &mut VecEnv, state: &[u8]) -> Result<u64, String> {
    if state.len() < 12 {
        return Err("wrong header".into());
    }
    let seed = u64::from_le_bytes(state[4..12].try_into().expect("8 bytes"));
    let games = env.games();
    let mut steps: Vec<Result<&[u8], u64>> = Vec::new();
    let mut rest = &state[12..];
    while let Some((&tag, tail)) = rest.split_first() {
        match tag {
            0 if tail.len() >= games => {
                steps.push(Ok(&tail[..games]));
                rest = &tail[games..];
            }
            1 if tail.len() >= 8 => {
                steps.push(Err(u64::from_le_bytes(
                    tail[..8].try_into().expect("8 bytes"),
                )));
                rest = &tail[8..];
            }
            _ => return Err("cut short or damaged".into()),
        }
    }
    env.reset(seed);
    let mut actions = vec![0u32; games];
    for step in steps {
        match step {
            Ok(a) => {
                for (d, &s) in actions.iter_mut().zip(a) {
                    *d = s as u32;
                }
                env.step(&actions).map_err(|e| e.to_string())?;
            }
            Err(n) => (0..n).for_each(|_| env.step_random()),
        }
    }
    Ok(seed)
}

/// Copies `len` actions from `values` into `out` (resized to `games`), refusing a wrong length
/// or a value outside `0..=u32::MAX`.
fn fill(
    out: &mut [u32],
    games: usize,
    max: usize,
    len: usize,
    values: impl Iterator<Item = i128>,
) -> PyResult<()> {
    if len != games {
        return Err(value_error(EnvError::Count {
            what: "actions",
            expected: games,
            got: len,
        }));
    }
    for (game, (d, a)) in out.iter_mut().zip(values).enumerate() {
        *d = u32::try_from(a).map_err(|_| {
            PyValueError::new_err(format!(
                "game {game}: action {a} is out of range (actions are 0 to {max})"
            ))
        })?;
    }
    Ok(())
}

/// The Rust environment's own benchmark (`kalaha bench env`: random legal steps of a batch,
/// observations and masks written every step, no Python in the loop), for comparing the Python
/// figures with it in the same run. Returns a dict of the library's `EnvBench` fields.
#[pyfunction]
#[pyo3(signature = (games=4096, threads=2, runs=5, seconds=1.0, rules=None, seed=1))]
pub fn bench_env<'py>(
    py: Python<'py>,
    games: usize,
    threads: usize,
    runs: usize,
    seconds: f64,
    rules: Option<&Bound<'py, PyAny>>,
    seed: u64,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let rules = rules_from(rules)?;
    let spec = kalaha::env::bench::EnvBenchSpec {
        games,
        threads,
        grain: None,
        runs,
        seconds,
        seed,
    };
    let b = py
        .detach(|| kalaha::env::bench::bench_env(&rules, &spec))
        .map_err(|e| value_error(format!("{e:#}")))?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("rules", b.rules)?;
    d.set_item("games", b.games)?;
    d.set_item("threads", b.threads)?;
    d.set_item("grain", b.grain)?;
    d.set_item("steps_per_sec", b.steps_per_sec)?;
    d.set_item("games_per_sec", b.games_per_sec)?;
    d.set_item("runs", b.runs)?;
    d.set_item("seconds_per_run", b.seconds_per_run)?;
    d.set_item("cpu_share", b.cpu_share)?;
    Ok(d)
}

/// Threads when the caller names none: `RAYON_NUM_THREADS` if set to a positive number, else
/// every core.
fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
