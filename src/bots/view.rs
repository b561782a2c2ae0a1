//! What a bot thinks of a position: the move it picks, and what it knows of every legal move on
//! the way there (a network's policy prior, value and predicted margin, and with search the
//! visits and mean utility of each move; minimax's scores).

use super::{BotSpec, Minimax, Player};
use crate::rules::{Move, Position};

/// One legal move as a bot sees it; each field is there where the bot has it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveView {
    /// The move.
    pub mv: Move,
    /// A network's policy prior, over the legal moves (sums to 1).
    pub prior: Option<f32>,
    /// Simulations of a network's search through this move.
    pub visits: Option<u32>,
    /// The search's mean utility of this move for the player to move (`(1 - w) * value + w *
    /// margin / seeds`, `w` the margin weight); `None` where the move was not visited.
    pub q: Option<f32>,
    /// Minimax's score of the move (store difference at its depth, for the player to move).
    pub minimax: Option<i32>,
}

/// A network's judgement of the position itself, for the player to move (serialised with these
/// field names by `kalaha analyse --json`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NetworkView {
    /// The value head: the expected result in [-1, 1].
    pub value: f32,
    /// The margin head: the expected final margin, in seeds.
    pub margin: f32,
    /// The search's utility of the position after its simulations, with search.
    pub searched: Option<f32>,
    /// The search proved the position (`:prove=on`): `searched` and every move's `q` are exact.
    pub proved: bool,
    /// Simulations searched (none: the policy alone).
    pub simulations: Option<u32>,
    /// The margin weight of the search's utility.
    pub margin_weight: f32,
    /// The scale of the search's Q transform (`c_scale`).
    pub c_scale: f32,
    /// The exact final margin for the player to move, where the bot's endgame database covers
    /// the position (the bot then plays a move that keeps it).
    pub database: Option<i32>,
    /// The network's release id, where it is a released network (with why it is not trusted,
    /// where its weights do not check out).
    pub release: Option<String>,
}

/// What a bot thinks of a position.
#[derive(Clone, Debug, PartialEq)]
pub struct BotView {
    /// The bot's name.
    pub bot: String,
    /// The move it plays (with the seed given: ties are broken at random).
    pub choice: Move,
    /// A network's view of the position, for a `policy:` bot.
    pub network: Option<NetworkView>,
    /// Every legal move, in the order of the pits.
    pub moves: Vec<MoveView>,
}

/// What `player` thinks of `pos` (not over); `seed` drives its randomness (the bot draws as in
/// game 0 of a series seeded with `seed`, [`super::game_rng`]). A network is asked once (and
/// searched, with simulations, its endgame database's positions as solved leaves; where the
/// database covers `pos` it picks by that, as the bot does); minimax scores every move; other bots
/// just choose.
pub fn view(player: &Player, pos: &Position, seed: u64) -> BotView {
    let mut rng = super::game_rng(seed, 0);
    let mut moves: Vec<MoveView> = pos
        .legal_moves()
        .iter()
        .map(|mv| MoveView {
            mv,
            prior: None,
            visits: None,
            q: None,
            minimax: None,
        })
        .collect();
    #[cfg(feature = "train")]
    if let Some((network, choice)) = network_view(player, pos, &mut moves, seed) {
        return BotView {
            bot: player.to_string(),
            choice,
            network: Some(network),
            moves,
        };
    }
    if let BotSpec::Minimax(d) = player.spec() {
        let scores = Minimax::new(*d).scores(pos);
        for (m, (_, s)) in moves.iter_mut().zip(scores) {
            m.minimax = Some(s);
        }
    }
    BotView {
        bot: player.to_string(),
        choice: player.build().choose(pos, &mut rng),
        network: None,
        moves,
    }
}

/// A network player's view, filling in `moves`; `None` for other players.
#[cfg(feature = "train")]
fn network_view(
    player: &Player,
    pos: &Position,
    moves: &mut [MoveView],
    seed: u64,
) -> Option<(NetworkView, Move)> {
    use burn::prelude::Device;

    use crate::nn::NetEvaluator;
    use crate::search::{Evaluator, Oracle, best_logit, search_batch_with};

    let model = player.network()?;
    let BotSpec::Policy { sims, .. } = player.spec() else {
        return None;
    };
    let cfg = super::policy::search_config(model, *sims, player.spec().search_options());
    let pits = pos.rules().pits();
    let mut ev = NetEvaluator::new(model.net.clone(), Device::flex());
    let (mut logits, mut values, mut margins) = (Vec::new(), Vec::new(), Vec::new());
    ev.evaluate(&[*pos], &mut logits, &mut values, &mut margins);
    let legal: Vec<f32> = moves.iter().map(|m| logits[m.mv.action(pits)]).collect();
    let top = legal.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = legal.iter().map(|l| (l - top).exp()).sum();
    for (m, l) in moves.iter_mut().zip(&legal) {
        m.prior = Some((l - top).exp() / sum);
    }
    let best = best_logit(&logits, moves.iter().map(|m| m.mv.action(pits)))
        .expect("a position that is not over has a legal move");
    let mut choice = Move::from_action(best, pits);
    let mut searched = None;
    let mut proved = false;
    let oracle = player.endgame_db().map(|o| o.as_ref());
    if sims.is_some() {
        let o = oracle.map(|o| o as &dyn Oracle);
        let r = &search_batch_with(&[*pos], &[0.0], &cfg, &mut ev, o, seed)[0];
        for m in moves.iter_mut() {
            m.visits = Some(r.visits[m.mv.action(pits)]);
            m.q = r.q[m.mv.action(pits)];
        }
        choice = Move::from_action(r.action, pits);
        searched = Some(r.value);
        proved = r.proved;
    }
    let network = NetworkView {
        value: values[0],
        margin: margins[0] * pos.rules().total_seeds() as f32,
        searched,
        proved,
        simulations: *sims,
        margin_weight: cfg.margin_weight,
        c_scale: cfg.c_scale,
        database: oracle.and_then(|o| o.final_margin(pos)),
        release: model.card.release.clone(),
    };
    if let Some(exact) = oracle.and_then(|o| super::policy::exact_choice(o, pos, &logits)) {
        choice = exact;
    }
    Some((network, choice))
}
