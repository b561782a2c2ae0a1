//! The solver's public face: set-up within a memory budget, the exact value of a position and of
//! each of its moves, stopping with proven bounds, and judging batches of positions in parallel.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::config::{DbSize, SolverConfig, SolverError, auto_db_seeds, check_room, table_cap};
use super::endgame::{self, DbSource, Endgame};
use super::key::Encoder;
use super::order::{Child, expand};
use super::root::Root;
use super::search::{Context, Searcher, keeps_parity, mtd_drive, terminal_gain};
use super::table::{ENTRY_BYTES, Table, WAYS};
use crate::rules::{Move, Position, Rules};

/// Bounds on the value of one move, as a final margin for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
}

impl MoveValue {
    /// The exact value, once the bounds meet.
    pub fn value(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

/// Whether a pie answer agrees with perfect play: `swap` where swapping is optimal, a pit where a
/// pit move is (either, where both are). `moves` gives each legal answer as (is it `swap`, its
/// exact value), `best` the position's exact value.
pub fn swap_answer_agrees(
    swapped: bool,
    best: i32,
    mut moves: impl Iterator<Item = (bool, Option<i32>)>,
) -> bool {
    moves.any(|(swap, value)| swap == swapped && value == Some(best))
}

/// What the solver found about a position: its value and every move's, as final margins (the
/// player to move's seeds minus the opponent's) under perfect play, or bounds if it was stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// Every legal move (pits ascending, then swap); empty once the game is over.
    pub moves: Vec<MoveValue>,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// Seconds until the value (and one best move) was proven, if it was.
    pub value_seconds: Option<f64>,
}

impl Analysis {
    /// The exact value, if solved.
    pub fn value(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// Whether the value and every move's value are exact.
    pub fn complete(&self) -> bool {
        self.value().is_some() && self.moves.iter().all(|m| m.value().is_some())
    }

    /// The moves proven optimal (exact values equal to the position's value).
    pub fn best(&self) -> Vec<Move> {
        match self.value() {
            Some(v) => self
                .moves
                .iter()
                .filter(|m| m.value() == Some(v))
                .map(|m| m.mv)
                .collect(),
            None => Vec::new(),
        }
    }

    /// The value a move gives up against the best (0 for an optimal move), if both are exact.
    pub fn loss(&self, mv: Move) -> Option<i32> {
        let m = self.moves.iter().find(|m| m.mv == mv)?;
        Some(self.value()? - m.value()?)
    }
}

/// Live bounds of a solve in progress, for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    pub(super) moves: Mutex<Vec<MoveValue>>,
    pub(super) value: Mutex<Option<(i32, i32)>>,
}

impl Progress {
    /// The bounds known so far on each move.
    pub fn moves(&self) -> Vec<MoveValue> {
        self.moves.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// The bounds known so far on the position's value, if the analysis has started.
    pub fn bounds(&self) -> Option<(i32, i32)> {
        let moves = self.moves();
        let lower = moves.iter().map(|m| m.lower).max()?;
        let upper = moves.iter().map(|m| m.upper).max()?;
        let value = self.value.lock().ok().and_then(|v| *v);
        Some(value.map_or((lower, upper), |(l, u)| (l.max(lower), u.min(upper))))
    }

    pub(super) fn set(&self, i: usize, lower: i32, upper: i32) {
        if let Ok(mut m) = self.moves.lock() {
            m[i].lower = lower;
            m[i].upper = upper;
        }
    }
}

/// How much [`Solver::analyse_with`] works out beyond the value and one best move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Nothing more: the other moves keep the bounds the proof of the value gave them.
    Value,
    /// Which moves are optimal: each optimal move gets its exact value, the others an upper bound.
    Optimal,
    /// The exact value of every move.
    All,
    /// The exact value of every move, each worked out on its own, without proving the value
    /// first: about a tenth fewer nodes than [`Detail::All`] in all, but nothing is known of the
    /// value until every move is done. For batches.
    Every,
}

/// An exact solver for one set of rules: a shared transposition table and endgame database that
/// every analysis (and every thread of the rayon pool) uses.
pub struct Solver {
    rules: Rules,
    cx: Context,
    mtd: bool,
    db_source: Option<DbSource>,
}

impl Solver {
    /// Sets up a solver for `rules`, loading or building its endgame database.
    pub fn new(rules: &Rules, config: &SolverConfig) -> Result<Solver, SolverError> {
        if config.memory_mb == 0 {
            return Err(SolverError::Budget(0));
        }
        let budget = config.memory_mb as u128 * (1 << 20);
        let m = rules.pits();
        let total = rules.total_seeds();
        let seeds = match config.db {
            DbSize::Off => None,
            DbSize::Seeds(s) => {
                let s = s.min(total).min(endgame::MAX_DB_SEEDS);
                let need = endgame::entries(m, s);
                if need + (1 << 20) > budget {
                    return Err(SolverError::DbTooLarge {
                        seeds: s,
                        pits: m,
                        need_mb: (need >> 20) as u64 + 1,
                        budget_mb: config.memory_mb,
                    });
                }
                Some(s)
            }
            DbSize::Auto => auto_db_seeds(m, total, budget),
        };
        let db_bytes = seeds.map_or(0, |s| endgame::entries(m, s));
        let table_bytes = (budget - db_bytes.min(budget))
            .min(table_cap(total))
            .max(ENTRY_BYTES as u128 * WAYS as u128);
        check_room(
            db_bytes,
            if config.transposition { table_bytes } else { 0 },
            super::mem::physical_memory(),
        )?;
        let (db, db_source) = match seeds {
            Some(s) => {
                let (db, source) = Endgame::load_or_build(
                    config.cache_dir.as_deref(),
                    rules,
                    s,
                    config.build_progress.as_deref(),
                );
                (Some(db), Some(source))
            }
            None => (None, None),
        };
        let enc = Encoder::new(m, total);
        let tt = if config.transposition {
            let bytes = table_bytes as usize;
            Some(Table::new(bytes, enc.key_bits()).ok_or(SolverError::Alloc(bytes >> 20))?)
        } else {
            None
        };
        Ok(Solver {
            rules: *rules,
            cx: Context {
                db_seeds: db.as_ref().map_or(0, |d| d.max_seeds()),
                enc,
                tt,
                db,
                parity: keeps_parity(rules.leftover),
                total: total as i32,
                stop: AtomicBool::new(false),
                nodes: AtomicU64::new(0),
            },
            mtd: config.mtd,
            db_source,
        })
    }

    /// The rules this solver is for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the endgame database came from, if there is one.
    pub fn db_source(&self) -> Option<&DbSource> {
        self.db_source.as_ref()
    }

    /// Seeds the endgame database covers (0 without one).
    pub fn db_seeds(&self) -> u32 {
        if self.cx.db.is_some() {
            self.cx.db_seeds
        } else {
            0
        }
    }

    /// Bytes held by the table and the database.
    pub fn memory_bytes(&self) -> usize {
        self.cx.tt.as_ref().map_or(0, |t| t.bytes()) + self.cx.db.as_ref().map_or(0, |d| d.bytes())
    }

    /// Nodes searched since the solver was made.
    pub fn nodes(&self) -> u64 {
        self.cx.nodes.load(Ordering::Relaxed)
    }

    /// Asks every search in progress to stop; they return bounds. Cleared by [`Solver::resume`].
    pub fn stop(&self) {
        self.cx.stop.store(true, Ordering::Relaxed);
    }

    /// Lets searches run again after [`Solver::stop`].
    pub fn resume(&self) {
        self.cx.stop.store(false, Ordering::Relaxed);
    }

    /// Writes the transposition table to `path` (through a temporary file and a rename), so that
    /// a later solver for the same game can go on from what this one proved; returns the entries
    /// in use. Call it between analyses, not during one.
    pub fn save_table(&self, path: &std::path::Path) -> Result<u64, super::TableFileError> {
        let tt = self.cx.tt.as_ref().ok_or(super::TableFileError::NoTable)?;
        super::tablefile::save(tt, &self.rules, path)
    }

    /// Adds what a table saved by [`Solver::save_table`] for the same game proved (any table
    /// size); returns the entries in use in the file. Call it between analyses.
    pub fn load_table(&self, path: &std::path::Path) -> Result<u64, super::TableFileError> {
        let tt = self.cx.tt.as_ref().ok_or(super::TableFileError::NoTable)?;
        super::tablefile::load(tt, &self.rules, path)
    }

    /// Forgets everything the transposition table learned.
    pub fn clear_table(&self) {
        if let Some(tt) = &self.cx.tt {
            tt.clear();
        }
    }

    /// The exact value of `pos` and of each of its moves.
    pub fn analyse(&self, pos: &Position) -> Analysis {
        self.analyse_within(pos, None, None)
    }

    /// The exact value of `pos` for the player to move (the final margin under perfect play).
    pub fn value(&self, pos: &Position) -> i32 {
        let a = self.analyse_with(pos, None, Detail::Value, None);
        a.value()
            .expect("an analysis without a time limit is exact")
    }

    /// Like [`Solver::analyse`], but stops at `limit` (or at [`Solver::stop`]) with the bounds
    /// proven so far, posting them to `progress` as they improve.
    pub fn analyse_within(
        &self,
        pos: &Position,
        limit: Option<Duration>,
        progress: Option<&Progress>,
    ) -> Analysis {
        self.analyse_with(pos, limit, Detail::All, progress)
    }

    /// The exact value of `pos` and one best move, proven first; then as much about the other
    /// moves as `detail` asks. Stops at `limit` (or at [`Solver::stop`]) with the bounds proven
    /// so far, posting them to `progress` as they improve.
    pub fn analyse_with(
        &self,
        pos: &Position,
        limit: Option<Duration>,
        detail: Detail,
        progress: Option<&Progress>,
    ) -> Analysis {
        self.analyse_cancellable(pos, limit, detail, progress, &[])
    }

    /// Like [`Solver::analyse_with`], and also stops (with the bounds proven so far) as soon as
    /// any of `cancel` is set: the caller's own flags, for one analysis, where [`Solver::stop`]
    /// stops every analysis of the solver (a server cancels the proofs of an abandoned game
    /// this way while other games' go on).
    pub fn analyse_cancellable(
        &self,
        pos: &Position,
        limit: Option<Duration>,
        detail: Detail,
        progress: Option<&Progress>,
        cancel: &[&AtomicBool],
    ) -> Analysis {
        assert!(
            pos.rules() == &self.rules,
            "the position is played under other rules than the solver's"
        );
        let started = Instant::now();
        let deadline = limit.map(|l| started + l);
        let nodes0 = self.nodes();
        let me = pos.to_move();
        let base = pos.store(me) as i32 - pos.store(me.other()) as i32;
        if pos.is_over() {
            let v = base + terminal_gain(pos);
            return Analysis {
                lower: v,
                upper: v,
                moves: Vec::new(),
                nodes: 0,
                seconds: 0.0,
                value_seconds: Some(0.0),
            };
        }
        let pie = super::key::PieState::of(pos);
        let mut kids: Vec<Child> = Vec::new();
        expand(pos, pie, &mut kids);
        // Report moves in the order of the rules (pits ascending, then swap).
        kids.sort_by_key(|k| k.to_move().action(self.rules.pits()));
        let parity = self.cx.parity.then_some(pos.board_seeds() as i32);
        let root = Root::new(&self.cx, kids, progress, base, parity, cancel);

        let (lo, hi, value_seconds) = if detail == Detail::Every {
            // Every move on its own, the moves in parallel; the value follows from theirs.
            root.settle(deadline, self.mtd);
            let (lo, hi) = root.bounds();
            (lo, hi, (lo == hi).then(|| started.elapsed().as_secs_f64()))
        } else {
            // 1. The value: null-window tests on the position itself, its moves searched in
            // parallel.
            let (lo, hi) = root.bounds();
            let guess = Searcher::new(&self.cx, deadline)
                .cancelled_by(cancel)
                .guess(pos, pie);
            let report = &mut |lo: i32, hi: i32| root.post_value(lo, hi);
            let (lo, hi) = if self.mtd {
                mtd_drive(parity, (lo, hi), guess, report, &mut |t| {
                    root.test(t, deadline)
                })
            } else {
                root.settle(deadline, false);
                root.bounds()
            };
            let value_seconds = (lo == hi).then(|| started.elapsed().as_secs_f64());
            // 2. The other moves, in parallel.
            if lo == hi {
                match detail {
                    Detail::Optimal => root.optimal(lo, deadline),
                    Detail::All => root.settle(deadline, self.mtd),
                    Detail::Value | Detail::Every => {}
                }
            }
            (lo, hi, value_seconds)
        };
        let moves = root.moves();
        Analysis {
            lower: base + lo,
            upper: base + hi,
            moves,
            nodes: self.nodes() - nodes0,
            seconds: started.elapsed().as_secs_f64(),
            value_seconds,
        }
    }

    /// Analyses many positions in parallel (each with every move's value), sharing the table;
    /// the answers come in the order of `positions`.
    pub fn judge(&self, positions: &[Position]) -> Vec<Analysis> {
        self.judge_within(positions, None)
    }

    /// Like [`Solver::judge`], each position stopped at `limit` with the bounds proven so far.
    pub fn judge_within(&self, positions: &[Position], limit: Option<Duration>) -> Vec<Analysis> {
        self.judge_cancellable(positions, limit, &[])
    }

    /// Like [`Solver::judge_within`], every position also stopped as soon as any of `cancel` is
    /// set (see [`Solver::analyse_cancellable`]).
    pub fn judge_cancellable(
        &self,
        positions: &[Position],
        limit: Option<Duration>,
        cancel: &[&AtomicBool],
    ) -> Vec<Analysis> {
        positions
            .par_iter()
            .map(|p| self.analyse_cancellable(p, limit, Detail::Every, None, cancel))
            .collect()
    }
}
