//! Gumbel AlphaZero search over a batch of games, one tree per game, guided by an [`Evaluator`].
//!
//! Every simulation step descends once in every game's tree and hands the leaves of all games to
//! the evaluator in one call, so a network sees the whole batch at once. The root uses Gumbel
//! top-k sampling and sequential halving (Danihelka et al., "Policy improvement by planning with
//! Gumbel", ICLR 2022); inner nodes pick the action that brings the visit distribution closest to
//! the improved policy. No burn here: the evaluator is a trait.
//!
//! Values are for the player to move at a node. An extra turn keeps the player, so a child's value
//! counts for its parent as is; any other move (the pie answer included, which exchanges the
//! players' seats) hands the move to the other player and flips the sign.
//!
//! The value the search backs up (its utility) mixes the evaluator's two outputs:
//! `(1 - w) * value + w * margin` with `w` = [`SearchConfig::margin_weight`], where the margin is
//! the expected final margin divided by all seeds. A finished game scores the same way from its
//! exact result and margin. With `w > 0`, a side that loses whatever it does still prefers the
//! moves that lose by less, so its improved policy keeps a signal (Kalah(6,4) is a first-player
//! win: a value alone goes flat for North).
//!
//! Finished games and positions an [`Oracle`] answers are solved leaves. With
//! [`SearchConfig::prove`] the search also proves what they imply (MCTS-solver, Winands et al.
//! 2008, for utilities rather than wins): a node whose children are all solved takes their best
//! exact utility, simulations below the root walk into unsolved children only, and a node passes
//! up at least its best solved child's utility, so simulations that explore worse replies beside
//! a solved one do not flatter the line above. At the root, each halving phase goes to the kept
//! moves not yet solved; once all kept moves are solved the search stops and plays the best of
//! them by exact value. Without it, a large budget keeps walking down to
//! leaves it has already solved (`experiments/solver-sims`).

use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::env::rng::{GameRng, stream};
use crate::rules::{Move, Position, Side};

pub mod alphabeta;

/// Most actions a position can have: [`crate::rules::MAX_PITS`] pits and the pie answer.
pub const MAX_ACTIONS: usize = crate::rules::MAX_PITS as usize + 1;

/// Scores a batch of positions that are not over, for the player to move in each.
pub trait Evaluator {
    /// Writes `actions` raw policy logits per position into `logits` (action index as in
    /// [`Move::action`]; illegal actions are masked by the caller), one value in [-1, 1] per
    /// position into `values` (the expected result) and one into `margins` (the expected final
    /// margin divided by all seeds). The vectors are cleared first.
    fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    );
}

/// Exact final margins that let the search stop at a position: a solved leaf, scored like a
/// finished game and never sent to the evaluator.
pub trait Oracle: Sync {
    /// The exact final margin of `pos` (not over) for the player to move, if known.
    fn final_margin(&self, pos: &Position) -> Option<i32>;
}

impl Oracle for crate::solver::EndgameOracle {
    fn final_margin(&self, pos: &Position) -> Option<i32> {
        crate::solver::EndgameOracle::final_margin(self, pos)
    }
}

/// A uniform policy and a zero value: search with it is plain sequential halving on rollouts-free
/// visit counts, useful for tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    ) {
        logits.clear();
        values.clear();
        margins.clear();
        if let Some(p) = positions.first() {
            logits.resize(positions.len() * (p.rules().pits() + 1), 0.0);
        }
        values.resize(positions.len(), 0.0);
        margins.resize(positions.len(), 0.0);
    }
}

/// The action of the highest logit among `actions` (indexes into `logits`, by action index), ties
/// going to the highest action index (swap after every pit); `None` if `actions` is empty. Every
/// greedy choice from a network's logits goes through here ([`greedy_actions`], the bots' views,
/// the network player's pick among a database's best moves, Python agents returning logits), so
/// they agree. Logits compare by `total_cmp` (a NaN of either sign is an extreme).
///
/// ```
/// use kalaha::search::best_logit;
/// let logits = [0.5f32, 2.0, -1.0, 2.0];
/// assert_eq!(best_logit(&logits, [0, 1, 2, 3]), Some(3));
/// assert_eq!(best_logit(&logits, [3, 1, 0]), Some(3), "whatever the order");
/// assert_eq!(best_logit(&logits, [0, 2]), Some(0));
/// assert_eq!(best_logit(&logits, []), None);
/// ```
pub fn best_logit<L: Copy + Into<f64>>(
    logits: &[L],
    actions: impl IntoIterator<Item = usize>,
) -> Option<usize> {
    // f32 to f64 is exact and keeps the order, so f32 and f64 logits pick alike.
    actions.into_iter().max_by(|&x, &y| {
        let (lx, ly): (f64, f64) = (logits[x].into(), logits[y].into());
        lx.total_cmp(&ly).then(x.cmp(&y))
    })
}

/// The best legal action of each position by its logits (see [`best_logit`] for ties).
pub fn greedy_actions(positions: &[Position], evaluator: &mut dyn Evaluator) -> Vec<usize> {
    let mut logits = Vec::new();
    let mut values = Vec::new();
    let mut margins = Vec::new();
    evaluator.evaluate(positions, &mut logits, &mut values, &mut margins);
    let mut out = Vec::with_capacity(positions.len());
    for (i, p) in positions.iter().enumerate() {
        let a = p.rules().pits() + 1;
        let l = &logits[i * a..(i + 1) * a];
        let legal = p.legal_moves().iter().map(|m| m.action(a - 1));
        out.push(best_logit(l, legal).expect("a position that is not over has a legal move"));
    }
    out
}

/// Search settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// Simulations per move (network evaluations per game per move, at most).
    pub simulations: u32,
    /// Actions sampled at the root (Gumbel top-k) for sequential halving.
    pub considered_actions: u32,
    /// `c_visit` of the Q transform sigma(q) = (c_visit + max N) * c_scale * q.
    pub c_visit: f32,
    /// `c_scale` of the Q transform.
    pub c_scale: f32,
    /// Weight `w` of the margin in the search's utility `(1 - w) * value + w * margin`
    /// (0: the value alone, 1: the margin alone). Optional, default 0.
    #[serde(default)]
    pub margin_weight: f32,
    /// Prove subtrees (MCTS-solver): a node whose children are all solved (finished games,
    /// database positions or proved nodes) takes their best exact utility and is never descended
    /// into again; below the root, simulations go to unsolved children only, and a node's Q is at
    /// least its best solved child's; the root's halving phases go to its unsolved kept moves.
    /// Optional, default false (the search of earlier runs).
    #[serde(default)]
    pub prove: bool,
    /// Weight `a` of implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant, "Monte
    /// Carlo Tree Search with heuristic evaluations using implicit minimax backups", 2014): every
    /// node also keeps the minimax value of the evaluations below it (the best of its visited
    /// children's, a leaf's own evaluation, a solved node's exact value), and an edge's Q is
    /// `(1 - a) * mean + a * minimax` wherever the search reads one (the Q transform, the root's
    /// halving, the reported `q` and value). 0 (the default) is the mean alone; Kalah's close
    /// games turn on one reply that a mean over visits dilutes.
    #[serde(default)]
    pub minimax_weight: f32,
}

impl SearchConfig {
    /// The utility the search maximises, from a value and a margin (margin / all seeds).
    pub fn utility(&self, value: f32, margin: f32) -> f32 {
        (1.0 - self.margin_weight) * value + self.margin_weight * margin
    }
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            simulations: 16,
            considered_actions: 8,
            c_visit: 50.0,
            c_scale: 1.0,
            margin_weight: 0.0,
            prove: false,
            minimax_weight: 0.0,
        }
    }
}

/// What the search says about one root.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play.
    pub action: usize,
    /// The improved policy over action indexes (zero for illegal actions): the training target.
    pub policy: Vec<f32>,
    /// The root's utility after search, for the player to move (see [`SearchConfig::utility`]).
    pub value: f32,
    /// The network's utility of the root before search.
    pub net_value: f32,
    /// Simulations through each root action, by action index (zero for illegal actions and
    /// actions not visited).
    pub visits: Vec<u32>,
    /// Mean utility of each root action for the player to move at the root, by action index
    /// (`None` for illegal actions and actions not visited).
    pub q: Vec<Option<f32>>,
    /// The root was proved ([`SearchConfig::prove`]): `value` and every root action's `q` are
    /// exact, and `action` is a best move.
    pub proved: bool,
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Edge {
    action: u8,
    /// The other player moves next: the child's value counts negated.
    flip: bool,
    logit: f32,
    child: u32,
}

#[derive(Clone, Copy)]
struct Node {
    pos: Position,
    /// Index of the first edge in the tree's edge list; `NONE` until expanded.
    first_edge: u32,
    edges: u8,
    /// The network's (or the final result's) utility for the player to move here.
    value: f32,
    visits: u32,
    value_sum: f32,
    /// The exact utility for the player to move: a finished game's or a database position's (a
    /// solved leaf, never expanded), or (with [`SearchConfig::prove`]) the best of children that
    /// are all solved. A simulation that reaches a node with one ends there.
    exact: Option<f32>,
    /// The best exact utility among the solved children, for the player to move here (with
    /// [`SearchConfig::prove`]; `-inf` if none): the node's value is at least this.
    lower: f32,
    /// The minimax utility of the evaluations below, for the player to move here
    /// ([`SearchConfig::minimax_weight`]): the node's own (or exact) value until a child is
    /// visited, then the best of its visited children's.
    minimax: f32,
}

/// One game's tree and its root schedule.
struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    rng: GameRng,
    gumbel: [f32; MAX_ACTIONS],
    /// Root edges still in the running (indexes into the root's edges).
    remaining: Vec<usize>,
    /// Root edges to visit in the current phase, popped from the back.
    queue: Vec<usize>,
    sims_left: u32,
    phase_budget: u32,
    phases: u32,
    /// The path of the simulation in flight: (node, edge index in `edges`), and its leaf.
    path: Vec<(u32, u32)>,
    leaf: u32,
    /// The leaf needs the evaluator.
    pending: bool,
    /// [`SearchConfig::prove`].
    prove: bool,
    /// [`SearchConfig::minimax_weight`].
    minimax_weight: f32,
}

/// Final margin of a finished game for the player in `seat`, divided by all seeds.
pub fn margin_for(pos: &Position, seat: Side) -> f32 {
    let m = pos.margin() as f32 / pos.rules().total_seeds().max(1) as f32;
    if seat == Side::South { m } else { -m }
}

/// Result of a finished game for the player in `seat`: 1, 0 or -1.
pub fn result_for(pos: &Position, seat: Side) -> f32 {
    let m = pos.margin();
    let m = if seat == Side::South { m } else { -m };
    m.signum() as f32
}

fn new_node(pos: Position) -> Node {
    Node {
        pos,
        first_edge: NONE,
        edges: 0,
        value: 0.0,
        visits: 0,
        value_sum: 0.0,
        exact: None,
        lower: f32::NEG_INFINITY,
        minimax: 0.0,
    }
}

/// Softmax over legal entries of `x` (the first `n` entries), in place.
fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in x.iter_mut() {
        *v /= sum;
    }
}

impl Tree {
    fn new(root: Position, seed: u64, cfg: &SearchConfig) -> Tree {
        Tree {
            nodes: vec![new_node(root)],
            edges: Vec::new(),
            rng: stream(seed, 0),
            gumbel: [0.0; MAX_ACTIONS],
            remaining: Vec::new(),
            queue: Vec::new(),
            sims_left: 0,
            phase_budget: 0,
            phases: 0,
            path: Vec::new(),
            leaf: 0,
            pending: false,
            prove: cfg.prove,
            minimax_weight: cfg.minimax_weight,
        }
    }

    /// Gives node `n` its edges from the evaluator's logits and value.
    fn expand(&mut self, n: u32, logits: &[f32], value: f32) {
        let node = &mut self.nodes[n as usize];
        node.first_edge = self.edges.len() as u32;
        node.value = value;
        node.minimax = value;
        let pits = node.pos.rules().pits();
        let pos = node.pos;
        let mut count = 0;
        for mv in pos.legal_moves().iter() {
            let a = mv.action(pits);
            self.edges.push(Edge {
                action: a as u8,
                flip: true,
                logit: logits[a],
                child: NONE,
            });
            count += 1;
        }
        self.nodes[n as usize].edges = count;
    }

    /// Mean value of edge `e`'s child for the player at the edge's parent, if visited.
    fn q(&self, e: &Edge) -> Option<f32> {
        if e.child == NONE {
            return None;
        }
        let c = &self.nodes[e.child as usize];
        if c.visits == 0 {
            return None;
        }
        // Without proving, `exact` and `lower` go unused: a finished game's or a database
        // position's mean is its exact value anyway.
        let q = match c.exact {
            Some(x) if self.prove => x,
            _ if self.prove => (c.value_sum / c.visits as f32).max(c.lower),
            _ => c.value_sum / c.visits as f32,
        };
        let q = self.blend(q, c);
        Some(if e.flip { -q } else { q })
    }

    /// A node's mean utility blended with its minimax value ([`SearchConfig::minimax_weight`]);
    /// a solved node's exact value is its own minimax value, so proofs pass through unchanged.
    fn blend(&self, mean: f32, node: &Node) -> f32 {
        match node.exact {
            Some(x) if self.prove => x,
            _ if self.minimax_weight > 0.0 => {
                (1.0 - self.minimax_weight) * mean + self.minimax_weight * node.minimax
            }
            _ => mean,
        }
    }

    /// The minimax value of node `n` from its visited children (its own value if none).
    fn minimax_of(&self, n: u32) -> f32 {
        let node = &self.nodes[n as usize];
        if let Some(x) = node.exact {
            return x;
        }
        let edges = &self.edges[node.first_edge as usize..][..node.edges as usize];
        let mut best = f32::NEG_INFINITY;
        for e in edges {
            if e.child == NONE || self.nodes[e.child as usize].visits == 0 {
                continue;
            }
            let m = self.nodes[e.child as usize].minimax;
            best = best.max(if e.flip { -m } else { m });
        }
        if best == f32::NEG_INFINITY {
            node.value
        } else {
            best
        }
    }

    /// The exact utility of edge `e`'s child for the player at the edge's parent, if solved.
    fn exact(&self, e: &Edge) -> Option<f32> {
        if e.child == NONE {
            return None;
        }
        let x = self.nodes[e.child as usize].exact?;
        Some(if e.flip { -x } else { x })
    }

    fn visits(&self, e: &Edge) -> u32 {
        if e.child == NONE {
            0
        } else {
            self.nodes[e.child as usize].visits
        }
    }

    /// sigma(completed Q) for every edge of node `n`, and the prior probabilities.
    fn transformed_q(&self, n: u32, cfg: &SearchConfig, sigma: &mut [f32], prior: &mut [f32]) {
        let node = &self.nodes[n as usize];
        let edges = &self.edges[node.first_edge as usize..][..node.edges as usize];
        for (p, e) in prior.iter_mut().zip(edges) {
            *p = e.logit;
        }
        softmax(&mut prior[..edges.len()]);
        let mut total = 0u32;
        let mut max_n = 0u32;
        let mut pq = 0.0;
        let mut p_visited = 0.0;
        for (e, p) in edges.iter().zip(prior.iter()) {
            let v = self.visits(e);
            total += v;
            max_n = max_n.max(v);
            if let Some(q) = self.q(e) {
                pq += p * q;
                p_visited += p;
            }
        }
        let v_mix = if p_visited > 0.0 {
            (node.value + total as f32 / p_visited * pq) / (1.0 + total as f32)
        } else {
            node.value
        };
        let scale = (cfg.c_visit + max_n as f32) * cfg.c_scale;
        for (s, e) in sigma.iter_mut().zip(edges) {
            let q = self.q(e).unwrap_or(v_mix);
            *s = scale * (q + 1.0) * 0.5;
        }
    }

    /// The edge (index into `edges`) an inner node descends through.
    fn select_inner(&self, n: u32, cfg: &SearchConfig) -> u32 {
        let node = &self.nodes[n as usize];
        let k = node.edges as usize;
        let mut sigma = [0.0; MAX_ACTIONS];
        let mut prior = [0.0; MAX_ACTIONS];
        self.transformed_q(n, cfg, &mut sigma, &mut prior);
        let first = node.first_edge as usize;
        let mut pi = [0.0; MAX_ACTIONS];
        for i in 0..k {
            pi[i] = self.edges[first + i].logit + sigma[i];
        }
        softmax(&mut pi[..k]);
        let total: u32 = (0..k).map(|i| self.visits(&self.edges[first + i])).sum();
        let mut best = 0;
        let mut best_score = f32::NEG_INFINITY;
        for (i, p) in pi.iter().enumerate().take(k) {
            // A proving search never walks into a solved child: it would learn nothing there.
            if self.prove && self.exact(&self.edges[first + i]).is_some() {
                continue;
            }
            let score = p - self.visits(&self.edges[first + i]) as f32 / (1.0 + total as f32);
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        (first + best) as u32
    }

    /// Root score used by sequential halving: g + logit + sigma(q).
    fn root_scores(&self, cfg: &SearchConfig) -> [f32; MAX_ACTIONS] {
        let mut sigma = [0.0; MAX_ACTIONS];
        let mut prior = [0.0; MAX_ACTIONS];
        self.transformed_q(0, cfg, &mut sigma, &mut prior);
        let root = &self.nodes[0];
        let mut s = [f32::NEG_INFINITY; MAX_ACTIONS];
        for i in 0..root.edges as usize {
            s[i] = self.gumbel[i] + self.edges[root.first_edge as usize + i].logit + sigma[i];
        }
        s
    }

    /// Sets up sequential halving once the root is expanded.
    fn start_root(&mut self, cfg: &SearchConfig, temperature: f32) {
        let k = self.nodes[0].edges as usize;
        for i in 0..k {
            let u: f64 = self.rng.random::<f64>().clamp(1e-12, 1.0 - 1e-12);
            self.gumbel[i] = temperature * (-(-u.ln()).ln()) as f32;
        }
        let first = self.nodes[0].first_edge as usize;
        let mut order: Vec<usize> = (0..k).collect();
        let key = |i: usize| self.gumbel[i] + self.edges[first + i].logit;
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
        order.truncate((cfg.considered_actions as usize).clamp(1, k));
        self.remaining = order;
        self.sims_left = if k > 1 { cfg.simulations } else { 0 };
        self.phases = (self.remaining.len() as f32).log2().ceil().max(1.0) as u32;
        self.phase_budget = cfg.simulations;
        self.queue.clear();
    }

    /// The root edge (index into the root's edges) the next simulation starts with; `None` ends
    /// a proving search whose kept moves are all solved.
    fn next_root_edge(&mut self, cfg: &SearchConfig) -> Option<usize> {
        if self.queue.is_empty() {
            if !self.phase_done_once() {
                // First phase: nothing to halve yet.
            } else if self.remaining.len() > 1 {
                let s = self.root_scores(cfg);
                self.remaining.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
                let keep = self.remaining.len().div_ceil(2);
                self.remaining.truncate(keep);
            }
            // A proving search spends the phase on the children not yet solved: another visit
            // to a solved one adds nothing to its exact value.
            let first = self.nodes[0].first_edge as usize;
            let live: Vec<usize> = (self.remaining.iter().copied())
                .filter(|&i| !(self.prove && self.exact(&self.edges[first + i]).is_some()))
                .collect();
            if live.is_empty() {
                // Every kept move is solved: more simulations change nothing that matters.
                self.sims_left = 0;
                return None;
            }
            let per = (self.phase_budget / (self.phases * live.len() as u32)).max(1);
            for _ in 0..per {
                self.queue.extend(live.iter().rev());
            }
            self.queue.reverse();
        }
        Some(self.queue.pop().expect("queue refilled above"))
    }

    fn phase_done_once(&self) -> bool {
        // Any root child visited means a phase has run.
        let root = &self.nodes[0];
        (0..root.edges as usize).any(|i| self.visits(&self.edges[root.first_edge as usize + i]) > 0)
    }

    /// Descends from the root along one simulation; returns whether the leaf needs the evaluator.
    /// A terminal leaf is backed up at once.
    fn descend(&mut self, cfg: &SearchConfig, oracle: Option<&dyn Oracle>) -> bool {
        self.path.clear();
        let mut n = 0u32;
        let root_first = self.nodes[0].first_edge;
        let Some(root_edge) = self.next_root_edge(cfg) else {
            return false;
        };
        let mut e = root_first + root_edge as u32;
        loop {
            self.path.push((n, e));
            let edge = self.edges[e as usize];
            if edge.child == NONE {
                let pos = self.nodes[n as usize].pos;
                let mut child = pos;
                let out = child.play(Move::from_action(edge.action as usize, pos.rules().pits()));
                let out = out.expect("edges hold legal moves");
                let mut node = new_node(child);
                if out.game_over {
                    // The result for the player who would move in the child.
                    let mover = pos.to_move();
                    let seat = if out.extra_turn { mover } else { mover.other() };
                    node.value = cfg.utility(result_for(&child, seat), margin_for(&child, seat));
                    node.exact = Some(node.value);
                    node.minimax = node.value;
                } else if let Some(v) = oracle.and_then(|o| o.final_margin(&child)) {
                    let total = child.rules().total_seeds().max(1) as f32;
                    node.value = cfg.utility(v.signum() as f32, v as f32 / total);
                    node.exact = Some(node.value);
                    node.minimax = node.value;
                }
                let id = self.nodes.len() as u32;
                self.nodes.push(node);
                let edge = &mut self.edges[e as usize];
                edge.child = id;
                edge.flip = !out.extra_turn;
                self.leaf = id;
                if let Some(v) = node.exact {
                    self.backup(v);
                    return false;
                }
                return true;
            }
            n = edge.child;
            let node = &self.nodes[n as usize];
            // A solved leaf, or with proving a proved root child (below the root a proving
            // search skips solved children).
            if let Some(v) = node.exact {
                self.leaf = n;
                self.backup(v);
                return false;
            }
            e = self.select_inner(n, cfg);
        }
    }

    /// Adds `v` (for the player at the leaf) to the leaf and every node on the path; with proving,
    /// a node passes up at least its best solved child's value (see [`Node::lower`]).
    fn backup(&mut self, mut v: f32) {
        let leaf = &mut self.nodes[self.leaf as usize];
        leaf.visits += 1;
        leaf.value_sum += v;
        for &(n, e) in self.path.iter().rev() {
            if self.edges[e as usize].flip {
                v = -v;
            }
            let node = &mut self.nodes[n as usize];
            if self.prove {
                // The player here would rather take a solved child worth more than this line:
                // what the simulation tells the nodes above is at least that child's value.
                v = v.max(node.lower);
            }
            node.visits += 1;
            node.value_sum += v;
        }
        if self.prove && self.nodes[self.leaf as usize].exact.is_some() {
            self.prove_path();
        }
        if self.minimax_weight > 0.0 {
            for i in (0..self.path.len()).rev() {
                let n = self.path[i].0;
                self.nodes[n as usize].minimax = self.minimax_of(n);
            }
        }
    }

    /// After a simulation ended in a solved node: raises the lower bounds of its ancestors and
    /// proves those whose children are all solved, as far up the path as proofs go. A proved
    /// root ends the search.
    fn prove_path(&mut self) {
        for i in (0..self.path.len()).rev() {
            let (n, e) = self.path[i];
            if self.exact(&self.edges[e as usize]).is_none() {
                return;
            }
            let node = self.nodes[n as usize];
            let edges = &self.edges[node.first_edge as usize..][..node.edges as usize];
            let mut best = f32::NEG_INFINITY;
            let mut all = true;
            for c in edges {
                match self.exact(c) {
                    Some(v) => best = best.max(v),
                    None => all = false,
                }
            }
            let node = &mut self.nodes[n as usize];
            node.lower = best;
            if !all {
                return;
            }
            node.exact = Some(best);
            if n == 0 {
                self.sims_left = 0;
            }
        }
    }

    fn result(&self, cfg: &SearchConfig, actions: usize) -> SearchResult {
        let root = &self.nodes[0];
        let k = root.edges as usize;
        let first = root.first_edge as usize;
        let mut sigma = [0.0; MAX_ACTIONS];
        let mut prior = [0.0; MAX_ACTIONS];
        self.transformed_q(0, cfg, &mut sigma, &mut prior);
        let mut pi = [0.0; MAX_ACTIONS];
        for i in 0..k {
            pi[i] = self.edges[first + i].logit + sigma[i];
        }
        softmax(&mut pi[..k]);
        let mut policy = vec![0.0; actions];
        for i in 0..k {
            policy[self.edges[first + i].action as usize] = pi[i];
        }
        let s = self.root_scores(cfg);
        let proved = self.prove && root.exact.is_some();
        let exact = |i: usize| self.exact(&self.edges[first + i]);
        let by_exact = |a: &usize, b: &usize| {
            let (x, y) = (exact(*a).expect("solved"), exact(*b).expect("solved"));
            x.total_cmp(&y).then(s[*a].total_cmp(&s[*b]))
        };
        // A proved root plays a best move by the exact values, whether or not sequential halving
        // kept it (the root's score breaks ties); a proving search whose kept moves are all solved,
        // the best of those; any other root, the survivor of the halving.
        let best = if proved {
            (0..k).max_by(by_exact)
        } else if self.prove && self.remaining.iter().all(|&i| exact(i).is_some()) {
            self.remaining.iter().copied().max_by(by_exact)
        } else {
            self.remaining
                .iter()
                .copied()
                .max_by(|&a, &b| s[a].total_cmp(&s[b]))
        }
        .expect("a position that is not over has a legal move");
        let value = match root.exact {
            Some(x) if proved => x,
            _ if root.visits > 0 => {
                let mean = (root.value + root.value_sum) / (1 + root.visits) as f32;
                let mean = if self.prove {
                    mean.max(root.lower)
                } else {
                    mean
                };
                self.blend(mean, root)
            }
            _ => root.value,
        };
        let mut visits = vec![0; actions];
        let mut q = vec![None; actions];
        for e in &self.edges[first..first + k] {
            visits[e.action as usize] = self.visits(e);
            q[e.action as usize] = self.q(e);
        }
        SearchResult {
            action: self.edges[first + best].action as usize,
            policy,
            value,
            net_value: root.value,
            visits,
            q,
            proved,
        }
    }
}

/// The seed of root `i`'s noise in a batch searched with `seed`: root 0 gets `seed` itself and
/// root `i > 0` gets [`derive`](crate::env::rng::derive)`(seed, i)`, so a root searched alone with
/// `tree_seed(seed, i)` draws the same noise as root `i` of the batch.
fn tree_seed(seed: u64, i: usize) -> u64 {
    match i {
        0 => seed,
        _ => crate::env::rng::derive(seed, i as u64),
    }
}

/// Calls the evaluator, checks that it answered every position, and turns its values into the
/// search's utilities (left in `values`).
fn evaluate(
    evaluator: &mut dyn Evaluator,
    positions: &[Position],
    cfg: &SearchConfig,
    logits: &mut Vec<f32>,
    values: &mut Vec<f32>,
    margins: &mut Vec<f32>,
) {
    evaluator.evaluate(positions, logits, values, margins);
    let n = positions.len();
    let actions = positions[0].rules().pits() + 1;
    assert!(
        logits.len() == n * actions && values.len() == n && margins.len() == n,
        "search_batch: the evaluator gave {} logits, {} values and {} margins for {n} positions \
         of {actions} actions",
        logits.len(),
        values.len(),
        margins.len()
    );
    for (v, &m) in values.iter_mut().zip(margins.iter()) {
        *v = cfg.utility(*v, m);
    }
}

/// Searches every root (none may be over) and returns a move and an improved policy for each.
///
/// `temperatures[i]` scales the Gumbel noise of root `i`: 0 searches greedily, 1 samples as
/// Gumbel AlphaZero does. `seed` makes the noise reproducible: root `i` draws its noise from its
/// own stream, so its result does not depend on the other roots of the batch. A root with one
/// legal move is not searched: it spends no simulations and its visits are all zero.
///
/// # Panics
///
/// If `roots` and `temperatures` differ in length, if a root is over, if the roots do not all
/// have the same number of pits, or if the evaluator does not give `pits + 1` logits and one value
/// and one margin per position. These are the caller's mistakes.
pub fn search_batch(
    roots: &[Position],
    temperatures: &[f32],
    cfg: &SearchConfig,
    evaluator: &mut dyn Evaluator,
    seed: u64,
) -> Vec<SearchResult> {
    search_batch_with(roots, temperatures, cfg, evaluator, None, seed)
}

/// [`search_batch`] with an [`Oracle`]: positions it answers are solved leaves (exact Q, no
/// evaluator call).
///
/// # Panics
///
/// As [`search_batch`].
pub fn search_batch_with(
    roots: &[Position],
    temperatures: &[f32],
    cfg: &SearchConfig,
    evaluator: &mut dyn Evaluator,
    oracle: Option<&dyn Oracle>,
    seed: u64,
) -> Vec<SearchResult> {
    let trees = grow(roots, temperatures, cfg, evaluator, oracle, seed);
    let actions = roots.first().map_or(0, |p| p.rules().pits() + 1);
    trees.par_iter().map(|t| t.result(cfg, actions)).collect()
}

/// Every root's tree after its search (the work of [`search_batch_with`]).
fn grow(
    roots: &[Position],
    temperatures: &[f32],
    cfg: &SearchConfig,
    evaluator: &mut dyn Evaluator,
    oracle: Option<&dyn Oracle>,
    seed: u64,
) -> Vec<Tree> {
    assert_eq!(
        roots.len(),
        temperatures.len(),
        "search_batch: {} roots but {} temperatures",
        roots.len(),
        temperatures.len()
    );
    let Some(first) = roots.first() else {
        return Vec::new();
    };
    let pits = first.rules().pits();
    for (i, p) in roots.iter().enumerate() {
        assert!(!p.is_over(), "search_batch: root {i} is over: {p:?}");
        assert_eq!(
            p.rules().pits(),
            pits,
            "search_batch: root {i} has {} pits a side, root 0 has {pits}",
            p.rules().pits()
        );
    }
    let actions = pits + 1;
    let mut trees: Vec<Tree> = roots
        .iter()
        .enumerate()
        .map(|(i, &p)| Tree::new(p, tree_seed(seed, i), cfg))
        .collect();
    let mut logits = Vec::new();
    let mut values = Vec::new();
    let mut margins = Vec::new();
    evaluate(
        evaluator,
        roots,
        cfg,
        &mut logits,
        &mut values,
        &mut margins,
    );
    trees
        .par_iter_mut()
        .zip(temperatures.par_iter())
        .enumerate()
        .for_each(|(i, (t, &temp))| {
            t.expand(0, &logits[i * actions..(i + 1) * actions], values[i]);
            t.start_root(cfg, temp);
        });
    let mut leaves: Vec<Position> = Vec::with_capacity(trees.len());
    let mut owners: Vec<usize> = Vec::with_capacity(trees.len());
    loop {
        let any = trees.par_iter_mut().any(|t| t.sims_left > 0);
        if !any {
            break;
        }
        trees.par_iter_mut().for_each(|t| {
            t.pending = false;
            if t.sims_left > 0 {
                t.sims_left -= 1;
                t.pending = t.descend(cfg, oracle);
            }
        });
        leaves.clear();
        owners.clear();
        for (i, t) in trees.iter().enumerate() {
            if t.pending {
                leaves.push(t.nodes[t.leaf as usize].pos);
                owners.push(i);
            }
        }
        if leaves.is_empty() {
            continue;
        }
        evaluate(
            evaluator,
            &leaves,
            cfg,
            &mut logits,
            &mut values,
            &mut margins,
        );
        let mut slots: Vec<Option<usize>> = vec![None; trees.len()];
        for (j, &i) in owners.iter().enumerate() {
            slots[i] = Some(j);
        }
        trees
            .par_iter_mut()
            .zip(slots.par_iter())
            .for_each(|(t, slot)| {
                if let Some(j) = *slot {
                    let leaf = t.leaf;
                    t.expand(leaf, &logits[j * actions..(j + 1) * actions], values[j]);
                    t.backup(values[j]);
                }
            });
    }
    trees
}

#[cfg(test)]
mod tests;
