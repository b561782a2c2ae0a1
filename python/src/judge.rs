//! `JudgeSet` and `HeldoutSet`: the solver-labelled positions `kalaha judge` scores networks on,
//! as numpy batches for any agent, and their scores with the command's own figures (JSON text,
//! which `kalaha.judge` in `kalaha/research.py` turns into the report).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use kalaha::eval::heldout::HeldoutSet;
use kalaha::eval::judge::{JUDGE_SEED, JudgeSet, cached_settings, check_actions};
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
        let a = self.rules.pits() + 1;
        if logits.shape() != [self.set.len(), a] {
            return Err(value_error(format!(
                "logits of shape {:?} for {} positions of {a} actions",
                logits.shape(),
                self.set.len()
            )));
        }
        let flat: Vec<f32> = logits.as_array().iter().copied().collect();
        let score = self
            .set
            .score(&flat, a)
            .map_err(|e| value_error(format!("{e:#}")))?;
        serde_json::to_string(&score).map_err(value_error)
    }

    /// The score of one action per position (int64 `[N]`, each legal): optimal rate and seeds
    /// lost; `kl` and `set_loss` are null (an action is not a distribution).
    fn score_actions(&self, actions: PyReadonlyArray1<'_, i64>) -> PyResult<String> {
        let picks = indexes(&actions)?;
        check_actions(self.set.positions().iter(), &picks).map_err(library_error)?;
        let a = self.rules.pits() + 1;
        let mut flat = vec![f32::NEG_INFINITY; picks.len() * a];
        for (row, &p) in flat.chunks_exact_mut(a).zip(&picks) {
            row[p] = 0.0;
        }
        let score = self
            .set
            .score(&flat, a)
            .map_err(|e| value_error(format!("{e:#}")))?;
        let mut v = serde_json::to_value(&score).map_err(value_error)?;
        v["kl"] = serde_json::Value::Null;
        v["set_loss"] = serde_json::Value::Null;
        if let Some(bands) = v["bands"].as_array_mut() {
            for b in bands {
                b["kl"] = serde_json::Value::Null;
            }
        }
        Ok(v.to_string())
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
