//! `Learner` and `SelfPlayWorker`: the two halves of `kalaha train`'s iteration
//! ([`kalaha::train::distributed`]) for `kalaha.distributed`, which runs the workers as Ray
//! actors. Weights and batches cross as `bytes` (burnpack weights; checksummed batches), so Ray's
//! object store carries them between machines; the GIL is released while either half works.

use std::sync::atomic::{AtomicBool, Ordering};

use kalaha::train::distributed::{Batch, Worker};
use kalaha::train::selfplay::SelfPlayStats;
use kalaha::train::{TrainConfig, Trainer};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::rules::value_error;

fn err(e: anyhow::Error) -> PyErr {
    value_error(format!("{e:#}"))
}

/// A run's config from a TOML file and `section.key=value` overrides, as JSON text that a worker
/// on another machine rebuilds exactly (`kalaha train --config FILE --set ...` reads the same);
/// for a recipe of several stages, the stage named `stage` (`kalaha train --stage NAME`).
#[pyfunction]
#[pyo3(signature = (path, sets=Vec::new(), stage=None))]
pub fn train_config(
    path: std::path::PathBuf,
    sets: Vec<String>,
    stage: Option<String>,
) -> PyResult<String> {
    let cfg = kalaha::train::Recipe::load(&path, &sets)
        .and_then(|r| r.stage(stage.as_deref()))
        .map_err(err)?;
    cfg.validate().map_err(err)?;
    cfg.rules().map_err(err)?;
    serde_json::to_string(&cfg).map_err(|e| value_error(format!("cannot write the config: {e}")))
}

fn parse(config: &str) -> PyResult<TrainConfig> {
    let cfg: TrainConfig = serde_json::from_str(config)
        .map_err(|e| value_error(format!("not a config from kalaha.train_config: {e}")))?;
    cfg.validate().map_err(err)?;
    Ok(cfg)
}

/// The learner of a distributed run: `kalaha train`'s network, optimizer, replay buffer,
/// evaluations, TensorBoard log and checkpoints, fed with workers' batches.
#[pyclass(name = "Learner", module = "kalaha._kalaha", unsendable)]
pub struct PyLearner {
    trainer: Trainer,
    /// What the batches absorbed since the last iteration counted.
    pending: SelfPlayStats,
    evaluated: u64,
    stop: AtomicBool,
}

#[pymethods]
impl PyLearner {
    /// Starts the run of `config` (JSON text, from `train_config`), or continues its checkpoint
    /// with `resume`.
    #[new]
    #[pyo3(signature = (config, resume=false))]
    fn new(py: Python<'_>, config: &str, resume: bool) -> PyResult<PyLearner> {
        let cfg = parse(config)?;
        let trainer = py.detach(|| Trainer::new(cfg, resume)).map_err(err)?;
        Ok(PyLearner {
            trainer,
            pending: SelfPlayStats::default(),
            evaluated: 0,
            stop: AtomicBool::new(false),
        })
    }

    /// The current weights (burnpack bytes) for the workers.
    fn weights<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let w = self.trainer.weights().map_err(err)?;
        Ok(PyBytes::new(py, &w))
    }

    /// The version of the current weights: the iterations completed.
    #[getter]
    fn version(&self) -> u64 {
        self.trainer.version()
    }

    /// Iterations completed.
    #[getter]
    fn iteration(&self) -> u32 {
        self.trainer.meta().iteration
    }

    /// Iterations the run goes to.
    #[getter]
    fn iterations(&self) -> u32 {
        self.trainer.config().run.iterations
    }

    /// New positions an iteration waits for (`selfplay.positions_per_iteration`).
    #[getter]
    fn positions_per_iteration(&self) -> usize {
        self.trainer.config().selfplay.positions_per_iteration
    }

    /// Positions absorbed since the last iteration.
    #[getter]
    fn pending_positions(&self) -> u64 {
        self.pending.positions
    }

    /// Where checkpoints go.
    #[getter]
    fn checkpoint_dir(&self) -> String {
        self.trainer.checkpoint_dir().display().to_string()
    }

    /// Where the TensorBoard event file is.
    #[getter]
    fn log_dir(&self) -> String {
        self.trainer.log_dir().display().to_string()
    }

    /// The rules, described.
    #[getter]
    fn rules(&self) -> String {
        self.trainer.rules().describe()
    }

    /// Reads a worker's batch without absorbing it: a dict of worker, version, positions, games,
    /// samples and seconds, and the batch to give `absorb` (refuses damaged bytes).
    fn peek<'py>(&self, py: Python<'py>, batch: &[u8]) -> PyResult<(Bound<'py, PyDict>, BatchRef)> {
        let b = Batch::from_bytes(batch, self.trainer.rules()).map_err(err)?;
        let d = PyDict::new(py);
        d.set_item("worker", b.worker)?;
        d.set_item("version", b.version)?;
        d.set_item("positions", b.stats.positions)?;
        d.set_item("games", b.stats.games)?;
        d.set_item("samples", b.samples.len())?;
        d.set_item("seconds", b.seconds)?;
        Ok((d, BatchRef { batch: Some(b) }))
    }

    /// Adds a batch (from `peek`) to the replay buffer and to the iteration's counts.
    fn absorb(&mut self, batch: &mut BatchRef) -> PyResult<()> {
        let b = batch
            .batch
            .take()
            .ok_or_else(|| value_error("this batch was absorbed already"))?;
        self.trainer.absorb(&b);
        let (p, s) = (&mut self.pending, &b.stats);
        p.positions += s.positions;
        p.exact_positions += s.exact_positions;
        p.games += s.games;
        p.game_moves += s.game_moves;
        for (x, y) in p.results.iter_mut().zip(s.results) {
            *x += y;
        }
        p.exploratory += s.exploratory;
        self.evaluated += b.evaluated;
        Ok(())
    }

    /// Ends an iteration on the batches absorbed since the last (`seconds`: the wall time they
    /// took to arrive): gradient steps, logs, an evaluation and a checkpoint when due. Returns
    /// the progress (iteration, iterations, message).
    fn finish_iteration<'py>(
        &mut self,
        py: Python<'py>,
        seconds: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let st = std::mem::take(&mut self.pending);
        let evaluated = std::mem::take(&mut self.evaluated);
        let (trainer, stop) = (&mut self.trainer, &self.stop);
        // On a thread of its own: Ctrl-C stops the iteration early (fewer gradient steps), which
        // then writes its checkpoint, and raises KeyboardInterrupt.
        let p = crate::interrupt::run_scoped(py, stop, || {
            trainer.finish_iteration(&st, evaluated, seconds, stop)
        })?
        .map_err(err)?;
        let d = PyDict::new(py);
        d.set_item("iteration", p.iteration)?;
        d.set_item("iterations", p.iterations)?;
        d.set_item("message", p.message)?;
        Ok(d)
    }

    /// Logs a scalar to the run's TensorBoard log at the current iteration.
    fn log_scalar(&mut self, tag: &str, value: f64) {
        self.trainer.log_scalar(tag, value);
    }

    /// Writes a checkpoint of where the run stands (unless the last iteration wrote one) and
    /// flushes the log.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let trainer = &mut self.trainer;
        py.detach(|| trainer.finish()).map_err(err)
    }

    /// The checkpoint sidecar as JSON text (iteration, positions, games, steps, evaluations).
    fn meta_json(&self) -> PyResult<String> {
        serde_json::to_string(self.trainer.meta()).map_err(|e| value_error(e.to_string()))
    }

    /// Asks a running `finish_iteration` to stop early (from another thread).
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A worker's batch, read and checked, waiting to be absorbed.
#[pyclass(name = "Batch", module = "kalaha._kalaha")]
pub struct BatchRef {
    batch: Option<Batch>,
}

/// A self-play worker of a distributed run: `kalaha train`'s self-play (the vectorised games,
/// the Gumbel search, the endgame database) with the weights last sent.
#[pyclass(name = "SelfPlayWorker", module = "kalaha._kalaha")]
pub struct PyWorker {
    worker: Worker,
}

#[pymethods]
impl PyWorker {
    /// Worker `id` of the run of `config` (JSON text, from `train_config`); loads or builds the
    /// config's endgame database.
    #[new]
    fn new(py: Python<'_>, config: &str, id: u32) -> PyResult<PyWorker> {
        let cfg = parse(config)?;
        let worker = py.detach(|| Worker::new(cfg, id)).map_err(err)?;
        Ok(PyWorker { worker })
    }

    /// The version of the weights played with (None before the first were sent).
    #[getter]
    fn version(&self) -> Option<u64> {
        self.worker.version()
    }

    /// Plays with `weights` (from `Learner.weights`) from now on.
    fn set_weights(&mut self, py: Python<'_>, weights: &[u8], version: u64) -> PyResult<()> {
        let w = &mut self.worker;
        py.detach(|| w.set_weights(weights, version)).map_err(err)
    }

    /// Plays until `positions` new positions are recorded (the config's
    /// `selfplay.positions_per_iteration` by default); the batch as bytes for `Learner.peek`.
    #[pyo3(signature = (positions=None))]
    fn generate<'py>(
        &mut self,
        py: Python<'py>,
        positions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let positions = crate::args::opt_int(positions, "positions", 1usize, 100_000_000)?;
        let w = &mut self.worker;
        let stop = AtomicBool::new(false);
        let b = py.detach(|| w.generate(positions, &stop)).map_err(err)?;
        let bytes = py.detach(|| b.to_bytes());
        Ok(PyBytes::new(py, &bytes))
    }
}
