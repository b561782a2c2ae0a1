//! The solver's public face: set-up within a memory budget, the exact value of a position and of
//! each of its moves, stopping with proven bounds, and judging batches of positions in parallel.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use super::endgame::{self, BuildProgress, DbSource, Endgame, default_cache_dir};
use super::key::{Encoder, board_seeds};
use super::order::{Child, expand};
use super::search::{
    Context, Searcher, gain_reach, in_order, keeps_parity, mtd_drive, terminal_gain, window_search,
};
use super::table::{ENTRY_BYTES, Table, WAYS};
use crate::rules::{Move, Position, Rules};

/// How large an endgame database to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbSize {
    /// None at all.
    Off,
    /// The largest that fits three fifths of the memory budget and builds in a small share of a
    /// solve of the game's start (18 seeds for Kalah(6,4); 26 for Kalah(6,5) and (6,6) within
    /// the default 4.5 GiB).
    Auto,
    /// Every board with at most this many seeds.
    Seeds(u32),
}

/// The default memory budget, in MiB: room for the 26-seed database of Kalah(6,5) and (6,6)
/// (2.7 GB) and a 2.1 GB table beside it; Kalah(6,4) uses 1.1 GB of it.
pub const DEFAULT_MEMORY_MB: usize = 4608;

/// How a [`Solver`] is set up.
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Memory for the transposition table and the endgame database together, in MiB (the table
    /// takes what the database leaves, up to a size that suits the game: 1 GiB for Kalah(6,4)).
    pub memory_mb: usize,
    /// Endgame database size.
    pub db: DbSize,
    /// Folder where endgame databases are kept; `None` builds them in memory every time.
    pub cache_dir: Option<PathBuf>,
    /// Use a transposition table (turn off only to check that answers do not change).
    pub transposition: bool,
    /// Pin values with null-window tests (MTD(f)); off, one full-window search does it.
    pub mtd: bool,
    /// Where a database build posts how far it has got (for a progress display).
    pub build_progress: Option<Arc<BuildProgress>>,
}

impl Default for SolverConfig {
    fn default() -> SolverConfig {
        SolverConfig {
            memory_mb: DEFAULT_MEMORY_MB,
            db: DbSize::Auto,
            cache_dir: default_cache_dir(),
            transposition: true,
            mtd: true,
            build_progress: None,
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
    /// The database and the table would not fit in the machine's memory.
    #[error(
        "the solver would take {need_mb} MiB (endgame database {db_mb} MiB, table {table_mb} MiB), more than nine tenths of this machine's {have_mb} MiB of memory: lower --memory or --db-seeds"
    )]
    NoRoom {
        need_mb: u64,
        db_mb: u64,
        table_mb: u64,
        have_mb: u64,
    },
}

/// Refuses a database of `db` bytes and a table of `table` bytes that would take more than nine
/// tenths of `physical` bytes of memory (if known): the system would hand the pages out and then
/// kill the process when the search touched them.
pub(crate) fn check_room(db: u128, table: u128, physical: Option<u128>) -> Result<(), SolverError> {
    let mb = |b: u128| b.div_ceil(1 << 20) as u64;
    match physical {
        Some(have) if (db + table) * 10 > have * 9 => Err(SolverError::NoRoom {
            need_mb: mb(db + table),
            db_mb: mb(db),
            table_mb: mb(table),
            have_mb: (have >> 20) as u64,
        }),
        _ => Ok(()),
    }
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
    moves: Mutex<Vec<MoveValue>>,
    value: Mutex<Option<(i32, i32)>>,
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

    fn set(&self, i: usize, lower: i32, upper: i32) {
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

/// Entries a database may have for [`DbSize::Auto`] in a game of 48 seeds (Kalah(6,4)): it builds
/// in about 5 s on two cores. Each 12 seeds more in the game allow 32 times as many: solves take
/// far longer there, and each seed more in the database saves a third or more of the nodes
/// (Kalah(6,5) from the start: 22 seeds 3.9 G nodes, 24 seeds 2.2 G, 25 seeds 1.5 G, 26 seeds
/// 0.79 G; 26 seeds build in about 3 minutes; 27 would take 3.9 GB and, extrapolated, about as
/// much time more to build as they could save).
const AUTO_DB_ENTRIES: u128 = 90_000_000;

/// The share of the memory budget [`DbSize::Auto`] gives the database, as a fraction.
const AUTO_DB_SHARE: (u128, u128) = (3, 5);

/// The database size [`DbSize::Auto`] picks for `m` pits a side and `total` seeds in the game
/// within a memory budget of `budget` bytes: the most seeds whose database fits
/// [`AUTO_DB_SHARE`] of the budget and [`AUTO_DB_ENTRIES`], scaled by the game.
pub(crate) fn auto_db_seeds(m: usize, total: u32, budget: u128) -> Option<u32> {
    let scale = 1u128 << (5 * total.saturating_sub(48) / 12).min(60);
    let cap =
        (budget * AUTO_DB_SHARE.0 / AUTO_DB_SHARE.1).min(AUTO_DB_ENTRIES.saturating_mul(scale));
    (1..=total.min(endgame::MAX_DB_SEEDS))
        .take_while(|&s| endgame::entries(m, s) <= cap)
        .last()
}

/// The endgame database seeds [`DbSize::Auto`] picks for `rules` within `memory_mb` MiB.
pub fn auto_db_seeds_for(rules: &Rules, memory_mb: usize) -> Option<u32> {
    auto_db_seeds(
        rules.pits(),
        rules.total_seeds(),
        memory_mb as u128 * (1 << 20),
    )
}

/// The largest transposition table worth having for a game of `total` seeds: 1 GiB for 48 seeds
/// (Kalah(6,4)), twice as much for each 6 seeds more, half for each 6 fewer. Every lookup in a
/// larger table is slower (more of its pages miss the address translation caches), and a game
/// that does not fill it gains nothing: Kalah(6,4) with a 1.96 GB table searched the same nodes
/// 10-40 % slower than with 1 GiB.
pub(crate) fn table_cap(total: u32) -> u128 {
    let steps = (total as i32 - 48).div_euclid(6).clamp(-10, 10);
    if steps >= 0 {
        (1u128 << 30) << steps
    } else {
        (1u128 << 30) >> -steps
    }
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
        let pie = pie_state(pos);
        let mut kids: Vec<Child> = Vec::new();
        expand(pos, pie, &mut kids);
        // Report moves in the order of the rules (pits ascending, then swap).
        kids.sort_by_key(|k| k.to_move().action(self.rules.pits()));
        let parity = self.cx.parity.then_some(board_seeds(pos) as i32);
        let root = Root::new(&self.cx, kids, progress, base, parity);

        let (lo, hi, value_seconds) = if detail == Detail::Every {
            // Every move on its own, the moves in parallel; the value follows from theirs.
            root.settle(deadline, self.mtd);
            let (lo, hi) = root.bounds();
            (lo, hi, (lo == hi).then(|| started.elapsed().as_secs_f64()))
        } else {
            // 1. The value: null-window tests on the position itself, its moves searched in
            // parallel.
            let (lo, hi) = root.bounds();
            let guess = Searcher::new(&self.cx, deadline).guess(pos, pie);
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
        positions
            .par_iter()
            .map(|p| self.analyse_with(p, None, Detail::Every, None))
            .collect()
    }
}

/// The pie state of a position (see [`super::key::PIE_STATES`]): 2 if North may answer `swap`
/// now; 1 during South's opening turn under the pie rule; else 0.
pub(crate) fn pie_state(pos: &Position) -> u8 {
    if pos.swap_allowed() {
        2
    } else if pos.in_opening_turn() {
        1
    } else {
        0
    }
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

/// The moves of the position being analysed, with the bounds proven on each (in the root
/// player's store-difference gain, see [`super::search`]).
struct Root<'a> {
    cx: &'a Context,
    kids: Vec<Child>,
    /// Bounds on the gain through each move.
    bounds: Mutex<Vec<(i32, i32)>>,
    progress: Option<&'a Progress>,
    /// The root player's store difference now.
    base: i32,
    /// Gains have the parity of this many seeds (the seeds on the board), if the rules keep it.
    parity: Option<i32>,
    /// Each move's place in the static search order (extra turns, then captures).
    rank: Vec<usize>,
}

impl<'a> Root<'a> {
    fn new(
        cx: &'a Context,
        kids: Vec<Child>,
        progress: Option<&'a Progress>,
        base: i32,
        parity: Option<i32>,
    ) -> Root<'a> {
        let bounds: Vec<(i32, i32)> = kids
            .iter()
            .map(|k| {
                if k.over {
                    let g = k.through(terminal_gain(&k.pos));
                    (g, g)
                } else {
                    let r = gain_reach(k.seeds, k.pie, cx.total);
                    (k.delta - r, k.delta + r)
                }
            })
            .collect();
        let mut ordered = kids.clone();
        super::order::order(&mut ordered, super::table::NO_MOVE);
        let rank = kids
            .iter()
            .map(|k| ordered.iter().position(|o| o.mv == k.mv).unwrap_or(0))
            .collect();
        let root = Root {
            cx,
            kids,
            bounds: Mutex::new(bounds),
            progress,
            base,
            parity,
            rank,
        };
        if let Some(p) = progress
            && let Ok(mut m) = p.moves.lock()
        {
            *m = root.moves();
        }
        root
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(i32, i32)>> {
        self.bounds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bounds on the position's gain: the best of its moves'.
    fn bounds(&self) -> (i32, i32) {
        let b = self.lock();
        let lo = b
            .iter()
            .map(|x| x.0)
            .max()
            .expect("a position not over has a move");
        let hi = b
            .iter()
            .map(|x| x.1)
            .max()
            .expect("a position not over has a move");
        (lo, hi)
    }

    /// Narrows move `i`'s bounds to `lo..=hi` (intersected with what is known).
    fn narrow(&self, i: usize, lo: i32, hi: i32) {
        // Round fail-soft bounds onto the values the gain can take.
        let odd = |x: i32| self.parity.is_some_and(|b| (x - b).rem_euclid(2) != 0);
        let lo = if lo != i32::MIN && odd(lo) {
            lo + 1
        } else {
            lo
        };
        let hi = if hi != i32::MAX && odd(hi) {
            hi - 1
        } else {
            hi
        };
        let (l, h) = {
            let mut b = self.lock();
            b[i].0 = b[i].0.max(lo);
            b[i].1 = b[i].1.min(hi);
            b[i]
        };
        if let Some(p) = self.progress {
            p.set(i, self.base + l, self.base + h);
        }
    }

    /// Posts bounds on the position's value.
    fn post_value(&self, lo: i32, hi: i32) {
        if let Some(p) = self.progress
            && let Ok(mut v) = p.value.lock()
        {
            *v = Some((self.base + lo, self.base + hi));
        }
    }

    /// Every move with its bounds, as values of the game.
    fn moves(&self) -> Vec<MoveValue> {
        let b = self.lock();
        self.kids
            .iter()
            .zip(b.iter())
            .map(|(k, &(lo, hi))| MoveValue {
                mv: k.to_move(),
                lower: self.base + lo,
                upper: self.base + hi,
            })
            .collect()
    }

    /// A null-window search of move `k` for "the gain through it is at least `t`": the
    /// fail-soft gain through it (a lower bound if `>= t`, else an upper bound), `None` if
    /// stopped.
    fn probe(
        &self,
        k: &Child,
        t: i32,
        deadline: Option<Instant>,
        cancel: &[&AtomicBool],
    ) -> Option<i32> {
        let w = k.window((t - 1, t));
        window_search(self.cx, &k.pos, k.pie, w, deadline, cancel).map(|r| k.through(r))
    }

    /// The null-window test "the position's gain is at least `t`": the most promising move first,
    /// then, if it falls short, the others shared among the threads; once one move reaches `t`
    /// the others stop. The fail-soft result (a lower bound if `>= t`, else an upper bound),
    /// `None` if stopped.
    fn test(&self, t: i32, deadline: Option<Instant>) -> Option<i32> {
        // Moves not yet known to stay below `t`, those that reached furthest first.
        let todo: Vec<usize> = {
            let b = self.lock();
            if let Some(lo) = b.iter().map(|x| x.0).filter(|&lo| lo >= t).max() {
                return Some(lo);
            }
            let mut todo: Vec<usize> = (0..self.kids.len()).filter(|&i| b[i].1 >= t).collect();
            todo.sort_by_key(|&i| (std::cmp::Reverse(b[i].0), self.rank[i]));
            todo
        };
        let found = AtomicBool::new(false);
        let stopped = AtomicBool::new(false);
        let go = |n: usize| {
            if found.load(Ordering::Relaxed) {
                return false;
            }
            let i = todo[n];
            match self.probe(&self.kids[i], t, deadline, &[&found]) {
                Some(v) if v >= t => {
                    self.narrow(i, v, i32::MAX);
                    found.store(true, Ordering::Relaxed);
                    false
                }
                Some(v) => {
                    self.narrow(i, i32::MIN, v);
                    true
                }
                None => {
                    if !found.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                    }
                    false
                }
            }
        };
        // The most promising move alone (its own moves shared among the threads), the others
        // in parallel only if it falls short: a second thread on a sibling from the start mostly
        // works for nothing, since a lower-bound test needs one move.
        if !todo.is_empty() && go(0) && todo.len() > 1 {
            in_order(todo.len() - 1, |n| go(n + 1));
        }
        let (lo, hi) = self.bounds();
        if found.load(Ordering::Relaxed) {
            Some(lo)
        } else if stopped.load(Ordering::Relaxed) {
            None
        } else {
            Some(hi)
        }
    }

    /// Tells which moves keep the gain `v` (the position's, proven): one null-window test each.
    fn optimal(&self, v: i32, deadline: Option<Instant>) {
        let open: Vec<usize> = {
            let b = self.lock();
            (0..self.kids.len())
                .filter(|&i| b[i].0 < v && b[i].1 >= v)
                .collect()
        };
        in_order(open.len(), |n| {
            let i = open[n];
            match self.probe(&self.kids[i], v, deadline, &[]) {
                Some(r) if r >= v => self.narrow(i, r, i32::MAX),
                Some(r) => self.narrow(i, i32::MIN, r),
                None => return false,
            }
            true
        });
    }

    /// Works out the exact gain through every move (the moves in parallel, best first), within
    /// the bounds already proven.
    fn settle(&self, deadline: Option<Instant>, mtd: bool) {
        let open: Vec<usize> = {
            let b = self.lock();
            let mut open: Vec<usize> = (0..self.kids.len()).filter(|&i| b[i].0 < b[i].1).collect();
            open.sort_by_key(|&i| std::cmp::Reverse(b[i].1));
            open
        };
        in_order(open.len(), |n| {
            let i = open[n];
            let k = &self.kids[i];
            let (lo, hi) = self.lock()[i];
            // In the child's own gain, for its player to move.
            let (clo, chi) = k.window((lo, hi));
            let (l, h) = if mtd {
                let guess = Searcher::new(self.cx, deadline)
                    .guess(&k.pos, k.pie)
                    .clamp(clo, chi);
                let mut report = |l: i32, h: i32| {
                    let (a, z) = k.through_bounds((l, h));
                    self.narrow(i, a, z);
                };
                let parity = self.cx.parity.then_some(k.seeds);
                let cx = self.cx;
                mtd_drive(parity, (clo, chi), guess, &mut report, &mut |t| {
                    window_search(cx, &k.pos, k.pie, (t - 1, t), deadline, &[])
                })
            } else {
                Searcher::new(self.cx, deadline).exact(&k.pos, k.pie, (clo, chi))
            };
            let (a, z) = k.through_bounds((l, h));
            self.narrow(i, a, z);
            l == h
        });
    }
}
