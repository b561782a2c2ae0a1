//! `JudgeSet` and `HeldoutSet`: the solver-labelled positions `kalaha judge` scores networks on,
//! as numpy batches for any agent; `JudgeReport`: the command's own report type
//! ([`kalaha::eval::judge::JudgeReport`]), which `kalaha.judge` returns (its text is the
//! command's, its dict the command's `--json`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kalaha::eval::heldout::{HeldoutScore, HeldoutSet};
use kalaha::eval::judge::report::{HeldoutReport, JudgeReport};
use kalaha::eval::judge::{JUDGE_SEED, JudgeSet, Miss, cached_settings};
use kalaha::rules::{Position, Rules};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::network::PyNetwork;
use crate::position::PyPosition;
use crate::rules::{PyRules, rules_from, value_error};

/// Observations `[N, 2m + 4]` of `positions` (for the player to move in each).
fn observations<'py>(
    py: Python<'py>,
    positions: &[Position],
    rules: &Rules,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let d = kalaha::env::obs::obs_dim(rules.pits());
    PyArray1::from_vec(py, crate::position::observations(positions)).reshape([positions.len(), d])
}

/// Legal-action masks `[N, m + 1]` of `positions`.
fn masks<'py>(
    py: Python<'py>,
    positions: &[Position],
    rules: &Rules,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let a = rules.pits() + 1;
    PyArray1::from_vec(py, crate::position::action_masks(positions)).reshape([positions.len(), a])
}

/// `actions` as indexes; a negative one is no legal move (the library checks the others:
/// [`check_actions`]).
fn indexes(actions: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    actions
        .as_array()
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            usize::try_from(a)
                .map_err(|_| value_error(format!("position {i}: action {a} is not a legal move")))
        })
        .collect()
}

/// A library error as Python's `ValueError`, with its causes.
fn library_error(e: anyhow::Error) -> PyErr {
    value_error(format!("{e:#}"))
}

/// Folders searched for judge sets: the package's committed sets, then those built here.
fn judge_dirs() -> PyResult<(Vec<PathBuf>, PathBuf)> {
    let built = crate::embedded::cache_dir()
        .map_err(value_error)?
        .join("judge");
    let mut dirs = Vec::new();
    if let Ok(d) = crate::embedded::dir() {
        dirs.push(d.join("judge"));
    }
    dirs.push(built.clone());
    Ok((dirs, built))
}

/// A judge set: fixed positions drawn from random/greedy games, `minimax:4` games and endgames,
/// every move of each solved exactly; the set `kalaha judge` and every training run score on.
///
/// `JudgeSet.load(rules)` reads the set shipped with the package (one for each rule set of the
/// guides) or built before with `build=True`, which solves a new one (minutes for four seeds a pit;
/// six-seed sets need `time_limit`, e.g. 10 seconds a position).
#[pyclass(name = "JudgeSet", module = "kalaha._kalaha", frozen)]
pub struct PyJudgeSet {
    set: JudgeSet,
    positions: Vec<Position>,
    rules: Rules,
    /// The solver's limit a position the set was solved with (none: every position proved).
    limit: Option<Duration>,
}

#[pymethods]
impl PyJudgeSet {
    #[staticmethod]
    #[pyo3(signature = (rules=None, positions=None, build=false, time_limit=None))]
    fn load(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        positions: Option<&Bound<'_, PyAny>>,
        build: bool,
        time_limit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyJudgeSet> {
        let positions = crate::args::opt_int(positions, "positions", 1usize, 1_000_000)?;
        let time_limit = crate::args::seconds(time_limit, "time_limit", 86_400.0)?;
        let rules = rules_from(rules)?;
        let (dirs, built) = judge_dirs()?;
        let found = dirs.iter().find_map(|d| {
            cached_settings(&rules, d)
                .filter(|(n, _)| positions.is_none_or(|p| p == *n))
                .map(|(n, limit)| (d.clone(), n, limit))
        });
        let (dir, n, limit) = match found {
            Some(f) => f,
            None if build => {
                let limit = time_limit.map(Duration::from_secs_f64);
                std::fs::create_dir_all(&built)
                    .map_err(|e| value_error(format!("cannot create {}: {e}", built.display())))?;
                (built, positions.unwrap_or(1200), limit)
            }
            None => {
                return Err(value_error(format!(
                    "no judge set{} for {} is shipped with the package or built in {}: pass build=True to solve one (minutes for four seeds a pit; give six-seed rules time_limit=10)",
                    positions.map_or(String::new(), |n| format!(" of {n} positions")),
                    rules.describe(),
                    built.display()
                )));
            }
        };
        // Building a set takes minutes: on a thread of its own, so that Ctrl-C is answered.
        let cancel = Arc::new(AtomicBool::new(false));
        let work = move || JudgeSet::load_or_build(&rules, n, JUDGE_SEED, &dir, limit);
        let set = crate::interrupt::run(py, &cancel, None, work)?
            .map_err(|e| value_error(format!("{e:#}")))?;
        Ok(PyJudgeSet {
            positions: set.positions(),
            set,
            rules,
            limit,
        })
    }

    /// The rules of its positions.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { rules: self.rules }
    }

    /// Positions drawn but left out because the solver did not prove them within the set's limit.
    #[getter]
    fn unsolved(&self) -> usize {
        self.set.unsolved()
    }

    fn __len__(&self) -> usize {
        self.positions.len()
    }

    /// The positions, in set order.
    fn positions(&self) -> Vec<PyPosition> {
        self.positions
            .iter()
            .map(|&pos| PyPosition { pos })
            .collect()
    }

    /// Observations `[N, 2m + 4]` (float32), as the environment writes them.
    fn obs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        observations(py, &self.positions, &self.rules)
    }

    /// Legal-action masks `[N, m + 1]` (bool).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        masks(py, &self.positions, &self.rules)
    }

    /// The score of one action per position (int64 `[N]`, each legal), as `kalaha judge --json`
    /// prints it (JSON text).
    fn score(&self, actions: PyReadonlyArray1<'_, i64>) -> PyResult<String> {
        let score = self
            .set
            .score_picks(&indexes(&actions)?)
            .map_err(library_error)?;
        serde_json::to_string(&score).map_err(value_error)
    }

    /// The positions where `actions` are not optimal, as `kalaha judge --misses` writes them
    /// (JSON text).
    fn misses(&self, actions: PyReadonlyArray1<'_, i64>) -> PyResult<String> {
        let misses = self
            .set
            .misses(&indexes(&actions)?)
            .map_err(library_error)?;
        serde_json::to_string(&misses).map_err(value_error)
    }

    /// Two agents' actions compared position by position: `(only_first, only_second,
    /// p_value)`, the positions only one of them plays optimally and the exact sign test.
    fn compare(
        &self,
        first: PyReadonlyArray1<'_, i64>,
        second: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<(usize, usize, f64)> {
        let p = self
            .set
            .compare(&indexes(&first)?, &indexes(&second)?)
            .map_err(library_error)?;
        Ok((p.only_first, p.only_second, p.p_value))
    }

    /// The report of an agent's actions (int64 `[N]`, each legal) on this set: the
    /// `JudgeReport` that `kalaha judge` prints, for `network` (a name for the agent) and its
    /// release id; `misses=True` keeps the positions it gets wrong; `heldout` pairs each
    /// `HeldoutSet` with the agent's logits (float32 `[N, m + 1]`) or actions (int64 `[N]`).
    #[pyo3(signature = (actions, *, network="agent".to_string(), network_id=None, misses=false, heldout=Vec::new()))]
    fn report(
        &self,
        actions: PyReadonlyArray1<'_, i64>,
        network: String,
        network_id: Option<String>,
        misses: bool,
        heldout: Vec<(PyRef<'_, PyHeldoutSet>, Bound<'_, PyAny>)>,
    ) -> PyResult<PyJudgeReport> {
        let picks = indexes(&actions)?;
        let score = self.set.score_picks(&picks).map_err(library_error)?;
        let misses = match misses {
            true => Some(self.set.misses(&picks).map_err(library_error)?),
            false => None,
        };
        let mut sets = Vec::new();
        for (set, given) in &heldout {
            if set.rules != self.rules {
                return Err(value_error(format!(
                    "a held-out set of {} paired with the judge set of {}",
                    set.rules.describe(),
                    self.rules.describe()
                )));
            }
            let score = match given.extract::<PyReadonlyArray2<'_, f32>>() {
                Ok(logits) => set.score_of_logits(&logits)?,
                Err(_) => {
                    let actions = given.extract::<PyReadonlyArray1<'_, i64>>().map_err(|_| {
                        value_error(format!(
                            "held-out {}: expected logits (float32 [N, m + 1]) or actions (int64 [N])",
                            set.kind()
                        ))
                    })?;
                    set.score_of_actions(&actions)?
                }
            };
            sets.push(HeldoutReport {
                score,
                against: None,
            });
        }
        Ok(PyJudgeReport {
            report: JudgeReport {
                score,
                network_id: network_id.unwrap_or_else(|| format!("{network} (no release id)")),
                network,
                seed: JUDGE_SEED,
                simulations: None,
                prove: None,
                margin_weight: None,
                c_scale: None,
                minimax_weight: None,
                against: None,
                heldout: (!heldout.is_empty()).then_some(sets),
                time_limit: self.limit,
            },
            misses,
        })
    }

    /// The moves a shipped network (`kalaha.Network`) picks alone, by the library's own path
    /// (`kalaha judge --network`'s): int64 `[N]`.
    fn network_picks<'py>(
        &self,
        py: Python<'py>,
        network: &PyNetwork,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        if network.rules != self.rules {
            return Err(value_error(format!(
                "the network plays {}, the judge set is of {}",
                network.rules.describe(),
                self.rules.describe()
            )));
        }
        let mut ev = network.evaluator();
        let picks = py.detach(|| self.set.picks(&mut ev));
        Ok(PyArray1::from_vec(
            py,
            picks.into_iter().map(|a| a as i64).collect(),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "JudgeSet({} positions of {})",
            self.positions.len(),
            self.rules.describe()
        )
    }
}

/// A held-out set: 100,000 positions (by default) inside the endgame database, every move
/// labelled exactly by it, drawn as training draws (`train`) or as the judge set draws (`judge`);
/// built once (about 20 s each, plus the database the first time) into the solver's cache.
#[pyclass(name = "HeldoutSet", module = "kalaha._kalaha", frozen)]
pub struct PyHeldoutSet {
    set: HeldoutSet,
    rules: Rules,
}

impl PyHeldoutSet {
    /// The library's score of `logits` (`[N, m + 1]`).
    fn score_of_logits(&self, logits: &PyReadonlyArray2<'_, f32>) -> PyResult<HeldoutScore> {
        let a = self.rules.pits() + 1;
        if logits.shape() != [self.set.len(), a] {
            return Err(value_error(format!(
                "held-out {}: logits of shape {:?} for {} positions of {a} actions",
                self.kind(),
                logits.shape(),
                self.set.len()
            )));
        }
        let flat: Vec<f32> = logits.as_array().iter().copied().collect();
        self.set.score(&flat, a).map_err(library_error)
    }

    /// The library's score of one action per position.
    fn score_of_actions(&self, actions: &PyReadonlyArray1<'_, i64>) -> PyResult<HeldoutScore> {
        self.set
            .score_actions(&indexes(actions)?)
            .map_err(library_error)
    }
}

#[pymethods]
impl PyHeldoutSet {
    /// Both held-out sets of `rules` (`train`, then `judge`), loaded or built.
    #[staticmethod]
    #[pyo3(signature = (rules=None, positions=None, db_seeds=None))]
    fn load_all(
        py: Python<'_>,
        rules: Option<&Bound<'_, PyAny>>,
        positions: Option<&Bound<'_, PyAny>>,
        db_seeds: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyHeldoutSet>> {
        let positions =
            crate::args::opt_int(positions, "positions", 100usize, 1_000_000)?.unwrap_or(100_000);
        let db_seeds = crate::args::opt_int(db_seeds, "db_seeds", 1u32, 30)?.unwrap_or(18);
        let rules = rules_from(rules)?;
        let cancel = Arc::new(AtomicBool::new(false));
        let work = move || HeldoutSet::in_cache(&rules, positions, db_seeds);
        let sets = crate::interrupt::run(py, &cancel, None, work)?
            .map_err(|e| value_error(format!("{e:#}")))?;
        Ok(sets
            .into_iter()
            .map(|set| PyHeldoutSet { set, rules })
            .collect())
    }

    /// `train` or `judge`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.set.kind().name()
    }

    fn __len__(&self) -> usize {
        self.set.len()
    }

    /// The positions, in set order.
    fn positions(&self) -> Vec<PyPosition> {
        self.set
            .positions()
            .iter()
            .map(|&pos| PyPosition { pos })
            .collect()
    }

    /// Observations `[N, 2m + 4]` (float32).
    fn obs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        observations(py, self.set.positions(), &self.rules)
    }

    /// Legal-action masks `[N, m + 1]` (bool).
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        masks(py, self.set.positions(), &self.rules)
    }

    /// The score of an agent's logits `[N, m + 1]` (float32; illegal actions are masked here):
    /// optimal rate, KL(target ‖ policy), set loss, seeds lost, by bands (JSON text).
    fn score_logits(&self, logits: PyReadonlyArray2<'_, f32>) -> PyResult<String> {
        serde_json::to_string(&self.score_of_logits(&logits)?).map_err(value_error)
    }

    /// The score of one action per position (int64 `[N]`, each legal): optimal rate and seeds
    /// lost; `kl` and `set_loss` are null (an action is not a distribution).
    fn score_actions(&self, actions: PyReadonlyArray1<'_, i64>) -> PyResult<String> {
        serde_json::to_string(&self.score_of_actions(&actions)?).map_err(value_error)
    }

    fn __repr__(&self) -> String {
        format!(
            "HeldoutSet({}: {} positions of {})",
            self.kind(),
            self.set.len(),
            self.rules.describe()
        )
    }
}

/// One judgement, as `kalaha judge` reports it: `str(report)` is the command's text,
/// `report.to_dict()` its `--json` (with `misses` where asked), and the report reads like that
/// dict (`report["optimal_rate"]`, `report.keys()`). Equal to another report, or to a dict, with
/// the same figures.
#[pyclass(name = "JudgeReport", module = "kalaha._kalaha", frozen)]
pub struct PyJudgeReport {
    report: JudgeReport,
    /// The positions the agent gets wrong, where asked.
    misses: Option<Vec<Miss>>,
}

/// A JSON value as the Python object `json.loads` makes of it.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

impl PyJudgeReport {
    /// The report as `kalaha judge --json` writes it, with `misses` where asked.
    fn json(&self) -> PyResult<serde_json::Value> {
        let mut v = serde_json::to_value(&self.report).map_err(value_error)?;
        if let Some(m) = &self.misses {
            v["misses"] = serde_json::to_value(m).map_err(value_error)?;
        }
        Ok(v)
    }
}

#[pymethods]
impl PyJudgeReport {
    /// Share of the set's positions where the agent's move is optimal.
    #[getter]
    fn optimal_rate(&self) -> f64 {
        self.report.score.optimal_rate
    }

    /// Its standard error.
    #[getter]
    fn std_err(&self) -> f64 {
        self.report.score.std_err
    }

    /// Positions scored.
    #[getter]
    fn positions(&self) -> usize {
        self.report.score.positions
    }

    /// Mean seeds the agent's move gives away.
    #[getter]
    fn mean_loss(&self) -> f64 {
        self.report.score.mean_loss
    }

    /// Positions drawn but left out (not proved within the set's time limit).
    #[getter]
    fn unsolved(&self) -> usize {
        self.report.score.unsolved
    }

    /// The agent judged (a network's path, a bot's spec, or a name).
    #[getter]
    fn network(&self) -> String {
        self.report.network.clone()
    }

    /// Its release id, or why it has none.
    #[getter]
    fn network_id(&self) -> String {
        self.report.network_id.clone()
    }

    /// The report as `kalaha judge --json` writes it (a dict; `misses` where asked).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.json()?)
    }

    /// The report as JSON text (`kalaha judge --json`'s, with `misses` where asked).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.json()?).map_err(value_error)
    }

    /// The keys of `to_dict()`.
    fn keys(&self) -> PyResult<Vec<String>> {
        Ok(self
            .json()?
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default())
    }

    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.json()?.get(key) {
            Some(v) => to_python(py, v),
            None => Err(pyo3::exceptions::PyKeyError::new_err(key.to_string())),
        }
    }

    fn __contains__(&self, key: &str) -> PyResult<bool> {
        Ok(self.json()?.get(key).is_some())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        if let Ok(o) = other.cast::<PyJudgeReport>() {
            return Ok(o.get().json()? == self.json()?);
        }
        if other.is_instance_of::<pyo3::types::PyDict>() {
            return self.to_dict(py)?.eq(other);
        }
        Ok(false)
    }

    /// The report as `kalaha judge` prints it.
    fn __str__(&self) -> String {
        self.report.text()
    }

    fn __repr__(&self) -> String {
        let s = &self.report.score;
        format!(
            "JudgeReport({}: {:.1}% ± {:.1} optimal on {} positions)",
            self.report.network,
            100.0 * s.optimal_rate,
            100.0 * s.std_err,
            s.positions
        )
    }
}
