//! The trained network as a player: `policy:PATH` plays the best legal move by the network's
//! policy; `policy:PATH:SIMS` searches SIMS simulations (Gumbel, no noise) with it first, with the
//! utility (value/margin mix) and Q transform the checkpoint was trained with. With an endgame
//! database, positions it covers are answered exactly (a move of the best exact value, the
//! network's favourite among several) and are solved leaves of the search.

use std::sync::Arc;

use burn::prelude::*;
use rand::RngExt;

use super::Bot;
use crate::env::rng::GameRng;
use crate::nn::NetEvaluator;
use crate::nn::model::Model;
use crate::rules::{Move, Position};
use crate::search::alphabeta::AlphaBeta;
use crate::search::{Evaluator, Oracle, SearchConfig, best_logit, search_batch_with};
use crate::solver::EndgameOracle;

/// A network player.
pub struct PolicyBot {
    ev: Box<dyn Evaluator + Send>,
    sims: Option<u32>,
    /// The search settings: the checkpoint's self-play utility and Q transform.
    search: SearchConfig,
    oracle: Option<Arc<EndgameOracle>>,
    /// `:alphabeta=BUDGET`: alpha-beta over the margin head in place of the Gumbel search.
    alphabeta: Option<AlphaBeta>,
}

impl PolicyBot {
    /// A player from a loaded checkpoint; `sims` simulations of search per move (none: the
    /// policy's best move); `options` override the checkpoint's search settings; `oracle`
    /// answers the positions it covers.
    pub fn new(
        model: &Model,
        sims: Option<u32>,
        options: SearchOptions,
        oracle: Option<Arc<EndgameOracle>>,
    ) -> PolicyBot {
        let ev = NetEvaluator::new(model.net.clone(), Device::flex());
        PolicyBot::with_evaluator(Box::new(ev), model, sims, options, oracle)
    }

    /// The same player calling `model`'s network through `ev` (a [`crate::nn::batch::Batcher`]'s
    /// evaluator, say, shared with other games).
    pub fn with_evaluator(
        ev: Box<dyn Evaluator + Send>,
        model: &Model,
        sims: Option<u32>,
        options: SearchOptions,
        oracle: Option<Arc<EndgameOracle>>,
    ) -> PolicyBot {
        PolicyBot {
            ev,
            sims,
            search: search_config(model, sims, options),
            oracle,
            alphabeta: options.alphabeta.map(AlphaBeta::new),
        }
    }
}

pub use super::options::SearchOptions;

/// The search a network player runs: `sims` simulations over every legal move, with the
/// checkpoint's utility, Q transform and proving, as far as `options` leave them.
pub fn search_config(model: &Model, sims: Option<u32>, options: SearchOptions) -> SearchConfig {
    let search = model.card.search;
    let pits = model.card.rules.pits;
    SearchConfig {
        simulations: sims.unwrap_or(search.simulations),
        considered_actions: pits + 1,
        margin_weight: options.margin.unwrap_or(search.margin_weight),
        c_scale: options.c_scale.unwrap_or(search.c_scale),
        prove: options.prove.unwrap_or(search.prove),
        minimax_weight: options.minimax.unwrap_or(search.minimax_weight),
        ..search
    }
}

/// The move a network player makes where `oracle` covers `pos` (not over): of the moves of the
/// best exact value, the one with the highest logit in `logits` (the network's policy for `pos`,
/// by action index). `None` where the database does not cover `pos`.
pub fn exact_choice(oracle: &EndgameOracle, pos: &Position, logits: &[f32]) -> Option<Move> {
    let exact = oracle.moves(pos)?;
    let pits = pos.rules().pits();
    best_logit(logits, exact.best().map(|m| m.action(pits))).map(|a| Move::from_action(a, pits))
}

/// The network's policy logits for `pos`, by action index.
pub fn logits(ev: &mut dyn Evaluator, pos: &Position) -> Vec<f32> {
    let (mut logits, mut values, mut margins) = (Vec::new(), Vec::new(), Vec::new());
    ev.evaluate(&[*pos], &mut logits, &mut values, &mut margins);
    logits
}

impl Bot for PolicyBot {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        let legal: Vec<Move> = pos.legal_moves().iter().collect();
        self.choose_among(pos, &legal, rng)
    }

    /// The network's best of `moves`: where the database covers the position, the highest logit
    /// among the moves of the best exact value (among all of `moves` if none of those is one);
    /// else the search's move if it is one of them, or their highest in the improved policy (the
    /// highest logit without search); with `:alphabeta=`, alpha-beta's best of `moves`.
    fn choose_among(&mut self, pos: &Position, moves: &[Move], rng: &mut GameRng) -> Move {
        let pits = pos.rules().pits();
        let allowed: Vec<usize> = moves.iter().map(|m| m.action(pits)).collect();
        let pick = |scores: &[f32], among: &[usize]| {
            let a = best_logit(scores, among.iter().copied()).expect("moves is not empty");
            Move::from_action(a, pits)
        };
        if let Some(o) = self.oracle.as_deref()
            && let Some(exact) = o.moves(pos)
        {
            let logits = logits(&mut *self.ev, pos);
            let best: Vec<usize> = (exact.best().map(|m| m.action(pits)))
                .filter(|a| allowed.contains(a))
                .collect();
            return pick(&logits, if best.is_empty() { &allowed } else { &best });
        }
        if let Some(ab) = self.alphabeta.as_mut() {
            let oracle = self.oracle.as_deref().map(|o| o as &dyn Oracle);
            return ab.search(pos, moves, &mut *self.ev, oracle).best;
        }
        match self.sims {
            None => pick(&logits(&mut *self.ev, pos), &allowed),
            Some(_) => {
                let oracle = self.oracle.as_deref().map(|o| o as &dyn Oracle);
                let seed = rng.random();
                let r =
                    search_batch_with(&[*pos], &[0.0], &self.search, &mut *self.ev, oracle, seed);
                let r = &r[0];
                if allowed.contains(&r.action) {
                    Move::from_action(r.action, pits)
                } else {
                    pick(&r.policy, &allowed)
                }
            }
        }
    }
}
