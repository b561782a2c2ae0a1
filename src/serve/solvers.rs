//! The server's solvers, one per rule set, within a memory budget.
//!
//! Every game, hint, review and analysis under the same rules shares one solver (its
//! transposition table and endgame database). No game holds a solver between its moves: a job
//! takes the solver for as long as it runs and gives it back, so an evicted, deleted or finished
//! game holds nothing. The pool keeps at most `budget / per_solver` solvers; a new rule set past
//! that replaces the least recently used solver no job is using, and where every one is in use
//! (as many rule sets as places in the heavy queue, at most) it is refused with 503 and
//! `Retry-After`, never built past the budget.
//!
//! A solver is built (its endgame database, about a second) outside the pool's lock: requests
//! for other rule sets, and for solvers already built, go on meanwhile; a second request for the
//! rule set being built waits for that build instead of starting its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use axum::http::StatusCode;

use super::error::{ApiError, codes};
use crate::rules::{Rules, RulesSpec};
use crate::solver::{DbSize, Solver, SolverConfig};

/// Memory of each rule set's solver (its transposition table and endgame database), in MiB: the
/// most it takes once its table is full.
pub const SOLVER_MEMORY_MB: usize = 96;

/// The solvers' memory budget by default, in MiB (8 rule sets at once): with the shipped
/// networks (about 500 MiB resident) the server stays under 1.5 GiB.
pub const DEFAULT_BUDGET_MB: usize = 768;

/// Boards of the largest endgame database a solver builds in memory (about a second).
const DB_BOARDS: u128 = 1 << 22;

/// A solver being built or built (or the reason its build failed), shared by whoever asked.
type Cell = Arc<OnceLock<Result<Arc<Solver>, String>>>;

struct Slot {
    spec: RulesSpec,
    cell: Cell,
}

impl Slot {
    /// Whether a job uses this solver now, or waits for its build.
    fn in_use(&self) -> bool {
        Arc::strong_count(&self.cell) > 1
            || matches!(self.cell.get(), Some(Ok(s)) if Arc::strong_count(s) > 1)
    }
}

/// The solvers, least recently used first, within a budget.
pub struct Solvers {
    per_solver_mb: usize,
    most: usize,
    slots: Mutex<Vec<Slot>>,
    built: AtomicU64,
    dropped: AtomicU64,
    refused: AtomicU64,
}

impl Solvers {
    /// A pool of solvers of [`SOLVER_MEMORY_MB`] each within `budget_mb` MiB (at least one).
    pub fn new(budget_mb: usize) -> Solvers {
        Solvers::with_sizes(budget_mb, SOLVER_MEMORY_MB)
    }

    /// A pool of solvers of `per_solver_mb` MiB each within `budget_mb` MiB (at least one).
    pub fn with_sizes(budget_mb: usize, per_solver_mb: usize) -> Solvers {
        let per_solver_mb = per_solver_mb.max(1);
        Solvers {
            per_solver_mb,
            most: (budget_mb / per_solver_mb).max(1),
            slots: Mutex::new(Vec::new()),
            built: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// Most solvers held at once.
    pub fn most(&self) -> usize {
        self.most
    }

    /// The budget in MiB the pool keeps to (`most × per solver`).
    pub fn budget_mb(&self) -> usize {
        self.most * self.per_solver_mb
    }

    /// The solver of `rules`, built in memory on first use (no file is read or written); 503
    /// where the budget is held by solvers in use for other rule sets. Blocking: call it from a
    /// job.
    pub fn get(&self, rules: &Rules) -> Result<Arc<Solver>, ApiError> {
        let spec = rules.spec();
        let mut gone = Vec::new();
        let cell = {
            let mut slots = self
                .slots
                .lock()
                .map_err(|_| ApiError::internal("the solver pool is poisoned"))?;
            match slots.iter().position(|s| s.spec == spec) {
                Some(i) => {
                    let slot = slots.remove(i);
                    let cell = Arc::clone(&slot.cell);
                    slots.push(slot);
                    cell
                }
                None => {
                    while slots.len() >= self.most {
                        match slots.iter().position(|s| !s.in_use()) {
                            Some(i) => gone.push(slots.remove(i)),
                            None => {
                                self.refused.fetch_add(1, Ordering::Relaxed);
                                return Err(ApiError::new(
                                    StatusCode::SERVICE_UNAVAILABLE,
                                    codes::BUSY,
                                    format!(
                                        "no room for a solver for {}: the solvers of {} other rule sets ({} MiB each, the server's budget of {} MiB) are all in use; try again shortly",
                                        rules.canonical_name(),
                                        slots.len(),
                                        self.per_solver_mb,
                                        self.budget_mb()
                                    ),
                                ));
                            }
                        }
                    }
                    let cell: Cell = Arc::default();
                    slots.push(Slot {
                        spec,
                        cell: Arc::clone(&cell),
                    });
                    cell
                }
            }
        };
        // The solvers replaced go here, outside the lock (handing their memory back).
        self.dropped.fetch_add(gone.len() as u64, Ordering::Relaxed);
        drop(gone);
        let built = cell.get_or_init(|| {
            self.built.fetch_add(1, Ordering::Relaxed);
            build(rules, self.per_solver_mb).map(Arc::new)
        });
        match built {
            Ok(s) => Ok(Arc::clone(s)),
            Err(e) => {
                let message = format!("solver for {}: {e}", rules.canonical_name());
                if let Ok(mut slots) = self.slots.lock() {
                    slots.retain(|s| !Arc::ptr_eq(&s.cell, &cell));
                }
                Err(ApiError::internal(message))
            }
        }
    }

    /// Solvers held now (built or being built).
    pub fn len(&self) -> usize {
        self.slots.lock().map_or(0, |s| s.len())
    }

    /// Whether no solver is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pool as JSON: solvers held and in use, the most held at once, the budget, and how
    /// many were built, dropped for room, and refused.
    pub fn json(&self) -> serde_json::Value {
        let (held, in_use) = self.slots.lock().map_or((0, 0), |s| {
            (s.len(), s.iter().filter(|s| s.in_use()).count())
        });
        serde_json::json!({
            "held": held,
            "in_use": in_use,
            "most": self.most,
            "memory_mb_each": self.per_solver_mb,
            "budget_mb": self.budget_mb(),
            "built": self.built.load(Ordering::Relaxed),
            "dropped": self.dropped.load(Ordering::Relaxed),
            "refused": self.refused.load(Ordering::Relaxed),
        })
    }
}

/// Builds the solver of `rules` within `memory_mb` MiB, with the largest endgame database of at
/// most [`DB_BOARDS`] boards.
fn build(rules: &Rules, memory_mb: usize) -> Result<Solver, String> {
    let seeds = (1..=rules.total_seeds().min(30))
        .take_while(|&s| crate::solver::endgame::entries(rules.pits(), s) <= DB_BOARDS)
        .last()
        .unwrap_or(0);
    let cfg = SolverConfig {
        memory_mb,
        db: if seeds == 0 {
            DbSize::Off
        } else {
            DbSize::Seeds(seeds)
        },
        cache_dir: None,
        ..SolverConfig::default()
    };
    Solver::new(rules, &cfg).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RuleChoices;

    fn rules(pits: u32, seeds: u32) -> Rules {
        RuleChoices::<String> {
            pits: Some(pits),
            seeds: Some(seeds),
            ..RuleChoices::default()
        }
        .build()
        .unwrap()
    }

    #[test]
    fn shares_one_solver_per_rule_set_and_keeps_to_its_budget() {
        // Two solvers of 4 MiB within 8 MiB.
        let pool = Solvers::with_sizes(8, 4);
        let (a, b, c) = (rules(3, 2), rules(3, 3), rules(4, 2));
        let sa = pool.get(&a).unwrap();
        assert!(
            Arc::ptr_eq(&sa, &pool.get(&a).unwrap()),
            "one solver a rule set"
        );
        let sb = pool.get(&b).unwrap();
        // Both in use: a third rule set is refused with 503, naming the budget.
        let Err(e) = pool.get(&c) else {
            panic!("a third rule set past the budget was built")
        };
        assert_eq!(e.status, StatusCode::SERVICE_UNAVAILABLE, "{e:?}");
        assert!(e.message.contains("budget of 8 MiB"), "{}", e.message);
        assert_eq!(pool.len(), 2);
        // Given back, the least recently used goes for the third.
        drop(sa);
        let sc = pool.get(&c).unwrap();
        assert_eq!(pool.len(), 2);
        let j = pool.json();
        assert_eq!(
            (
                j["built"].as_u64(),
                j["dropped"].as_u64(),
                j["refused"].as_u64()
            ),
            (Some(3), Some(1), Some(1)),
            "{j}"
        );
        drop((sb, sc));
        // a is built again: it was dropped.
        let _ = pool.get(&a).unwrap();
        assert_eq!(pool.json()["built"].as_u64(), Some(4));
    }

    #[test]
    fn a_build_does_not_hold_the_lock() {
        // While one thread builds Kalah(6,4)'s solver (its database takes about a second),
        // another gets a solver already built: it comes back while the build still runs (with
        // the build under the lock, it would come back only once the build was done).
        let pool = Arc::new(Solvers::with_sizes(64, 16));
        let small = rules(3, 2);
        drop(pool.get(&small).unwrap());
        let big = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.get(&Rules::kalah64()).map(|_| ()))
        };
        while pool.len() < 2 {
            std::thread::yield_now();
        }
        drop(pool.get(&small).unwrap());
        let still_building = pool
            .slots
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.spec == Rules::kalah64().spec() && s.cell.get().is_none());
        big.join().unwrap().unwrap();
        assert!(still_building, "the other rule set waited for the build");
        assert_eq!(pool.json()["built"].as_u64(), Some(2));
    }
}
