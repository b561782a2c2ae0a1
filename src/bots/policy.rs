//! The trained network as a player: `policy:PATH` plays the best legal move by the network's
//! policy; `policy:PATH:SIMS` searches SIMS simulations (Gumbel, no noise) with it first, with the
//! utility (value/margin mix) and Q transform the checkpoint was trained with.

use burn::prelude::*;
use rand::RngExt;
use rand::rngs::SmallRng;

use super::Bot;
use crate::nn::NetEvaluator;
use crate::nn::model::Model;
use crate::rules::{Move, Position};
use crate::search::{SearchConfig, greedy_actions, search_batch};

/// A network player.
pub struct PolicyBot {
    ev: NetEvaluator,
    sims: Option<u32>,
    /// The search settings: the checkpoint's self-play utility and Q transform.
    search: SearchConfig,
}

impl PolicyBot {
    /// A player from a loaded checkpoint; `sims` simulations of search per move (none: the
    /// policy's best move); `margin` overrides the search utility's margin weight.
    pub fn new(model: &Model, sims: Option<u32>, margin: Option<f32>) -> PolicyBot {
        PolicyBot {
            ev: NetEvaluator::new(model.net.clone(), Device::flex()),
            sims,
            search: search_config(model, sims, margin),
        }
    }
}

/// The search a network player runs: `sims` simulations over every legal move, with the
/// checkpoint's utility and Q transform and `margin` (if given) as the utility's margin weight.
pub fn search_config(model: &Model, sims: Option<u32>, margin: Option<f32>) -> SearchConfig {
    let search = model.card.search;
    let pits = model.card.rules.pits;
    SearchConfig {
        simulations: sims.unwrap_or(search.simulations),
        considered_actions: pits + 1,
        margin_weight: margin.unwrap_or(search.margin_weight),
        ..search
    }
}

impl Bot for PolicyBot {
    fn choose(&mut self, pos: &Position, rng: &mut SmallRng) -> Move {
        let pits = pos.rules().pits();
        let action = match self.sims {
            None => greedy_actions(&[*pos], &mut self.ev)[0],
            Some(_) => {
                search_batch(&[*pos], &[0.0], &self.search, &mut self.ev, rng.random())[0].action
            }
        };
        Move::from_action(action, pits)
    }
}
