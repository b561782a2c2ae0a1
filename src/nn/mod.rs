//! The policy/value network (a burn MLP), the observation it reads, the batch evaluator that
//! lets [`crate::search`] call it, and trained models on disk ([`model`]).
//!
//! The network reads the environment's observation ([`crate::env::obs`]): `counts` is the
//! env's `2m + 4` floats, `onehot` adds each pit's seed count one-hot
//! ([`crate::env::obs::encode_onehot`]). Outputs: `m + 1` policy logits (pit `p` at index `p - 1`,
//! swap at `m`; the caller masks illegal moves), a value in [-1, 1] (the expected result for the
//! player to move) and a margin in [-1, 1] (the expected final margin for the player to move,
//! divided by all seeds): two tanh outputs, or, with [`NetConfig::margin_bins`], both read from a
//! distribution over the final margins.

pub mod batch;
pub mod export;
pub mod model;
mod widen;

use burn::nn::transformer::{
    TransformerEncoder, TransformerEncoderConfig, TransformerEncoderInput,
};
use burn::nn::{Embedding, EmbeddingConfig, LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::prelude::*;
use burn::tensor::activation;
use serde::{Deserialize, Serialize};

use crate::env::obs;
use crate::rules::Position;
use crate::search::Evaluator;

/// Hidden-layer nonlinearity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// max(0, x)
    Relu,
    /// Gaussian error linear unit.
    Gelu,
    /// x * sigmoid(x)
    Silu,
    /// tanh(x)
    Tanh,
}

/// What the network reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Input {
    /// The environment's observation, [`obs::encode`].
    Counts,
    /// The environment's observation and one-hot pit counts, [`obs::encode_onehot`].
    Onehot,
    /// `onehot` and what each move does at once, [`obs::encode_lookahead`].
    Lookahead,
    /// The environment's observation and one-hot pit counts with a bin for every count up to
    /// two laps of the board, [`obs::encode_onehot_wide`].
    #[serde(rename = "onehot_wide")]
    OnehotWide,
}

impl Input {
    /// Floats per position for `pits` pits per side.
    pub fn width(self, pits: usize) -> usize {
        match self {
            Input::Counts => obs::obs_dim(pits),
            Input::Onehot => obs::onehot_dim(pits),
            Input::Lookahead => obs::lookahead_dim(pits),
            Input::OnehotWide => obs::onehot_wide_dim(pits),
        }
    }

    /// Writes what the network reads of `pos` (for the player to move) into `out` (length
    /// [`Input::width`]).
    pub fn encode(self, pos: &Position, out: &mut [f32]) {
        match self {
            Input::Counts => obs::encode(pos, out),
            Input::Onehot => obs::encode_onehot(pos, out),
            Input::Lookahead => obs::encode_lookahead(pos, out),
            Input::OnehotWide => obs::encode_onehot_wide(pos, out),
        }
    }

    /// A batch of positions as one `[len, width]` tensor.
    pub fn batch(self, positions: &[Position], device: &Device) -> Tensor<2> {
        let pits = positions.first().map_or(1, |p| p.rules().pits());
        let k = self.width(pits);
        let mut buf = vec![0.0f32; positions.len() * k];
        for (p, out) in positions.iter().zip(buf.chunks_exact_mut(k)) {
            self.encode(p, out);
        }
        Tensor::from_data(TensorData::new(buf, [positions.len(), k]), device)
    }
}

/// How the hidden layers are joined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Block {
    /// `layers` linear layers one after the other, each followed by the activation.
    #[default]
    Plain,
    /// An input layer, then `layers` pre-norm residual blocks `h + W2 act(W1 norm(h))`, then a
    /// final norm and the activation.
    Residual,
    /// A transformer encoder over the board: one token per pit (its one-hot count), one per store
    /// and one for the whole position (the pie flags), each with a learned embedding of its place;
    /// `layers` pre-norm encoder layers of width `hidden` (4 heads, feed-forward twice as wide).
    /// A pit's logit is read from its own token, the swap logit, value and margin from the
    /// position token. Needs `input = "onehot"`.
    Transformer,
}

/// The transformer trunk of [`Block::Transformer`].
#[derive(Module, Debug)]
pub struct Board {
    /// Token features to the model width.
    embed: Linear,
    /// Each token's place.
    place: Embedding,
    encoder: TransformerEncoder,
    norm: LayerNorm,
    /// Pits per side.
    #[module(skip)]
    pits: usize,
}

/// Features per token of [`Block::Transformer`]: the count bins, the count, the store, two flags.
fn token_features(pits: usize) -> usize {
    obs::count_bins(pits) + 4
}

/// Tokens of [`Block::Transformer`]: the `2m` pits, the two stores, the position.
fn token_count(pits: usize) -> usize {
    2 * pits + 3
}

impl Board {
    fn new(hidden: usize, layers: usize, pits: usize, device: &Device) -> Board {
        Board {
            embed: LinearConfig::new(token_features(pits), hidden).init(device),
            place: EmbeddingConfig::new(token_count(pits), hidden)
                .with_initializer(burn::nn::Initializer::Normal {
                    mean: 0.0,
                    std: 0.02,
                })
                .init(device),
            encoder: TransformerEncoderConfig::new(hidden, 2 * hidden, 4, layers)
                .with_dropout(0.0)
                .with_norm_first(true)
                .init(device),
            norm: LayerNormConfig::new(hidden).init(device),
            pits,
        }
    }

    /// `[batch, 2m + 3, hidden]` token states of a `[batch, onehot_dim]` observation: the mover's
    /// pits, the opponent's, the two stores, the position token.
    fn forward(&self, x: Tensor<2>) -> Tensor<3> {
        let pits = self.pits;
        let [b, _] = x.dims();
        let nb = obs::count_bins(pits);
        let device = x.device();
        let obs_w = obs::obs_dim(pits);
        let bins = x
            .clone()
            .narrow(1, obs_w, 2 * pits * nb)
            .reshape([b, 2 * pits, nb]);
        let counts = x.clone().narrow(1, 0, 2 * pits).reshape([b, 2 * pits, 1]);
        let pit_tokens = Tensor::cat(
            vec![bins, counts, Tensor::zeros([b, 2 * pits, 3], &device)],
            2,
        );
        let stores = x.clone().narrow(1, 2 * pits, 2).reshape([b, 2, 1]);
        let store_tokens = Tensor::cat(
            vec![
                Tensor::zeros([b, 2, nb + 1], &device),
                stores,
                Tensor::zeros([b, 2, 2], &device),
            ],
            2,
        );
        let flags = x.narrow(1, 2 * pits + 2, 2).reshape([b, 1, 2]);
        let whole = Tensor::cat(vec![Tensor::zeros([b, 1, nb + 2], &device), flags], 2);
        let tokens = Tensor::cat(vec![pit_tokens, store_tokens, whole], 1);
        let t = token_count(pits);
        let places = Tensor::<1, Int>::arange(0..t as i64, &device).reshape([1, t]);
        let h = self.embed.forward(tokens) + self.place.forward(places);
        let h = self.encoder.forward(TransformerEncoderInput::new(h));
        self.norm.forward(h)
    }
}

/// Network shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Width of every hidden layer.
    pub hidden: usize,
    /// Number of hidden layers.
    pub layers: usize,
    /// Hidden-layer nonlinearity.
    pub activation: Activation,
    /// What the network reads (required: sidecars without it are of networks that read an
    /// encoding no longer kept, and none of them is committed).
    pub input: Input,
    /// How the hidden layers are joined (optional; `plain` when absent).
    #[serde(default)]
    pub block: Block,
    /// A move head: every action's predicted seeds lost against the best move (optional; none
    /// when absent), trained from exact move values; players weigh it [`MOVES_MIX`].
    #[serde(default)]
    pub moves: bool,
    /// A margin distribution in place of the value and margin outputs (optional; none when absent
    /// or 0): this many bins (odd), bin `i` the final margin `(2i / (bins - 1) - 1)` × all seeds,
    /// so all seeds + 1 bins give one bin to every margin a game can end with. The value is then
    /// the chance of a win less that of a loss and the margin the distribution's mean; training
    /// fits the bins by cross-entropy.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub margin_bins: usize,
}

impl NetConfig {
    /// The margin bins of a network for rules of `total` seeds: one for every final margin.
    pub fn margin_bins_for(total: u32) -> usize {
        total as usize + 1
    }

    /// The shape in a few words: `4x512 plain relu, onehot input, move head`.
    pub fn describe(&self) -> String {
        fn word(v: &impl Serialize) -> String {
            serde_json::to_value(v)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        }
        let bins = if self.margin_bins > 0 {
            format!(", {} margin bins", self.margin_bins)
        } else {
            String::new()
        };
        format!(
            "{}x{} {} {}, {} input{}{bins}",
            self.layers,
            self.hidden,
            word(&self.block),
            word(&self.activation),
            word(&self.input),
            if self.moves { ", move head" } else { "" },
        )
    }

    /// Whether its margin bins fit rules of `total` seeds: none, or
    /// [`NetConfig::margin_bins_for`].
    pub fn margin_bins_fit(&self, total: u32) -> bool {
        self.margin_bins == 0 || self.margin_bins == NetConfig::margin_bins_for(total)
    }
}

/// Whether a count is 0 (a field serde leaves out).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
impl NetConfig {
    /// A small plain network with a move head (16 units, 2 layers) for unit tests.
    pub(crate) fn small() -> NetConfig {
        NetConfig {
            hidden: 16,
            layers: 2,
            activation: Activation::Relu,
            input: Input::Onehot,
            block: Block::Plain,
            moves: true,
            margin_bins: 0,
        }
    }
}

/// How much a network's move head weighs at play: the logits a player and the search read are the
/// policy logits minus this times each move's predicted seeds lost. 0: the move head is a training
/// target that shapes the shared layers, and the policy head alone chooses — on the 100,000
/// judge-like held-out positions weights 0.5, 1, 2 and 8 choose no better than 0 and the move
/// head alone worse (`experiments/kalah64-supervised/README.md`); `kalaha judge --moves-mix W`
/// measures another weight.
pub const MOVES_MIX: f32 = 0.0;

/// The policy/value MLP.
#[derive(Module, Debug)]
pub struct Net {
    trunk: Vec<Linear>,
    /// Layer norms of the residual blocks and the final one (empty for plain networks).
    norms: Vec<LayerNorm>,
    /// `m + 1` logits; for [`Block::Transformer`] one logit per token.
    policy: Linear,
    /// Two outputs, value and margin, each through tanh; or the logits of
    /// [`NetConfig::margin_bins`] bins of final margins.
    value: Linear,
    /// Every action's seeds lost against the best move (`m + 1` outputs; one per token for
    /// [`Block::Transformer`]), if the network has a move head.
    moves: Option<Linear>,
    /// The transformer trunk ([`Block::Transformer`] only).
    board: Option<Board>,
    #[module(skip)]
    activation: Activation,
    #[module(skip)]
    input: Input,
    /// Bins of the margin distribution (0: tanh value and margin).
    #[module(skip)]
    margin_bins: usize,
}

/// What one forward pass gives.
pub struct NetOutput {
    /// `[batch, m + 1]` raw logits.
    pub logits: Tensor<2>,
    /// `[batch, 1]` expected result in [-1, 1].
    pub value: Tensor<2>,
    /// `[batch, 1]` expected margin / all seeds, in [-1, 1].
    pub margin: Tensor<2>,
    /// `[batch, m + 1]` each action's predicted seeds lost against the best move (move head).
    pub lost: Option<Tensor<2>>,
    /// `[batch, bins]` raw logits of the final margin's distribution
    /// ([`NetConfig::margin_bins`]), if the network has one.
    pub margin_logits: Option<Tensor<2>>,
}

/// Outputs of the value head of a network of shape `cfg`: its margin bins, or value and margin.
fn value_outputs_of(cfg: &NetConfig) -> usize {
    match cfg.margin_bins {
        0 => 2,
        bins => bins,
    }
}

/// The value, the margin and (with bins) the margin distribution's logits that a value head's
/// raw outputs `out` give.
fn value_outputs(out: Tensor<2>, bins: usize) -> (Tensor<2>, Tensor<2>, Option<Tensor<2>>) {
    if bins == 0 {
        let heads = activation::tanh(out);
        return (heads.clone().narrow(1, 0, 1), heads.narrow(1, 1, 1), None);
    }
    let device = out.device();
    let row = |f: &dyn Fn(usize) -> f32| {
        Tensor::<1>::from_data(TensorData::new((0..bins).map(f).collect(), [bins]), &device)
            .reshape([1, bins])
    };
    let last = (bins - 1) as f32;
    let centres = row(&|i| 2.0 * i as f32 / last - 1.0);
    let centre = bins / 2;
    let signs = row(&|i| (i as i64 - centre as i64).signum() as f32);
    let p = activation::softmax(out.clone(), 1);
    // Clamped: sums of chances may pass 1 by a rounding.
    let margin = (p.clone() * centres).sum_dim(1).clamp(-1.0, 1.0);
    let value = (p * signs).sum_dim(1).clamp(-1.0, 1.0);
    (value, margin, Some(out))
}

impl Net {
    /// A freshly initialised network for `pits` pits per side.
    pub fn new(cfg: &NetConfig, pits: usize, device: &Device) -> Net {
        let mut trunk = Vec::with_capacity(2 * cfg.layers + 1);
        let mut norms = Vec::new();
        let mut width = cfg.input.width(pits);
        let h = cfg.hidden;
        let mut board = None;
        let mut outputs = pits + 1;
        match cfg.block {
            Block::Plain => {
                for _ in 0..cfg.layers {
                    trunk.push(LinearConfig::new(width, h).init(device));
                    width = h;
                }
            }
            Block::Residual => {
                trunk.push(LinearConfig::new(width, h).init(device));
                for _ in 0..cfg.layers {
                    norms.push(LayerNormConfig::new(h).init(device));
                    trunk.push(LinearConfig::new(h, h).init(device));
                    trunk.push(LinearConfig::new(h, h).init(device));
                }
                norms.push(LayerNormConfig::new(h).init(device));
                width = h;
            }
            Block::Transformer => {
                board = Some(Board::new(h, cfg.layers, pits, device));
                width = h;
                outputs = 1;
            }
        }
        Net {
            trunk,
            norms,
            policy: LinearConfig::new(width, outputs).init(device),
            value: LinearConfig::new(width, value_outputs_of(cfg)).init(device),
            moves: cfg
                .moves
                .then(|| LinearConfig::new(width, outputs).init(device)),
            board,
            activation: cfg.activation,
            input: cfg.input,
            margin_bins: cfg.margin_bins,
        }
    }

    /// What the network reads.
    pub fn input(&self) -> Input {
        self.input
    }

    /// Whether the network has a move head.
    pub fn has_moves(&self) -> bool {
        self.moves.is_some()
    }

    /// The network without its move head (a start for training a network that has none).
    pub fn without_moves(mut self) -> Net {
        self.moves = None;
        self
    }

    /// The network with a freshly initialised move head if it has none (a start for training
    /// one on a network trained without).
    pub fn with_moves(mut self, cfg: &NetConfig, pits: usize, device: &Device) -> Net {
        if self.moves.is_none() {
            let fresh = Net::new(
                &NetConfig {
                    moves: true,
                    ..*cfg
                },
                pits,
                device,
            );
            self.moves = fresh.moves;
        }
        self
    }

    /// One forward pass over a `[batch, inputs]` observation tensor.
    pub fn forward(&self, x: Tensor<2>) -> NetOutput {
        let act = |h: Tensor<2>| match self.activation {
            Activation::Relu => activation::relu(h),
            Activation::Gelu => activation::gelu(h),
            Activation::Silu => activation::silu(h),
            Activation::Tanh => activation::tanh(h),
        };
        if let Some(board) = &self.board {
            let m = board.pits;
            let h = board.forward(x);
            let [b, t, d] = h.dims();
            let whole = h.clone().narrow(1, t - 1, 1).reshape([b, d]);
            let mine = h.narrow(1, 0, m);
            let per_token = |head: &Linear| {
                let pits = head.forward(mine.clone()).reshape([b, m]);
                Tensor::cat(vec![pits, head.forward(whole.clone())], 1)
            };
            let logits = per_token(&self.policy);
            let lost = self.moves.as_ref().map(per_token);
            let (value, margin, margin_logits) =
                value_outputs(self.value.forward(whole), self.margin_bins);
            return NetOutput {
                logits,
                value,
                margin,
                lost,
                margin_logits,
            };
        }
        let mut h = x;
        if self.norms.is_empty() {
            for layer in &self.trunk {
                h = act(layer.forward(h));
            }
        } else {
            h = self.trunk[0].forward(h);
            for (b, norm) in self.norms[..self.norms.len() - 1].iter().enumerate() {
                let r = act(self.trunk[1 + 2 * b].forward(norm.forward(h.clone())));
                h = h + self.trunk[2 + 2 * b].forward(r);
            }
            h = act(self.norms[self.norms.len() - 1].forward(h));
        }
        let logits = self.policy.forward(h.clone());
        let lost = self.moves.as_ref().map(|head| head.forward(h.clone()));
        let (value, margin, margin_logits) = value_outputs(self.value.forward(h), self.margin_bins);
        NetOutput {
            logits,
            value,
            margin,
            lost,
            margin_logits,
        }
    }

    /// The logits a player reads: the policy logits minus `mix` times each move's predicted seeds
    /// lost (the policy logits alone without a move head or with `mix` 0).
    pub fn play_logits(&self, out: NetOutput, mix: f32) -> Tensor<2> {
        match out.lost {
            Some(lost) if mix != 0.0 => out.logits - lost.mul_scalar(mix),
            _ => out.logits,
        }
    }
}

/// Calls a network (without autodiff) on batches of positions for the search.
pub struct NetEvaluator {
    net: Net,
    device: Device,
    /// Weight of the move head in the logits ([`Net::play_logits`]).
    mix: f32,
    /// Positions evaluated so far.
    pub evaluated: u64,
}

impl NetEvaluator {
    /// Wraps a network; `net` should be a validation copy (`Module::valid`).
    pub fn new(net: Net, device: Device) -> NetEvaluator {
        NetEvaluator {
            net,
            device,
            mix: MOVES_MIX,
            evaluated: 0,
        }
    }

    /// Wraps a network on the CPU (burn's flex backend), as players run it.
    pub fn cpu(net: Net) -> NetEvaluator {
        NetEvaluator::new(net, Device::flex())
    }

    /// The same evaluator with the move head weighed `mix` in its logits (0: policy alone).
    pub fn with_moves_mix(mut self, mix: f32) -> NetEvaluator {
        self.mix = mix;
        self
    }

    /// The wrapped network.
    pub fn net(&self) -> &Net {
        &self.net
    }
}

impl Evaluator for NetEvaluator {
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
        if positions.is_empty() {
            return;
        }
        let x = self.net.input.batch(positions, &self.device);
        let out = self.net.forward(x);
        let (value, margin) = (out.value.clone(), out.margin.clone());
        logits.extend(
            self.net
                .play_logits(out, self.mix)
                .into_data()
                .try_into_vec::<f32>()
                .expect("f32 logits"),
        );
        values.extend(value.into_data().try_into_vec::<f32>().expect("f32 values"));
        margins.extend(
            margin
                .into_data()
                .try_into_vec::<f32>()
                .expect("f32 margins"),
        );
        self.evaluated += positions.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn observation_is_from_the_movers_view() {
        let rules = Rules::kalah64();
        let pos = Position::parse("0,1,2,3,4,5,6/7,8,9,10,11,12,0 n", &rules)
            .unwrap_or_else(|_| Position::parse("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", &rules).unwrap());
        let mut o = vec![0.0; Input::Counts.width(6)];
        Input::Counts.encode(&pos, &mut o);
        let (me, per_seed) = (pos.to_move(), 1.0 / 48.0);
        assert_eq!(o[0], pos.pit(me, 1) as f32 * per_seed);
        assert_eq!(o[6], pos.pit(me.other(), 1) as f32 * per_seed);
        assert_eq!(o[12], pos.store(me) as f32 * per_seed);
    }

    /// The input is named, never assumed: the old default (`legacy`, which no committed network
    /// reads) is gone, and a shape without an input is refused rather than read as another.
    #[test]
    fn a_network_shape_names_its_input() {
        let shape = |input: &str| {
            serde_json::from_str::<NetConfig>(&format!(
                r#"{{"hidden": 16, "layers": 1, "activation": "relu"{input}}}"#
            ))
        };
        assert_eq!(
            shape(r#", "input": "onehot""#).unwrap().input,
            Input::Onehot
        );
        let e = shape("").unwrap_err().to_string();
        assert!(e.contains("missing field `input`"), "{e}");
        let e = shape(r#", "input": "legacy""#).unwrap_err().to_string();
        assert!(e.contains("unknown variant `legacy`"), "{e}");
    }

    /// A small network of each `block` reading one-hot pit counts.
    fn small(block: Block) -> NetConfig {
        NetConfig {
            hidden: 16,
            layers: 2,
            activation: Activation::Relu,
            input: Input::Onehot,
            block,
            moves: true,
            margin_bins: 0,
        }
    }

    #[test]
    fn forward_shapes_and_ranges() {
        let device = Device::flex();
        let pos = [Position::start(&Rules::kalah64()); 5];
        for block in [Block::Plain, Block::Residual, Block::Transformer] {
            let net = Net::new(&small(block), 6, &device);
            let mut ev = NetEvaluator::new(net, device.clone());
            let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
            ev.evaluate(&pos, &mut l, &mut v, &mut m);
            assert_eq!((l.len(), v.len(), m.len()), (5 * 7, 5, 5), "{block:?}");
            assert!(l.iter().all(|x| x.is_finite()), "{block:?}");
            assert!(v.iter().chain(&m).all(|x| x.abs() <= 1.0), "{block:?}");
            let x = Input::Onehot.batch(&pos, &device);
            let lost = ev.net().forward(x).lost.expect("a move head");
            assert_eq!(lost.dims(), [5, 7], "{block:?}");
        }
    }

    /// With margin bins, the value is the chance of a win less that of a loss and the margin the
    /// distribution's mean: all weight on the draw bin reads 0 and 0, on the next bin up a win by
    /// one margin step, and half on each a half win.
    #[test]
    fn a_margin_distribution_gives_the_value_and_the_margin() {
        let device = Device::flex();
        let bins = 49;
        let row = |hot: &[(usize, f32)]| {
            let mut v = vec![-1e4f32; bins];
            for &(i, p) in hot {
                v[i] = p.ln();
            }
            v
        };
        let rows = [
            row(&[(24, 1.0)]),
            row(&[(25, 1.0)]),
            row(&[(24, 0.5), (25, 0.5)]),
            row(&[(0, 1.0)]),
        ];
        let x = Tensor::<2>::from_data(TensorData::new(rows.concat(), [4, bins]), &device);
        let (value, margin, logits) = value_outputs(x, bins);
        let read = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
        let (v, m) = (read(value), read(margin));
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(&v, &[0.0, 1.0, 0.5, -1.0]), "{v:?}");
        assert!(close(&m, &[0.0, 2.0 / 48.0, 1.0 / 48.0, -1.0]), "{m:?}");
        assert_eq!(logits.expect("the bins' logits").dims(), [4, bins]);
        // Every block reads the same way, and without bins there are no bin logits.
        for block in [Block::Plain, Block::Residual, Block::Transformer] {
            let cfg = NetConfig {
                margin_bins: bins,
                ..small(block)
            };
            let out = Net::new(&cfg, 6, &device)
                .forward(Input::Onehot.batch(&[Position::start(&Rules::kalah64()); 3], &device));
            assert_eq!(
                out.margin_logits.expect("bins").dims(),
                [3, bins],
                "{block:?}"
            );
            let v = read(out.value);
            assert!(v.iter().all(|x| x.abs() <= 1.0), "{block:?} {v:?}");
            let plain = Net::new(&small(block), 6, &device)
                .forward(Input::Onehot.batch(&[Position::start(&Rules::kalah64())], &device));
            assert!(plain.margin_logits.is_none(), "{block:?}");
        }
    }

    /// A transformer's pit logits come from the pits' own tokens: a different count in one of the
    /// mover's pits changes the logits, and equal positions give equal outputs in any batch.
    #[test]
    fn transformer_reads_the_board() {
        let device = Device::flex();
        let cfg = small(Block::Transformer);
        let mut ev = NetEvaluator::new(Net::new(&cfg, 6, &device), device);
        let rules = Rules::kalah64();
        let a = Position::start(&rules);
        let b = Position::parse("4,4,4,4,5,3,0/4,4,4,4,4,4,0 s", &rules).unwrap();
        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
        ev.evaluate(&[a, b, a], &mut l, &mut v, &mut m);
        assert_eq!(l[..7], l[14..21]);
        assert_ne!(l[..7], l[7..14]);
    }
}
