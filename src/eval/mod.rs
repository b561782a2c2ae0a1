//! The evaluation arena: gauntlets and round robins between any bots, from shared random openings,
//! rated by Elo with confidence intervals, judged move by move by the exact solver, and reported as
//! JSON, Markdown and SVG charts.
//!
//! - [`openings`]: opening sets (drawn from a seed, saved and reloaded as JSON).
//! - [`arena`]: pairings and the games, played in parallel.
//! - [`elo`]: the Bradley–Terry maximum-likelihood fit and its confidence intervals.
//! - [`verdict`](mod@verdict): the solver's verdict on one player's moves in the arena's games.
//! - [`judge`]: judging a network alone on solved positions: the judge sets (positions of
//!   random, greedy and minimax games, solved once), their scores and the paired sign test, and
//!   (feature `train`) the one report `kalaha judge` prints and Python returns.
//! - [`heldout`]: the two held-out sets inside the endgame database, labelled exactly.
//! - [`report`]: the report as JSON and Markdown; a training run's evaluation curve.
//! - [`chart`]: SVG charts drawn with `plotters`.
//! - [`run`](mod@run): one evaluation from request to written report.

pub mod arena;
pub mod chart;
pub mod elo;
pub mod heldout;
pub mod judge;
pub mod openings;
pub mod report;
pub mod run;
pub mod verdict;

pub use arena::{Arena, ArenaGame, Mode, MoveTimes, PairingResult, ProvenMoves, tally};
pub use elo::{Fit, PairScore, Rating, fit};
pub use openings::{Opening, OpeningSet};
pub use report::{PlayerRating, Report};
pub use run::{Outcome, Progress, Request, run};
pub use verdict::{Judgement, MoveStats, Phase, verdict};
