//! The evaluation stage: every `eval.every` iterations, the checkpoint's network alone (best
//! legal move by its policy) against baseline bots from both seats (all games in lockstep, so the
//! network sees one batch per move), on the judge set and on the held-out sets; those sets are
//! loaded or built on threads of their own while training goes on.

use std::sync::Arc;
use std::thread::JoinHandle;

use burn::prelude::Device;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::TrainConfig;
use super::checkpoint::{Evaluation, TrainedScores};
use crate::bots::{Bot, Player, Tally, game_rng};
use crate::env::rng::GameRng;
use crate::eval::heldout::{self, HeldoutScore, HeldoutSet};
use crate::eval::judge::{self, JudgeScore, JudgeSet};
use crate::nn::{Net, NetEvaluator};
use crate::rules::{Move, Position, Rules, Side};
use crate::search::{Evaluator, greedy_actions};
use crate::solver::EndgameOracle;

/// What a run is scored on, and the sets still being built.
pub(super) struct Scoring {
    rules: Rules,
    /// The baseline bots (a network or solver among them loaded at start).
    opponents: Vec<Player>,
    /// Games a bot and seat.
    games: u32,
    /// The games' seed.
    seed: u64,
    /// Solved positions for judging, once built.
    judge: Option<JudgeSet>,
    /// The judge set being loaded or solved (solving a few hundred Kalah(6,4) positions takes
    /// minutes): evaluations before it is ready skip the solver, the last one waits for it.
    judge_build: Option<JoinHandle<anyhow::Result<JudgeSet>>>,
    /// The held-out sets, once built (`eval.heldout_positions`).
    heldout: Vec<HeldoutSet>,
    /// The held-out sets being loaded or built.
    heldout_build: Option<JoinHandle<anyhow::Result<Vec<HeldoutSet>>>>,
}

impl Scoring {
    /// The scoring a config asks for: its bots prepared and its judge set loaded or solved on a
    /// thread of its own from now on (beside the endgame database's build); the held-out sets
    /// follow with [`Scoring::start_heldout`] once the database is there.
    pub(super) fn start(cfg: &TrainConfig, rules: &Rules) -> anyhow::Result<Scoring> {
        Ok(Scoring {
            rules: *rules,
            opponents: cfg.opponents()?,
            games: cfg.eval.games,
            seed: crate::env::rng::derive(cfg.run.seed, super::run_stream::EVAL_GAMES),
            judge: None,
            judge_build: spawn_judge(cfg, rules),
            heldout: Vec::new(),
            heldout_build: None,
        })
    }

    /// Loads or builds the held-out sets on a thread of their own, labelled by the run's endgame
    /// database `db` (a run without one has none).
    pub(super) fn start_heldout(&mut self, cfg: &TrainConfig, db: Option<Arc<EndgameOracle>>) {
        self.heldout_build = spawn_heldout(cfg, &self.rules, db);
    }

    /// Scores `network` (the checkpoint's) after `iteration` (`seconds` of training): games
    /// against the bots, the judge set and the held-out sets once built (`last`: the run's last
    /// evaluation, which waits for them); with `trained` (a run that averages its weights), the
    /// trained weights on the same sets, a paired ablation of the average.
    pub(super) fn evaluate(
        &mut self,
        network: Net,
        trained: Option<Net>,
        device: &Device,
        (iteration, seconds): (u32, f64),
        last: bool,
    ) -> anyhow::Result<Evaluation> {
        let mut ev = NetEvaluator::new(network, device.clone());
        let games = play_vs_bots(&self.rules, &self.opponents, self.games, &mut ev, self.seed);
        if self
            .judge_build
            .as_ref()
            .is_some_and(|h| h.is_finished() || last)
        {
            let h = self.judge_build.take().expect("checked above");
            let set = h
                .join()
                .map_err(|_| anyhow::anyhow!("the judge set builder panicked"))??;
            self.judge = Some(set);
        }
        if self
            .heldout_build
            .as_ref()
            .is_some_and(|h| h.is_finished() || last)
        {
            let h = self.heldout_build.take().expect("checked above");
            self.heldout = h
                .join()
                .map_err(|_| anyhow::anyhow!("the held-out set builder panicked"))??;
        }
        let (solver, heldout) = self.score_sets(&mut ev);
        let trained = trained.map(|net| {
            let (solver, heldout) = self.score_sets(&mut NetEvaluator::new(net, device.clone()));
            TrainedScores { solver, heldout }
        });
        Ok(Evaluation {
            iteration,
            seconds,
            games,
            solver,
            heldout,
            trained,
        })
    }

    /// `ev`'s network on the judge set (once it is built) and the held-out sets.
    fn score_sets(&self, ev: &mut NetEvaluator) -> (Option<JudgeScore>, Vec<HeldoutScore>) {
        let solver = self.judge.as_ref().map(|j| j.score(ev));
        let heldout = heldout::score_all(&self.heldout, ev, self.rules.pits() + 1);
        (solver, heldout)
    }
}

/// Loads or solves the judge set on a thread of its own (with a pool of one thread, so that the
/// solver's parallel loops do not hold up self-play's), if the config asks for one.
fn spawn_judge(cfg: &TrainConfig, rules: &Rules) -> Option<JoinHandle<anyhow::Result<JudgeSet>>> {
    let (n, seed, rules) = (cfg.eval.solver_positions, judge::JUDGE_SEED, *rules);
    let limit = cfg.judge_time_limit();
    let cache = cfg.run.judge_dir.clone();
    (n > 0).then(|| {
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
            pool.install(|| JudgeSet::load_or_build(&rules, n, seed, &cache, limit))
        })
    })
}

/// Loads or builds the held-out sets on a thread of its own (a pool of one thread), if the config
/// asks for them; cached in the solver's cache folder.
fn spawn_heldout(
    cfg: &TrainConfig,
    rules: &Rules,
    db: Option<Arc<EndgameOracle>>,
) -> Option<JoinHandle<anyhow::Result<Vec<HeldoutSet>>>> {
    let (n, rules, db) = (cfg.eval.heldout_positions, *rules, db?);
    let dir = crate::solver::default_cache_dir()?;
    (n > 0).then(|| {
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
            pool.install(|| HeldoutSet::load_or_build_all(&rules, n, &db, &dir))
        })
    })
}

/// Results against one opponent from one seat, for the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The opponent's bot name.
    pub opponent: String,
    /// The seat the network started in.
    pub seat: Side,
    /// Games played.
    pub games: u32,
    /// Games the network won, drew, lost.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Lost games.
    pub losses: u32,
    /// Mean final margin for the network.
    pub mean_margin: f64,
}

impl SeatResult {
    /// Share of games won.
    pub fn win_rate(&self) -> f64 {
        Tally::counts(self.wins, self.draws, self.losses).win_rate()
    }
}

struct EvalGame {
    pos: Position,
    /// The seat the network sits in now (a pie swap moves it).
    net_seat: Side,
    opponent: Box<dyn Bot>,
    rng: GameRng,
}

/// Plays `games` games per opponent and seat; the network picks its moves through `evaluator`.
pub fn play_vs_bots(
    rules: &Rules,
    opponents: &[Player],
    games: u32,
    evaluator: &mut dyn Evaluator,
    seed: u64,
) -> Vec<SeatResult> {
    let mut all = Vec::new();
    let mut keys = Vec::new();
    for (o, spec) in opponents.iter().enumerate() {
        for seat in [Side::South, Side::North] {
            for g in 0..games {
                let idx = all.len() as u64;
                all.push(EvalGame {
                    pos: Position::start(rules),
                    net_seat: seat,
                    opponent: spec.build(),
                    rng: game_rng(seed, idx),
                });
                keys.push((o, seat, g));
            }
        }
    }
    let pits = rules.pits();
    loop {
        // Bots move (in parallel) until every unfinished game waits for the network.
        all.par_iter_mut().for_each(|g| {
            while !g.pos.is_over() && g.pos.to_move() != g.net_seat {
                let mv = g.opponent.choose(&g.pos, &mut g.rng);
                let out = g.pos.play(mv).expect("bots play legal moves");
                if out.swapped {
                    g.net_seat = g.net_seat.other();
                }
            }
        });
        let waiting: Vec<usize> = (0..all.len()).filter(|&i| !all[i].pos.is_over()).collect();
        if waiting.is_empty() {
            break;
        }
        let positions: Vec<Position> = waiting.iter().map(|&i| all[i].pos).collect();
        let actions = greedy_actions(&positions, evaluator);
        for (&i, a) in waiting.iter().zip(actions) {
            let g = &mut all[i];
            let out = g
                .pos
                .play(Move::from_action(a, pits))
                .expect("legal by construction");
            if out.swapped {
                g.net_seat = g.net_seat.other();
            }
        }
    }
    let mut out = Vec::new();
    for (o, spec) in opponents.iter().enumerate() {
        for seat in [Side::South, Side::North] {
            let t: Tally = all
                .iter()
                .zip(&keys)
                .filter(|(_, k)| k.0 == o && k.1 == seat)
                .map(|(g, _)| {
                    let m = g.pos.margin();
                    if g.net_seat == Side::South { m } else { -m }
                })
                .collect();
            out.push(SeatResult {
                opponent: spec.to_string(),
                seat,
                games: t.games(),
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                mean_margin: t.mean_margin(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::BotSpec;
    use crate::search::UniformEvaluator;

    #[test]
    fn every_game_is_counted_once() {
        let rules = Rules::kalah64().with_pie(true);
        let players = crate::bots::BotContext::new()
            .prepare_all(&[BotSpec::Random, BotSpec::Greedy], &rules)
            .unwrap();
        let r = play_vs_bots(&rules, &players, 5, &mut UniformEvaluator, 3);
        assert_eq!(r.len(), 4);
        for s in &r {
            assert_eq!(s.games, 5);
            assert_eq!(s.wins + s.draws + s.losses, 5);
        }
    }
}
