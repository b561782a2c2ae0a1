//! The replay buffer: the most recent training samples (a position and its targets), drawn
//! uniformly for the learner's batches, and their run-state format (a checkpoint keeps the
//! buffer, so that a resumed run draws the batches the uninterrupted one would have).

use std::collections::VecDeque;

use rand::RngExt;

use super::state::{Reader, Writer};
use crate::env::GameRng;
use crate::rules::Position;
use crate::search::MAX_ACTIONS;

/// One training example: a position and its targets, all for the player to move.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The search's improved policy over action indexes (or, for a position the oracle covers,
    /// uniform over its optimal moves).
    pub policy: [f32; MAX_ACTIONS],
    /// Value target in [-1, 1].
    pub value: f32,
    /// Final margin / all seeds, for the player to move.
    pub margin: f32,
    /// The targets are exact (the oracle covers the position).
    pub exact: bool,
    /// Seeds each action gives away against the best move (0 for an optimal one): exact for
    /// labelled and database positions, the search's Q gaps for searched ones (visited actions
    /// only); `NaN` where unknown (illegal actions, unvisited ones).
    pub lost: [f32; MAX_ACTIONS],
}

/// No action's seeds lost known.
pub const NO_LOST: [f32; MAX_ACTIONS] = [f32::NAN; MAX_ACTIONS];

/// The most recent samples, sampled uniformly.
pub struct Replay {
    samples: VecDeque<Sample>,
    capacity: usize,
}

impl Replay {
    /// An empty buffer keeping at most `capacity` samples.
    pub fn new(capacity: usize) -> Replay {
        Replay {
            samples: VecDeque::with_capacity(capacity.min(1 << 16)),
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
    pub fn batch(&self, n: usize, rng: &mut GameRng) -> Vec<Sample> {
        (0..n)
            .map(|_| self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }

    /// Every sample, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }

    /// Appends the samples to a run state.
    pub fn save(&self, w: &mut Writer) {
        let (a, b) = self.samples.as_slices();
        w.u64(self.samples.len() as u64);
        a.iter().chain(b).for_each(|s| write_sample(w, s));
    }

    /// Reads samples saved by [`Replay::save`] (the oldest dropped past the capacity).
    pub fn load(&mut self, r: &mut Reader) -> anyhow::Result<()> {
        self.samples.clear();
        for s in Replay::read_samples(r)? {
            self.push(s);
        }
        Ok(())
    }

    /// Appends `samples` (a count, then each) in the run-state format.
    pub fn write_samples(w: &mut Writer, samples: &[Sample]) {
        w.u64(samples.len() as u64);
        samples.iter().for_each(|s| write_sample(w, s));
    }

    /// Reads samples written by [`Replay::write_samples`] or [`Replay::save`].
    pub fn read_samples(r: &mut Reader) -> anyhow::Result<Vec<Sample>> {
        let lost = r.version() >= 2;
        let n = r.count(34 + 4 * MAX_ACTIONS * (1 + lost as usize) + 9)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(Sample {
                pos: r.pos()?,
                policy: r.policy()?,
                value: r.f32()?,
                margin: r.f32()?,
                exact: r.u8()? != 0,
                lost: if lost { r.policy()? } else { NO_LOST },
            });
        }
        Ok(out)
    }
}

/// One sample in the run-state format.
fn write_sample(w: &mut Writer, s: &Sample) {
    w.pos(&s.pos);
    w.policy(&s.policy);
    w.f32(s.value);
    w.f32(s.margin);
    w.u8(s.exact as u8);
    w.policy(&s.lost);
}
