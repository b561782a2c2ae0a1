//! Learning: the iteration's gradient steps on batches from the replay buffer, the learning-rate
//! schedule (warm-up, then cosine decay) and the losses of one step.

use std::sync::atomic::{AtomicBool, Ordering};

use burn::optim::GradientsParams;
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

use super::selfplay::Sample;
use super::{Losses, Trainer, config};
use crate::env::rng::stream;

impl Trainer {
    /// The learning rate at gradient step `step`: linear warm-up, then cosine decay to `lr_min`.
    pub(super) fn lr(&self, step: u64) -> f64 {
        let o = &self.cfg.optim;
        let total = (self.cfg.run.iterations as u64 * o.steps_per_iteration as u64).max(1);
        if step < o.warmup_steps as u64 {
            return o.lr * (step + 1) as f64 / o.warmup_steps as f64;
        }
        let t = ((step - o.warmup_steps as u64) as f64
            / (total.saturating_sub(o.warmup_steps as u64)).max(1) as f64)
            .min(1.0);
        o.lr_min + 0.5 * (o.lr - o.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
    }

    /// The iteration's gradient steps on uniform batches from the buffer (none until it holds
    /// `replay.min_size`): the summed losses and the steps taken.
    pub(super) fn learn(&mut self, seed: u64, stop: &AtomicBool) -> (Losses, u32) {
        let mut losses = Losses::default();
        let mut steps = 0u32;
        if self.replay.len() < self.cfg.replay.min_size.max(1) {
            return (losses, 0);
        }
        let mut rng = stream(seed, 0);
        for _ in 0..self.cfg.optim.steps_per_iteration {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch = self.replay.batch(self.cfg.optim.batch_size, &mut rng);
            let lr = self.lr(self.meta.step);
            let l = self.train_step(&batch, lr);
            losses.policy += l.policy;
            losses.value += l.value;
            losses.margin += l.margin;
            losses.entropy += l.entropy;
            losses.moves += l.moves;
            steps += 1;
            self.meta.step += 1;
        }
        (losses, steps)
    }

    fn train_step(&mut self, batch: &[Sample], lr: f64) -> Losses {
        let pits = self.rules.pits();
        let a = pits + 1;
        let b = batch.len();
        let d = &self.train_device;
        let o = self.cfg.optim.clone();
        let positions: Vec<_> = batch.iter().map(|s| s.pos).collect();
        let x = self.model.input().batch(&positions, d);
        let t = Targets::of(batch, a, &o);
        let tensor =
            |v: Vec<f32>, cols: usize| Tensor::<2>::from_data(TensorData::new(v, [b, cols]), d);
        let target = tensor(t.policy, a);
        let mask = tensor(t.mask, a);
        let z = tensor(batch.iter().map(|s| s.value).collect(), 1);
        let mz = tensor(batch.iter().map(|s| s.margin).collect(), 1);

        let out = self.model.forward(x);
        let logp = log_softmax(out.logits + mask, 1);
        let cross = (target * logp.clone()).sum_dim(1).neg();
        let policy_rows = match o.policy_loss {
            config::PolicyLoss::CrossEntropy => cross,
            config::PolicyLoss::Set => {
                // -log of the optimal moves' total probability on labelled rows.
                let set = tensor(t.set_mask, a);
                let x = logp.clone() + set;
                let top = x.clone().max_dim(1);
                let lse = top.clone() + (x - top).exp().sum_dim(1).log();
                let exact = tensor(t.exact, 1);
                lse.neg() * exact.clone() + cross * exact.neg().add_scalar(1.0)
            }
        };
        let policy_loss = policy_rows.mean();
        let value_loss = (out.value - z).powi_scalar(2).mean();
        let margin_loss = (out.margin - mz).powi_scalar(2).mean();
        let mut loss = policy_loss.clone()
            + value_loss.clone().mul_scalar(o.value_weight)
            + margin_loss.clone().mul_scalar(o.margin_weight);
        let mut moves_loss = None;
        if let (Some(pred), true) = (out.lost, o.moves_weight > 0.0) {
            let w = tensor(t.lost_weight, a);
            let diff = (pred - tensor(t.lost, a)).abs();
            let c = diff.clone().clamp_max(1.0);
            let huber = c.clone().powi_scalar(2).mul_scalar(0.5) + (diff - c);
            let l = (huber * w).sum().div_scalar(t.lost_count.max(1) as f32);
            loss = loss + l.clone().mul_scalar(o.moves_weight);
            moves_loss = Some(l);
        }
        let entropy = (logp.clone().exp() * logp).sum_dim(1).mean().neg();

        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        self.model = self.optim.step(lr, self.model.clone(), grads);
        if let Some(ema) = &mut self.ema {
            ema.update(&self.model);
        }
        let scalar = |t: Tensor<1>| t.into_scalar::<f32>() as f64;
        Losses {
            policy: scalar(policy_loss.inner()),
            value: scalar(value_loss.inner()),
            margin: scalar(margin_loss.inner()),
            entropy: scalar(entropy.inner()),
            moves: moves_loss.map_or(0.0, |l| scalar(l.inner())),
        }
    }
}

/// A batch's targets as flat rows for the training step.
struct Targets {
    /// The policy targets, `[b, a]`.
    policy: Vec<f32>,
    /// 0 for legal actions, -1e9 for illegal ones.
    mask: Vec<f32>,
    /// 0 for optimal actions of labelled rows (all actions of the others), -1e9 elsewhere.
    set_mask: Vec<f32>,
    /// 1 for labelled rows, 0 for searched ones, `[b, 1]`.
    exact: Vec<f32>,
    /// Seeds lost per action (0 where unknown) and whether it is known.
    lost: Vec<f32>,
    lost_weight: Vec<f32>,
    /// Actions with a known seeds-lost target.
    lost_count: usize,
}

impl Targets {
    fn of(batch: &[Sample], a: usize, o: &config::OptimConfig) -> Targets {
        let n = batch.len() * a;
        let mut t = Targets {
            policy: Vec::with_capacity(n),
            mask: Vec::with_capacity(n),
            set_mask: Vec::with_capacity(n),
            exact: Vec::with_capacity(batch.len()),
            lost: Vec::with_capacity(n),
            lost_weight: Vec::with_capacity(n),
            lost_count: 0,
        };
        let pits = a - 1;
        for s in batch {
            t.policy.extend_from_slice(&s.policy[..a]);
            t.exact.push(s.exact as u8 as f32);
            let legal = s.pos.legal_moves();
            let use_lost = s.exact || o.moves_from_search;
            for i in 0..a {
                let ok = legal.contains(crate::rules::Move::from_action(i, pits));
                t.mask.push(if ok { 0.0 } else { -1e9 });
                let optimal = ok && s.lost[i] == 0.0;
                t.set_mask
                    .push(if !s.exact || optimal { 0.0 } else { -1e9 });
                let known = ok && use_lost && s.lost[i].is_finite();
                t.lost.push(if known { s.lost[i] } else { 0.0 });
                t.lost_weight.push(known as u8 as f32);
                t.lost_count += known as usize;
            }
        }
        t
    }
}
