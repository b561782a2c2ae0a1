//! `Position`: a position in the project's notation, its legal moves, playing a move, and its
//! observation from the environment's encoder.

use kalaha::env::obs::{action_count, encode_as, obs_dim};
use kalaha::rules::{Move, Position, Side};
use numpy::{PyArray1, ToPyArray};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::rules::{PyRules, rules_from, value_error};

/// A Kalah position under a set of rules. Immutable: `play` returns the next position.
///
/// Notation (`str(position)`): `p1,..,pm,STORE/q1,..,qm,STORE s|n`, South's pits and store, then
/// North's, then the side to move; a trailing `swap` marks a pending pie answer, `opening` South's
/// opening turn still going (the pie answer still to come). Moves are pit numbers `1..m` of the
/// player to move (an `int`) or the string `"swap"`; actions (as in the environment) are `p - 1`
/// for pit `p` and `m` for `swap`.
///
/// ```python
/// pos = kalaha.Position.start()            # or kalaha.Position("4,4,0,5,5,5,1/4,4,4,4,4,4,0 s")
/// pos = pos.play(3)                        # last seed in the store: South moves again
/// pos.legal_moves()                        # [1, 2, 4, 5, 6]
/// ```
#[pyclass(name = "Position", module = "kalaha._kalaha", frozen)]
#[derive(Clone, Copy)]
pub struct PyPosition {
    pub pos: Position,
}

#[pymethods]
impl PyPosition {
    /// Parses `notation` under `rules` (see `kalaha.Rules`; default Kalah(6,4)).
    #[new]
    #[pyo3(signature = (notation, rules=None))]
    fn new(notation: &str, rules: Option<&Bound<'_, PyAny>>) -> PyResult<PyPosition> {
        let rules = rules_from(rules)?;
        let pos = Position::parse(notation, &rules)
            .map_err(|e| PyValueError::new_err(format!("position '{notation}': {e}")))?;
        // Sowing and capturing keep every seed; only the `discard` leftover rule removes the
        // seeds left in the pits, and only when the game ends.
        let held: u32 = [Side::South, Side::North]
            .iter()
            .map(|&s| {
                pos.row(s).iter().map(|&x| u32::from(x)).sum::<u32>() + u32::from(pos.store(s))
            })
            .sum();
        let total = rules.total_seeds();
        let discarded = rules.leftover == kalaha::rules::Leftover::Discard && held < total;
        if held != total && !discarded {
            return Err(PyValueError::new_err(format!(
                "position '{notation}' holds {held} seeds; a position of {} holds {total}",
                rules.describe()
            )));
        }
        Ok(PyPosition { pos })
    }

    /// The start position of `rules`: `n` seeds in every pit, South to move.
    #[staticmethod]
    #[pyo3(signature = (rules=None))]
    fn start(rules: Option<&Bound<'_, PyAny>>) -> PyResult<PyPosition> {
        let rules = rules_from(rules)?;
        Ok(PyPosition {
            pos: Position::start(&rules),
        })
    }

    /// The rules the position is played under.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules {
            rules: *self.pos.rules(),
        }
    }

    /// The side to move: `"south"` or `"north"`.
    #[getter(to_move)]
    fn side_to_move(&self) -> &'static str {
        self.pos.to_move().name()
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.pos.is_over()
    }

    /// Whether the pie answer `swap` is legal now.
    #[getter]
    fn swap_allowed(&self) -> bool {
        self.pos.swap_allowed()
    }

    /// `(south, north)`: the final scores once the game is over (the leftover rule applied),
    /// else the stores as they stand.
    #[getter]
    fn score(&self) -> (u32, u32) {
        let [s, n] = self.pos.score();
        (s, n)
    }

    /// South's score minus North's (see `score`).
    #[getter]
    fn margin(&self) -> i32 {
        self.pos.margin()
    }

    /// `"south"`, `"north"` or `"draw"` once the game is over, else `None`.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.pos.result().map(|r| r.name())
    }

    /// The seeds in `side`'s pits 1..m (`side`: `"south"`/`"s"` or `"north"`/`"n"`).
    fn pits(&self, side: &str) -> PyResult<Vec<u32>> {
        let row = self.pos.row(parse_side(side)?);
        Ok(row.iter().map(|&x| x as u32).collect())
    }

    /// The seeds in `side`'s store.
    fn store(&self, side: &str) -> PyResult<u8> {
        Ok(self.pos.store(parse_side(side)?))
    }

    /// The legal moves: pit numbers ascending, then `"swap"` if the pie answer is legal.
    fn legal_moves<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.pos
            .legal_moves()
            .iter()
            .map(|mv| move_to_py(py, mv))
            .collect()
    }

    /// The legal actions (`p - 1` for pit `p`, `m` for `swap`), ascending.
    fn legal_actions(&self) -> Vec<usize> {
        let m = self.pos.rules().pits();
        self.pos
            .legal_moves()
            .iter()
            .map(|mv| mv.action(m))
            .collect()
    }

    /// The legal actions as a `bool` array of length `m + 1`.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        action_masks(std::slice::from_ref(&self.pos)).to_pyarray(py)
    }

    /// The position after `move` (a pit number or `"swap"`). An illegal move raises
    /// `ValueError` naming the move and why.
    #[pyo3(name = "play", signature = (r#move))]
    fn play_py(&self, r#move: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let mv = move_from_py(r#move)?;
        self.play(mv)
    }

    /// The position after action `action` (`p - 1` for pit `p`, `m` for `swap`).
    fn play_action(&self, action: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let m = self.pos.rules().pits();
        let action = crate::args::int(action, "action", 0usize, m)?;
        self.play(Move::from_action(action, m))
    }

    /// The move of an action index: a pit number or `"swap"`.
    fn action_to_move<'py>(
        &self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = self.pos.rules().pits();
        let action = crate::args::int(action, "action", 0usize, m)?;
        move_to_py(py, Move::from_action(action, m))
    }

    /// The action index of a move (a pit number or `"swap"`).
    fn move_to_action(&self, r#move: &Bound<'_, PyAny>) -> PyResult<usize> {
        let m = self.pos.rules().pits();
        match move_from_py(r#move)? {
            Move::Pit(p) if p == 0 || p as usize > m => Err(PyValueError::new_err(format!(
                "pit {p} is out of range (pits are numbered 1 to {m})"
            ))),
            mv => Ok(mv.action(m)),
        }
    }

    /// The observation (`float32`, length `2m + 4`) from the environment's encoder, seen from
    /// `seat` (`"south"` or `"north"`; default: the side to move).
    #[pyo3(signature = (seat=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = match seat {
            Some(s) => parse_side(s)?,
            None => self.pos.to_move(),
        };
        let mut out = vec![0f32; obs_dim(self.pos.rules().pits())];
        encode_as(&self.pos, seat, &mut out);
        Ok(out.to_pyarray(py))
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position('{}', rules={})",
            self.pos,
            crate::rules::PyRules {
                rules: *self.pos.rules()
            }
            .repr()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPosition>()
            .is_ok_and(|o| o.get().pos == self.pos)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.pos.to_string().hash(&mut h);
        self.pos.rules().spec().hash(&mut h);
        h.finish()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let p = slf.get().pos;
        let args = (p.to_string(), PyRules { rules: *p.rules() }).into_pyobject(py)?;
        Ok((slf.get_type().into_any(), args))
    }
}

impl PyPosition {
    fn play(&self, mv: Move) -> PyResult<PyPosition> {
        let mut next = self.pos;
        next.play(mv).map_err(|e| {
            PyValueError::new_err(format!("move {mv} is illegal in {}: {e}", self.pos))
        })?;
        Ok(PyPosition { pos: next })
    }
}

/// A position from what a Python caller passed: a `Position`, or notation parsed under `rules`.
/// A `Position` given with `rules` must be played under those rules.
pub fn position_from(
    obj: &Bound<'_, PyAny>,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<Position> {
    if let Ok(p) = obj.cast::<PyPosition>() {
        let pos = p.get().pos;
        if let Some(r) = rules.filter(|r| !r.is_none()) {
            let r = rules_from(Some(r))?;
            if r != *pos.rules() {
                return Err(PyValueError::new_err(format!(
                    "the position is played under {}, not {}",
                    pos.rules().describe(),
                    r.describe()
                )));
            }
        }
        return Ok(pos);
    }
    if let Ok(text) = obj.extract::<String>() {
        return PyPosition::new(&text, rules).map(|p| p.pos);
    }
    Err(PyTypeError::new_err(format!(
        "a position must be a kalaha.Position or its notation, not {}",
        obj.get_type().name()?
    )))
}

/// A move from Python: an `int` pit number, `"swap"`, or a pit number as a string.
pub fn move_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Move> {
    if let Ok(p) = obj.extract::<i64>() {
        return u8::try_from(p)
            .map(Move::Pit)
            .map_err(|_| PyValueError::new_err(format!("there is no pit {p}")));
    }
    if let Ok(s) = obj.extract::<String>() {
        return kalaha::rules::parse_move(&s).ok_or_else(|| {
            PyValueError::new_err(format!("'{s}' is not a move (a pit number or \"swap\")"))
        });
    }
    Err(PyTypeError::new_err(format!(
        "a move must be a pit number or \"swap\", not {}",
        obj.get_type().name()?
    )))
}

/// A move as Python sees it: the pit number, or `"swap"`.
pub fn move_to_py(py: Python<'_>, mv: Move) -> PyResult<Bound<'_, PyAny>> {
    match mv {
        Move::Pit(p) => Ok(p.into_pyobject(py)?.into_any()),
        Move::Swap => Ok("swap".into_pyobject(py)?.into_any()),
    }
}

/// A side from `"south"`, `"s"`, `"north"` or `"n"`.
pub fn parse_side(s: &str) -> PyResult<Side> {
    match s.to_ascii_lowercase().as_str() {
        "south" | "s" => Ok(Side::South),
        "north" | "n" => Ok(Side::North),
        _ => Err(value_error(format!(
            "unknown side '{s}' (expected \"south\" or \"north\")"
        ))),
    }
}

/// The observations of `positions` (each for its player to move), `2m + 4` floats a row, row by
/// row; the positions share one rule set.
pub fn observations(positions: &[Position]) -> Vec<f32> {
    let d = positions.first().map_or(0, |p| obs_dim(p.rules().pits()));
    let mut out = vec![0f32; positions.len() * d];
    for (p, row) in positions.iter().zip(out.chunks_exact_mut(d.max(1))) {
        encode_as(p, p.to_move(), row);
    }
    out
}

/// The legal-action masks of `positions`, `m + 1` entries a row, row by row; the positions share
/// one rule set.
pub fn action_masks(positions: &[Position]) -> Vec<bool> {
    let m = positions.first().map_or(0, |p| p.rules().pits());
    let mut out = vec![false; positions.len() * action_count(m)];
    for (p, row) in positions.iter().zip(out.chunks_exact_mut(action_count(m))) {
        for mv in p.legal_moves().iter() {
            row[mv.action(m)] = true;
        }
    }
    out
}
