//! `Rules`: a validated set of rule options, from a preset name and options on top of it.

use kalaha::rules::{Preset, RuleChoices, Rules};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The rules of Kalah(m,n): a preset (`international`, `swedish`, `danish`, `norwegian`,
/// `children`; default `international`, Kalah(6,4)) with any option given on top of it.
///
/// `Rules("swedish")`, `Rules(pits=4, seeds=3, capture="empty", pie=True)`. Options take the
/// keywords of the command line: `capture` `standard|empty|off`, `leftover`
/// `owner|emptier|discard`, `end` `immediate|on-turn`. A bad option raises `ValueError`.
#[pyclass(name = "Rules", module = "kalaha._kalaha", frozen, eq)]
#[derive(Clone, Copy, PartialEq)]
pub struct PyRules {
    pub rules: Rules,
}

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (preset=None, pits=None, seeds=None, capture=None, leftover=None, end=None, pie=None))]
    fn new(
        preset: Option<&str>,
        pits: Option<&Bound<'_, PyAny>>,
        seeds: Option<&Bound<'_, PyAny>>,
        capture: Option<&str>,
        leftover: Option<&str>,
        end: Option<&str>,
        pie: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRules> {
        let pits = crate::args::opt_int(pits, "pits", 1u32, u32::from(kalaha::rules::MAX_PITS))?;
        let seeds = crate::args::opt_int(seeds, "seeds", 1u32, kalaha::rules::MAX_SEEDS)?;
        let pie = pie
            .filter(|p| !p.is_none())
            .map(|p| crate::args::boolean(p, "pie"))
            .transpose()?;
        let choices = RuleChoices {
            preset,
            pits,
            seeds,
            capture,
            leftover,
            end,
            pie,
        };
        let rules = choices.build().map_err(value_error)?;
        Ok(PyRules { rules })
    }

    /// Pits per side, `m`.
    #[getter]
    fn pits(&self) -> usize {
        self.rules.pits()
    }

    /// Seeds per pit at the start, `n`.
    #[getter]
    fn seeds(&self) -> u8 {
        self.rules.seeds()
    }

    /// The capture option: `standard`, `empty` or `off`.
    #[getter]
    fn capture(&self) -> &'static str {
        self.rules.capture.name()
    }

    /// The leftover option: `owner`, `emptier` or `discard`.
    #[getter]
    fn leftover(&self) -> &'static str {
        self.rules.leftover.name()
    }

    /// The end option: `immediate` or `on-turn`.
    #[getter]
    fn end(&self) -> &'static str {
        self.rules.end.name()
    }

    /// Whether North may answer `swap` at its first move (the pie rule).
    #[getter]
    fn pie(&self) -> bool {
        self.rules.pie
    }

    /// Length of an observation, `2m + 4`.
    #[getter]
    fn obs_dim(&self) -> usize {
        kalaha::env::obs::obs_dim(self.rules.pits())
    }

    /// Number of actions, `m + 1`: action `p - 1` sows pit `p`, action `m` is the pie answer.
    #[getter]
    fn action_count(&self) -> usize {
        kalaha::env::obs::action_count(self.rules.pits())
    }

    /// Seeds on the board at the start, `2mn`.
    #[getter]
    fn total_seeds(&self) -> u32 {
        self.rules.total_seeds()
    }

    /// The options as a dict (keys `pits`, `seeds`, `capture`, `leftover`, `end`, `pie`), which
    /// `Rules(**d)` takes back.
    #[pyo3(name = "to_dict")]
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("pits", self.rules.pits())?;
        d.set_item("seeds", self.rules.seeds())?;
        d.set_item("capture", self.rules.capture.name())?;
        d.set_item("leftover", self.rules.leftover.name())?;
        d.set_item("end", self.rules.end.name())?;
        d.set_item("pie", self.rules.pie)?;
        Ok(d)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.rules.spec().hash(&mut h);
        h.finish()
    }

    fn __str__(&self) -> String {
        self.rules.describe()
    }

    fn __repr__(&self) -> String {
        self.repr()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let r = slf.get().rules;
        let args = (
            py.None(),
            r.pits(),
            r.seeds(),
            r.capture.name(),
            r.leftover.name(),
            r.end.name(),
            r.pie,
        )
            .into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }
}

impl PyRules {
    /// The `repr` text, also for other classes' reprs.
    pub fn repr(&self) -> String {
        let r = &self.rules;
        format!(
            "Rules(pits={}, seeds={}, capture='{}', leftover='{}', end='{}', pie={})",
            r.pits(),
            r.seeds(),
            r.capture.name(),
            r.leftover.name(),
            r.end.name(),
            if r.pie { "True" } else { "False" }
        )
    }
}

/// The names of the rule presets.
#[pyfunction]
pub fn presets() -> Vec<&'static str> {
    Preset::ALL.iter().map(|p| p.name()).collect()
}

/// Rules from what a Python caller passed: `None` (Kalah(6,4)), a preset name, a `Rules`, or a
/// dict of options (`{"pits": 4, "seeds": 3, "pie": True}`, `"preset"` allowed as a key).
pub fn rules_from(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Rules> {
    let Some(obj) = obj else {
        return Ok(Rules::kalah64());
    };
    if obj.is_none() {
        return Ok(Rules::kalah64());
    }
    if let Ok(r) = obj.cast::<PyRules>() {
        return Ok(r.get().rules);
    }
    if let Ok(name) = obj.extract::<String>() {
        return PyRules::new(Some(&name), None, None, None, None, None, None).map(|r| r.rules);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut preset: Option<String> = None;
        let (mut pits, mut seeds, mut pie) = (None, None, None::<Bound<'_, PyAny>>);
        let (mut capture, mut leftover, mut end): (Option<String>, Option<String>, Option<String>) =
            (None, None, None);
        for (k, v) in d.iter() {
            let key: String = k.extract()?;
            match key.as_str() {
                "preset" => preset = v.extract()?,
                "pits" => pits = Some(v),
                "seeds" => seeds = Some(v),
                "capture" => capture = v.extract()?,
                "leftover" => leftover = v.extract()?,
                "end" => end = v.extract()?,
                "pie" => pie = Some(v),
                other => {
                    return Err(PyValueError::new_err(format!(
                        "unknown rule option '{other}' (expected preset, pits, seeds, capture, leftover, end or pie)"
                    )));
                }
            }
        }
        return PyRules::new(
            preset.as_deref(),
            pits.as_ref(),
            seeds.as_ref(),
            capture.as_deref(),
            leftover.as_deref(),
            end.as_deref(),
            pie.as_ref(),
        )
        .map(|r| r.rules);
    }
    Err(PyTypeError::new_err(format!(
        "rules must be None, a preset name, a kalaha.Rules or a dict of options, not {}",
        obj.get_type().name()?
    )))
}

/// A `ValueError` carrying an error's message.
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}
