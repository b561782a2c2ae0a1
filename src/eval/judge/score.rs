//! Scoring moves on the judge set: the share of optimal moves (by phase, source and inside or
//! outside the database, with the pie decisions apart), the misses, and two networks compared
//! position by position.

use anyhow::bail;
use serde::{Deserialize, Serialize};

use super::stats::{Paired, Rate};
use super::{DB_REPORT_SEEDS, JudgeSet, Judged, Source};
use crate::rules::{Move, Position};
use crate::search::{Evaluator, greedy_actions};
use crate::solver::swap_answer_agrees;

/// The network's score against the solver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeScore {
    /// Positions judged.
    pub positions: usize,
    /// Positions drawn but left out: the solver did not prove them within its time limit.
    #[serde(default)]
    pub unsolved: usize,
    /// Share of the network's moves that are optimal.
    pub optimal_rate: f64,
    /// Standard error of `optimal_rate`.
    #[serde(default)]
    pub std_err: f64,
    /// Mean seeds the network's move gives up against the best move.
    pub mean_loss: f64,
    /// Positions with at most [`DB_REPORT_SEEDS`] seeds on the board.
    #[serde(default)]
    pub inside_db: Rate,
    /// Positions with more seeds on the board.
    #[serde(default)]
    pub outside_db: Rate,
    /// By phase: `opening` (plies 0-11), `middle` (12-24), `late` (25 on).
    #[serde(default)]
    pub phases: Vec<(String, Rate)>,
    /// By where the positions came from: `mixed`, `minimax`, `endgame`.
    #[serde(default)]
    pub sources: Vec<(String, Rate)>,
    /// Under the pie rule: the opening decisions (not counted in the figures above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pie: Option<PieScore>,
}

/// The network's pie-rule decisions against the solver's, over every position of the opening
/// turn and every swap decision (not sampled: all of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PieScore {
    /// The opener's moves in its first turn, knowing it may be swapped: share optimal.
    pub openings: Rate,
    /// The answer: share of positions where the network swaps exactly when swapping is optimal
    /// (either choice agrees where both are optimal).
    pub swaps: Rate,
}

/// A judged position where the network's move is not optimal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Miss {
    /// The position's notation.
    pub position: String,
    /// Where it came from.
    pub source: Source,
    /// Plies from the start.
    pub ply: u32,
    /// Seeds on the board.
    pub board_seeds: u32,
    /// Its exact value (final margin for the player to move).
    pub value: i32,
    /// The network's action and its exact value.
    pub chosen: (usize, i32),
    /// Every legal action's exact value.
    pub moves: Vec<(usize, i32)>,
}

/// The exact value of action `a` in judged position `j`. Every legal move is among the moves
/// (the public scorers refuse other actions first, [`JudgeSet::check_picks`]); anything else would
/// count as the worst move, never as an optimal one.
fn chosen_value(j: &Judged, a: usize) -> i32 {
    j.moves
        .iter()
        .find(|m| m.0 == a)
        .map_or(i32::MIN / 2, |m| m.1)
}

/// An error naming the first of `actions` (one per position, in order) that is not a legal move
/// of its position, or a count that is not one per position: what every scorer of chosen moves
/// checks first (judge sets, held-out sets).
pub fn check_actions<'a>(
    positions: impl ExactSizeIterator<Item = &'a Position>,
    actions: &[usize],
) -> anyhow::Result<()> {
    if actions.len() != positions.len() {
        bail!(
            "{} actions for the {} positions of the set",
            actions.len(),
            positions.len()
        );
    }
    for (i, (pos, &a)) in positions.zip(actions).enumerate() {
        let pits = pos.rules().pits();
        if !pos.legal_moves().iter().any(|m| m.action(pits) == a) {
            bail!("position {i} ({pos}): action {a} is not a legal move");
        }
    }
    Ok(())
}

fn phase(ply: u32) -> &'static str {
    match ply {
        0..=11 => "opening",
        12..=24 => "middle",
        _ => "late",
    }
}

impl JudgeSet {
    /// An error naming the first of `picks` (one action per position, in set order) that is not a
    /// legal move of its position, or a count that is not one per position.
    pub fn check_picks(&self, picks: &[usize]) -> anyhow::Result<()> {
        check_actions(self.positions.iter().map(|p| &p.0), picks)
    }

    /// The network's best move (by its policy) in every position, in set order.
    pub fn picks(&self, evaluator: &mut dyn Evaluator) -> Vec<usize> {
        self.picks_with(|positions| greedy_actions(positions, evaluator))
    }

    /// The action `choose` picks in every position (given all of them at once, in set order).
    pub fn picks_with(&self, choose: impl FnOnce(&[Position]) -> Vec<usize>) -> Vec<usize> {
        let positions: Vec<Position> = self.positions.iter().map(|p| p.0).collect();
        if positions.is_empty() {
            return Vec::new();
        }
        choose(&positions)
    }

    /// The positions (outside the pie openings) where `picks` (one legal action per position,
    /// e.g. from [`JudgeSet::picks`]) is not optimal; an error for picks that are not.
    pub fn misses(&self, picks: &[usize]) -> anyhow::Result<Vec<Miss>> {
        self.check_picks(picks)?;
        Ok(self
            .positions
            .iter()
            .zip(picks)
            .filter(|((_, j), _)| j.source != Source::Pie)
            .filter_map(|((pos, j), &a)| {
                let v = chosen_value(j, a);
                (v < j.value).then(|| Miss {
                    position: j.position.clone(),
                    source: j.source,
                    ply: j.ply,
                    board_seeds: pos.board_seeds(),
                    value: j.value,
                    chosen: (a, v),
                    moves: j.moves.clone(),
                })
            })
            .collect())
    }

    /// Compares two networks' `picks` (from [`JudgeSet::picks`]) position by position; an error
    /// for picks that are not one legal action per position.
    pub fn compare(&self, first: &[usize], second: &[usize]) -> anyhow::Result<Paired> {
        self.check_picks(first)?;
        self.check_picks(second)?;
        // Pie decisions are scored apart (see `PieScore`).
        let right = |picks: &[usize]| {
            self.positions
                .iter()
                .zip(picks)
                .filter(|((_, j), _)| j.source != Source::Pie)
                .map(|((_, j), &a)| chosen_value(j, a) == j.value)
                .collect::<Vec<bool>>()
        };
        Ok(Paired::of(right(first), right(second)))
    }

    /// Scores the network's best move (by its policy) in every position.
    pub fn score(&self, evaluator: &mut dyn Evaluator) -> JudgeScore {
        let picks = self.picks(evaluator);
        self.tally(&picks)
    }

    /// Scores `picks`, one legal action per position in set order (e.g. from
    /// [`JudgeSet::picks`]); an error naming the first that is not a legal move.
    pub fn score_picks(&self, actions: &[usize]) -> anyhow::Result<JudgeScore> {
        self.check_picks(actions)?;
        Ok(self.tally(actions))
    }

    /// The score of legal `actions`.
    fn tally(&self, actions: &[usize]) -> JudgeScore {
        if self.positions.is_empty() {
            return JudgeScore::default();
        }
        let mut optimal = 0usize;
        let mut lost = 0i64;
        let mut db = [(0usize, 0usize); 2];
        let names = ["opening", "middle", "late"];
        let mut by_phase = [(0usize, 0usize); 3];
        let sources = [
            (Source::Mixed, "mixed"),
            (Source::Minimax, "minimax"),
            (Source::Endgame, "endgame"),
        ];
        let mut by_source = [(0usize, 0usize); 3];
        let (mut openings, mut swaps) = ((0usize, 0usize), (0usize, 0usize));
        let mut n = 0;
        for ((pos, j), &a) in self.positions.iter().zip(actions) {
            if j.source == Source::Pie {
                let swap = Move::Swap.action(pos.rules().pits());
                if pos.swap_allowed() {
                    let moves = j.moves.iter().map(|&(x, v)| (x == swap, Some(v)));
                    swaps.0 += swap_answer_agrees(a == swap, j.value, moves) as usize;
                    swaps.1 += 1;
                } else {
                    openings.0 += j.moves.iter().any(|&(x, v)| x == a && v == j.value) as usize;
                    openings.1 += 1;
                }
                continue;
            }
            n += 1;
            let v = chosen_value(j, a);
            let loss = (j.value - v).max(0);
            let ok = (loss == 0) as usize;
            optimal += ok;
            lost += loss as i64;
            let d = &mut db[(pos.board_seeds() <= DB_REPORT_SEEDS) as usize];
            d.0 += ok;
            d.1 += 1;
            let k = names
                .iter()
                .position(|&n| n == phase(j.ply))
                .expect("a known phase");
            by_phase[k].0 += ok;
            by_phase[k].1 += 1;
            if let Some(k) = sources.iter().position(|s| s.0 == j.source) {
                by_source[k].0 += ok;
                by_source[k].1 += 1;
            }
        }
        let all = Rate::of(optimal, n);
        JudgeScore {
            positions: n,
            unsolved: self.unsolved,
            optimal_rate: all.optimal_rate,
            std_err: all.std_err,
            mean_loss: lost as f64 / n.max(1) as f64,
            inside_db: Rate::of(db[1].0, db[1].1),
            outside_db: Rate::of(db[0].0, db[0].1),
            phases: names
                .iter()
                .zip(by_phase)
                .map(|(name, (o, c))| (name.to_string(), Rate::of(o, c)))
                .collect(),
            sources: sources
                .iter()
                .zip(by_source)
                .map(|((_, name), (o, c))| (name.to_string(), Rate::of(o, c)))
                .collect(),
            pie: (openings.1 + swaps.1 > 0).then(|| PieScore {
                openings: Rate::of(openings.0, openings.1),
                swaps: Rate::of(swaps.0, swaps.1),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::eval::judge::JUDGE_SEED;
    use crate::rules::Rules;

    /// The committed Kalah(6,4) set scores only legal picks: an illegal action (or a count that
    /// is not one per position) is an error naming it, never a move scored as optimal.
    #[test]
    fn illegal_picks_are_refused_not_scored() {
        let rules = Rules::kalah64();
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/judge");
        let set = JudgeSet::load_or_build(&rules, 1200, JUDGE_SEED, &committed, None).unwrap();
        let first_legal: Vec<usize> = set
            .positions()
            .iter()
            .map(|p| p.legal_moves().iter().next().unwrap().action(6))
            .collect();
        let score = set.score_picks(&first_legal).unwrap();
        assert!(score.optimal_rate > 0.0 && score.optimal_rate < 1.0);
        assert_eq!(
            set.misses(&first_legal).unwrap().len(),
            score.positions - (score.optimal_rate * score.positions as f64).round() as usize
        );
        let mut bad = first_legal.clone();
        bad[7] = 6; // swap: never legal without the pie rule
        let e = set.score_picks(&bad).unwrap_err().to_string();
        assert!(
            e.contains("position 7") && e.contains("action 6 is not a legal move"),
            "{e}"
        );
        assert!(set.misses(&bad).is_err());
        assert!(set.compare(&first_legal, &bad).is_err());
        let e = set.score_picks(&first_legal[1..]).unwrap_err().to_string();
        assert!(e.contains("1199 actions for the 1200 positions"), "{e}");
    }
}
