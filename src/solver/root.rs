//! The root driver: the moves of the position being analysed, the bounds proven on each, and the
//! order of the null-window tests that narrow them to the value (and, in full detail, to every
//! move's value) or until the deadline.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::analyse::{MoveValue, Progress};
use super::order::Child;
use super::search::{
    Context, Searcher, gain_reach, in_order, mtd_drive, terminal_gain, window_search,
};

/// The moves of the position being analysed, with the bounds proven on each (in the root
/// player's store-difference gain, see [`super::search`]).
pub(super) struct Root<'a> {
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
    /// The caller's own stop flags: every search of this analysis gives up when one is set.
    cancel: &'a [&'a AtomicBool],
}

impl<'a> Root<'a> {
    pub(super) fn new(
        cx: &'a Context,
        kids: Vec<Child>,
        progress: Option<&'a Progress>,
        base: i32,
        parity: Option<i32>,
        cancel: &'a [&'a AtomicBool],
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
            cancel,
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
    pub(super) fn bounds(&self) -> (i32, i32) {
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
    pub(super) fn post_value(&self, lo: i32, hi: i32) {
        if let Some(p) = self.progress
            && let Ok(mut v) = p.value.lock()
        {
            *v = Some((self.base + lo, self.base + hi));
        }
    }

    /// Every move with its bounds, as values of the game.
    pub(super) fn moves(&self) -> Vec<MoveValue> {
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
    pub(super) fn test(&self, t: i32, deadline: Option<Instant>) -> Option<i32> {
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
        let mut flags: Vec<&AtomicBool> = self.cancel.to_vec();
        flags.push(&found);
        let go = |n: usize| {
            if found.load(Ordering::Relaxed) {
                return false;
            }
            let i = todo[n];
            match self.probe(&self.kids[i], t, deadline, &flags) {
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
    pub(super) fn optimal(&self, v: i32, deadline: Option<Instant>) {
        let open: Vec<usize> = {
            let b = self.lock();
            (0..self.kids.len())
                .filter(|&i| b[i].0 < v && b[i].1 >= v)
                .collect()
        };
        in_order(open.len(), |n| {
            let i = open[n];
            match self.probe(&self.kids[i], v, deadline, self.cancel) {
                Some(r) if r >= v => self.narrow(i, r, i32::MAX),
                Some(r) => self.narrow(i, i32::MIN, r),
                None => return false,
            }
            true
        });
    }

    /// Works out the exact gain through every move (the moves in parallel, best first), within
    /// the bounds already proven.
    pub(super) fn settle(&self, deadline: Option<Instant>, mtd: bool) {
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
                    .cancelled_by(self.cancel)
                    .guess(&k.pos, k.pie)
                    .clamp(clo, chi);
                let mut report = |l: i32, h: i32| {
                    let (a, z) = k.through_bounds((l, h));
                    self.narrow(i, a, z);
                };
                let parity = self.cx.parity.then_some(k.seeds);
                let (cx, cancel) = (self.cx, self.cancel);
                mtd_drive(parity, (clo, chi), guess, &mut report, &mut |t| {
                    window_search(cx, &k.pos, k.pie, (t - 1, t), deadline, cancel)
                })
            } else {
                Searcher::new(self.cx, deadline)
                    .cancelled_by(self.cancel)
                    .exact(&k.pos, k.pie, (clo, chi))
            };
            let (a, z) = k.through_bounds((l, h));
            self.narrow(i, a, z);
            l == h
        });
    }
}
