//! Self-play: a batch of games, each move chosen by a Gumbel search whose leaves from all games
//! share one network call; finished games turn into training samples in the replay buffer.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::config::SelfPlayConfig;
use crate::bots::random_move;
use crate::nn::margin_target;
use crate::rules::{Move, Position, Rules, Side};
use crate::search::{Evaluator, MAX_ACTIONS, SearchConfig, result_for, search_batch};

/// One training example: a position and its targets, all for the player to move.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The search's improved policy over action indexes.
    pub policy: [f32; MAX_ACTIONS],
    /// Value target in [-1, 1].
    pub value: f32,
    /// Final margin / all seeds, for the player to move.
    pub margin: f32,
}

/// The most recent samples, sampled uniformly.
pub struct Replay {
    samples: VecDeque<Sample>,
    capacity: usize,
}

impl Replay {
    /// An empty buffer keeping at most `capacity` samples.
    pub fn new(capacity: usize) -> Replay {
        Replay {
            samples: VecDeque::with_capacity(capacity.min(1 << 20)),
            capacity,
        }
    }

    /// Adds a sample, dropping the oldest when full.
    pub fn push(&mut self, s: Sample) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(s);
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// No sample yet.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// `n` samples drawn uniformly with replacement.
    pub fn batch(&self, n: usize, rng: &mut SmallRng) -> Vec<Sample> {
        (0..n)
            .map(|_| self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }
}

/// A move already played in a game still going.
struct Pending {
    pos: Position,
    policy: [f32; MAX_ACTIONS],
    search_value: f32,
}

struct Slot {
    pos: Position,
    history: Vec<Pending>,
    /// Index in `history` of the pie answer `swap`, if it was played.
    swap_at: Option<usize>,
}

/// Totals of one call to [`SelfPlay::generate`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayStats {
    /// Positions searched and recorded.
    pub positions: u64,
    /// Games finished.
    pub games: u64,
    /// Sum of the finished games' lengths (moves).
    pub game_moves: u64,
    /// South's wins, North's wins and draws among finished games.
    pub results: [u64; 3],
}

/// Games in flight across iterations.
pub struct SelfPlay {
    rules: Rules,
    slots: Vec<Slot>,
    calls: u64,
    rng: SmallRng,
    opening_moves: u32,
}

impl SelfPlay {
    /// `games` fresh games, each opened by up to `opening_moves` random moves.
    pub fn new(rules: &Rules, games: usize, opening_moves: u32, seed: u64) -> SelfPlay {
        let mut sp = SelfPlay {
            rules: *rules,
            slots: Vec::new(),
            calls: 0,
            rng: SmallRng::seed_from_u64(seed),
            opening_moves,
        };
        sp.slots = (0..games).map(|_| sp.fresh()).collect();
        sp
    }

    /// A new game after 0 to `opening_moves` random moves (never a finished one).
    fn fresh(&mut self) -> Slot {
        let k = self.rng.random_range(0..=self.opening_moves);
        let mut pos = Position::start(&self.rules);
        for _ in 0..k {
            let mut next = pos;
            next.play(random_move(&pos, &mut self.rng))
                .expect("random moves are legal");
            if next.is_over() {
                break;
            }
            pos = next;
        }
        Slot {
            pos,
            history: Vec::new(),
            swap_at: None,
        }
    }

    /// Plays moves in every game until at least `positions` positions are recorded (or `stop` is
    /// set); finished games go to `replay` and restart.
    #[allow(clippy::too_many_arguments)]
    pub fn generate(
        &mut self,
        positions: usize,
        play: &SelfPlayConfig,
        search: &SearchConfig,
        evaluator: &mut dyn Evaluator,
        replay: &mut Replay,
        seed: u64,
        stop: &AtomicBool,
    ) -> SelfPlayStats {
        let mut stats = SelfPlayStats::default();
        let pits = self.rules.pits();
        while (stats.positions as usize) < positions && !stop.load(Ordering::Relaxed) {
            let roots: Vec<Position> = self.slots.iter().map(|s| s.pos).collect();
            let temps: Vec<f32> = self
                .slots
                .iter()
                .map(|s| temperature(play, s.history.len()))
                .collect();
            self.calls += 1;
            let results = search_batch(
                &roots,
                &temps,
                search,
                evaluator,
                seed ^ self.calls.wrapping_mul(0xA24B_AED4_963E_E407),
            );
            for (i, r) in results.into_iter().enumerate() {
                let slot = &mut self.slots[i];
                let mut policy = [0.0; MAX_ACTIONS];
                policy[..r.policy.len()].copy_from_slice(&r.policy);
                slot.history.push(Pending {
                    pos: slot.pos,
                    policy,
                    search_value: r.value,
                });
                stats.positions += 1;
                let out = slot
                    .pos
                    .play(Move::from_action(r.action, pits))
                    .expect("search plays legal moves");
                if out.swapped {
                    slot.swap_at = Some(slot.history.len() - 1);
                }
                if out.game_over {
                    finish(slot, play.value_target_mix, replay, &mut stats);
                    self.slots[i] = self.fresh();
                }
            }
        }
        stats
    }
}

/// Gumbel noise scale at move `ply` of a game.
fn temperature(play: &SelfPlayConfig, ply: usize) -> f32 {
    if play.temperature_moves == 0 || ply as u32 >= play.temperature_moves {
        return play.temperature_end;
    }
    let t = ply as f32 / play.temperature_moves as f32;
    play.temperature_start + (play.temperature_end - play.temperature_start) * t
}

/// Turns a finished game into samples. The targets are for the person to move at each position:
/// a pie swap moves the two persons to the other seats, so positions up to the swap are scored
/// for the other seat.
fn finish(slot: &mut Slot, mix: f32, replay: &mut Replay, stats: &mut SelfPlayStats) {
    let end = slot.pos;
    stats.games += 1;
    stats.game_moves += slot.history.len() as u64;
    let margin = end.margin();
    stats.results[if margin > 0 {
        0
    } else if margin < 0 {
        1
    } else {
        2
    }] += 1;
    for (i, h) in slot.history.drain(..).enumerate() {
        let mut seat: Side = h.pos.to_move();
        if slot.swap_at.is_some_and(|k| i <= k) {
            seat = seat.other();
        }
        let z = result_for(&end, seat);
        replay.push(Sample {
            pos: h.pos,
            policy: h.policy,
            value: (1.0 - mix) * z + mix * h.search_value,
            margin: margin_target(&end, seat),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    #[test]
    fn games_finish_into_samples_with_consistent_targets() {
        let rules = Rules::kalah64().with_pie(true);
        let mut sp = SelfPlay::new(&rules, 8, 4, 9);
        let mut replay = Replay::new(100_000);
        let play = SelfPlayConfig {
            games: 8,
            positions_per_iteration: 2000,
            temperature_start: 1.0,
            temperature_end: 0.5,
            temperature_moves: 10,
            value_target_mix: 0.0,
            opening_random_moves: 4,
        };
        let search = SearchConfig {
            simulations: 4,
            ..SearchConfig::default()
        };
        let stop = AtomicBool::new(false);
        let st = sp.generate(
            2000,
            &play,
            &search,
            &mut UniformEvaluator,
            &mut replay,
            1,
            &stop,
        );
        assert!(st.games > 0);
        assert!(replay.len() as u64 <= st.positions);
        let s = replay.batch(50, &mut rand::SeedableRng::seed_from_u64(2));
        for x in s {
            assert!(x.value == 1.0 || x.value == -1.0 || x.value == 0.0);
            // The value target and the margin target agree in sign.
            assert_eq!(x.value, x.margin.signum() * (x.margin != 0.0) as i32 as f32);
            assert!((x.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
    }
}
