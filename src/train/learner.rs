//! The learner: the weights being trained, their moving average and the optimizer. It takes an
//! iteration's gradient steps on batches from the replay buffer, on the learning-rate schedule
//! (warm-up, then cosine decay), and reports the losses of each step.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;

use super::ema::Ema;
use super::replay::{Replay, Sample};
use super::selfplay::result_of;
use super::{Meta, TrainConfig, checkpoint, config};
use crate::env::rng::stream;
use crate::nn::Net;
use crate::rules::{Position, Side};

/// Mean losses over an iteration's gradient steps.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Losses {
    pub policy: f64,
    pub value: f64,
    pub margin: f64,
    pub entropy: f64,
    /// The move head's loss (0 without one).
    pub moves: f64,
}

/// The weights being trained and how they are stepped.
pub(super) struct Learner {
    /// The weights being trained (on the autodiff device).
    model: Net,
    /// Their moving average (`optim.ema_decay`): the network saved, evaluated and released.
    ema: Option<Ema>,
    optim: ModuleOptimizer,
    /// The autodiff device the steps run on.
    device: Device,
    /// The optimizer's settings.
    cfg: config::OptimConfig,
    /// Iterations in the run (the schedule's length).
    iterations: u32,
    /// Replay samples a learning iteration waits for.
    min_replay: usize,
    /// Pits of the rules played.
    pits: usize,
}

impl Learner {
    /// A learner stepping `model` with `optim` on `device` (autodiff) as the run's config says
    /// (`optim`, over `run.iterations`, once the buffer holds `replay.min_size`), on rules of
    /// `pits` pits; the moving average (`optim.ema_decay`) starts at `average` or, where the
    /// checkpoint kept none, at `model`.
    pub(super) fn new(
        (model, average, optim): (Net, Option<Net>, ModuleOptimizer),
        device: Device,
        run: &TrainConfig,
        pits: usize,
    ) -> Learner {
        let cfg = run.optim.clone();
        let ema = (cfg.ema_decay > 0.0)
            .then(|| Ema::new(average.as_ref().unwrap_or(&model), cfg.ema_decay));
        Learner {
            model,
            ema,
            optim,
            device,
            cfg,
            iterations: run.run.iterations,
            min_replay: run.replay.min_size,
            pits,
        }
    }

    /// The network a checkpoint holds as its model: the moving average of the trained weights
    /// if the run keeps one, else the trained weights; off the autodiff device.
    pub(super) fn network(&self) -> Net {
        match &self.ema {
            Some(e) => e.net().clone(),
            None => self.model.valid(),
        }
    }

    /// The trained weights off the autodiff device (what self-play plays with).
    pub(super) fn trained(&self) -> Net {
        self.model.valid()
    }

    /// Whether the run keeps a moving average beside the trained weights.
    pub(super) fn averages(&self) -> bool {
        self.ema.is_some()
    }

    /// Writes a checkpoint of the network, the trained weights (with an average), the optimizer
    /// and the run `state` into `dir`, and `meta` as its sidecar.
    pub(super) fn save(&self, dir: &Path, state: &[u8], meta: &mut Meta) -> anyhow::Result<()> {
        let (net, training) = match &self.ema {
            Some(e) => (e.net(), Some(&self.model)),
            None => (&self.model, None),
        };
        checkpoint::save(dir, net, training, &self.optim, state, meta)
    }

    /// The learning rate at gradient step `step`: linear warm-up, then cosine decay to `lr_min`.
    pub(super) fn lr(&self, step: u64) -> f64 {
        let o = &self.cfg;
        let total = (self.iterations as u64 * o.steps_per_iteration as u64).max(1);
        if step < o.warmup_steps as u64 {
            return o.lr * (step + 1) as f64 / o.warmup_steps as f64;
        }
        let t = ((step - o.warmup_steps as u64) as f64
            / (total.saturating_sub(o.warmup_steps as u64)).max(1) as f64)
            .min(1.0);
        o.lr_min + 0.5 * (o.lr - o.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
    }

    /// The iteration's gradient steps on uniform batches from `replay` (none until it holds
    /// `replay.min_size`), counted on from `step`: the summed losses and the steps taken.
    pub(super) fn learn(
        &mut self,
        replay: &Replay,
        step: &mut u64,
        seed: u64,
        stop: &AtomicBool,
    ) -> (Losses, u32) {
        let mut losses = Losses::default();
        let mut steps = 0u32;
        if replay.len() < self.min_replay.max(1) {
            return (losses, 0);
        }
        let mut rng = stream(seed, 0);
        // A stream of its own, so that runs without re-splits draw the batches they always did.
        let mut resplit_rng = stream(seed, 1);
        let share = self.cfg.store_resplit;
        for _ in 0..self.cfg.steps_per_iteration {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let mut batch = replay.batch(self.cfg.batch_size, &mut rng);
            if share > 0.0 {
                for s in &mut batch {
                    if resplit_rng.next_f32() < share {
                        let both = u32::from(s.pos.store(Side::South) + s.pos.store(Side::North));
                        *s = resplit_stores(s, resplit_rng.below(both + 1) as u8);
                    }
                }
            }
            let lr = self.lr(*step);
            let l = self.train_step(&batch, lr);
            losses.policy += l.policy;
            losses.value += l.value;
            losses.margin += l.margin;
            losses.entropy += l.entropy;
            losses.moves += l.moves;
            steps += 1;
            *step += 1;
        }
        (losses, steps)
    }

    fn train_step(&mut self, batch: &[Sample], lr: f64) -> Losses {
        let a = self.pits + 1;
        let b = batch.len();
        let d = &self.device;
        let o = &self.cfg;
        let positions: Vec<_> = batch.iter().map(|s| s.pos).collect();
        let x = self.model.input().batch(&positions, d);
        let t = Targets::of(batch, a, o);
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
        let margin_loss = match out.margin_logits {
            // Cross-entropy of the margin distribution against the target margin's two bins.
            Some(bins) => {
                let k = bins.dims()[1];
                let target = tensor(two_hot(batch.iter().map(|s| s.margin), k), k);
                (target * log_softmax(bins, 1)).sum_dim(1).neg().mean()
            }
            None => (out.margin - mz).powi_scalar(2).mean(),
        };
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

/// Rows of `bins` weights, one row a margin (/ all seeds, in [-1, 1]) spread over the two bins
/// around it ([`crate::nn::NetConfig::margin_bins`]: bin `i` at `2i / (bins - 1) - 1`) so that
/// their mean is the margin; a margin on a bin's centre puts all its weight there.
pub(super) fn two_hot(margins: impl Iterator<Item = f32>, bins: usize) -> Vec<f32> {
    let last = (bins - 1) as f32;
    let mut out = Vec::new();
    for m in margins {
        let x = ((m.clamp(-1.0, 1.0) + 1.0) * 0.5 * last).clamp(0.0, last);
        let lo = x.floor();
        let frac = x - lo;
        let mut row = vec![0.0; bins];
        row[lo as usize] = 1.0 - frac;
        if frac > 0.0 {
            row[lo as usize + 1] = frac;
        }
        out.extend(row);
    }
    out
}

/// `s` with `mine` of the stored seeds in the store of the player to move and the rest in the
/// other ([`Position::with_stores_split`]), its targets moved to match: the final margin moves
/// by the change in the stores' difference, the value is the result that margin gives (as
/// self-play makes it, [`result_of`]), the policy and every move's seeds lost stay. A position
/// where the pie answer is still to come is returned as it is: whether to swap depends on the
/// stores. Needs a value target that is the game's result (`selfplay.value_target_mix = 0`).
pub(crate) fn resplit_stores(s: &Sample, mine: u8) -> Sample {
    let pos = &s.pos;
    if pos.swap_allowed() || crate::env::obs::pie_to_come(pos) {
        return *s;
    }
    let me = pos.to_move();
    let diff = |p: &Position| i32::from(p.store(me)) - i32::from(p.store(me.other()));
    let next = pos.with_stores_split(mine);
    let total = pos.rules().total_seeds().max(1) as f32;
    let margin = s.margin * total + (diff(&next) - diff(pos)) as f32;
    Sample {
        pos: next,
        value: result_of(margin),
        margin: margin / total,
        ..*s
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Capture, End, Leftover, Rules};
    use crate::solver::{Solver, SolverConfig};

    /// The claim the re-split rests on, checked by the solver under every rule option: each
    /// move's exact final margin moves by the change in the stores' difference, so the optimal
    /// moves stay; and the moved sample's targets are the re-split position's exact ones.
    #[test]
    fn a_store_resplit_keeps_the_optimal_moves_under_every_rule_option() {
        let mut checked = 0;
        for &capture in Capture::ALL {
            for &leftover in Leftover::ALL {
                for &end in End::ALL {
                    let rules = Rules::new(4, 3)
                        .unwrap()
                        .with_capture(capture)
                        .with_leftover(leftover)
                        .with_end(end);
                    let solver = Solver::new(&rules, &SolverConfig::default()).unwrap();
                    let total = rules.total_seeds();
                    let mut rng = stream(7, 0);
                    let mut n = 0;
                    while n < 6 {
                        let Some(pos) = crate::eval::judge::game_position(&rules, &mut rng, 10)
                        else {
                            continue;
                        };
                        let both = u32::from(pos.store(Side::South) + pos.store(Side::North));
                        if both == 0 {
                            continue;
                        }
                        let exact = solver.analyse_within(&pos, None, None);
                        let v = exact.value().unwrap();
                        let s = Sample {
                            pos,
                            policy: [0.25; crate::search::MAX_ACTIONS],
                            value: v.signum() as f32,
                            margin: v as f32 / total as f32,
                            exact: true,
                            lost: [1.0; crate::search::MAX_ACTIONS],
                        };
                        let mine = rng.below(both + 1) as u8;
                        let t = resplit_stores(&s, mine);
                        assert_eq!(t.pos.store(pos.to_move()), mine);
                        assert_eq!(t.pos.board_seeds(), pos.board_seeds());
                        assert_eq!((t.policy, t.lost), (s.policy, s.lost));
                        let after = solver.analyse_within(&t.pos, None, None);
                        let w = after.value().unwrap();
                        assert_eq!(t.margin * total as f32, w as f32, "{rules:?} {pos}");
                        assert_eq!(t.value, w.signum() as f32);
                        let shift = w - v;
                        for (a, b) in exact.moves.iter().zip(&after.moves) {
                            assert_eq!(a.mv, b.mv);
                            assert_eq!(b.value().unwrap() - a.value().unwrap(), shift);
                        }
                        n += 1;
                    }
                    checked += n;
                }
            }
        }
        assert_eq!(checked, 6 * 18);
    }

    /// A margin's two bins hold all its weight and their mean is the margin; a margin on a bin's
    /// centre (every margin a game ends with, for all seeds + 1 bins) is one bin.
    #[test]
    fn two_hot_rows_have_the_margin_as_their_mean() {
        let bins = 49;
        let margins = [0.0f32, 2.0 / 48.0, -1.0, 1.0, 0.3, -0.77, 1.5];
        let rows = two_hot(margins.iter().copied(), bins);
        for (m, row) in margins.iter().zip(rows.chunks_exact(bins)) {
            let sum: f32 = row.iter().sum();
            let mean: f32 = row
                .iter()
                .enumerate()
                .map(|(i, p)| p * (2.0 * i as f32 / 48.0 - 1.0))
                .sum();
            assert!((sum - 1.0).abs() < 1e-6, "{m}: {row:?}");
            assert!((mean - m.clamp(-1.0, 1.0)).abs() < 1e-5, "{m}: {mean}");
            assert!(
                row.iter().filter(|&&p| p > 0.0).count() <= 2,
                "{m}: {row:?}"
            );
        }
        for (i, m) in [(24, 0.0f32), (25, 2.0 / 48.0), (0, -1.0), (48, 1.0)] {
            let row = two_hot(std::iter::once(m), bins);
            assert_eq!(row[i], 1.0, "{m}");
        }
    }

    /// Positions where the pie answer is still to come keep their stores: the swap weighs them.
    #[test]
    fn a_store_resplit_leaves_the_pie_opening_alone() {
        let rules = Rules::new(4, 3).unwrap().with_pie(true);
        let mut pos = Position::start(&rules);
        // Pit 2 of 4 with 3 seeds ends in the store: South plays again, the pie still to come.
        pos.play(crate::rules::Move::Pit(2)).unwrap();
        assert!(crate::env::obs::pie_to_come(&pos) && pos.store(Side::South) == 1);
        let s = Sample {
            pos,
            policy: [0.0; crate::search::MAX_ACTIONS],
            value: 1.0,
            margin: 0.1,
            exact: false,
            lost: super::super::replay::NO_LOST,
        };
        let t = resplit_stores(&s, 0);
        assert_eq!(t.pos, s.pos);
        assert_eq!((t.value, t.margin), (s.value, s.margin));
    }
}
