//! Alpha-beta over a network's margin head: a second minimax-aware search for the learned agent
//! (beside the Gumbel tree's implicit minimax backups, [`super::SearchConfig::minimax_weight`]).
//!
//! Iterative deepening from the root, one sowing a ply (an extra turn is the same player's next
//! ply); a transposition table keyed by position and remaining depth (the best move of any depth
//! orders the next iteration); at the leaves the network's expected final margin, in seeds, for
//! the player to move; finished games and the positions the endgame database covers (the
//! [`Oracle`]) are exact leaves at any depth. The moves of a node are ordered by the transposition
//! table's move, then by the network's policy logits where the node was a leaf of an earlier
//! iteration (the root is evaluated for that), else extra turns first. The children of a node one
//! ply above the leaves are evaluated in one batch.
//!
//! The search stops at its [`Budget`]: a deadline, or a number of positions the network may
//! evaluate (deterministic, for tests and paired measurements on a shared machine). The move of
//! the last finished iteration is played, unless the interrupted one found a move better than it
//! (its first move searched is the last iteration's best, so any move ahead of it is better on
//! deeper evidence). A search whose iteration reached no network leaf has solved the position
//! and stops.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use super::{Evaluator, MAX_ACTIONS, Oracle};
use crate::rules::{Move, Position};

/// How long an alpha-beta search may run: `100ms` (a time a move) or `5000` (positions the
/// network evaluates a move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Milliseconds a move.
    Millis(u32),
    /// Positions the network may evaluate a move.
    Evals(u64),
}

/// The longest time a move a budget may give (10 minutes).
pub const MAX_BUDGET_MILLIS: u32 = 600_000;
/// The most network evaluations a move a budget may give.
pub const MAX_BUDGET_EVALS: u64 = 100_000_000;

impl FromStr for Budget {
    type Err = String;

    fn from_str(s: &str) -> Result<Budget, String> {
        let bad = || {
            format!(
                "alpha-beta budget '{s}' is neither a time (1ms to {MAX_BUDGET_MILLIS}ms, e.g. \
                 100ms) nor a number of network evaluations (1 to {MAX_BUDGET_EVALS}, e.g. 5000)"
            )
        };
        let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        if let Some(ms) = s.strip_suffix("ms") {
            match ms.parse::<u32>() {
                Ok(n) if digits(ms) && (1..=MAX_BUDGET_MILLIS).contains(&n) => {
                    Ok(Budget::Millis(n))
                }
                _ => Err(bad()),
            }
        } else {
            match s.parse::<u64>() {
                Ok(n) if digits(s) && (1..=MAX_BUDGET_EVALS).contains(&n) => Ok(Budget::Evals(n)),
                _ => Err(bad()),
            }
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Millis(ms) => write!(f, "{ms}ms"),
            Budget::Evals(n) => write!(f, "{n}"),
        }
    }
}

/// What one alpha-beta search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbOutcome {
    /// The move to play.
    pub best: Move,
    /// Its value: the final margin, in seeds, for the player to move, as far as the search saw.
    pub value: f32,
    /// The deepest iteration finished (plies; 0 where there was a single move).
    pub depth: u32,
    /// Positions the network evaluated.
    pub evaluated: u64,
    /// Interior nodes searched.
    pub nodes: u64,
    /// Whether the last finished iteration reached no network leaf: the value is exact.
    pub solved: bool,
}

/// Iterations deeper than this are never started.
pub const MAX_DEPTH: u32 = 96;
/// The tables are emptied between iterations past this many entries (about 100 bytes each).
const TABLE_CAP: usize = 4_000_000;
/// Interior nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 256;

type Key = [u8; 34];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    depth: u32,
    value: f32,
    bound: Bound,
    best: Option<Move>,
}

/// A network leaf: the expected final margin in seeds for the player to move, and the policy
/// logits by action index (at most 15 pits and the swap).
#[derive(Clone, Copy, Debug)]
struct Leaf {
    margin: f32,
    logits: [f32; MAX_ACTIONS],
}

/// The budget ran out.
#[derive(Debug)]
struct Stop;

/// An alpha-beta searcher; its tables are reused from move to move (emptied at each search).
pub struct AlphaBeta {
    budget: Budget,
    tt: HashMap<Key, Entry>,
    leaves: HashMap<Key, Leaf>,
    deadline: Option<Instant>,
    evaluated: u64,
    nodes: u64,
    /// Network leaves read in this iteration (0: the iteration was exact).
    leaf_reads: u64,
    scratch: (Vec<f32>, Vec<f32>, Vec<f32>),
}

impl AlphaBeta {
    /// A searcher with this budget a move.
    pub fn new(budget: Budget) -> AlphaBeta {
        AlphaBeta {
            budget,
            tt: HashMap::new(),
            leaves: HashMap::new(),
            deadline: None,
            evaluated: 0,
            nodes: 0,
            leaf_reads: 0,
            scratch: (Vec::new(), Vec::new(), Vec::new()),
        }
    }

    /// The best of `moves` (legal in `root`, not empty) by iterative deepening within the budget.
    pub fn search(
        &mut self,
        root: &Position,
        moves: &[Move],
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> AbOutcome {
        assert!(!moves.is_empty(), "alpha-beta needs a move to choose from");
        self.start();
        let mut order = moves.to_vec();
        let mut best = AbOutcome {
            best: order[0],
            value: 0.0,
            depth: 0,
            evaluated: 0,
            nodes: 0,
            solved: false,
        };
        if order.len() == 1 {
            return best;
        }
        // The root's policy orders the first iteration (and the budget may end here).
        if exact(root, oracle).is_none() && self.evaluate(&[*root], ev).is_ok() {
            let pits = root.rules().pits();
            let logits = self.leaves[&root.to_bytes()].logits;
            order.sort_by(|a, b| logits[b.action(pits)].total_cmp(&logits[a.action(pits)]));
        }
        for depth in 1..=MAX_DEPTH {
            self.trim();
            self.leaf_reads = 0;
            let mut found: Option<(Move, f32)> = None;
            let mut stopped = false;
            let children = match self.children_of(root, &order, depth, ev, oracle) {
                Ok(c) => c,
                Err(Stop) => break,
            };
            for (mv, child) in children {
                let alpha = found.map_or(f32::NEG_INFINITY, |f| f.1);
                match self.child_value(root, &child, depth, alpha, f32::INFINITY, ev, oracle) {
                    Ok(v) if found.is_none_or(|f| v > f.1) => found = Some((mv, v)),
                    Ok(_) => {}
                    Err(Stop) => {
                        stopped = true;
                        break;
                    }
                }
            }
            if let Some((mv, v)) = found {
                // An interrupted iteration counts only where it beat the last iteration's move
                // (searched first), or re-valued that move itself.
                best.best = mv;
                best.value = v;
                if !stopped {
                    best.depth = depth;
                    best.solved = self.leaf_reads == 0;
                }
                order.retain(|&m| m != mv);
                order.insert(0, mv);
            }
            if stopped || best.solved {
                break;
            }
        }
        best.evaluated = self.evaluated;
        best.nodes = self.nodes;
        best
    }

    /// The negamax value of `pos` searched exactly `depth` plies with a full window (no budget,
    /// no deepening): the value iterative deepening's iteration `depth` finds.
    pub fn value_at_depth(
        &mut self,
        pos: &Position,
        depth: u32,
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> f32 {
        let budget = std::mem::replace(&mut self.budget, Budget::Evals(u64::MAX));
        self.start();
        let v = self.negamax(pos, depth, f32::NEG_INFINITY, f32::INFINITY, ev, oracle);
        self.budget = budget;
        v.expect("an unbounded search does not stop")
    }

    /// The fail-soft value of `pos` searched `depth` plies within `(alpha, beta)`, with the tables
    /// left as earlier calls filled them (no budget): what the tables' bounds must keep true.
    #[cfg(test)]
    pub(crate) fn value_in_window(
        &mut self,
        pos: &Position,
        depth: u32,
        (alpha, beta): (f32, f32),
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> f32 {
        self.budget = Budget::Evals(u64::MAX);
        self.deadline = None;
        let v = self.negamax(pos, depth, alpha, beta, ev, oracle);
        v.expect("an unbounded search does not stop")
    }

    fn start(&mut self) {
        self.tt.clear();
        self.leaves.clear();
        self.evaluated = 0;
        self.nodes = 0;
        self.deadline = match self.budget {
            Budget::Millis(ms) => Some(Instant::now() + Duration::from_millis(u64::from(ms))),
            Budget::Evals(_) => None,
        };
    }

    /// Empties a table grown past [`TABLE_CAP`] (only between iterations: a batch of leaves is
    /// read right after it is evaluated).
    fn trim(&mut self) {
        if self.tt.len() > TABLE_CAP {
            self.tt.clear();
        }
        if self.leaves.len() > TABLE_CAP {
            self.leaves.clear();
        }
    }

    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Evaluates the positions not yet in the leaf table, in one batch, if the budget allows.
    fn evaluate(&mut self, positions: &[Position], ev: &mut dyn Evaluator) -> Result<(), Stop> {
        let mut fresh: Vec<Position> = Vec::with_capacity(positions.len());
        for p in positions {
            let k = p.to_bytes();
            if !self.leaves.contains_key(&k) && !fresh.iter().any(|q| q.to_bytes() == k) {
                fresh.push(*p);
            }
        }
        if fresh.is_empty() {
            return Ok(());
        }
        let over_budget = match self.budget {
            Budget::Evals(n) => self.evaluated + fresh.len() as u64 > n,
            Budget::Millis(_) => self.out_of_time(),
        };
        if over_budget {
            return Err(Stop);
        }
        let (logits, values, margins) = &mut self.scratch;
        ev.evaluate(&fresh, logits, values, margins);
        let width = logits.len() / fresh.len();
        for (i, p) in fresh.iter().enumerate() {
            let mut leaf = Leaf {
                margin: margins[i] * p.rules().total_seeds() as f32,
                logits: [f32::NEG_INFINITY; MAX_ACTIONS],
            };
            let n = width.min(MAX_ACTIONS);
            leaf.logits[..n].copy_from_slice(&logits[i * width..i * width + n]);
            self.leaves.insert(p.to_bytes(), leaf);
        }
        self.evaluated += fresh.len() as u64;
        Ok(())
    }

    /// Each of `moves` with the position it leads to; one ply above the leaves, the children the
    /// network must score are evaluated in one batch first.
    fn children_of(
        &mut self,
        pos: &Position,
        moves: &[Move],
        depth: u32,
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> Result<Vec<(Move, Position)>, Stop> {
        let children: Vec<(Move, Position)> = moves
            .iter()
            .map(|&mv| (mv, pos.after(mv).expect("searched moves are legal").0))
            .collect();
        if depth == 1 {
            let leaves: Vec<Position> = children
                .iter()
                .map(|c| c.1)
                .filter(|c| exact(c, oracle).is_none())
                .collect();
            self.evaluate(&leaves, ev)?;
        }
        Ok(children)
    }

    /// The value of `child` for the player to move in `parent`.
    #[allow(clippy::too_many_arguments)]
    fn child_value(
        &mut self,
        parent: &Position,
        child: &Position,
        depth: u32,
        alpha: f32,
        beta: f32,
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> Result<f32, Stop> {
        if child.to_move() == parent.to_move() {
            self.negamax(child, depth - 1, alpha, beta, ev, oracle)
        } else {
            Ok(-self.negamax(child, depth - 1, -beta, -alpha, ev, oracle)?)
        }
    }

    /// The negamax value of `pos` for the player to move, `depth` plies deep (fail-soft).
    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: f32,
        mut beta: f32,
        ev: &mut dyn Evaluator,
        oracle: Option<&dyn Oracle>,
    ) -> Result<f32, Stop> {
        if let Some(v) = exact(pos, oracle) {
            return Ok(v);
        }
        let key = pos.to_bytes();
        if depth == 0 {
            if !self.leaves.contains_key(&key) {
                self.evaluate(&[*pos], ev)?;
            }
            self.leaf_reads += 1;
            return Ok(self.leaves[&key].margin);
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_EVERY) && self.out_of_time() {
            return Err(Stop);
        }
        let alpha_in = alpha;
        let mut hint = None;
        if let Some(e) = self.tt.get(&key) {
            hint = e.best;
            if e.depth == depth {
                match e.bound {
                    Bound::Exact => return Ok(e.value),
                    Bound::Lower => alpha = alpha.max(e.value),
                    Bound::Upper => beta = beta.min(e.value),
                }
                if alpha >= beta {
                    return Ok(e.value);
                }
            }
        }
        let moves = self.ordered(pos, hint);
        let children = self.children_of(pos, &moves, depth, ev, oracle)?;
        let mut best = (None, f32::NEG_INFINITY);
        for (mv, child) in children {
            let v = self.child_value(pos, &child, depth, alpha, beta, ev, oracle)?;
            if v > best.1 {
                best = (Some(mv), v);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best.1 <= alpha_in {
            Bound::Upper
        } else if best.1 >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt.insert(
            key,
            Entry {
                depth,
                value: best.1,
                bound,
                best: best.0,
            },
        );
        Ok(best.1)
    }

    /// The legal moves of `pos`: `first` (the table's move), then by the network's logits where
    /// `pos` was a leaf, else extra turns first and pits nearer the store first.
    fn ordered(&self, pos: &Position, first: Option<Move>) -> Vec<Move> {
        let mut moves: Vec<Move> = match self.leaves.get(&pos.to_bytes()) {
            Some(leaf) => {
                let pits = pos.rules().pits();
                let mut m: Vec<Move> = pos.legal_moves().iter().collect();
                m.sort_by(|a, b| {
                    leaf.logits[b.action(pits)].total_cmp(&leaf.logits[a.action(pits)])
                });
                m
            }
            None => heuristic_order(pos),
        };
        if let Some(f) = first
            && let Some(i) = moves.iter().position(|&m| m == f)
        {
            moves[..=i].rotate_right(1);
        }
        moves
    }
}

/// The legal moves of `pos` with the moves that end in the mover's store (an extra turn: usually
/// good, and they cut early) first, then pits nearer the store first.
pub fn heuristic_order(pos: &Position) -> Vec<Move> {
    let m = pos.rules().pits();
    let side = pos.to_move();
    let mut moves: Vec<Move> = pos.legal_moves().iter().collect();
    moves.sort_by_key(|&mv| match mv {
        Move::Pit(p) => {
            let seeds = pos.pit(side, p as usize) as usize;
            let extra = seeds % (2 * m + 1) == m + 1 - p as usize;
            (!extra, std::cmp::Reverse(p))
        }
        Move::Swap => (true, std::cmp::Reverse(0)),
    });
    moves
}

/// The exact value of `pos` for the player to move, if known: a finished game's final margin, or
/// the oracle's.
fn exact(pos: &Position, oracle: Option<&dyn Oracle>) -> Option<f32> {
    if pos.is_over() {
        let m = pos.margin();
        return Some(if pos.to_move().index() == 0 { m } else { -m } as f32);
    }
    oracle.and_then(|o| o.final_margin(pos)).map(|m| m as f32)
}
