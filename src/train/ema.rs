//! The moving average of a run's weights (`optim.ema_decay`; Polyak averaging): after every
//! gradient step each averaged weight moves `1 - decay` of the way to the trained one, so it
//! averages roughly the last `1 / (1 - decay)` steps and carries less of their noise than the
//! trained weights do. With it, the network a checkpoint holds as its model (the one evaluated,
//! released and played) is the average; self-play and the gradient steps use the trained weights,
//! which the checkpoint keeps beside it (`Files::training`) so that `--resume` goes on exactly.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::prelude::*;

use crate::nn::Net;

/// The moving average of a network's weights.
pub(super) struct Ema {
    /// The average, off the autodiff device.
    net: Net,
    /// The share of the average kept at each step.
    decay: f64,
}

impl Ema {
    /// An average starting at `start`'s weights.
    pub fn new(start: &Net, decay: f64) -> Ema {
        Ema {
            net: start.valid(),
            decay,
        }
    }

    /// The averaged network (on the inner device: for evaluation and saving, not training).
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// Moves the average towards `trained`'s weights (a network of the same shape).
    pub fn update(&mut self, trained: &Net) {
        let mut weights = Collect(Vec::new());
        trained.visit(&mut weights);
        let mut lerp = Lerp {
            trained: weights.0.into_iter(),
            keep: self.decay,
        };
        self.net = self.net.clone().map(&mut lerp);
    }
}

/// Every float parameter's value, flattened, off the autodiff graph, in visiting order.
struct Collect(Vec<Tensor<1>>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val().inner();
        let n = t.dims().iter().product::<usize>();
        self.0.push(t.reshape([n]));
    }
}

/// `avg <- keep * avg + (1 - keep) * trained`, parameter by parameter in visiting order.
struct Lerp {
    trained: std::vec::IntoIter<Tensor<1>>,
    keep: f64,
}

impl ModuleMapper for Lerp {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let Some(trained) = self.trained.next() else {
            return param;
        };
        let keep = self.keep;
        param.map(|avg| {
            let dims = avg.dims();
            avg.mul_scalar(keep) + trained.reshape(dims).mul_scalar(1.0 - keep)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::{NetConfig, NetEvaluator};
    use crate::rules::{Position, Rules};
    use crate::search::Evaluator;

    fn net(seed: u64, device: &Device) -> Net {
        device.seed(seed);
        Net::new(&NetConfig::small(), 6, device)
    }

    fn weights(net: &Net) -> Vec<f32> {
        let mut c = Collect(Vec::new());
        net.visit(&mut c);
        c.0.into_iter()
            .flat_map(|t| t.into_data().try_into_vec::<f32>().unwrap())
            .collect()
    }

    /// Each step moves every weight `1 - decay` of the way: after one step at decay 0.75 the
    /// average is 3/4 of the start plus 1/4 of the trained weights, after many it is the trained
    /// weights, and the averaged network computes with those weights.
    #[test]
    fn the_average_moves_each_weight_towards_the_trained_one() {
        let device = Device::flex().autodiff();
        let (start, trained) = (net(1, &device), net(2, &device));
        let (a, b) = (weights(&start), weights(&trained));
        assert_ne!(a, b);
        let mut ema = Ema::new(&start, 0.75);
        ema.update(&trained);
        let got = weights(ema.net());
        assert_eq!(got.len(), a.len());
        for ((g, x), y) in got.iter().zip(&a).zip(&b) {
            assert!((g - (0.75 * x + 0.25 * y)).abs() < 1e-6, "{g} {x} {y}");
        }
        for _ in 0..100 {
            ema.update(&trained);
        }
        let rules = Rules::kalah64();
        let positions = [
            Position::start(&rules),
            Position::parse("0,1,2,3,4,5,6/7,0,0,1,2,3,14 n", &rules).unwrap(),
        ];
        let out = |n: Net| {
            let mut ev = NetEvaluator::cpu(n);
            let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
            ev.evaluate(&positions, &mut l, &mut v, &mut m);
            l
        };
        let (avg, want) = (out(ema.net().clone()), out(trained.valid()));
        assert!(avg.iter().zip(&want).all(|(x, y)| (x - y).abs() < 1e-4));
    }
}
