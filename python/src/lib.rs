//! `kalaha._kalaha`: the native half of the `kalaha` Python package.
//!
//! A thin binding over the `kalaha` library (with `train`: burn, for the trained networks): it converts
//! types, releases the GIL around work that takes time, and maps the library's errors to
//! `ValueError` with the library's own messages. The Gymnasium and PettingZoo classes are plain
//! Python in `kalaha/` over these types.
//!
//! | Python | Rust |
//! | --- | --- |
//! | `Rules` | [`kalaha::rules::Rules`] (presets and every option) |
//! | `Position` | [`kalaha::rules::Position`]: notation, legal moves, play, the observation encoder |
//! | `VecEnv` | [`kalaha::env::VecEnv`] on a rayon pool of its own, numpy arrays out |
//! | `Bot` | [`kalaha::bots::BotSpec`]: random, greedy, minimax:D, mcts:N, solver, policy:PATH\[:SIMS\] |
//! | `solve` | [`kalaha::solver::Solver`]: the exact value of a position and of each move |
//! | `Network` | [`kalaha::nn::model::Model`]: a trained network's outputs and weights |
//! | `JudgeSet`, `HeldoutSet`, `JudgeReport` | [`kalaha::eval::judge`], [`kalaha::eval::heldout`]: solver-labelled sets and the judge report |
//! | `evaluate` | [`kalaha::eval::run()`] with a Python agent as [`kalaha::bots::Player::external`] |
//! | `search` | [`kalaha::search::search_batch_with`] with a network or a Python evaluator |
//! | `best_logits` | [`kalaha::search::best_logit`] row by row: the one greedy pick (`kalaha.research.pick`) |
//! | `Learner`, `SelfPlayWorker` | [`kalaha::train::distributed`]: `kalaha train` split for Ray |

mod args;
mod bots;
mod distributed;
mod embedded;
mod evaluate;
mod interrupt;
mod judge;
mod network;
mod position;
mod rules;
mod search;
mod vec_env;

use pyo3::prelude::*;

/// The native module; `kalaha/__init__.py` re-exports what it holds.
#[pymodule]
fn _kalaha(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<rules::PyRules>()?;
    m.add_class::<position::PyPosition>()?;
    m.add_class::<vec_env::PyVecEnv>()?;
    m.add_class::<bots::PyBot>()?;
    m.add_class::<network::PyNetwork>()?;
    m.add_class::<judge::PyJudgeSet>()?;
    m.add_class::<judge::PyHeldoutSet>()?;
    m.add_class::<judge::PyJudgeReport>()?;
    m.add_class::<distributed::PyLearner>()?;
    m.add_class::<distributed::PyWorker>()?;
    m.add_class::<distributed::BatchRef>()?;
    m.add_function(wrap_pyfunction!(distributed::train_config, m)?)?;
    m.add_function(wrap_pyfunction!(search::search, m)?)?;
    m.add_function(wrap_pyfunction!(search::best_logits, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(bots::solve, m)?)?;
    m.add_function(wrap_pyfunction!(rules::presets, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::bench_env, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
