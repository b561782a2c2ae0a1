//! Arguments checked where they enter: an integer or a number outside its range, a float given
//! for an integer, a string given for a number, is refused with `ValueError` naming the
//! parameter and the range it takes (never an `OverflowError` or a silent truncation).

use std::fmt::Display;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

/// Largest seed: any `u64`.
pub const SEED_MAX: u64 = u64::MAX;

/// A short text of `obj` for an error message (its `repr`, cut).
fn shown(obj: &Bound<'_, PyAny>) -> String {
    let s = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// `obj` as an integer in `lo..=hi` (a Python `int` or a numpy integer; not a `bool`, a float
/// or a string), else `ValueError`: "`name` must be an integer from `lo` to `hi`, not ...".
pub fn int<T>(obj: &Bound<'_, PyAny>, name: &str, lo: T, hi: T) -> PyResult<T>
where
    T: TryFrom<i128> + TryInto<i128> + Copy + Display,
{
    let bad = || {
        PyValueError::new_err(format!(
            "{name} must be an integer from {lo} to {hi}, not {}",
            shown(obj)
        ))
    };
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyFloat>() {
        return Err(bad());
    }
    // A Python int, or anything with `__index__` (numpy integers), but no float-like object.
    let v: i128 = if obj.is_instance_of::<PyInt>() {
        obj.extract().map_err(|_| bad())?
    } else if obj.hasattr("__index__")? {
        obj.call_method0("__index__")
            .and_then(|i| i.extract())
            .map_err(|_| bad())?
    } else {
        return Err(bad());
    };
    let (l, h) = (
        lo.try_into().unwrap_or(i128::MIN),
        hi.try_into().unwrap_or(i128::MAX),
    );
    if v < l || v > h {
        return Err(bad());
    }
    T::try_from(v).map_err(|_| bad())
}

/// Like [`int`] for an optional argument: Python's `None` is `None`.
pub fn opt_int<T>(obj: Option<&Bound<'_, PyAny>>, name: &str, lo: T, hi: T) -> PyResult<Option<T>>
where
    T: TryFrom<i128> + TryInto<i128> + Copy + Display,
{
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => int(o, name, lo, hi).map(Some),
    }
}

/// A seed: an integer from 0 to 2^64 - 1, or `None`.
pub fn seed(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<u64>> {
    opt_int(obj, name, 0u64, SEED_MAX)
}

/// A finite number of seconds in `(0, max]`, or `None`: "`name` must be a number of seconds
/// above 0 and at most `max`, not ...".
pub fn seconds(obj: Option<&Bound<'_, PyAny>>, name: &str, max: f64) -> PyResult<Option<f64>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let bad = || {
        PyValueError::new_err(format!(
            "{name} must be a number of seconds above 0 and at most {max}, not {}",
            shown(obj)
        ))
    };
    if obj.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    let t: f64 = if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
        obj.extract().map_err(|_| bad())?
    } else if obj.hasattr("__float__")? && !obj.hasattr("__len__")? {
        obj.call_method0("__float__")
            .and_then(|f| f.extract())
            .map_err(|_| bad())?
    } else {
        return Err(bad());
    };
    if !(t.is_finite() && t > 0.0 && t <= max) {
        return Err(bad());
    }
    Ok(Some(t))
}

/// A boolean argument: `True`/`False` (or a numpy bool), nothing else.
pub fn boolean(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<bool> {
    if obj.is_instance_of::<PyBool>() {
        return obj.extract();
    }
    let np_bool = obj
        .get_type()
        .name()
        .is_ok_and(|n| n == "bool" || n == "bool_");
    if np_bool {
        return obj.call_method0("__bool__")?.extract();
    }
    Err(PyValueError::new_err(format!(
        "{name} must be True or False, not {}",
        shown(obj)
    )))
}
