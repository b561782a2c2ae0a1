//! The search: fail-soft alpha-beta over gains, driven by null-window tests (MTD(f)) to the exact
//! value, with window clamping, the transposition table and the endgame database.
//!
//! All values here are *gains* for the player to move: the final margin minus the current store
//! difference. A position with `b` seeds on the board has a gain in `-b..=b`, and when no seed is
//! ever discarded the gain has the parity of `b` (each seed counts +1 or -1).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::endgame::Endgame;
use super::key::{Encoder, PieState};
use super::order::{Child, expand, order};
use super::table::{NO_MOVE, Table};
use crate::rules::{Leftover, Position};

/// The share of the difference between the two rows' seeds that [`Searcher::estimate`] counts
/// for the player to move at a leaf (measured on Kalah(6,4) and (6,5) positions from the start to
/// 14 moves in, 18-20 sowings deep: 5/8 came within 0-3 of the exact gains, 0 fell short by half).
const LEAF_ROW_WEIGHT: (i32, i32) = (5, 8);

/// Deepest [`Searcher::guess`] goes.
const GUESS_MAX_DEPTH: u32 = 40;

/// Most nodes [`Searcher::guess`] spends.
const GUESS_MAX_NODES: u64 = 1 << 25;

/// A node with at least this many seeds more than the database covers shares its moves among
/// the threads (young brothers wait: the first move alone, then the rest in parallel). On the
/// Kalah(6,4) start and a Kalah(6,5) position 8 moves in, 10 to 22 measured alike; 6 was slower.
const SPLIT_SEEDS: i32 = 14;

/// What every search thread of one solver shares.
pub(crate) struct Context {
    /// Position keys.
    pub enc: Encoder,
    /// Transposition table, if enabled.
    pub tt: Option<Table>,
    /// Endgame database, if any.
    pub db: Option<Endgame>,
    /// Boards with at most this many seeds (and no pie state) are answered by `db`.
    pub db_seeds: u32,
    /// Gains have the parity of the seeds on the board.
    pub parity: bool,
    /// Seeds in the game.
    pub total: i32,
    /// Set to stop every search at once.
    pub stop: AtomicBool,
    /// Nodes searched, flushed from the threads now and then.
    pub nodes: AtomicU64,
}

impl Context {
    /// Exact gain from the endgame database, if it covers this position.
    #[inline(always)]
    fn probe_db(&self, rank: u64, b: u32, pie: PieState) -> Option<i32> {
        match &self.db {
            Some(db) if pie == PieState::None && b <= self.db_seeds => Some(db.gain(rank)),
            _ => None,
        }
    }
}

/// Bounds on the gain of a position with `b` seeds on the board and pie state `pie`, in a game of
/// `total` seeds. Without the pie rule every seed on the board counts at most once either way;
/// around the pie answer the swapper also takes over the other seat's store difference.
#[inline(always)]
pub(crate) fn gain_reach(b: i32, pie: PieState, total: i32) -> i32 {
    if pie == PieState::None { b } else { 2 * total }
}

/// Gain for the player to move of a finished game (the leftover rule applied by the rules core).
#[inline]
pub(crate) fn terminal_gain(pos: &Position) -> i32 {
    let me = pos.to_move().index();
    let score = pos.score();
    let stores = [
        pos.store(crate::rules::Side::South) as i32,
        pos.store(crate::rules::Side::North) as i32,
    ];
    (score[me] as i32 - score[1 - me] as i32) - (stores[me] - stores[1 - me])
}

/// Whether `leftover` keeps every seed (so gains have the parity of the seeds on the board).
pub(crate) fn keeps_parity(leftover: Leftover) -> bool {
    leftover != Leftover::Discard
}

/// One search thread.
pub(crate) struct Searcher<'a> {
    cx: &'a Context,
    deadline: Option<Instant>,
    nodes: u64,
    flushed: u64,
    aborted: bool,
    /// More stop flags, for one task's searches only (a sibling move already answered).
    cancel: &'a [&'a AtomicBool],
    bufs: Vec<Vec<Child>>,
    ply: usize,
    /// Leaves of the current [`Searcher::estimate`] cut off by depth.
    leaves: u64,
}

impl<'a> Searcher<'a> {
    /// A searcher that gives up at `deadline` or when the context's stop flag is set.
    pub fn new(cx: &'a Context, deadline: Option<Instant>) -> Searcher<'a> {
        Searcher {
            cx,
            deadline,
            nodes: 0,
            flushed: 0,
            aborted: false,
            cancel: &[],
            bufs: Vec::new(),
            ply: 0,
            leaves: 0,
        }
    }

    /// This searcher also gives up when any of `cancel` is set.
    pub fn cancelled_by(mut self, cancel: &'a [&'a AtomicBool]) -> Searcher<'a> {
        self.cancel = cancel;
        self
    }

    /// Adds the nodes counted so far to the shared count.
    pub fn flush(&mut self) {
        self.cx
            .nodes
            .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
    }

    #[cold]
    fn poll(&mut self) {
        self.flush();
        if self.cx.stop.load(Ordering::Relaxed)
            || self.cancel.iter().any(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    /// Fail-soft alpha-beta: the gain `v` of `pos` (not over, pie state `pie`) for the player to
    /// move, if it lies strictly inside `(alpha, beta)`; otherwise a bound on it: a value
    /// `>= beta` is a lower bound, a value `<= alpha` an upper bound. Meaningless once aborted.
    pub fn search(&mut self, pos: &Position, pie: PieState, alpha: i32, beta: i32) -> i32 {
        let (key, rank, b) = self.cx.enc.key(pos, pie);
        if let Some(v) = self.cx.probe_db(rank, b, pie) {
            return v;
        }
        let h = self.cx.tt.as_ref().map_or(key, |t| t.hash(key));
        self.node(pos, pie, h, b as i32, alpha, beta)
    }

    /// [`Searcher::search`] of a position the database does not cover, with its scrambled key
    /// ([`Table::hash`]) and seeds.
    fn node(
        &mut self,
        pos: &Position,
        pie: PieState,
        key: u64,
        b: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        self.nodes += 1;
        // Every 4,096 nodes, and at a searcher's first: the parallel splits give each move its
        // own searcher, many of which finish in fewer nodes, so a deadline would otherwise go
        // unread (a 1 ms limit ran 15 s without a database).
        if self.nodes & 4095 == 0 || self.nodes == 1 {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        let cx = self.cx;
        let reach = gain_reach(b, pie, cx.total);
        let (mut lo, mut hi) = (-reach, reach);
        let mut remembered = NO_MOVE;
        // Pie states are few (the opening only) and their gains reach beyond the table's range.
        let tt = if pie == PieState::None {
            cx.tt.as_ref()
        } else {
            None
        };
        if let Some(tt) = tt
            && let Some(h) = tt.probe_hashed(key)
        {
            lo = lo.max(h.lower);
            hi = hi.min(h.upper);
            remembered = h.best;
        }
        if lo >= beta || lo == hi {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let alpha0 = alpha;
        let start_nodes = self.nodes;

        if self.bufs.len() <= self.ply {
            self.bufs.push(Vec::with_capacity(16));
        }
        let mut kids = std::mem::take(&mut self.bufs[self.ply]);
        expand(pos, pie, &mut kids);

        // Every child's key first, fetching its database entry or table bucket, so that the
        // reads below overlap instead of waiting for memory one after another.
        let db = cx.db.as_ref();
        for k in kids.iter_mut() {
            if k.over {
                continue;
            }
            let (ck, r, _) = cx.enc.key(&k.pos, k.pie);
            if k.pie == PieState::None && k.seeds <= cx.db_seeds as i32 && db.is_some() {
                k.key = r;
                if let Some(db) = db {
                    db.prefetch(r);
                }
            } else if let Some(t) = cx.tt.as_ref() {
                k.key = t.hash(ck);
                if k.pie == PieState::None {
                    t.prefetch_hashed(k.key);
                }
            } else {
                k.key = ck;
            }
        }

        // Moves whose value is known at once (finished games, boards in the database, exact
        // table entries) count straight away; the others get bounds from the table, and one
        // whose lower bound already reaches `beta` cuts off without a search (enhanced
        // transposition cutoff).
        let mut best = i32::MIN;
        let mut best_mv = NO_MOVE;
        let mut open = 0;
        let mut cut = None;
        for i in 0..kids.len() {
            let k = &mut kids[i];
            let known = if k.over {
                Some(terminal_gain(&k.pos))
            } else if k.pie == PieState::None && k.seeds <= cx.db_seeds as i32 && db.is_some() {
                db.map(|d| d.gain(k.key))
            } else {
                let r = gain_reach(k.seeds, k.pie, cx.total);
                let (mut clo, mut chi) = (-r, r);
                if k.pie == PieState::None
                    && let Some(t) = cx.tt.as_ref()
                    && let Some(h) = t.probe_hashed(k.key)
                {
                    clo = clo.max(h.lower);
                    chi = chi.min(h.upper);
                }
                if clo == chi {
                    Some(clo)
                } else {
                    (k.lo, k.hi) = k.through_bounds((clo, chi));
                    if k.lo >= beta {
                        cut = Some((k.lo, k.mv));
                        break;
                    }
                    None
                }
            };
            match known {
                Some(g) => {
                    let v = k.through(g);
                    if v > best {
                        best = v;
                        best_mv = k.mv;
                    }
                }
                None => {
                    if open != i {
                        kids.swap(open, i);
                    }
                    open += 1;
                }
            }
        }
        if let Some((v, mv)) = cut {
            best = best.max(v);
            best_mv = mv;
            open = 0;
        }
        kids.truncate(open);
        if best > alpha {
            alpha = best;
        }
        if best < beta {
            order(&mut kids, remembered);
            self.ply += 1;
            // Young brothers wait: with enough seeds left, the first move is searched alone
            // (splitting further down) and, unless it cuts off, the rest in parallel.
            let split = b >= cx.db_seeds as i32 + SPLIT_SEEDS && rayon::current_num_threads() > 1;
            let mut searched = 0;
            let mut rest = kids.len();
            for (i, k) in kids.iter().enumerate() {
                if split && searched > 0 {
                    rest = i;
                    break;
                }
                if k.hi <= alpha {
                    if k.hi > best {
                        best = k.hi;
                    }
                    continue;
                }
                searched += 1;
                let (ca, cb) = k.window((alpha, beta));
                let v = k.through(self.node(&k.pos, k.pie, k.key, k.seeds, ca, cb));
                if self.aborted {
                    break;
                }
                if v > best {
                    best = v;
                    best_mv = k.mv;
                    if v > alpha {
                        alpha = v;
                        if v >= beta {
                            break;
                        }
                    }
                }
            }
            if split
                && rest < kids.len()
                && best < beta
                && !self.aborted
                && let Some((v, mv)) = self.parallel(&kids[rest..], alpha, beta)
                && v > best
            {
                best = v;
                best_mv = mv;
            }
            self.ply -= 1;
        }
        self.bufs[self.ply] = kids;
        if self.aborted {
            return 0;
        }
        if let Some(tt) = tt {
            let (l, u) = if best >= beta {
                (best, hi)
            } else if best <= alpha0 {
                (lo, best)
            } else {
                (best, best)
            };
            tt.store_hashed(key, l, u, best_mv, self.nodes - start_nodes);
        }
        best
    }

    /// Searches `kids` (moves of one position, none over) in parallel within `(alpha, beta)`,
    /// each in its own searcher; once one reaches `beta` the others stop. The best fail-soft
    /// value and its move (`None` if none was searched); sets `aborted` if stopped from outside.
    fn parallel(&mut self, kids: &[Child], alpha: i32, beta: i32) -> Option<(i32, u8)> {
        let cx = self.cx;
        let found = AtomicBool::new(false);
        let stopped = AtomicBool::new(false);
        let best = AtomicU64::new(0);
        let work = AtomicU64::new(0);
        let mut flags: Vec<&AtomicBool> = self.cancel.to_vec();
        flags.push(&found);
        let flags = &flags[..];
        let deadline = self.deadline;
        // Packed so that a larger packed value is a better one; 0 is "none".
        let pack = |v: i32, mv: u8| (((v + 1024) as u64) << 8) | mv as u64;
        in_order(kids.len(), |i| {
            if found.load(Ordering::Relaxed) {
                return false;
            }
            let k = &kids[i];
            let v = if k.hi <= alpha {
                k.hi
            } else {
                let mut s = Searcher::new(cx, deadline).cancelled_by(flags);
                let (ca, cb) = k.window((alpha, beta));
                let r = s.node(&k.pos, k.pie, k.key, k.seeds, ca, cb);
                s.flush();
                work.fetch_add(s.nodes, Ordering::Relaxed);
                if s.aborted {
                    if !found.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                    }
                    return false;
                }
                k.through(r)
            };
            best.fetch_max(pack(v, k.mv), Ordering::Relaxed);
            if v >= beta {
                found.store(true, Ordering::Relaxed);
                return false;
            }
            true
        });
        // The helpers flushed their own nodes; they still count as work below this node.
        let w = work.load(Ordering::Relaxed);
        self.nodes += w;
        self.flushed += w;
        if stopped.load(Ordering::Relaxed) && !found.load(Ordering::Relaxed) {
            self.aborted = true;
            return None;
        }
        let packed = best.load(Ordering::Relaxed);
        (packed != 0).then(|| ((packed >> 8) as i32 - 1024, (packed & 0xFF) as u8))
    }

    /// A starting guess for the null-window tests on the gain of `pos` (not over, pie state
    /// `pie`): [`Searcher::estimate`] deepened one sowing at a time until the work of one more
    /// depth would pass a budget that grows with the seeds on the board, or until nothing is
    /// left to look at. It proves nothing.
    pub fn guess(&mut self, pos: &Position, pie: PieState) -> i32 {
        let b = pos.board_seeds();
        // Full analyses take about 1.3x the nodes per extra seed; the guess takes a small share.
        let budget = (4u64 << (b / 3).min(40)).min(GUESS_MAX_NODES);
        let start = self.nodes;
        let mut g = 0;
        for depth in 1..=GUESS_MAX_DEPTH {
            self.leaves = 0;
            let v = self.estimate(pos, pie, depth, -255, 255);
            if self.aborted {
                break;
            }
            g = v;
            // The next depth costs about twice the last; nothing left to look at: exact.
            if self.leaves == 0 || 2 * (self.nodes - start) > budget {
                break;
            }
        }
        self.flush();
        g
    }

    /// A quick estimate of the gain of `pos` (not over, pie state `pie`): alpha-beta `depth`
    /// sowings deep over the seeds banked on the way (finished games, database boards and exact
    /// table entries count exactly), each leaf adding [`LEAF_ROW_WEIGHT`] of the difference
    /// between the seeds in the two rows (seeds on a side tend to end in its store).
    pub fn estimate(
        &mut self,
        pos: &Position,
        pie: PieState,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let (key, rank, b) = self.cx.enc.key(pos, pie);
        if let Some(v) = self.cx.probe_db(rank, b, pie) {
            return v;
        }
        if pie == PieState::None
            && let Some(h) = self.cx.tt.as_ref().and_then(|t| t.probe(key))
            && h.lower == h.upper
        {
            return h.lower;
        }
        if depth == 0 {
            self.leaves += 1;
            let me = pos.to_move();
            let rows = pos.row_sum(me) as i32 - pos.row_sum(me.other()) as i32;
            return rows * LEAF_ROW_WEIGHT.0 / LEAF_ROW_WEIGHT.1;
        }
        self.nodes += 1;
        if self.nodes & 4095 == 0 {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        let mut kids = Vec::with_capacity(16);
        expand(pos, pie, &mut kids);
        order(&mut kids, NO_MOVE);
        let mut best = i32::MIN;
        for k in &kids {
            let v = if k.over {
                k.through(terminal_gain(&k.pos))
            } else {
                let (ca, cb) = k.window((alpha, beta));
                k.through(self.estimate(&k.pos, k.pie, depth - 1, ca, cb))
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The exact gain of `pos` (not over, pie state `pie`), known to lie in `lo..=hi`, by one
    /// full-window search (no null-window tests). Returns the bounds: equal unless stopped.
    pub fn exact(&mut self, pos: &Position, pie: PieState, (lo, hi): (i32, i32)) -> (i32, i32) {
        let v = self.search(pos, pie, lo - 1, hi + 1);
        self.flush();
        if self.aborted { (lo, hi) } else { (v, v) }
    }
}

/// Runs `f(0), f(1), ..` on every thread of the pool, each thread taking the next index in turn
/// (so the first items start first), until `n` or until `f` returns false.
pub(crate) fn in_order(n: usize, f: impl Fn(usize) -> bool + Sync) {
    use rayon::prelude::*;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = rayon::current_num_threads().min(n).max(1);
    (0..threads).into_par_iter().for_each(|_| {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n || !f(i) {
                break;
            }
        }
    });
}

/// [`Searcher::search`] in a new searcher that also stops at `deadline` and at any of `cancel`;
/// `None` if stopped.
pub(crate) fn window_search(
    cx: &Context,
    pos: &Position,
    pie: PieState,
    (alpha, beta): (i32, i32),
    deadline: Option<Instant>,
    cancel: &[&AtomicBool],
) -> Option<i32> {
    let mut s = Searcher::new(cx, deadline).cancelled_by(cancel);
    let v = s.search(pos, pie, alpha, beta);
    s.flush();
    (!s.aborted).then_some(v)
}

/// MTD(f): narrows `lo..=hi`, bounds on a gain, to its exact value by null-window tests starting
/// at `guess`. `test(t)` is a fail-soft search with the window `(t - 1, t)` (a result `>= t` is a
/// lower bound, else an upper bound), or `None` once stopped. With `parity = Some(b)` the gain has
/// the parity of `b`, so the tests step by two. `report` hears every improvement. Returns the
/// final bounds: equal unless a test was stopped.
pub(crate) fn mtd_drive(
    parity: Option<i32>,
    (mut lo, mut hi): (i32, i32),
    guess: i32,
    report: &mut dyn FnMut(i32, i32),
    test: &mut dyn FnMut(i32) -> Option<i32>,
) -> (i32, i32) {
    let step = if parity.is_some() { 2 } else { 1 };
    // Round a bound onto the values the gain can take.
    let odd = |x: i32| parity.is_some_and(|b| (x - b).rem_euclid(2) != 0);
    let up = |x: i32| if odd(x) { x + 1 } else { x };
    let down = |x: i32| if odd(x) { x - 1 } else { x };
    lo = up(lo);
    hi = down(hi);
    let mut g = guess;
    while lo < hi {
        let t = up(g.max(lo + step)).min(hi);
        let Some(r) = test(t) else { break };
        if r >= t {
            lo = up(r);
        } else {
            hi = down(r);
        }
        g = r;
        report(lo, hi);
    }
    (lo, hi)
}
