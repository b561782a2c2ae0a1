//! A network read from outside burn: what it reads, computed from the environment's observation
//! alone, and its weights as named arrays in PyTorch's layout (for numpy and PyTorch users).
//!
//! The observation ([`crate::env::obs`]) holds every count divided by all seeds, so the counts,
//! and from them each encoding but `lookahead` (which plays every move), come back exactly.

use anyhow::{Context, bail, ensure};
use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::prelude::*;
use serde::Serialize;

use super::{Activation, Block, Input, Net, NetOutput};
use crate::env::obs;
use crate::rules::Rules;

/// One weight array: its name in PyTorch's `state_dict` convention, shape and values (row-major).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NamedArray {
    /// `trunk.0.weight`, `policy.bias`, `norms.1.weight`, ...
    pub name: String,
    /// Shape; a linear layer's weight is `[outputs, inputs]`, as `torch.nn.Linear` holds it.
    pub shape: Vec<usize>,
    /// Values, row-major.
    pub data: Vec<f32>,
}

impl Input {
    /// Writes what a network of this input reads into `out` (length [`Input::width`]) from `o`, an
    /// observation of `rules` as the environment writes it ([`obs::encode`]); the same floats as
    /// [`Input::encode`] of the position observed. Errors name what is wrong: a length that is not
    /// the rules' `2m + 4`, a count that is not a whole number of seeds, or the `lookahead` input
    /// (it plays the moves, so it needs the position).
    pub fn encode_obs(self, o: &[f32], rules: &Rules, out: &mut [f32]) -> anyhow::Result<()> {
        let m = rules.pits();
        ensure!(
            o.len() == obs::obs_dim(m),
            "an observation of {} has {} floats, not {}",
            rules.describe(),
            obs::obs_dim(m),
            o.len()
        );
        ensure!(
            out.len() == self.width(m),
            "the network reads {} floats, the buffer holds {}",
            self.width(m),
            out.len()
        );
        let total = rules.total_seeds();
        let mut counts = [0u32; 2 * crate::rules::MAX_PITS as usize + 2];
        for (i, (&x, c)) in o[..2 * m + 2].iter().zip(&mut counts).enumerate() {
            let seeds = x as f64 * total as f64;
            let whole = seeds.round();
            ensure!(
                x.is_finite()
                    && whole >= 0.0
                    && whole <= total as f64
                    && (seeds - whole).abs() < 1e-3,
                "observation entry {i} is {x}: not a seed count divided by all {total} seeds (is it an observation of {}?)",
                rules.describe()
            );
            *c = whole as u32;
        }
        let flags = [o[2 * m + 2], o[2 * m + 3]];
        ensure!(
            flags.iter().all(|&f| f == 0.0 || f == 1.0),
            "observation entries {} and {} are pie-rule flags, 0 or 1, not {} and {}",
            2 * m + 2,
            2 * m + 3,
            flags[0],
            flags[1]
        );
        match self {
            Input::Counts | Input::Onehot | Input::OnehotWide => {
                let scale = 1.0 / total as f32;
                let (base, bins) = out.split_at_mut(obs::obs_dim(m));
                for (x, &c) in base.iter_mut().zip(&counts[..2 * m + 2]) {
                    *x = c as f32 * scale;
                }
                base[2 * m + 2..].copy_from_slice(&flags);
                let nb = match self {
                    Input::Onehot => obs::count_bins(m),
                    Input::OnehotWide => obs::wide_count_bins(m),
                    _ => return Ok(()),
                };
                bins.fill(0.0);
                for (j, &c) in counts[..2 * m].iter().enumerate() {
                    bins[j * nb + (c as usize).min(nb - 1)] = 1.0;
                }
            }
            Input::Lookahead => bail!(
                "a lookahead network reads what every move does, which an observation does not hold: give it positions"
            ),
        }
        Ok(())
    }

    /// Its name in checkpoints and configs.
    pub fn name(self) -> &'static str {
        match self {
            Input::Counts => "counts",
            Input::Onehot => "onehot",
            Input::Lookahead => "lookahead",
            Input::OnehotWide => "onehot_wide",
        }
    }
}

impl Activation {
    /// Its name in checkpoints and configs.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Gelu => "gelu",
            Activation::Silu => "silu",
            Activation::Tanh => "tanh",
        }
    }
}

/// The values of a parameter tensor.
pub(super) fn values<const D: usize>(p: &Param<Tensor<D>>) -> Vec<f32> {
    p.val()
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32 parameters")
}

/// A linear layer's weight (transposed to `[outputs, inputs]`) and bias.
fn linear(name: &str, l: &Linear, out: &mut Vec<NamedArray>) {
    let [inputs, outputs] = l.weight.val().dims();
    let w = values(&l.weight);
    let mut t = vec![0.0; w.len()];
    for i in 0..inputs {
        for o in 0..outputs {
            t[o * inputs + i] = w[i * outputs + o];
        }
    }
    out.push(NamedArray {
        name: format!("{name}.weight"),
        shape: vec![outputs, inputs],
        data: t,
    });
    if let Some(b) = &l.bias {
        out.push(NamedArray {
            name: format!("{name}.bias"),
            shape: vec![outputs],
            data: values(b),
        });
    }
}

/// A layer norm's scale and shift.
fn norm(name: &str, n: &LayerNorm, out: &mut Vec<NamedArray>) {
    let gamma = values(&n.gamma);
    let len = gamma.len();
    out.push(NamedArray {
        name: format!("{name}.weight"),
        shape: vec![len],
        data: gamma,
    });
    out.push(NamedArray {
        name: format!("{name}.bias"),
        shape: vec![len],
        data: n.beta.as_ref().map_or(vec![0.0; len], values),
    });
}

/// Epsilon of the residual blocks' layer norms (burn's default).
pub const NORM_EPSILON: f64 = 1e-5;

impl Net {
    /// How the hidden layers are joined.
    pub fn block(&self) -> Block {
        if self.board.is_some() {
            Block::Transformer
        } else if self.norms.is_empty() {
            Block::Plain
        } else {
            Block::Residual
        }
    }

    /// The hidden-layer nonlinearity.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Every weight, named as a PyTorch module of the same layout holds it: `trunk.{i}` linear
    /// layers, `norms.{i}` layer norms (residual networks), the `policy`, `value` and `moves`
    /// heads. A plain network computes `h = act(trunk.i(h))` layer by layer; a residual one `h =
    /// trunk.0(x)`, then for each block `b` `h += trunk.{2b+2}(act(trunk.{2b+1}(norms.b(h))))`,
    /// then `h = act(norms.last(h))`. Heads: logits `policy(h)`, `tanh(value(h))` = (value,
    /// margin) or, with margin bins, `softmax(value(h))` over the bins (value: the chances above
    /// the middle bin less those below; margin: the mean of the bins' margins), move head
    /// `moves(h)`. Transformer networks are not exported.
    pub fn named_weights(&self) -> anyhow::Result<Vec<NamedArray>> {
        if self.board.is_some() {
            bail!("a transformer network cannot be exported (plain and residual networks can)");
        }
        let mut out = Vec::new();
        for (i, l) in self.trunk.iter().enumerate() {
            linear(&format!("trunk.{i}"), l, &mut out);
        }
        for (i, n) in self.norms.iter().enumerate() {
            norm(&format!("norms.{i}"), n, &mut out);
        }
        linear("policy", &self.policy, &mut out);
        linear("value", &self.value, &mut out);
        if let Some(m) = &self.moves {
            linear("moves", m, &mut out);
        }
        Ok(out)
    }

    /// One forward pass over `n` rows of [`Input::width`] floats (what the network reads), on
    /// the CPU: logits, value, margin and (if any) each move's predicted seeds lost, each
    /// flattened row by row.
    pub fn forward_rows(&self, x: Vec<f32>, n: usize) -> anyhow::Result<Rows> {
        let width = x.len().checked_div(n).unwrap_or(0);
        ensure!(
            n > 0 && width * n == x.len(),
            "{} inputs do not make {n} rows",
            x.len()
        );
        let device = Device::flex();
        let out: NetOutput =
            self.forward(Tensor::from_data(TensorData::new(x, [n, width]), &device));
        let vec = |t: Tensor<2>| {
            t.into_data()
                .try_into_vec::<f32>()
                .context("the network's outputs are not f32")
        };
        Ok(Rows {
            logits: vec(out.logits)?,
            value: vec(out.value)?,
            margin: vec(out.margin)?,
            lost: out.lost.map(vec).transpose()?,
        })
    }
}

/// A forward pass's outputs, row by row.
#[derive(Clone, Debug)]
pub struct Rows {
    /// `[n, m + 1]` policy logits.
    pub logits: Vec<f32>,
    /// `[n]` values in [-1, 1].
    pub value: Vec<f32>,
    /// `[n]` margins / all seeds in [-1, 1].
    pub margin: Vec<f32>,
    /// `[n, m + 1]` the move head's seeds lost, if the network has one.
    pub lost: Option<Vec<f32>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::rng::stream;
    use crate::rules::{Position, Rules};
    use rand::RngExt;

    /// Positions of random games under `rules`, every ply of each.
    fn positions(rules: &Rules, games: u64) -> Vec<Position> {
        let mut out = Vec::new();
        for g in 0..games {
            let mut rng = stream(g, 0);
            let mut pos = Position::start(rules);
            while !pos.is_over() {
                out.push(pos);
                let moves: Vec<crate::rules::Move> = pos.legal_moves().iter().collect();
                let mv = moves[rng.random_range(0..moves.len())];
                pos = pos.after(mv).expect("a legal move").0;
            }
        }
        out
    }

    /// From the observation alone, every input but `lookahead` is exactly what the network
    /// reads of the position, under several rule sets (the pie rule's flags included).
    #[test]
    fn encoding_from_the_observation_is_exact() {
        for rules in [
            Rules::kalah64(),
            crate::rules::RuleChoices::<&str> {
                pits: Some(4),
                seeds: Some(3),
                pie: Some(true),
                ..Default::default()
            }
            .build()
            .unwrap(),
            crate::rules::RuleChoices {
                preset: Some("swedish"),
                ..Default::default()
            }
            .build()
            .unwrap(),
        ] {
            let m = rules.pits();
            for pos in positions(&rules, 20) {
                let mut o = vec![0.0; obs::obs_dim(m)];
                obs::encode(&pos, &mut o);
                for input in [Input::Counts, Input::Onehot, Input::OnehotWide] {
                    let (mut a, mut b) = (vec![0.0; input.width(m)], vec![9.0; input.width(m)]);
                    input.encode(&pos, &mut a);
                    input.encode_obs(&o, &rules, &mut b).unwrap();
                    assert_eq!(a, b, "{input:?} {pos}");
                }
            }
        }
    }

    #[test]
    fn bad_observations_are_errors() {
        let rules = Rules::kalah64();
        let mut out = vec![0.0; Input::Onehot.width(6)];
        let mut o = vec![0.0; obs::obs_dim(6)];
        obs::encode(&Position::start(&rules), &mut o);
        let e = Input::Onehot
            .encode_obs(&o[1..], &rules, &mut out)
            .unwrap_err();
        assert!(e.to_string().contains("has 16 floats, not 15"), "{e}");
        let mut bad = o.clone();
        bad[3] = 0.1;
        let e = Input::Onehot
            .encode_obs(&bad, &rules, &mut out)
            .unwrap_err();
        assert!(e.to_string().contains("entry 3 is 0.1"), "{e}");
        let mut bad = o.clone();
        bad[15] = 0.5;
        assert!(Input::Onehot.encode_obs(&bad, &rules, &mut out).is_err());
        let mut look = vec![0.0; Input::Lookahead.width(6)];
        let e = Input::Lookahead
            .encode_obs(&o, &rules, &mut look)
            .unwrap_err();
        assert!(e.to_string().contains("give it positions"), "{e}");
    }

    /// The exported weights, run by a plain re-implementation of the documented forward pass,
    /// give the network's own outputs (plain and residual networks, with a move head).
    #[test]
    fn named_weights_reproduce_the_forward_pass() {
        let device = Device::flex();
        let rules = Rules::kalah64();
        let pos = positions(&rules, 2);
        for block in [Block::Plain, Block::Residual] {
            let cfg = super::super::NetConfig {
                hidden: 16,
                layers: 2,
                activation: Activation::Tanh,
                input: Input::Onehot,
                block,
                moves: true,
                margin_bins: 0,
            };
            let net = Net::new(&cfg, 6, &device);
            let w = net.named_weights().unwrap();
            let get = |name: &str| {
                w.iter()
                    .find(|a| a.name == name)
                    .unwrap_or_else(|| panic!("{name}"))
            };
            let lin = |name: &str, x: &[f32]| {
                let (wt, b) = (get(&format!("{name}.weight")), get(&format!("{name}.bias")));
                let (o, i) = (wt.shape[0], wt.shape[1]);
                (0..o)
                    .map(|r| b.data[r] + (0..i).map(|c| wt.data[r * i + c] * x[c]).sum::<f32>())
                    .collect::<Vec<f32>>()
            };
            let ln = |name: &str, x: &[f32]| {
                let n = x.len() as f32;
                let mean = x.iter().sum::<f32>() / n;
                let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
                let (g, b) = (get(&format!("{name}.weight")), get(&format!("{name}.bias")));
                x.iter()
                    .enumerate()
                    .map(|(k, v)| {
                        (v - mean) / (var + NORM_EPSILON as f32).sqrt() * g.data[k] + b.data[k]
                    })
                    .collect::<Vec<f32>>()
            };
            let act = |x: Vec<f32>| x.into_iter().map(f32::tanh).collect::<Vec<f32>>();
            let k = Input::Onehot.width(6);
            let mut x = vec![0.0; pos.len() * k];
            for (p, row) in pos.iter().zip(x.chunks_exact_mut(k)) {
                Input::Onehot.encode(p, row);
            }
            let rows = net.forward_rows(x.clone(), pos.len()).unwrap();
            for (r, row) in x.chunks_exact(k).enumerate() {
                let h = match block {
                    Block::Plain => act(lin("trunk.1", &act(lin("trunk.0", row)))),
                    _ => {
                        let mut h = lin("trunk.0", row);
                        for b in 0..2 {
                            let inner = act(lin(
                                &format!("trunk.{}", 2 * b + 1),
                                &ln(&format!("norms.{b}"), &h),
                            ));
                            let add = lin(&format!("trunk.{}", 2 * b + 2), &inner);
                            h.iter_mut().zip(add).for_each(|(a, d)| *a += d);
                        }
                        act(ln("norms.2", &h))
                    }
                };
                let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
                let logits = lin("policy", &h);
                let heads = lin("value", &h);
                let lost = lin("moves", &h);
                for a in 0..7 {
                    assert!(close(logits[a], rows.logits[r * 7 + a]), "{block:?} logit");
                    assert!(
                        close(lost[a], rows.lost.as_ref().unwrap()[r * 7 + a]),
                        "{block:?} lost"
                    );
                }
                assert!(close(heads[0].tanh(), rows.value[r]), "{block:?} value");
                assert!(close(heads[1].tanh(), rows.margin[r]), "{block:?} margin");
            }
        }
        let t = Net::new(
            &super::super::NetConfig {
                hidden: 16,
                layers: 1,
                activation: Activation::Relu,
                input: Input::Onehot,
                block: Block::Transformer,
                moves: false,
                margin_bins: 0,
            },
            6,
            &device,
        );
        assert!(t.named_weights().is_err());
    }
}
