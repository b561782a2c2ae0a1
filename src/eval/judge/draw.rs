//! Drawing the judge set: positions from the three sources (mixed, minimax, endgame) from one
//! seeded stream, and under the pie rule every decision of the opening, enumerated.
//!
//! Pinned to `rand`'s `SmallRng`, not [`GameRng`](crate::env::rng::GameRng): the committed judge
//! sets (checkpoints/judge) and the cached judge-like held-out sets (`eval::heldout`, through
//! [`draw_any`]) were drawn with it and must be drawn again exactly.

use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};

use super::{DB_REPORT_SEEDS, Source};
use crate::bots::{Minimax, greedy_or_random, random_move};
use crate::rules::{Position, Rules};

/// Most seeds on the board of a judged position drawn from a game of `rules`: any position in
/// games of up to Kalah(6,4)'s 48 seeds, at most 40 in bigger ones (the solver cannot prove the
/// Kalah(6,6) start, but proves positions with 40 seeds left in seconds).
pub fn deep_enough(rules: &Rules) -> u32 {
    let total = rules.total_seeds();
    if total > 48 { 40 } else { total }
}

/// A game of random and greedy moves mixed (the share of greedy moves drawn per game), played
/// until `stop(pos, ply)` or the end; the position and its ply if it is usable (not over, two legal
/// moves at least).
fn mixed_game(
    rules: &Rules,
    rng: &mut SmallRng,
    mut stop: impl FnMut(&Position, u32) -> bool,
) -> Option<(Position, u32)> {
    let mut pos = Position::start(rules);
    let greedy_share: f64 = rng.random();
    let mut ply = 0;
    while !pos.is_over() && !stop(&pos, ply) {
        let mv = greedy_or_random(&pos, greedy_share, rng);
        pos.play(mv).expect("bots play legal moves");
        ply += 1;
    }
    (!pos.is_over() && pos.legal_moves().len() >= 2).then_some((pos, ply))
}

/// One position from `source`.
fn draw_one(rules: &Rules, source: Source, rng: &mut SmallRng) -> Option<(Position, u32)> {
    match source {
        Source::Mixed => {
            let (target, cap) = (rng.random_range(4..40), deep_enough(rules));
            mixed_game(rules, rng, |pos, ply| {
                ply >= target && pos.board_seeds() <= cap
            })
        }
        Source::Minimax => {
            let (random, target) = (rng.random_range(2..=6), rng.random_range(4..40));
            let mut pos = Position::start(rules);
            let bot = Minimax::new(4);
            let (mut ply, cap) = (0, deep_enough(rules));
            while !pos.is_over() && (ply < target || pos.board_seeds() > cap) {
                let mv = if ply < random {
                    random_move(&pos, rng)
                } else {
                    bot.pick(&pos, rng)
                };
                pos.play(mv).expect("bots play legal moves");
                ply += 1;
            }
            (!pos.is_over() && pos.legal_moves().len() >= 2).then_some((pos, ply))
        }
        // The pie rule's positions are enumerated, not drawn (see `pie_positions`).
        Source::Pie => None,
        Source::Endgame => {
            let extra = rng.random_range(0..=6);
            let mut inside = None;
            mixed_game(rules, rng, |pos, ply| {
                if inside.is_none() && pos.board_seeds() <= DB_REPORT_SEEDS {
                    inside = Some(ply);
                }
                inside.is_some_and(|k| ply >= k + extra)
            })
        }
    }
}

/// One position from a source drawn at random among the three (mixed, minimax, endgame), as the
/// judge set draws them: the held-out sets' judge-like draw.
/// Pinned to `SmallRng`: the cached judge-like held-out sets were drawn with it.
pub(crate) fn draw_any(rules: &Rules, rng: &mut SmallRng) -> Option<Position> {
    let sources = [Source::Mixed, Source::Minimax, Source::Endgame];
    let source = sources[rng.random_range(0..3)];
    draw_one(rules, source, rng).map(|(p, _)| p)
}

/// Under the pie rule, every decision of the opening with its ply: the opener's positions in its
/// first turn and each position where `swap` is open; none without the pie rule.
pub fn pie_positions(rules: &Rules) -> Vec<(Position, u32)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(Position::start(rules), 0)];
    while let Some((p, ply)) = stack.pop() {
        let opening = crate::env::obs::pie_to_come(&p);
        if !(opening || p.swap_allowed()) || !seen.insert(p.to_string()) {
            continue;
        }
        out.push((p, ply));
        if opening {
            for mv in p.legal_moves().iter() {
                let (child, _) = p.after(mv).expect("legal moves play");
                stack.push((child, ply + 1));
            }
        }
    }
    out.sort_by_key(|(p, ply)| (*ply, p.to_string()));
    out
}

/// `n` positions, a third from each source, then (pie rule) every decision of the opening.
pub(super) fn draw_set(rules: &Rules, n: usize, seed: u64) -> Vec<(Position, Source, u32)> {
    let mut drawn = draw_positions(rules, n, seed);
    drawn.extend(
        pie_positions(rules)
            .into_iter()
            .map(|(p, ply)| (p, Source::Pie, ply)),
    );
    drawn
}

/// `n` positions, a third from each source.
fn draw_positions(rules: &Rules, n: usize, seed: u64) -> Vec<(Position, Source, u32)> {
    // Pinned to `SmallRng`: the committed judge sets (checkpoints/judge) were drawn with it.
    let mut rng = SmallRng::seed_from_u64(seed);
    let sources = [Source::Mixed, Source::Minimax, Source::Endgame];
    let mut out = Vec::with_capacity(n);
    let mut k = 0;
    while out.len() < n {
        let source = sources[k % 3];
        if let Some((pos, ply)) = draw_one(rules, source, &mut rng) {
            out.push((pos, source, ply));
            k += 1;
        }
    }
    out
}

/// A position `plies` random-and-greedy moves into a game (fewer if it ends), not over. Generic
/// over the generator: the pinned held-out draw (`super::super::heldout`) calls it with `SmallRng`;
/// training's labelled positions (`train::labelled`) draw from it too.
pub(crate) fn game_position(rules: &Rules, rng: &mut impl Rng, max_plies: u32) -> Option<Position> {
    let mut pos = Position::start(rules);
    let target = rng.random_range(0..max_plies);
    let greedy: f64 = rng.random();
    for _ in 0..target {
        let mv = greedy_or_random(&pos, greedy, rng);
        let mut next = pos;
        next.play(mv).expect("bots play legal moves");
        if next.is_over() {
            break;
        }
        pos = next;
    }
    (!pos.is_over()).then_some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_from_every_source_and_the_endgame_ones_are_inside_the_database() {
        let rules = Rules::kalah64();
        let drawn = draw_positions(&rules, 60, 3);
        assert_eq!(drawn.len(), 60);
        for s in [Source::Mixed, Source::Minimax, Source::Endgame] {
            assert_eq!(drawn.iter().filter(|d| d.1 == s).count(), 20);
        }
        for (p, s, _) in &drawn {
            assert!(!p.is_over() && p.legal_moves().len() >= 2);
            if *s == Source::Endgame {
                assert!(p.board_seeds() <= DB_REPORT_SEEDS, "{p}");
            }
        }
    }

    #[test]
    fn six_seed_sets_are_drawn_deep_enough_to_prove() {
        let rules = crate::rules::Preset::Swedish.rules();
        assert_eq!(deep_enough(&rules), 40);
        assert_eq!(deep_enough(&Rules::kalah64()), 48);
        for (p, _, _) in draw_positions(&rules, 30, 5) {
            assert!(p.board_seeds() <= 40, "{p}");
        }
    }

    #[test]
    fn the_pie_set_holds_every_opening_decision_and_every_swap_answer() {
        assert!(pie_positions(&Rules::kalah64()).is_empty());
        let rules = Rules::kalah64().with_pie(true);
        let all = pie_positions(&rules);
        let start = Position::start(&rules);
        assert_eq!((all[0].0.to_string(), all[0].1), (start.to_string(), 0));
        let swaps = all.iter().filter(|(p, _)| p.swap_allowed()).count();
        // Every first move of South that ends its turn is a swap point (pit 3 of 4 seeds ends in
        // the store and goes on), and the opener's turn goes on only through extra turns.
        assert!(swaps >= 5, "{swaps}");
        for (p, ply) in &all {
            assert!(p.swap_allowed() || crate::env::obs::pie_to_come(p), "{p}");
            assert_eq!(
                p.to_move() == start.to_move(),
                !p.swap_allowed(),
                "{p} {ply}"
            );
        }
        // Drawn sets carry them after the sampled positions.
        let set = draw_set(&rules, 9, 1);
        assert_eq!(set.len(), 9 + all.len());
        assert!(set[9..].iter().all(|d| d.1 == Source::Pie));
    }
}
