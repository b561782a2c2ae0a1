//! A trained network made wider without changing what it computes (Net2WiderNet, Chen et al.
//! 2016): the start of a wider run (`run.init` with a larger `network.hidden`), so that a
//! capacity experiment continues from what the narrow network learned instead of from scratch.
//!
//! Every hidden layer keeps its old units and gains fresh ones; a fresh unit's incoming weights and
//! bias are freshly initialised, its outgoing weights (in the next layer and in every head) are
//! zero. The wider network therefore gives exactly the old outputs, and training grows the new
//! units from there: their outgoing weights get gradients at once, their incoming ones as soon as
//! the outgoing ones are no longer zero.

use anyhow::bail;
use burn::module::Param;
use burn::nn::Linear;
use burn::prelude::*;

use super::export::values;
use super::{Block, Net, NetConfig};

impl Net {
    /// This network widened to `cfg.hidden` units a layer, computing the same outputs; `cfg` must
    /// be its own shape but for the width (and a move head, which is kept or added fresh as
    /// [`Net::with_moves`] does). Plain MLPs only.
    pub fn widen(
        self,
        from: &NetConfig,
        cfg: &NetConfig,
        pits: usize,
        device: &Device,
    ) -> anyhow::Result<Net> {
        let same = NetConfig {
            hidden: from.hidden,
            moves: from.moves,
            ..*cfg
        };
        if same != *from {
            bail!("a network of {from:?} cannot be widened to {cfg:?}: only the width may change");
        }
        if from.block != Block::Plain {
            bail!(
                "only plain networks can be widened (this one is {:?})",
                from.block
            );
        }
        if cfg.hidden < from.hidden {
            bail!(
                "network.hidden {} is narrower than the network's {}: a network can be widened, not narrowed",
                cfg.hidden,
                from.hidden
            );
        }
        let old = if cfg.moves {
            self.with_moves(from, pits, device)
        } else {
            self.without_moves()
        };
        let fresh = Net::new(cfg, pits, device);
        let trunk = old
            .trunk
            .iter()
            .zip(&fresh.trunk)
            .map(|(o, f)| grow(o, f, device))
            .collect();
        Ok(Net {
            trunk,
            norms: Vec::new(),
            policy: grow(&old.policy, &fresh.policy, device),
            value: grow(&old.value, &fresh.value, device),
            moves: match (&old.moves, &fresh.moves) {
                (Some(o), Some(f)) => Some(grow(o, f, device)),
                _ => None,
            },
            board: None,
            activation: cfg.activation,
            input: cfg.input,
            margin_bins: cfg.margin_bins,
        })
    }
}

/// `fresh` (the wider layer) with `old`'s weights and biases in place: `old`'s inputs and outputs
/// carry the old values, inputs beyond them (the new units of the layer below) weigh zero, new
/// outputs keep their fresh initialisation.
fn grow(old: &Linear, fresh: &Linear, device: &Device) -> Linear {
    let [oi, oo] = old.weight.val().dims();
    let [fi, fo] = fresh.weight.val().dims();
    let (w_old, mut w) = (values(&old.weight), values(&fresh.weight));
    for (row, old_row) in w.chunks_exact_mut(fo).zip(w_old.chunks_exact(oo)) {
        row[..oo].copy_from_slice(old_row);
    }
    w[oi * fo..].fill(0.0);
    let weight = Param::from_tensor(Tensor::from_data(TensorData::new(w, [fi, fo]), device));
    let bias = match (&old.bias, &fresh.bias) {
        (Some(ob), Some(fb)) => {
            let mut b = values(fb);
            b[..oo].copy_from_slice(&values(ob));
            Some(Param::from_tensor(Tensor::from_data(
                TensorData::new(b, [fo]),
                device,
            )))
        }
        _ => None,
    };
    Linear { weight, bias }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{Activation, Input, NetEvaluator};
    use crate::rules::{Position, Rules};
    use crate::search::Evaluator;

    fn shape(hidden: usize, block: Block) -> NetConfig {
        NetConfig {
            hidden,
            layers: 3,
            activation: Activation::Relu,
            input: Input::Onehot,
            block,
            moves: true,
            margin_bins: 0,
        }
    }

    /// `net` (of `shape(from, to.block)`) widened to `to`, six pits a side.
    fn widened(net: Net, from: usize, to: NetConfig) -> anyhow::Result<Net> {
        net.widen(&shape(from, to.block), &to, 6, &Device::flex())
    }

    fn outputs(net: Net, positions: &[Position]) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
        let x = net.input().batch(positions, &Device::flex());
        let lost = net.forward(x).lost.expect("a move head");
        let lost = lost.into_data().try_into_vec::<f32>().unwrap();
        let mut ev = NetEvaluator::cpu(net);
        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
        ev.evaluate(positions, &mut l, &mut v, &mut m);
        (l, v, m, lost)
    }

    /// The widened network computes what the narrow one did, and its hidden layers are the wider
    /// ones.
    #[test]
    fn widening_keeps_every_output() {
        let device = Device::flex();
        let rules = Rules::kalah64();
        let positions = [
            Position::start(&rules),
            Position::parse("0,1,2,3,4,5,6/7,0,0,1,2,3,14 n", &rules).unwrap(),
            Position::parse("1,0,0,0,0,9,20/0,2,0,0,3,0,13 s", &rules).unwrap(),
        ];
        let narrow = Net::new(&shape(16, Block::Plain), 6, &device);
        let before = outputs(narrow.clone(), &positions);
        let wide = widened(narrow, 16, shape(40, Block::Plain)).unwrap();
        assert_eq!(wide.trunk[1].weight.val().dims(), [40, 40]);
        let after = outputs(wide, &positions);
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(
            close(&before.0, &after.0),
            "logits {:?} {:?}",
            before.0,
            after.0
        );
        assert!(close(&before.1, &after.1) && close(&before.2, &after.2));
        assert!(close(&before.3, &after.3), "move head");
    }

    #[test]
    fn only_the_width_of_a_plain_network_may_grow() {
        let device = Device::flex();
        let net = || Net::new(&shape(16, Block::Plain), 6, &device);
        let e = widened(net(), 16, shape(8, Block::Plain)).unwrap_err();
        assert!(e.to_string().contains("narrower"), "{e}");
        let deeper = NetConfig {
            layers: 4,
            ..shape(32, Block::Plain)
        };
        let e = widened(net(), 16, deeper).unwrap_err();
        assert!(e.to_string().contains("only the width"), "{e}");
        let res = Net::new(&shape(16, Block::Residual), 6, &device);
        let e = widened(res, 16, shape(32, Block::Residual)).unwrap_err();
        assert!(e.to_string().contains("plain"), "{e}");
    }
}
