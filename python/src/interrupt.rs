//! Long calls that a person can stop and follow: the work runs on a thread of its own while the
//! caller's thread waits with the GIL released, waking every 50 ms to run Python's signal
//! handlers (so Ctrl-C raises `KeyboardInterrupt` within a second) and, every 200 ms, to report
//! progress to a callback (`progress=True` draws a bar on stderr).
//!
//! On an interrupt the work's cancel flag is set; the work gets half a second to return (work
//! that checks its flag returns within it), then the `KeyboardInterrupt` is raised. Work still
//! running after that is kept cancelled until it returns, on its own thread; its result is
//! dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

/// How often the waiting thread wakes to run signal handlers.
const TICK: Duration = Duration::from_millis(50);
/// How often progress is reported.
const REPORT: Duration = Duration::from_millis(200);
/// How long interrupted work is given to return before the interrupt is raised.
const GRACE: Duration = Duration::from_millis(500);

/// Where work reports how far it is: `done` of `total` in a named stage.
#[derive(Default)]
pub struct Counter {
    state: Mutex<(u64, u64, String)>,
}

impl Counter {
    /// Sets the stage and how far it is.
    pub fn set(&self, stage: &str, done: u64, total: u64) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.2 != stage {
            s.2 = stage.to_string();
        }
        s.0 = done;
        s.1 = total;
    }

    /// Counts one more done in the current stage.
    pub fn add(&self, n: u64) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += n;
    }

    fn get(&self) -> (u64, u64, String) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A progress callback from a `progress` argument: `None`/`False` none, `True` the package's
/// bar on stderr (`kalaha._progress.Bar(title)`), or any callable `f(done, total, stage)`.
pub fn callback(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    title: &str,
) -> PyResult<Option<Py<PyAny>>> {
    let Some(p) = progress.filter(|p| !p.is_none()) else {
        return Ok(None);
    };
    if p.is_instance_of::<PyBool>() {
        if !p.extract::<bool>()? {
            return Ok(None);
        }
        let bar = py
            .import("kalaha._progress")?
            .getattr("Bar")?
            .call1((title,))?;
        return Ok(Some(bar.unbind()));
    }
    if !p.is_callable() {
        return Err(PyValueError::new_err(
            "progress must be True, False, None or a callable f(done, total, stage)",
        ));
    }
    Ok(Some(p.clone().unbind()))
}

/// Runs `work` on a thread of its own and waits for it (see the module documentation).
/// `counter` (with `progress`) is reported as it changes and once at the end; `cancel` is set
/// on an interrupt (and set again every tick of the grace period, for work that clears it once
/// to finish a stage, as the arena does).
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    cancel: &Arc<AtomicBool>,
    counter: Option<(&Arc<Counter>, &Py<PyAny>)>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::sync_channel(1);
    // A receiver is not `Sync`: the waits below borrow it through a mutex (never contended).
    let rx = Mutex::new(rx);
    let recv = |rx: &Mutex<mpsc::Receiver<T>>| {
        rx.lock()
            .unwrap_or_else(|e| e.into_inner())
            .recv_timeout(TICK)
    };
    std::thread::Builder::new()
        .name("kalaha-python-work".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut shown: Option<(u64, u64, String)> = None;
    let mut last = Instant::now();
    let mut report = |py: Python<'_>, force: bool| -> PyResult<()> {
        let Some((c, f)) = counter else {
            return Ok(());
        };
        let now = c.get();
        if shown.as_ref() != Some(&now) && (force || last.elapsed() >= REPORT) {
            last = Instant::now();
            f.bind(py).call1((now.0, now.1, now.2.as_str()))?;
            shown = Some(now);
        }
        Ok(())
    };
    loop {
        match py.detach(|| recv(&rx)) {
            Ok(v) => {
                report(py, true)?;
                return Ok(v);
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the work failed on its thread (a panic; see the message above)",
                ));
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Err(e) = py.check_signals().and_then(|()| report(py, false)) {
            cancel.store(true, Ordering::SeqCst);
            let deadline = Instant::now() + GRACE;
            let finished = py.detach(|| {
                while Instant::now() < deadline {
                    match recv(&rx) {
                        Err(RecvTimeoutError::Timeout) => cancel.store(true, Ordering::SeqCst),
                        _ => return true,
                    }
                }
                false
            });
            if !finished {
                // Keep the flag set until the work returns, so that work that clears it once
                // (to finish a stage) stops at its next stage too.
                let cancel = Arc::clone(cancel);
                let _ = std::thread::Builder::new()
                    .name("kalaha-python-cancel".into())
                    .spawn(move || {
                        while let Err(RecvTimeoutError::Timeout) = recv(&rx) {
                            cancel.store(true, Ordering::SeqCst);
                        }
                    });
            }
            return Err(e);
        }
    }
}

/// Like [`run`] for work that borrows (a scoped thread): on an interrupt `cancel` is set and the
/// work is waited for, so that it ends as it does when stopped (a learner finishes its iteration
/// early and writes a checkpoint), then the interrupt is raised. Work that honours `cancel`
/// returns within its own check interval.
pub fn run_scoped<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel(1);
        let rx = Mutex::new(rx);
        s.spawn(move || {
            let _ = tx.send(work());
        });
        let recv = |rx: &Mutex<mpsc::Receiver<T>>, wait: Option<Duration>| {
            let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
            match wait {
                Some(t) => rx.recv_timeout(t),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            }
        };
        let failed = || {
            PyRuntimeError::new_err(
                "the work failed on its thread (a panic; see the message above)",
            )
        };
        loop {
            match py.detach(|| recv(&rx, Some(TICK))) {
                Ok(v) => return Ok(v),
                Err(RecvTimeoutError::Disconnected) => return Err(failed()),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Err(e) = py.check_signals() {
                cancel.store(true, Ordering::SeqCst);
                // The work ends as stopped work does; its result (or panic) gives way to `e`.
                let _ = py.detach(|| recv(&rx, None));
                return Err(e);
            }
        }
    })
}
