//! `search`: the library's batched Gumbel search (the one self-play and the `policy:PATH:SIMS`
//! players run) over many roots at once, with a trained `Network` or any Python evaluator.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use kalaha::rules::{Position, RulesSpec};
use kalaha::search::{Evaluator, Oracle, SearchConfig, UniformEvaluator, search_batch_with};
use kalaha::solver::EndgameOracle;
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::network::{PyNetwork, as_f32_2d};
use crate::position::{PyPosition, position_from};
use crate::rules::value_error;
use crate::vec_env::PyVecEnv;

/// A Python callable as the search's evaluator: `evaluator(obs)` with observations float32
/// `[B, 2m + 4]`, returning `(logits [B, m + 1], value [B])` or `(logits, value, margin)`.
/// The first error is kept (and raised once the search returns); later batches then get a
/// uniform policy without calling Python again.
struct PyEvaluator {
    f: Py<PyAny>,
    error: Option<PyErr>,
    /// Positions given to the callable.
    evaluated: u64,
}

impl PyEvaluator {
    fn call(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    ) -> PyResult<()> {
        let rules = positions[0].rules();
        let (n, a) = (positions.len(), rules.pits() + 1);
        let d = kalaha::env::obs::obs_dim(rules.pits());
        let obs = crate::position::observations(positions);
        Python::attach(|py| {
            let x = PyArray1::from_vec(py, obs).reshape([n, d])?;
            let out = self.f.bind(py).call1((x,))?;
            let parts = out
                .cast::<PyTuple>()
                .map(|t| t.to_list())
                .or_else(|_| out.cast::<PyList>().cloned())
                .map_err(|_| {
                    value_error(
                        "the evaluator must return (logits, value) or (logits, value, margin)",
                    )
                })?;
            if !(2..=3).contains(&parts.len()) {
                return Err(value_error(format!(
                    "the evaluator returned {} arrays, not (logits, value) or (logits, value, margin)",
                    parts.len()
                )));
            }
            let l = as_f32_2d(&parts.get_item(0)?)?;
            if l.shape() != [n, a] {
                return Err(value_error(format!(
                    "the evaluator's logits have shape {:?}, not [{n}, {a}]",
                    l.shape()
                )));
            }
            logits.extend(l.readonly().as_array().iter().copied());
            let column = |i: usize, out: &mut Vec<f32>, what: &str| -> PyResult<()> {
                let np = py.import("numpy")?;
                let v = np.call_method1(
                    "ascontiguousarray",
                    (parts.get_item(i)?, np.getattr("float32")?),
                )?;
                let v = v.call_method0("ravel")?.cast_into::<PyArray1<f32>>()?;
                if v.len() != n {
                    return Err(value_error(format!(
                        "the evaluator's {what} has {} entries for {n} positions",
                        v.len()
                    )));
                }
                out.extend(v.readonly().as_array().iter().copied());
                Ok(())
            };
            column(1, values, "value")?;
            if parts.len() == 3 {
                column(2, margins, "margin")?;
            } else {
                margins.resize(n, 0.0);
            }
            Ok(())
        })
    }
}

impl Evaluator for PyEvaluator {
    fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    ) {
        if self.error.is_none() && !positions.is_empty() {
            logits.clear();
            values.clear();
            margins.clear();
            self.evaluated += positions.len() as u64;
            match self.call(positions, logits, values, margins) {
                Ok(()) => return,
                Err(e) => self.error = Some(e),
            }
        }
        // After an error (or for no positions): a uniform policy, without calling Python again.
        UniformEvaluator.evaluate(positions, logits, values, margins);
    }
}

/// Endgame databases loaded so far, by rules and size.
type Oracles = HashMap<(RulesSpec, u32), Arc<EndgameOracle>>;

/// The endgame database of `rules` with `seeds` seeds, loaded once per process by the players'
/// loader ([`kalaha::bots::db::load`]: from the solver's cache, built there the first time, and
/// refused when larger than the memory budget).
fn oracle(rules: &kalaha::rules::Rules, seeds: u32) -> PyResult<Arc<EndgameOracle>> {
    static ORACLES: OnceLock<Mutex<Oracles>> = OnceLock::new();
    let mut all = ORACLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(o) = all.get(&(rules.spec(), seeds)) {
        return Ok(Arc::clone(o));
    }
    let o = kalaha::bots::db::load(rules, seeds).map_err(|e| value_error(format!("{e:#}")))?;
    all.insert((rules.spec(), seeds), Arc::clone(&o));
    Ok(o)
}

/// The roots a caller passed: a `VecEnv` (its games' current positions), a list of positions or
/// notations, or one position.
fn roots_from(roots: &Bound<'_, PyAny>) -> PyResult<Vec<Position>> {
    if let Ok(env) = roots.cast::<PyVecEnv>() {
        return Ok(env
            .borrow()
            .positions()
            .into_iter()
            .map(|p| p.pos)
            .collect());
    }
    if let Ok(p) = roots.cast::<PyPosition>() {
        return Ok(vec![p.get().pos]);
    }
    let list = roots
        .try_iter()
        .map_err(|_| value_error("roots must be a VecEnv, a Position or a list of positions"))?;
    list.map(|item| position_from(&item?, None)).collect()
}

/// Runs the Gumbel search (sequential halving over Gumbel-sampled root actions, the
/// completed-Q policy improvement of Danihelka et al. 2022) on every root at once; each round's
/// leaves of all roots go to the evaluator in one batch.
///
/// `roots`: a `VecEnv` (its games' current positions), a list of `Position`s (one rule set) or
/// one `Position`; none may be over. `evaluator`: a `kalaha.Network` (run natively, the fast path)
/// or a callable `evaluator(obs) -> (logits, value)` or `(logits, value, margin)`, obs float32
/// `[B, 2m + 4]`, logits `[B, m + 1]` (illegal actions are masked by the search), value the
/// expected result for the player to move in [-1, 1], margin the expected final margin divided by
/// all seeds. The search maximises `(1 - margin_weight) * value + margin_weight * margin`.
///
/// `temperature` (a number or one per root) scales the Gumbel noise: 0 searches greedily (the
/// players), 1 samples as Gumbel AlphaZero's self-play does. `endgame_db`: positions with at most
/// that many seeds on the board (`True`: the network's own setting, else the players' default for the rules, 18 for Kalah(6,4)) are solved leaves,
/// answered exactly without calling the evaluator. Settings left `None` come from the network's
/// checkpoint when `evaluator` is a `Network`, else `c_visit=50`, `c_scale=1`, `margin_weight=0`,
/// `considered_actions` = every action. `prove=True` proves subtrees (MCTS-solver: a node whose
/// children are all solved takes their best exact utility and is not searched again); `None`
/// takes the network's setting, else off. `minimax_weight=A` blends each edge's mean utility
/// with the minimax value of the evaluations below it, `(1 - A) * mean + A * minimax` (implicit
/// minimax backups; `None`: the network's setting, else 0).
///
/// Returns a dict of numpy arrays: `action` int64 `[B]` (the move to play), `policy` float32 `[B,
/// A]` (the improved policy: the training target), `value` `[B]` (the root's utility after
/// search), `net_value` `[B]` (before), `visits` int64 `[B, A]` and `q` float32 `[B, A]` (each
/// root action's mean utility, NaN where not visited or illegal), `proved` bool `[B]` (the root
/// was proved: its value and every `q` are exact) and `evaluations` (positions the evaluator was
/// given). The GIL is released while Rust works. Same seed, same network: the
/// same results as the library's search.
#[pyfunction]
#[pyo3(signature = (roots, evaluator, *, simulations=None, temperature=None, seed=None, considered_actions=None, c_visit=None, c_scale=None, margin_weight=None, endgame_db=None, prove=None, minimax_weight=None))]
#[allow(clippy::too_many_arguments)]
pub fn search<'py>(
    py: Python<'py>,
    roots: &Bound<'py, PyAny>,
    evaluator: &Bound<'py, PyAny>,
    simulations: Option<&Bound<'py, PyAny>>,
    temperature: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    considered_actions: Option<&Bound<'py, PyAny>>,
    c_visit: Option<f32>,
    c_scale: Option<f32>,
    margin_weight: Option<f32>,
    endgame_db: Option<&Bound<'py, PyAny>>,
    prove: Option<bool>,
    minimax_weight: Option<f32>,
) -> PyResult<Bound<'py, PyDict>> {
    let simulations =
        crate::args::opt_int(simulations, "simulations", 1u32, 100_000)?.unwrap_or(64);
    let seed = crate::args::seed(seed, "seed")?.unwrap_or(0);
    let considered_actions =
        crate::args::opt_int(considered_actions, "considered_actions", 1u32, 16)?;
    let roots = roots_from(roots)?;
    let Some(first) = roots.first() else {
        return Err(value_error("no roots to search"));
    };
    let rules = *first.rules();
    if let Some((i, p)) = roots
        .iter()
        .enumerate()
        .find(|(_, p)| *p.rules() != rules || p.is_over())
    {
        return Err(value_error(if p.is_over() {
            format!("root {i} ({p}) is a finished game")
        } else {
            format!(
                "root {i} is played under {}, root 0 under {}",
                p.rules().describe(),
                rules.describe()
            )
        }));
    }
    let net = evaluator.cast::<PyNetwork>().ok().map(|n| n.get());
    if let Some(n) = net
        && n.rules != rules
    {
        return Err(value_error(format!(
            "the network plays {}, the roots are of {}",
            n.rules.describe(),
            rules.describe()
        )));
    }
    let a = rules.pits() + 1;
    let base = net.map_or(
        SearchConfig {
            simulations,
            considered_actions: a as u32,
            c_visit: 50.0,
            c_scale: 1.0,
            margin_weight: 0.0,
            prove: false,
            minimax_weight: 0.0,
        },
        |n| n.search_config(Some(simulations)),
    );
    let cfg = SearchConfig {
        simulations,
        considered_actions: considered_actions
            .unwrap_or(base.considered_actions)
            .clamp(1, a as u32),
        c_visit: c_visit.unwrap_or(base.c_visit),
        c_scale: c_scale.unwrap_or(base.c_scale),
        margin_weight: margin_weight.unwrap_or(base.margin_weight),
        prove: prove.unwrap_or(base.prove),
        minimax_weight: minimax_weight.unwrap_or(base.minimax_weight),
    };
    // margin_weight and c_scale as a bot spec's `:margin=W:c_scale=X` are checked (one parser,
    // `kalaha::bots::options`), naming the keyword.
    kalaha::bots::options::margin_weight(f64::from(cfg.margin_weight))
        .map_err(|e| value_error(format!("margin_weight: {e}")))?;
    kalaha::bots::options::minimax_weight(f64::from(cfg.minimax_weight))
        .map_err(|e| value_error(format!("minimax_weight: {e}")))?;
    if c_scale.is_some() {
        kalaha::bots::options::c_scale(f64::from(cfg.c_scale))
            .map_err(|e| value_error(format!("c_scale: {e}")))?;
    }
    if !cfg.c_visit.is_finite() || !cfg.c_scale.is_finite() {
        return Err(value_error("c_visit and c_scale must be finite"));
    }
    let temps: Vec<f32> = match temperature {
        None => vec![0.0; roots.len()],
        Some(t) => match t.extract::<f32>() {
            Ok(x) => vec![x; roots.len()],
            Err(_) => {
                let v: Vec<f32> = t.extract()?;
                if v.len() != roots.len() {
                    return Err(value_error(format!(
                        "{} temperatures for {} roots",
                        v.len(),
                        roots.len()
                    )));
                }
                v
            }
        },
    };
    if temps.iter().any(|t| !(t.is_finite() && *t >= 0.0)) {
        return Err(value_error("temperatures must be finite and not negative"));
    }
    let db_seeds = match endgame_db {
        None => None,
        Some(x) if x.is_none() => None,
        Some(x) => match x.extract::<bool>() {
            Ok(false) => None,
            Ok(true) => Some(kalaha::bots::db::db_seeds(
                net.and_then(|n| n.model.card.endgame_db_seeds),
                &rules,
            ))
            .filter(|&s| s > 0),
            Err(_) => Some(x.extract::<u32>()?).filter(|&s| s > 0),
        },
    };
    let oracle = db_seeds
        .map(|s| py.detach(|| oracle(&rules, s)))
        .transpose()?;
    let cancel = Arc::new(AtomicBool::new(false));
    let (results, evaluations, error) = match net {
        Some(n) => {
            // The network's search runs on a thread of its own, so that Ctrl-C is answered.
            let mut ev = n.evaluator();
            let work = move || {
                let oracle_ref = oracle.as_deref().map(|o| o as &dyn Oracle);
                let r = search_batch_with(&roots, &temps, &cfg, &mut ev, oracle_ref, seed);
                (r, ev.evaluated)
            };
            let (r, evaluated) = crate::interrupt::run(py, &cancel, None, work)?;
            (r, evaluated, None)
        }
        None => {
            // A Python evaluator is called on this thread: Ctrl-C raises in it, and the search
            // then ends without calling it again.
            let oracle_ref = oracle.as_deref().map(|o| o as &dyn Oracle);
            let mut ev = PyEvaluator {
                f: evaluator.clone().unbind(),
                error: None,
                evaluated: 0,
            };
            let r =
                py.detach(|| search_batch_with(&roots, &temps, &cfg, &mut ev, oracle_ref, seed));
            (r, ev.evaluated, ev.error)
        }
    };
    if let Some(e) = error {
        return Err(e);
    }
    let n = results.len();
    let d = PyDict::new(py);
    let action: Vec<i64> = results.iter().map(|r| r.action as i64).collect();
    let mut policy = Vec::with_capacity(n * a);
    let mut visits = Vec::with_capacity(n * a);
    let mut q = Vec::with_capacity(n * a);
    for r in &results {
        policy.extend_from_slice(&r.policy[..a]);
        visits.extend(r.visits[..a].iter().map(|&v| v as i64));
        q.extend(r.q[..a].iter().map(|x| x.unwrap_or(f32::NAN)));
    }
    d.set_item("action", PyArray1::from_vec(py, action))?;
    d.set_item("policy", PyArray1::from_vec(py, policy).reshape([n, a])?)?;
    d.set_item(
        "value",
        PyArray1::from_vec(py, results.iter().map(|r| r.value).collect()),
    )?;
    d.set_item(
        "net_value",
        PyArray1::from_vec(py, results.iter().map(|r| r.net_value).collect()),
    )?;
    d.set_item("visits", PyArray1::from_vec(py, visits).reshape([n, a])?)?;
    d.set_item("q", PyArray1::from_vec(py, q).reshape([n, a])?)?;
    d.set_item(
        "proved",
        PyArray1::from_vec(py, results.iter().map(|r| r.proved).collect()),
    )?;
    d.set_item("evaluations", evaluations)?;
    Ok(d)
}

/// The best legal action of each row of `logits` `[B, A]` (float64) under `mask` `[B, A]`
/// (bool), by the library's one rule for a greedy pick, [`kalaha::search::best_logit`]: the
/// highest logit, ties to the highest action, logits compared by `total_cmp`. Returns int64
/// `[B]`; a row with no legal action raises `ValueError`.
#[pyfunction]
pub fn best_logits<'py>(
    py: Python<'py>,
    logits: numpy::PyReadonlyArray2<'py, f64>,
    mask: numpy::PyReadonlyArray2<'py, bool>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (l, m) = (logits.as_array(), mask.as_array());
    if l.dim() != m.dim() {
        return Err(value_error(format!(
            "logits have shape {:?} but the mask {:?}",
            l.shape(),
            m.shape()
        )));
    }
    let mut out = Vec::with_capacity(l.nrows());
    let mut row = Vec::with_capacity(l.ncols());
    for (i, (lr, mr)) in l.rows().into_iter().zip(m.rows()).enumerate() {
        row.clear();
        row.extend(lr.iter().copied());
        let legal = mr.iter().enumerate().filter(|&(_, &b)| b).map(|(a, _)| a);
        match kalaha::search::best_logit(&row, legal) {
            Some(a) => out.push(a as i64),
            None => return Err(value_error(format!("row {i} has no legal action"))),
        }
    }
    Ok(numpy::PyArray1::from_vec(py, out))
}
