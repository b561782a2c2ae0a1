//! One network shared by many searches on many threads, each forward pass taking the positions
//! of every search waiting at that moment: the server's games batch their leaves as self-play's
//! lockstep games do, without running in step. A search with no company is evaluated alone, at
//! once (no timer holds a batch open).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};

use super::{Net, NetEvaluator};
use crate::rules::Position;
use crate::search::Evaluator;

/// Positions in the largest forward pass a batching thread makes.
pub const MAX_BATCH: usize = 1024;

/// One search's positions and where its answer goes.
struct Request {
    positions: Vec<Position>,
    reply: SyncSender<Reply>,
}

/// The network's outputs for one request, as [`Evaluator::evaluate`] gives them.
struct Reply {
    logits: Vec<f32>,
    values: Vec<f32>,
    margins: Vec<f32>,
}

/// Forward passes made and positions evaluated so far.
#[derive(Default)]
struct Tally {
    batches: AtomicU64,
    positions: AtomicU64,
}

/// A network on threads of its own, taking requests from [`BatchedEvaluator`]s. Cheap to clone;
/// the threads end when the last clone and the last of its evaluators are dropped.
#[derive(Clone)]
pub struct Batcher {
    tx: Sender<Request>,
    tally: Arc<Tally>,
}

impl Batcher {
    /// Starts `threads` threads that run `net` on the CPU, at most `max_batch` positions a
    /// forward pass (a single request larger than that goes alone). While one thread runs a
    /// forward pass, the next gathers the requests that arrive meanwhile (burn's CPU backend
    /// runs a small batch's pass on one core).
    pub fn spawn(net: &Net, threads: usize, max_batch: usize) -> std::io::Result<Batcher> {
        let (tx, rx) = mpsc::channel::<Request>();
        let rx = Arc::new(Mutex::new(rx));
        let tally = Arc::new(Tally::default());
        for i in 0..threads.max(1) {
            let ev = NetEvaluator::cpu(net.clone());
            let (rx, tally) = (Arc::clone(&rx), Arc::clone(&tally));
            std::thread::Builder::new()
                .name(format!("kalaha-batcher-{i}"))
                .spawn(move || serve(ev, &rx, max_batch.max(1), &tally))?;
        }
        Ok(Batcher { tx, tally })
    }

    /// An evaluator for one search: it blocks while its positions wait for and ride a batch.
    pub fn evaluator(&self) -> BatchedEvaluator {
        BatchedEvaluator {
            tx: self.tx.clone(),
        }
    }

    /// Forward passes made so far.
    pub fn batches(&self) -> u64 {
        self.tally.batches.load(Ordering::Relaxed)
    }

    /// Positions evaluated so far.
    pub fn positions(&self) -> u64 {
        self.tally.positions.load(Ordering::Relaxed)
    }
}

/// A batching thread: waits for a request, takes every other one already queued (up to
/// `max_batch` positions), evaluates them in one forward pass and answers each. The threads of
/// one network take turns at the queue.
fn serve(mut ev: NetEvaluator, rx: &Mutex<Receiver<Request>>, max_batch: usize, tally: &Tally) {
    let (mut logits, mut values, mut margins) = (Vec::new(), Vec::new(), Vec::new());
    let mut positions = Vec::new();
    let mut requests = Vec::new();
    // A request that would overflow the batch starts this thread's next one.
    let mut held: Option<Request> = None;
    loop {
        positions.clear();
        {
            // A thread that panicked while gathering left nothing half-taken: go on.
            let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
            let first = match held.take() {
                Some(r) => r,
                None => match rx.recv() {
                    Ok(r) => r,
                    Err(_) => return,
                },
            };
            positions.extend_from_slice(&first.positions);
            requests.push(first);
            while positions.len() < max_batch {
                match rx.try_recv() {
                    Ok(r) if positions.len() + r.positions.len() > max_batch => {
                        held = Some(r);
                        break;
                    }
                    Ok(r) => {
                        positions.extend_from_slice(&r.positions);
                        requests.push(r);
                    }
                    Err(_) => break,
                }
            }
        }
        ev.evaluate(&positions, &mut logits, &mut values, &mut margins);
        tally.batches.fetch_add(1, Ordering::Relaxed);
        tally
            .positions
            .fetch_add(positions.len() as u64, Ordering::Relaxed);
        let width = logits.len() / positions.len().max(1);
        let mut at = 0;
        for r in requests.drain(..) {
            let n = r.positions.len();
            // A search that went away (its thread panicked) needs no answer.
            let _ = r.reply.send(Reply {
                logits: logits[at * width..(at + n) * width].to_vec(),
                values: values[at..at + n].to_vec(),
                margins: margins[at..at + n].to_vec(),
            });
            at += n;
        }
    }
}

/// One search's handle on a [`Batcher`].
pub struct BatchedEvaluator {
    tx: Sender<Request>,
}

impl Evaluator for BatchedEvaluator {
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
        // A channel of its own for each request: a thread that panics in the network drops the
        // requests it held, and their searches fail at once instead of waiting forever.
        let (reply, answer) = mpsc::sync_channel(1);
        let request = Request {
            positions: positions.to_vec(),
            reply,
        };
        self.tx
            .send(request)
            .expect("a batching thread takes requests");
        let r = answer
            .recv()
            .expect("the batching thread answers every request it took");
        logits.extend(r.logits);
        values.extend(r.values);
        margins.extend(r.margins);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::prelude::*;

    use crate::nn::{Net, NetConfig};
    use crate::rules::Rules;

    /// Up to `n` positions of one Kalah(6,4) game: the start, then the last legal move played
    /// each turn.
    fn walk(n: usize) -> Vec<Position> {
        let mut pos = Position::start(&Rules::kalah64());
        let mut out = Vec::new();
        while out.len() < n && !pos.is_over() {
            out.push(pos);
            let m = pos.legal_moves().iter().last().expect("a legal move");
            pos.play(m).expect("legal");
        }
        out
    }

    /// A small untrained Kalah(6,4) network.
    fn net() -> Net {
        Net::new(&NetConfig::small(), 6, &Device::flex()).valid()
    }

    #[test]
    fn many_threads_get_what_one_evaluator_alone_gives() {
        let net = net();
        let positions = walk(24);
        let (mut want_l, mut want_v, mut want_m) = (Vec::new(), Vec::new(), Vec::new());
        NetEvaluator::cpu(net.clone()).evaluate(&positions, &mut want_l, &mut want_v, &mut want_m);
        let width = want_l.len() / positions.len();
        let batcher = Batcher::spawn(&net, 2, 5).expect("threads");
        std::thread::scope(|s| {
            for (i, pos) in positions.iter().enumerate() {
                let mut ev = batcher.evaluator();
                let (want_l, want_v) = (&want_l, &want_v);
                s.spawn(move || {
                    for _ in 0..10 {
                        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
                        ev.evaluate(&[*pos], &mut l, &mut v, &mut m);
                        assert_eq!(l.len(), width);
                        for (a, b) in l.iter().zip(&want_l[i * width..(i + 1) * width]) {
                            assert!((a - b).abs() < 1e-4, "position {i}: logit {a} vs {b}");
                        }
                        assert!((v[0] - want_v[i]).abs() < 1e-4, "position {i}: value");
                    }
                });
            }
        });
        let asked = positions.len() as u64 * 10;
        assert_eq!(batcher.positions(), asked);
        // Batches hold at most 5 positions (one from each waiting search here).
        assert!(batcher.batches() <= asked && batcher.batches() >= asked.div_ceil(5));
    }

    #[test]
    fn a_request_larger_than_the_batch_goes_alone() {
        let positions = walk(12);
        let batcher = Batcher::spawn(&net(), 2, 4).expect("threads");
        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
        batcher
            .evaluator()
            .evaluate(&positions, &mut l, &mut v, &mut m);
        assert_eq!((v.len(), m.len()), (positions.len(), positions.len()));
        assert_eq!(l.len(), positions.len() * 7);
        assert_eq!(batcher.batches(), 1);
    }
}
