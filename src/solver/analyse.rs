//! The solver's public face: set-up within a memory budget, the exact value of a position and of
//! each of its moves, stopping with proven bounds, and judging batches of positions in parallel.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::endgame::{self, DbSource, Endgame, default_cache_dir};
use super::key::Encoder;
use super::order::{Child, expand};
use super::search::{Context, Searcher, gain_reach, keeps_parity, terminal_gain};
use super::table::{ENTRY_BYTES, Table};
use crate::rules::{Move, Position, Rules, Side};

/// How large an endgame database to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbSize {
    /// None at all.
    Off,
    /// The largest that fits a quarter of the memory budget and builds in seconds.
    Auto,
    /// Every board with at most this many seeds.
    Seeds(u32),
}

/// How a [`Solver`] is set up.
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Memory for the transposition table and the endgame database together, in MiB.
    pub memory_mb: usize,
    /// Endgame database size.
    pub db: DbSize,
    /// Folder where endgame databases are kept; `None` builds them in memory every time.
    pub cache_dir: Option<PathBuf>,
    /// Use a transposition table (turn off only to check that answers do not change).
    pub transposition: bool,
    /// Pin values with null-window tests (MTD(f)); off, one full-window search does it.
    pub mtd: bool,
}

impl Default for SolverConfig {
    fn default() -> SolverConfig {
        SolverConfig {
            memory_mb: 2048,
            db: DbSize::Auto,
            cache_dir: default_cache_dir(),
            transposition: true,
            mtd: true,
        }
    }
}

/// Why a solver could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// The database asked for does not leave room for a table in the budget.
    #[error(
        "an endgame database of {seeds} seeds for {pits} pits a side needs {need_mb} MiB; the memory budget is {budget_mb} MiB"
    )]
    DbTooLarge {
        seeds: u32,
        pits: usize,
        need_mb: u64,
        budget_mb: usize,
    },
    /// The budget is below the least the solver works with.
    #[error("a memory budget of {0} MiB is too small (at least 1 MiB)")]
    Budget(usize),
    /// The system refused the memory.
    #[error("could not allocate {0} MiB for the transposition table")]
    Alloc(usize),
}

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
    moves: Mutex<Vec<MoveValue>>,
}

impl Progress {
    /// The bounds known so far on each move.
    pub fn moves(&self) -> Vec<MoveValue> {
        self.moves.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// The bounds known so far on the position's value, if any move has started.
    pub fn bounds(&self) -> Option<(i32, i32)> {
        let moves = self.moves();
        let lower = moves.iter().map(|m| m.lower).max()?;
        let upper = moves.iter().map(|m| m.upper).max()?;
        Some((lower, upper))
    }

    fn set(&self, i: usize, lower: i32, upper: i32) {
        if let Ok(mut m) = self.moves.lock() {
            m[i].lower = lower;
            m[i].upper = upper;
        }
    }
}

/// An exact solver for one set of rules: a shared transposition table and endgame database that
/// every analysis (and every thread of the rayon pool) uses.
pub struct Solver {
    rules: Rules,
    cx: Context,
    mtd: bool,
    db_source: Option<DbSource>,
}

/// Sowings the quick estimate that seeds the null-window tests looks ahead.
const GUESS_DEPTH: u32 = 7;

/// Entries a database may have for [`DbSize::Auto`]: it builds in a few seconds on two cores.
const AUTO_DB_ENTRIES: u128 = 90_000_000;

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
            DbSize::Auto => {
                let cap = (budget / 4).min(AUTO_DB_ENTRIES);
                (1..=total.min(endgame::MAX_DB_SEEDS))
                    .take_while(|&s| endgame::entries(m, s) <= cap)
                    .last()
            }
        };
        let (db, db_source) = match seeds {
            Some(s) => {
                let (db, source) = Endgame::load_or_build(config.cache_dir.as_deref(), rules, s);
                (Some(db), Some(source))
            }
            None => (None, None),
        };
        let db_bytes = db.as_ref().map_or(0, |d| d.bytes()) as u128;
        let enc = Encoder::new(m, total);
        let tt = if config.transposition {
            let bytes = (budget - db_bytes.min(budget)).max(ENTRY_BYTES as u128 * 4) as usize;
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
        let a = self.analyse(pos);
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
            };
        }
        let pie = pie_state(pos);
        let mut kids: Vec<Child> = Vec::new();
        expand(pos, pie, &mut kids);
        // Put moves in the order of the rules (pits ascending, then swap).
        kids.sort_by_key(|k| k.to_move().action(self.rules.pits()));
        let total = self.rules.total_seeds() as i32;
        let moves: Vec<MoveValue> = kids
            .iter()
            .map(|k| {
                let reach = gain_reach(k.seeds, k.pie, total);
                MoveValue {
                    mv: k.to_move(),
                    lower: base + k.delta - reach,
                    upper: base + k.delta + reach,
                }
            })
            .collect();
        if let Some(p) = progress
            && let Ok(mut m) = p.moves.lock()
        {
            *m = moves.clone();
        }
        let solved: Vec<MoveValue> = kids
            .par_iter()
            .enumerate()
            .map(|(i, k)| {
                let (lo, hi) = if k.over {
                    let g = terminal_gain(&k.pos);
                    (g, g)
                } else {
                    let mut searcher = Searcher::new(&self.cx, deadline);
                    let mut report = |lo: i32, hi: i32| {
                        if let Some(p) = progress {
                            let (a, z) = (k.through(lo), k.through(hi));
                            p.set(i, base + a.min(z), base + a.max(z));
                        }
                    };
                    let guess = searcher.estimate(&k.pos, k.pie, GUESS_DEPTH, -255, 255);
                    searcher.solve(&k.pos, k.pie, guess, self.mtd, &mut report)
                };
                let (a, z) = (k.through(lo), k.through(hi));
                MoveValue {
                    mv: k.to_move(),
                    lower: base + a.min(z),
                    upper: base + a.max(z),
                }
            })
            .collect();
        let lower = solved
            .iter()
            .map(|m| m.lower)
            .max()
            .expect("a position not over has a move");
        let upper = solved
            .iter()
            .map(|m| m.upper)
            .max()
            .expect("a position not over has a move");
        Analysis {
            lower,
            upper,
            moves: solved,
            nodes: self.nodes() - nodes0,
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    /// Analyses many positions in parallel (each with every move's value), sharing the table;
    /// the answers come in the order of `positions`.
    pub fn judge(&self, positions: &[Position]) -> Vec<Analysis> {
        positions.par_iter().map(|p| self.analyse(p)).collect()
    }
}

/// The pie state of a position (see [`super::key::PIE_STATES`]): 2 if North may answer `swap`
/// now; 1 during South's opening turn under the pie rule (which the notation cannot show, so it
/// is found by playing South's turn out until North has to move); else 0.
pub(crate) fn pie_state(pos: &Position) -> u8 {
    if !pos.rules().pie || pos.is_over() {
        return 0;
    }
    if pos.swap_allowed() {
        return 2;
    }
    if pos.to_move() != Side::South {
        return 0;
    }
    fn reaches_pie(pos: &Position) -> Option<bool> {
        let mut bits = pos.nonempty_pits();
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let mut next = *pos;
            let o = next.play_index_unchecked(i);
            if o.game_over {
                continue;
            }
            if !o.extra_turn {
                return Some(next.swap_allowed());
            }
            if let Some(found) = reaches_pie(&next) {
                return Some(found);
            }
        }
        None
    }
    // Every line that ends South's turn with the game going tells the same; if none does, the
    // pie answer never arises and the state does not matter.
    reaches_pie(pos).map_or(0, |open| open as u8)
}

/// Serialisable form of a move value for JSON output: `"pit"` is the pit number or `"swap"`.
#[derive(Clone, Debug, Serialize)]
pub struct MoveValueJson {
    /// Pit number, or `"swap"`.
    pub pit: serde_json::Value,
    /// Exact value, or null if only bounded.
    pub value: Option<i32>,
    /// Lower bound.
    pub lower: i32,
    /// Upper bound.
    pub upper: i32,
}

impl From<&MoveValue> for MoveValueJson {
    fn from(m: &MoveValue) -> MoveValueJson {
        MoveValueJson {
            pit: move_json(m.mv),
            value: m.value(),
            lower: m.lower,
            upper: m.upper,
        }
    }
}

/// A move as JSON: the pit number, or `"swap"`.
pub fn move_json(mv: Move) -> serde_json::Value {
    match mv {
        Move::Pit(p) => serde_json::Value::from(p),
        Move::Swap => serde_json::Value::from("swap"),
    }
}
