//! Periodic evaluation: the network alone (best legal move by its policy) against baseline bots
//! from both seats, all games in lockstep so the network sees one batch per move.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bots::{Bot, Player, Tally, game_rng};
use crate::env::rng::GameRng;
use crate::rules::{Move, Position, Rules, Side};
use crate::search::{Evaluator, greedy_actions};

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
