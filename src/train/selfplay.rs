//! Self-play through the vectorised environment: every game of a [`VecEnv`] is a self-play game;
//! each step, every game's search tree starts from the env's position of that game, the leaves of
//! all games share one network call, and the env plays the chosen moves, resets finished games and
//! reports their final scores. Finished games turn into training samples in the replay buffer.
//!
//! With an endgame oracle ([`EndgameOracle`], `selfplay.endgame_db_seeds`), positions it covers
//! are not searched: they get exact targets (the policy uniform over the optimal moves, the exact
//! value and margin) and an optimal move is played; inside searches they are solved leaves.
//!
//! Targets ([`Targets`]): `result` scores every position by the game's final margin; `truncated`
//! stops the return at the last exploratory move (a move other than the search's best, played for
//! the Gumbel noise) and takes the search's value of that position instead, and at the first
//! position the oracle covers takes its exact value, so sampled mistakes never reach the targets
//! of the positions before them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::config::SelfPlayConfig;
use super::replay::{NO_LOST, Replay, Sample};
use super::state::{Reader, Writer};
use crate::bots::Greedy;
use crate::env::rng::{derive, stream};
use crate::env::{GameRng, VecEnv, random_legal};
use crate::rules::{Move, Position, Rules};
use crate::search::{Evaluator, MAX_ACTIONS, Oracle, SearchConfig, search_batch_with};
use crate::solver::{EndgameOracle, ExactMoves};

/// How a position's value and margin targets are made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Targets {
    /// The game's final result and margin.
    #[default]
    Result,
    /// The return up to the next exploratory move (then the search's value) or the first position
    /// the endgame oracle covers (then its exact value).
    Truncated,
}

/// A position already played in a game still going.
#[derive(Clone, Copy)]
struct Pending {
    pos: Position,
    /// Env player (0 opened the game) to move.
    player: u8,
    policy: [f32; MAX_ACTIONS],
    /// The search's root value (its utility) for the player to move.
    search_value: f32,
    /// The exact final margin for the player to move, if the oracle covers the position.
    exact: Option<i32>,
    /// The move played was not the search's best (Gumbel noise chose it).
    exploratory: bool,
    /// Seeds each action gives away (see [`Sample::lost`]).
    lost: [f32; MAX_ACTIONS],
}

/// Totals of one call to [`SelfPlay::generate`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayStats {
    /// Positions recorded (searched or answered by the oracle).
    pub positions: u64,
    /// Of them, positions the oracle answered.
    pub exact_positions: u64,
    /// Games finished.
    pub games: u64,
    /// Sum of the finished games' lengths (moves).
    pub game_moves: u64,
    /// Wins of the player who opened, of the other, and draws among finished games.
    pub results: [u64; 3],
    /// Moves of recorded positions that were exploratory.
    pub exploratory: u64,
}

/// The env's games in flight across iterations, and what each has recorded.
pub struct SelfPlay {
    rules: Rules,
    env: VecEnv,
    history: Vec<Vec<Pending>>,
    /// Opening moves left to play in each game (not recorded).
    opening_left: Vec<u32>,
    opening: OpeningMoves,
    oracle: Option<Arc<EndgameOracle>>,
    targets: Targets,
}

/// How self-play games open: moves not searched and not recorded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpeningMoves {
    /// Each game opens with 0 to this many moves.
    pub moves: u32,
    /// Chance that an opening move is `greedy`'s rather than uniformly random.
    pub greedy: f32,
}

impl OpeningMoves {
    /// The opening a config asks for.
    pub fn of(cfg: &SelfPlayConfig) -> OpeningMoves {
        OpeningMoves {
            moves: cfg.opening_random_moves,
            greedy: cfg.opening_greedy,
        }
    }

    /// The opening move in `pos` (`legal`: its legal-action bits).
    fn pick(&self, pos: &Position, legal: u16, rng: &mut GameRng) -> u32 {
        // No draw without greedy moves, so that runs without them keep their random streams.
        if self.greedy > 0.0 && rng.random::<f32>() < self.greedy {
            return Greedy.pick(pos, rng).action(pos.rules().pits()) as u32;
        }
        random_legal(legal, rng) as u32
    }
}

impl SelfPlay {
    /// `games` env games, each opened as `opening` says; `oracle` answers the positions it
    /// covers.
    pub fn new(
        rules: &Rules,
        games: usize,
        opening: OpeningMoves,
        seed: u64,
        oracle: Option<Arc<EndgameOracle>>,
        targets: Targets,
    ) -> anyhow::Result<SelfPlay> {
        // Stream 0 of the seed seeds the games (each its own stream of it), stream 1 draws their
        // random openings.
        let env = VecEnv::new(*rules, games, derive(seed, 0))?;
        let mut rng = stream(seed, 1);
        let opening_left = (0..games)
            .map(|_| rng.random_range(0..=opening.moves))
            .collect();
        Ok(SelfPlay {
            rules: *rules,
            env,
            history: vec![Vec::new(); games],
            opening_left,
            opening,
            oracle,
            targets,
        })
    }

    /// Appends the games in flight to a run state.
    pub fn save(&self, w: &mut Writer) {
        w.u64(self.env.games() as u64);
        for i in 0..self.env.games() {
            w.pos(&self.env.position(i));
            w.u8(self.env.swapped(i) as u8);
            w.u32(self.env.game_len(i));
            w.u32(self.opening_left[i]);
            w.u64(self.history[i].len() as u64);
            for h in &self.history[i] {
                w.pos(&h.pos);
                w.u8(h.player);
                w.policy(&h.policy);
                w.f32(h.search_value);
                w.u8(h.exact.is_some() as u8);
                w.i32(h.exact.unwrap_or(0));
                w.u8(h.exploratory as u8);
                w.policy(&h.lost);
            }
        }
    }

    /// Puts the games back as [`SelfPlay::save`] left them; refuses a state of another number of
    /// games.
    pub fn load(&mut self, r: &mut Reader) -> anyhow::Result<()> {
        let n = r.count(34 + 17)?;
        anyhow::ensure!(
            n == self.env.games(),
            "the run state holds {n} self-play games, the config {}",
            self.env.games()
        );
        let mut games = Vec::with_capacity(n);
        for i in 0..n {
            let pos = r.pos()?;
            let swapped = r.u8()? != 0;
            let len = r.u32()?;
            games.push((pos, swapped, len));
            self.opening_left[i] = r.u32()?;
            let with_lost = r.version() >= 2;
            let k = r.count(34 + 1 + 4 * MAX_ACTIONS * (1 + with_lost as usize) + 10)?;
            let mut h = Vec::with_capacity(k);
            for _ in 0..k {
                let pos = r.pos()?;
                let player = r.u8()?;
                let policy = r.policy()?;
                let search_value = r.f32()?;
                let has = r.u8()? != 0;
                let v = r.i32()?;
                h.push(Pending {
                    pos,
                    player,
                    policy,
                    search_value,
                    exact: has.then_some(v),
                    exploratory: r.u8()? != 0,
                    lost: if with_lost { r.policy()? } else { NO_LOST },
                });
            }
            self.history[i] = h;
        }
        self.env.set_games(&games)?;
        Ok(())
    }

    /// Plays moves in every game until at least `positions` positions are recorded (or `stop` is
    /// set); finished games go to `replay`, and the env starts them again.
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
        let games = self.env.games();
        let mut actions = vec![0u32; games];
        let mut roots: Vec<Position> = Vec::with_capacity(games);
        let mut temps: Vec<f32> = Vec::with_capacity(games);
        let mut searched: Vec<usize> = Vec::with_capacity(games);
        // Drawn from the call's seed, so that a run resumed between iterations plays on the same:
        // stream 0 of the seed for the games' random moves, stream `calls` for each batch's search.
        let mut rng = stream(seed, 0);
        let mut calls = 0u64;
        while (stats.positions as usize) < positions && !stop.load(Ordering::Relaxed) {
            roots.clear();
            temps.clear();
            searched.clear();
            for (i, action) in actions.iter_mut().enumerate() {
                let pos = self.env.position(i);
                if let Some(a) = self.unsearched(i, &pos, &mut rng, &mut stats) {
                    *action = a;
                    continue;
                }
                roots.push(pos);
                temps.push(temperature(play, self.env.game_len(i) as usize));
                searched.push(i);
            }
            calls += 1;
            let results = search_batch_with(
                &roots,
                &temps,
                search,
                evaluator,
                self.oracle.as_deref().map(|o| o as &dyn Oracle),
                derive(seed, calls),
            );
            for (j, (r, &i)) in results.into_iter().zip(&searched).enumerate() {
                let mut policy = [0.0; MAX_ACTIONS];
                policy[..r.policy.len()].copy_from_slice(&r.policy);
                let best = argmax(&r.policy);
                let exploratory = r.action != best;
                stats.exploratory += exploratory as u64;
                self.history[i].push(Pending {
                    pos: roots[j],
                    player: self.env.to_play()[i],
                    policy,
                    search_value: r.value,
                    exact: None,
                    exploratory,
                    lost: search_lost(&r.q, search.margin_weight, self.rules.total_seeds()),
                });
                stats.positions += 1;
                actions[i] = r.action as u32;
            }
            self.env
                .step(&actions)
                .expect("self-play plays legal moves");
            let weights = (search.margin_weight, play.value_target_mix);
            self.finish_games(weights, replay, &mut rng, &mut stats);
        }
        stats
    }

    /// The action of game `i` (at `pos`) when it needs no search: an opening move (not
    /// recorded), or an optimal move of a position the oracle covers (recorded with exact
    /// targets).
    fn unsearched(
        &mut self,
        i: usize,
        pos: &Position,
        rng: &mut GameRng,
        stats: &mut SelfPlayStats,
    ) -> Option<u32> {
        if self.opening_left[i] > 0 {
            self.opening_left[i] -= 1;
            return Some(self.opening.pick(pos, self.env.legal_bits(i), rng));
        }
        let exact = self.oracle.as_ref()?.moves(pos)?;
        let best: Vec<Move> = exact.best().collect();
        let mv = best[rng.random_range(0..best.len())];
        self.history[i].push(Pending {
            pos: *pos,
            player: self.env.to_play()[i],
            policy: optimal_policy(&exact, self.rules.pits()),
            search_value: 0.0,
            exact: Some(exact.value),
            exploratory: false,
            lost: exact_lost(&exact, self.rules.pits()),
        });
        stats.positions += 1;
        stats.exact_positions += 1;
        Some(mv.action(self.rules.pits()) as u32)
    }

    /// Turns the games that ended in the last step into samples (`weights`: the search's margin
    /// weight and the value target mix) and draws the next games' random openings.
    fn finish_games(
        &mut self,
        (margin_weight, mix): (f32, f32),
        replay: &mut Replay,
        rng: &mut GameRng,
        stats: &mut SelfPlayStats,
    ) {
        for i in 0..self.env.games() {
            let Some(outcome) = self.env.outcome(i) else {
                continue;
            };
            stats.games += 1;
            stats.game_moves += outcome.len as u64;
            stats.results[outcome.winner().unwrap_or(2)] += 1;
            finish(
                &self.history[i],
                outcome.margin(0),
                self.targets,
                margin_weight,
                mix,
                self.rules.total_seeds(),
                replay,
            );
            self.history[i].clear();
            self.opening_left[i] = rng.random_range(0..=self.opening.moves);
        }
    }
}

/// Seeds each legal action gives away against the best move, from every move's exact value
/// (`NaN` for illegal actions).
pub(super) fn exact_lost(exact: &ExactMoves, pits: usize) -> [f32; MAX_ACTIONS] {
    let mut lost = NO_LOST;
    for &(mv, v) in &exact.moves {
        lost[mv.action(pits)] = (exact.value - v) as f32;
    }
    lost
}

/// Seeds each visited root action gives away against the best visited one, by the search's mean
/// utilities `q` — only when the utility is the margin alone (`margin_weight` 1), else unknown.
fn search_lost(q: &[Option<f32>], margin_weight: f32, total: u32) -> [f32; MAX_ACTIONS] {
    let mut lost = NO_LOST;
    if margin_weight != 1.0 {
        return lost;
    }
    let best = q
        .iter()
        .flatten()
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    for (l, qa) in lost.iter_mut().zip(q) {
        if let Some(qa) = qa {
            *l = (best - qa) * total as f32;
        }
    }
    lost
}

/// The policy target of a position with exactly known move values: uniform over the optimal moves.
pub(super) fn optimal_policy(exact: &ExactMoves, pits: usize) -> [f32; MAX_ACTIONS] {
    let n = exact.best().count() as f32;
    let mut policy = [0.0; MAX_ACTIONS];
    for mv in exact.best() {
        policy[mv.action(pits)] = 1.0 / n;
    }
    policy
}

/// The policy target of an exactly known position at `temperature` (in units of final margin):
/// 0 is [`optimal_policy`]; above 0, every legal move weighs `exp((value - best) / temperature)`,
/// so the target also ranks the moves that are not optimal.
pub(super) fn exact_policy(
    exact: &ExactMoves,
    pits: usize,
    temperature: f32,
) -> [f32; MAX_ACTIONS] {
    if temperature <= 0.0 {
        return optimal_policy(exact, pits);
    }
    let mut policy = [0.0; MAX_ACTIONS];
    let mut sum = 0.0;
    for &(mv, v) in &exact.moves {
        let w = ((v - exact.value) as f32 / temperature).exp();
        policy[mv.action(pits)] = w;
        sum += w;
    }
    for p in &mut policy {
        *p /= sum;
    }
    policy
}

/// Index of the largest entry.
fn argmax(x: &[f32]) -> usize {
    x.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map_or(0, |(i, _)| i)
}

/// Gumbel noise scale at move `ply` of a game.
fn temperature(play: &SelfPlayConfig, ply: usize) -> f32 {
    if play.temperature_moves == 0 || ply as u32 >= play.temperature_moves {
        return play.temperature_end;
    }
    let t = ply as f32 / play.temperature_moves as f32;
    play.temperature_start + (play.temperature_end - play.temperature_start) * t
}

/// The result (1 win, 0 draw, -1 loss) a final margin in seeds gives; a margin estimated by the
/// search counts as a draw within half a seed.
pub(super) fn result_of(margin: f32) -> f32 {
    if margin > 0.5 {
        1.0
    } else if margin < -0.5 {
        -1.0
    } else {
        0.0
    }
}

/// Turns a finished game into samples. `margin0` is the final margin of player 0 (who opened);
/// every target is for the player to move at its position, whatever seat a pie swap gave them.
fn finish(
    history: &[Pending],
    margin0: i32,
    targets: Targets,
    margin_weight: f32,
    mix: f32,
    total: u32,
    replay: &mut Replay,
) {
    let total = total.max(1) as f32;
    // The estimate of player 0's final margin (in seeds) from the position being scored on.
    let mut est = margin0 as f32;
    let truncate = targets == Targets::Truncated;
    // The search's value is a margin estimate only when its utility is the margin alone.
    let bootstrap = truncate && margin_weight == 1.0;
    let mut out = Vec::with_capacity(history.len());
    for h in history.iter().rev() {
        let sign = if h.player == 0 { 1.0 } else { -1.0 };
        if let (true, Some(v)) = (truncate, h.exact) {
            est = sign * v as f32;
        } else if bootstrap && h.exploratory {
            est = sign * h.search_value * total;
        }
        let margin = sign * est;
        let z = result_of(margin);
        let (value, margin) = match h.exact {
            Some(v) => (v.signum() as f32, v as f32 / total),
            None => ((1.0 - mix) * z + mix * h.search_value, margin / total),
        };
        out.push(Sample {
            pos: h.pos,
            policy: h.policy,
            value,
            margin,
            exact: h.exact.is_some(),
            lost: h.lost,
        });
    }
    for s in out.into_iter().rev() {
        replay.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    fn opening(moves: u32) -> OpeningMoves {
        OpeningMoves { moves, greedy: 0.0 }
    }

    #[test]
    fn opening_moves_follow_the_greedy_share() {
        let rules = Rules::kalah64();
        let pos = Position::start(&rules);
        let legal = 0b11_1111;
        let mut rng = stream(5, 0);
        // At the start greedy has one best move (pit 3 lands in the store and plays again).
        let best = Greedy.pick(&pos, &mut rng).action(rules.pits()) as u32;
        let picks = |greedy: f32, rng: &mut GameRng| -> Vec<u32> {
            let o = OpeningMoves { moves: 4, greedy };
            (0..300).map(|_| o.pick(&pos, legal, rng)).collect()
        };
        assert!(picks(1.0, &mut rng).iter().all(|&a| a == best));
        let random = picks(0.0, &mut rng);
        assert!(
            (0..6).all(|a| random.contains(&a)),
            "every legal move is drawn"
        );
        let half = picks(0.5, &mut rng);
        let greedy = half.iter().filter(|&&a| a == best).count();
        // Greedy's move half the time plus a sixth of the random half: about 175 of 300.
        assert!(
            (140..=210).contains(&greedy),
            "{greedy} greedy moves of 300"
        );
    }

    fn play_config() -> SelfPlayConfig {
        SelfPlayConfig {
            games: 8,
            positions_per_iteration: 2000,
            temperature_start: 1.0,
            temperature_end: 0.5,
            temperature_moves: 10,
            value_target_mix: 0.0,
            opening_random_moves: 4,
            opening_greedy: 0.0,
            endgame_db_seeds: 0,
            targets: Targets::Result,
            labels: Default::default(),
            label_time_limit: 0.0,
            exact_share: 0.0,
            exact_temperature: 0.0,
            label_draw: Default::default(),
            label_skip_forced: false,
            label_file: None,
            label_file_share: 0.0,
            label_file_holdout: 5,
        }
    }

    #[test]
    fn exact_policy_targets_rank_the_moves_by_value() {
        let rules = Rules::kalah64();
        let exact = ExactMoves {
            value: 4,
            moves: vec![
                (Move::Pit(1), 4),
                (Move::Pit(2), 2),
                (Move::Pit(3), 4),
                (Move::Pit(5), -10),
            ],
        };
        let uniform = exact_policy(&exact, rules.pits(), 0.0);
        assert_eq!(uniform, optimal_policy(&exact, rules.pits()));
        assert_eq!(uniform[..6], [0.5, 0.0, 0.5, 0.0, 0.0, 0.0]);
        let soft = exact_policy(&exact, rules.pits(), 1.0);
        assert!((soft.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(soft[0], soft[2]);
        // Two margin points worse weighs e^-2 of the best; illegal actions weigh nothing.
        assert!((soft[1] / soft[0] - (-2.0f32).exp()).abs() < 1e-6);
        assert!(soft[4] > 0.0 && soft[4] < soft[1]);
        assert_eq!((soft[3], soft[5], soft[6]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn games_finish_into_samples_with_consistent_targets() {
        let rules = Rules::kalah64().with_pie(true);
        let mut sp = SelfPlay::new(&rules, 8, opening(4), 9, None, Targets::Result).unwrap();
        let mut replay = Replay::new(100_000);
        let search = SearchConfig {
            simulations: 4,
            ..SearchConfig::default()
        };
        let stop = AtomicBool::new(false);
        let st = sp.generate(
            2000,
            &play_config(),
            &search,
            &mut UniformEvaluator,
            &mut replay,
            1,
            &stop,
        );
        assert!(st.games > 0);
        assert!(replay.len() as u64 <= st.positions);
        let s = replay.batch(50, &mut stream(2, 0));
        for x in s {
            assert!(x.value == 1.0 || x.value == -1.0 || x.value == 0.0);
            // The value target and the margin target agree in sign.
            assert_eq!(x.value, x.margin.signum() * (x.margin != 0.0) as i32 as f32);
            assert!((x.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
    }

    #[test]
    fn oracle_positions_get_exact_targets_and_truncation_keeps_them() {
        let rules = Rules::new(4, 3).unwrap();
        let db = crate::solver::Endgame::build(&rules, 12, None);
        let oracle = EndgameOracle::from_db(&rules, db);
        let check = EndgameOracle::from_db(&rules, crate::solver::Endgame::build(&rules, 12, None));
        let mut sp = SelfPlay::new(
            &rules,
            16,
            opening(2),
            3,
            Some(Arc::new(oracle)),
            Targets::Truncated,
        )
        .unwrap();
        let mut replay = Replay::new(100_000);
        let search = SearchConfig {
            simulations: 8,
            margin_weight: 1.0,
            ..SearchConfig::default()
        };
        let stop = AtomicBool::new(false);
        let st = sp.generate(
            3000,
            &play_config(),
            &search,
            &mut UniformEvaluator,
            &mut replay,
            5,
            &stop,
        );
        assert!(st.exact_positions > 0 && st.exact_positions < st.positions);
        let total = rules.total_seeds() as f32;
        let mut exact = 0;
        for s in replay.iter() {
            match check.moves(&s.pos) {
                Some(e) => {
                    exact += 1;
                    assert!(s.exact);
                    assert_eq!(s.margin * total, e.value as f32, "{}", s.pos);
                    let best: Vec<usize> = e.best().map(|m| m.action(4)).collect();
                    for (a, &p) in s.policy.iter().enumerate() {
                        assert_eq!(p > 0.0, best.contains(&a), "{}", s.pos);
                    }
                }
                None => assert!(!s.exact),
            }
        }
        assert!(exact > 0);
    }

    #[test]
    fn truncated_targets_stop_at_exploratory_moves_and_exact_positions() {
        let rules = Rules::kalah64();
        let pos = Position::start(&rules);
        let p = |player: u8, search_value: f32, exact: Option<i32>, exploratory: bool| Pending {
            pos,
            player,
            policy: [0.0; MAX_ACTIONS],
            search_value,
            exact,
            exploratory,
            lost: NO_LOST,
        };
        // Player 0 moves, player 1 explores (search said +0.25 * 48 = +12 for player 1), player
        // 0 moves, then an exact position for player 1 (-4), and the game ends +10 for player 0.
        let history = [
            p(0, 0.0, None, false),
            p(1, 0.25, None, true),
            p(0, 0.0, None, false),
            p(1, 0.0, Some(-4), false),
        ];
        let mut replay = Replay::new(10);
        finish(&history, 10, Targets::Truncated, 1.0, 0.0, 48, &mut replay);
        let m: Vec<f32> = replay.iter().map(|s| s.margin * 48.0).collect();
        assert_eq!(m, [-12.0, 12.0, 4.0, -4.0]);
        let mut replay = Replay::new(10);
        finish(&history, 10, Targets::Result, 1.0, 0.0, 48, &mut replay);
        let m: Vec<f32> = replay.iter().map(|s| s.margin * 48.0).collect();
        assert_eq!(m, [10.0, -10.0, 10.0, -4.0]);
    }
}
