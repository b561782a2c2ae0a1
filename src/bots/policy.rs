//! The trained network as a player: `policy:PATH` plays the best legal move by the network's
//! policy; `policy:PATH:SIMS` searches SIMS simulations (Gumbel, no noise) with it first, with the
//! utility (value/margin mix) and Q transform the checkpoint was trained with.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use burn::prelude::*;
use rand::RngExt;
use rand::rngs::SmallRng;

use super::Bot;
use crate::nn::NetEvaluator;
use crate::nn::model::{self, Model};
use crate::rules::{Move, Position, Rules, RulesSpec};
use crate::search::{SearchConfig, greedy_actions, search_batch};

/// Checkpoints loaded so far, by path: each game builds its own bot from a copy.
fn cache() -> &'static Mutex<HashMap<String, Model>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Model>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Loads a checkpoint (a folder, its `meta.json` or its `model.bpk`) once; the rules it was
/// trained for.
pub fn load(path: &str) -> anyhow::Result<RulesSpec> {
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = c.get(path) {
        return Ok(m.card.rules);
    }
    let m = model::load(Path::new(path))?;
    let rules = m.card.rules;
    c.insert(path.to_string(), m);
    Ok(rules)
}

/// Refuses a checkpoint trained for other rules than `rules`.
pub fn check_rules(path: &str, rules: &Rules) -> anyhow::Result<()> {
    let trained = load(path)?;
    if trained != rules.spec() {
        let t = trained.build().map(|r| r.describe()).unwrap_or_default();
        anyhow::bail!(
            "policy:{path} was trained for {t}, not {}",
            rules.describe()
        );
    }
    Ok(())
}

/// A network player.
pub struct PolicyBot {
    ev: NetEvaluator,
    sims: Option<u32>,
    /// The checkpoint's self-play search settings (utility and Q transform).
    search: SearchConfig,
}

impl PolicyBot {
    /// A player from a checkpoint already checked by [`load`]; `margin` overrides the search
    /// utility's margin weight.
    pub fn from_cache(path: &str, sims: Option<u32>, margin: Option<f32>) -> PolicyBot {
        let (net, search) = match cache().lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            Some(m) => (m.net.clone(), m.card.search),
            None => panic!("policy:{path} was not loaded when its name was parsed"),
        };
        PolicyBot {
            ev: NetEvaluator::new(net, Device::flex()),
            sims,
            search: SearchConfig {
                margin_weight: margin.unwrap_or(search.margin_weight),
                ..search
            },
        }
    }
}

impl Bot for PolicyBot {
    fn choose(&mut self, pos: &Position, rng: &mut SmallRng) -> Move {
        let pits = pos.rules().pits();
        let action = match self.sims {
            None => greedy_actions(&[*pos], &mut self.ev)[0],
            Some(n) => {
                let cfg = SearchConfig {
                    simulations: n,
                    considered_actions: pits as u32 + 1,
                    ..self.search
                };
                search_batch(&[*pos], &[0.0], &cfg, &mut self.ev, rng.random())[0].action
            }
        };
        Move::from_action(action, pits)
    }
}
