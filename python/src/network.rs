//! `Network`: a trained network (a `kalaha train` checkpoint) for numpy batches: policy logits,
//! value and margin from observations or positions, callable as an agent, and its weights as
//! named arrays for PyTorch (`kalaha.torch`).

use std::path::Path;
use std::sync::Arc;

use kalaha::nn::NetEvaluator;
use kalaha::nn::model::{self, Model};
use kalaha::rules::{Position, Rules};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods, ToPyArray,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::position::PyPosition;
use crate::rules::{PyRules, rules_from, value_error};

/// A trained network (inference only, on the CPU).
///
/// `Network.load(path)` reads a checkpoint folder, its `meta.json` or its weights;
/// `Network.load("auto", rules)` the committed network for exactly those rules (as
/// `policy:auto` finds it). Batches in, numpy out:
///
/// | call | gives |
/// | --- | --- |
/// | `forward(obs)` | dict: `logits` `[B, m + 1]`, `value` `[B]`, `margin` `[B]`, `lost` `[B, m + 1]` (move head, if any) |
/// | `net(obs, mask)` | the logits with illegal actions at `-inf`: an agent for `kalaha.judge` |
/// | `encode(obs)` | what the network reads `[B, input_dim]` |
/// | `weights()` | dict of float32 arrays in PyTorch's `state_dict` layout |
///
/// `obs` are the environment's observations (`VecEnv.obs()`, `Position.observation()`), float32
/// `[B, 2m + 4]`, or a list of `Position`s. The forward pass releases the GIL.
#[pyclass(name = "Network", module = "kalaha._kalaha", frozen)]
pub struct PyNetwork {
    pub model: Arc<Model>,
    pub rules: Rules,
    pub path: String,
}

impl PyNetwork {
    /// What the network reads for each row of `x` (observations, or a list of positions).
    fn inputs(&self, x: &Bound<'_, PyAny>) -> PyResult<(Vec<f32>, usize)> {
        let input = self.model.net.input();
        let m = self.rules.pits();
        let k = input.width(m);
        if let Ok(list) = x.cast::<PyList>() {
            let mut out = vec![0.0; list.len() * k];
            for (item, row) in list.iter().zip(out.chunks_exact_mut(k)) {
                let pos: Position = item.cast::<PyPosition>()?.get().pos;
                if *pos.rules() != self.rules {
                    return Err(PyValueError::new_err(format!(
                        "a position of {} given to a network of {}",
                        pos.rules().describe(),
                        self.rules.describe()
                    )));
                }
                input.encode(&pos, row);
            }
            return Ok((out, list.len()));
        }
        let obs = as_f32_2d(x)?;
        let obs = obs.readonly();
        let (n, d) = (obs.shape()[0], obs.shape()[1]);
        let rows = obs.as_slice().map_err(value_error)?;
        let mut out = vec![0.0; n * k];
        for (i, chunk) in out.chunks_exact_mut(k).enumerate() {
            input
                .encode_obs(&rows[i * d..(i + 1) * d], &self.rules, chunk)
                .map_err(|e| value_error(format!("row {i}: {e:#}")))?;
        }
        Ok((out, n))
    }
}

/// `x` as a float32 two-dimensional numpy array (converted by numpy if it is anything else).
pub fn as_f32_2d<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let np = x.py().import("numpy")?;
    let a = np.call_method1("ascontiguousarray", (x, np.getattr("float32")?))?;
    a.cast_into::<PyArray2<f32>>().map_err(|_| {
        PyValueError::new_err("observations must be a two-dimensional array [batch, 2m + 4]")
    })
}

#[pymethods]
impl PyNetwork {
    /// Loads a checkpoint: a folder, its `meta.json` or its weights (`policy:` prefix allowed);
    /// `"auto"` finds the committed network for `rules` (default Kalah(6,4)).
    #[staticmethod]
    #[pyo3(signature = (path="auto", rules=None))]
    fn load(py: Python<'_>, path: &str, rules: Option<&Bound<'_, PyAny>>) -> PyResult<PyNetwork> {
        let path = path.strip_prefix("policy:").unwrap_or(path);
        let wanted = rules_from(rules)?;
        let dir = if path == "auto" {
            let found = model::find_in(&wanted, &crate::embedded::checkpoint_roots())
                .map_err(value_error)?;
            found.dir.to_string_lossy().into_owned()
        } else {
            path.to_string()
        };
        let model = py
            .detach(|| model::load(Path::new(&dir)))
            .map_err(|e| value_error(format!("{e:#}")))?;
        // `find_in` only returns a network of exactly the rules asked for.
        let rules = model.card.rules.build().map_err(value_error)?;
        Ok(PyNetwork {
            model: Arc::new(model),
            rules,
            path: dir,
        })
    }

    /// Where it was loaded from.
    #[getter]
    fn path(&self) -> String {
        self.path.clone()
    }

    /// The rules it was trained for.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules { rules: self.rules }
    }

    /// Its sidecar (`meta.json`): rules, network shape, the training config, as a dict.
    #[getter]
    fn card<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let dir =
            model::folder(Path::new(&self.path)).map_err(|e| value_error(format!("{e:#}")))?;
        let meta = dir.join("meta.json");
        let text = std::fs::read_to_string(&meta)
            .map_err(|e| value_error(format!("cannot read {}: {e}", meta.display())))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Its release id (`NAME-YYYYMMDD-HASH8`, see `kalaha networks`), or None for a network that
    /// was never released (a run's checkpoint). Where its weights do not match the id's hash, the
    /// id is followed by why it is not trusted.
    #[getter]
    fn id(&self) -> Option<String> {
        self.model.card.release.clone()
    }

    /// Width of every hidden layer.
    #[getter]
    fn hidden(&self) -> usize {
        self.model.card.network.hidden
    }

    /// Hidden layers (residual blocks for a residual network).
    #[getter]
    fn layers(&self) -> usize {
        self.model.card.network.layers
    }

    /// `plain`, `residual` or `transformer`.
    #[getter]
    fn block(&self) -> &'static str {
        match self.model.net.block() {
            kalaha::nn::Block::Plain => "plain",
            kalaha::nn::Block::Residual => "residual",
            kalaha::nn::Block::Transformer => "transformer",
        }
    }

    /// `relu`, `gelu`, `silu` or `tanh`.
    #[getter]
    fn activation(&self) -> &'static str {
        self.model.net.activation().name()
    }

    /// What it reads: `onehot`, `onehot_wide`, `counts` or `lookahead`.
    #[getter]
    fn input(&self) -> &'static str {
        self.model.net.input().name()
    }

    /// Floats it reads per position (`encode`'s width).
    #[getter]
    fn input_dim(&self) -> usize {
        self.model.net.input().width(self.rules.pits())
    }

    /// Floats of an observation, `2m + 4`.
    #[getter]
    fn obs_dim(&self) -> usize {
        kalaha::env::obs::obs_dim(self.rules.pits())
    }

    /// Actions, `m + 1`.
    #[getter]
    fn action_count(&self) -> usize {
        self.rules.pits() + 1
    }

    /// Whether it has a move head (each move's predicted seeds lost, `lost` in `forward`).
    #[getter]
    fn has_moves(&self) -> bool {
        self.model.net.has_moves()
    }

    /// Bins of its margin distribution (0: a network of value and margin outputs); the value is
    /// then the chance of a win less that of a loss and the margin the distribution's mean.
    #[getter]
    fn margin_bins(&self) -> usize {
        self.model.card.network.margin_bins
    }

    /// The one-hot features the network reads, `[B, input_dim]`, from observations or positions.
    fn encode<'py>(
        &self,
        py: Python<'py>,
        obs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (x, n) = self.inputs(obs)?;
        PyArray1::from_vec(py, x).reshape([n, self.input_dim()])
    }

    /// One forward pass: a dict of `logits` `[B, m + 1]` (raw: mask illegal actions yourself),
    /// `value` `[B]` (expected result for the player to move, in [-1, 1]), `margin` `[B]`
    /// (expected final margin / all seeds) and, with a move head, `lost` `[B, m + 1]`.
    fn forward<'py>(
        &self,
        py: Python<'py>,
        obs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (x, n) = self.inputs(obs)?;
        let a = self.action_count();
        let d = PyDict::new(py);
        if n == 0 {
            d.set_item("logits", PyArray2::<f32>::zeros(py, [0, a], false))?;
            d.set_item("value", PyArray1::<f32>::zeros(py, [0], false))?;
            d.set_item("margin", PyArray1::<f32>::zeros(py, [0], false))?;
            return Ok(d);
        }
        let net = &self.model.net;
        let rows = py
            .detach(|| net.forward_rows(x, n))
            .map_err(|e| value_error(format!("{e:#}")))?;
        d.set_item(
            "logits",
            PyArray1::from_vec(py, rows.logits).reshape([n, a])?,
        )?;
        d.set_item("value", rows.value.to_pyarray(py))?;
        d.set_item("margin", rows.margin.to_pyarray(py))?;
        if let Some(lost) = rows.lost {
            d.set_item("lost", PyArray1::from_vec(py, lost).reshape([n, a])?)?;
        }
        Ok(d)
    }

    /// The agent's view: the policy logits of each row with illegal actions (`mask` false) at
    /// `-inf`. `kalaha.judge(net)` and `kalaha.evaluate(net)` call this.
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        obs: &Bound<'py, PyAny>,
        mask: PyReadonlyArray2<'py, bool>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let out = self.forward(py, obs)?;
        let logits = out
            .get_item("logits")?
            .expect("forward gives logits")
            .cast_into::<PyArray2<f32>>()?;
        if logits.shape() != mask.shape() {
            return Err(value_error(format!(
                "mask has shape {:?}, the logits {:?}",
                mask.shape(),
                logits.shape()
            )));
        }
        {
            let mut l = logits.readwrite();
            let mut view = l.as_array_mut();
            for (x, &ok) in view.iter_mut().zip(mask.as_array().iter()) {
                if !ok {
                    *x = f32::NEG_INFINITY;
                }
            }
        }
        Ok(logits)
    }

    /// Every weight as a float32 array named as a PyTorch module of the same layout holds it
    /// (`kalaha.torch.TorchNetwork` loads them): `trunk.{i}.weight` `[out, in]` and `.bias`,
    /// `norms.{i}` (residual networks), `policy`, `value` (value and margin, through tanh) and
    /// `moves`. Transformer networks raise `ValueError`.
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let named = self
            .model
            .net
            .named_weights()
            .map_err(|e| value_error(format!("{e:#}")))?;
        let d = PyDict::new(py);
        for a in named {
            let arr = PyArray1::from_vec(py, a.data).reshape(a.shape)?;
            d.set_item(a.name, arr)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Network('{}'{}: {}x{} {} {}, {})",
            self.path,
            self.id().map(|i| format!(" {i}")).unwrap_or_default(),
            self.layers(),
            self.hidden(),
            self.block(),
            self.input(),
            self.rules.describe()
        )
    }
}

impl PyNetwork {
    /// An evaluator of this network for the library's search.
    pub fn evaluator(&self) -> NetEvaluator {
        NetEvaluator::cpu(self.model.net.clone())
    }

    /// Its search settings (the checkpoint's self-play search) with `sims` simulations.
    pub fn search_config(&self, sims: Option<u32>) -> kalaha::search::SearchConfig {
        kalaha::bots::policy::search_config(&self.model, sims, Default::default())
    }
}
