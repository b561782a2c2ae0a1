//! `mcts:N`: UCT with random-rollout simulations.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use super::Bot;
use crate::env::rng::GameRng;
use crate::rules::{GameResult, Move, Position, Side};

/// UCT with `sims` simulations per move, each ending in a uniformly random playout.
#[derive(Clone, Copy, Debug)]
pub struct Mcts {
    sims: u32,
    exploration: f64,
}

impl Mcts {
    /// A searcher with `sims` simulations per move and exploration constant √2.
    pub fn new(sims: u32) -> Mcts {
        Mcts {
            sims: sims.max(1),
            exploration: std::f64::consts::SQRT_2,
        }
    }
}

struct Node {
    pos: Position,
    parent: usize,
    /// Seat of the player who made the move into this node, once the game is settled: a sowing
    /// keeps the mover's seat; a swap puts the chooser in South's seat.
    mover: Side,
    children: Vec<(Move, usize)>,
    untried: Vec<Move>,
    visits: f64,
    /// Sum of rewards (1 win, 0.5 draw) for `mover`.
    reward: f64,
}

/// Random playout to the end; returns the result.
fn rollout(mut pos: Position, rng: &mut impl Rng) -> GameResult {
    while !pos.is_over() {
        let mut pits = pos.nonempty_pits();
        let k = rng.random_range(0..pits.count_ones());
        for _ in 0..k {
            pits &= pits - 1;
        }
        pos.play_index_unchecked(pits.trailing_zeros() as usize);
    }
    pos.result().expect("the game is over")
}

impl Bot for Mcts {
    fn choose(&mut self, root: &Position, rng: &mut GameRng) -> Move {
        let new_node = |pos: Position, parent: usize, mover: Side, rng: &mut GameRng| {
            let mut untried: Vec<Move> = pos.legal_moves().iter().collect();
            untried.shuffle(rng);
            Node {
                pos,
                parent,
                mover,
                children: Vec::new(),
                untried,
                visits: 0.0,
                reward: 0.0,
            }
        };
        let mut nodes = vec![new_node(*root, usize::MAX, root.to_move().other(), rng)];
        for _ in 0..self.sims {
            // Selection.
            let mut cur = 0;
            while nodes[cur].untried.is_empty() && !nodes[cur].children.is_empty() {
                let ln = nodes[cur].visits.ln();
                let c = self.exploration;
                cur = nodes[cur]
                    .children
                    .iter()
                    .map(|&(_, i)| i)
                    .max_by(|&a, &b| {
                        let ucb = |n: &Node| n.reward / n.visits + c * (ln / n.visits).sqrt();
                        ucb(&nodes[a]).total_cmp(&ucb(&nodes[b]))
                    })
                    .expect("children exist");
            }
            // Expansion.
            if let Some(mv) = nodes[cur].untried.pop() {
                let pos = nodes[cur].pos;
                let (next, out) = pos.after(mv).expect("untried moves are legal");
                let mover = if out.swapped {
                    Side::South
                } else {
                    pos.to_move()
                };
                let child = nodes.len();
                nodes.push(new_node(next, cur, mover, rng));
                nodes[cur].children.push((mv, child));
                cur = child;
            }
            // Simulation and backpropagation.
            let result = rollout(nodes[cur].pos, rng);
            let mut i = cur;
            while i != usize::MAX {
                let n = &mut nodes[i];
                n.visits += 1.0;
                n.reward += match result.winner() {
                    Some(w) if w == n.mover => 1.0,
                    None => 0.5,
                    _ => 0.0,
                };
                i = n.parent;
            }
        }
        // Most visited; children were expanded in random order, so ties fall at random.
        let children = &nodes[0].children;
        let most = children
            .iter()
            .map(|&(_, i)| nodes[i].visits)
            .fold(0.0, f64::max);
        children
            .iter()
            .find(|&&(_, i)| nodes[i].visits == most)
            .map(|&(m, _)| m)
            .expect("a legal move")
    }
}
