//! The search against the exact solver (an exact evaluator, an oracle that solves every position),
//! its visit schedule, a batch of trees against the same searches run alone, its determinism, and
//! the inputs it refuses.

use std::cell::Cell;

use super::*;
use crate::rules::Rules;
use crate::solver::bench::midgame_positions;
use crate::solver::{DbSize, Solver, SolverConfig};

/// A solver for small boards: no endgame database, nothing on disk.
fn solver(rules: &Rules) -> Solver {
    let cfg = SolverConfig {
        memory_mb: 64,
        db: DbSize::Off,
        cache_dir: None,
        transposition: true,
        mtd: true,
        build_progress: None,
    };
    Solver::new(rules, &cfg).expect("a small solver")
}

/// Scores every position by the solver: the exact result as the value, the exact final margin as
/// the margin, and uniform logits, so that only the search can tell the moves apart.
struct ExactEvaluator<'a> {
    solver: &'a Solver,
    /// Positions evaluated so far.
    evaluated: Cell<usize>,
}

impl<'a> ExactEvaluator<'a> {
    fn new(solver: &'a Solver) -> ExactEvaluator<'a> {
        ExactEvaluator {
            solver,
            evaluated: Cell::new(0),
        }
    }
}

impl Evaluator for ExactEvaluator<'_> {
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
        for p in positions {
            assert!(!p.is_over(), "the evaluator was given a finished game");
            let v = self.solver.value(p);
            logits.extend(std::iter::repeat_n(0.0, p.rules().pits() + 1));
            values.push(v.signum() as f32);
            margins.push(v as f32 / p.rules().total_seeds() as f32);
        }
        self.evaluated.set(self.evaluated.get() + positions.len());
    }
}

/// Answers every position with the solver's exact final margin.
struct ExactOracle<'a>(&'a Solver);

impl Oracle for ExactOracle<'_> {
    fn final_margin(&self, pos: &Position) -> Option<i32> {
        Some(self.0.value(pos))
    }
}

/// Logits, value and margin drawn from a hash of the position: varied, but a function of the
/// position alone, so that a tree's search does not depend on what else is in the batch.
struct HashEvaluator;

fn hash(pos: &Position) -> u64 {
    // FNV-1a, then a SplitMix finaliser.
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for b in pos.to_bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// A number in [-1, 1] from 16 bits of `h`.
fn unit(h: u64, k: u32) -> f32 {
    ((h.rotate_right(16 * (k % 4)) & 0xFFFF) as f32 / 65535.0) * 2.0 - 1.0
}

impl Evaluator for HashEvaluator {
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
        for p in positions {
            assert!(!p.is_over(), "the evaluator was given a finished game");
            let h = hash(p);
            for a in 0..=p.rules().pits() {
                logits.push(2.0 * unit(h.wrapping_mul(a as u64 + 3), a as u32));
            }
            values.push(unit(h, 1));
            margins.push(0.5 * unit(h, 2));
        }
    }
}

/// Rule sets small enough to solve at once, with and without the pie rule and other options.
fn small_rules() -> Vec<Rules> {
    vec![
        Rules::new(3, 2).unwrap(),
        Rules::new(4, 2).unwrap(),
        Rules::new(3, 3).unwrap(),
        Rules::new(3, 2).unwrap().with_pie(true),
        Rules::new(4, 2)
            .unwrap()
            .with_capture(crate::rules::Capture::Empty)
            .with_end(crate::rules::End::OnTurn),
    ]
}

/// Positions from the start to deep into random games, each with more than one legal move.
fn positions_with_a_choice(rules: &Rules, count: usize, seed: u64) -> Vec<Position> {
    midgame_positions(rules, 4 * count, 0, 14, seed)
        .into_iter()
        .filter(|p| p.legal_moves().len() > 1)
        .take(count)
        .collect()
}

fn legal_actions(pos: &Position) -> Vec<usize> {
    let pits = pos.rules().pits();
    pos.legal_moves().iter().map(|m| m.action(pits)).collect()
}

/// Every action's exact final margin for the player to move, by action index.
fn exact_values(solver: &Solver, pos: &Position) -> Vec<Option<i32>> {
    let a = solver.analyse(pos);
    assert!(a.complete());
    let pits = pos.rules().pits();
    let mut out = vec![None; pits + 1];
    for m in &a.moves {
        out[m.mv.action(pits)] = m.value();
    }
    out
}

/// What every result must satisfy, whatever the evaluator: a legal action, a policy over the legal
/// actions summing to 1, visits and Q on legal actions only, visits summing to the simulations
/// over at most `considered_actions` actions, and as many actions visited as could be.
fn check_result(pos: &Position, cfg: &SearchConfig, r: &SearchResult) {
    let pits = pos.rules().pits();
    let legal = legal_actions(pos);
    assert_eq!(r.policy.len(), pits + 1);
    assert_eq!(r.visits.len(), pits + 1);
    assert_eq!(r.q.len(), pits + 1);
    assert!(
        legal.contains(&r.action),
        "{pos:?}: illegal action {}",
        r.action
    );
    for a in 0..=pits {
        if !legal.contains(&a) {
            assert_eq!(r.policy[a], 0.0, "{pos:?}: policy of illegal {a}");
            assert_eq!(r.visits[a], 0, "{pos:?}: visits of illegal {a}");
            assert_eq!(r.q[a], None, "{pos:?}: q of illegal {a}");
        }
        assert!(r.policy[a] >= 0.0);
        assert_eq!(r.q[a].is_some(), r.visits[a] > 0, "{pos:?}: action {a}");
        if let Some(q) = r.q[a] {
            assert!((-1.0..=1.0).contains(&q), "{pos:?}: q {q}");
        }
    }
    let sum: f32 = r.policy.iter().sum();
    assert!((sum - 1.0).abs() < 1e-5, "{pos:?}: policy sums to {sum}");
    assert!((-1.0..=1.0).contains(&r.value) && (-1.0..=1.0).contains(&r.net_value));
    let visited = r.visits.iter().filter(|&&v| v > 0).count() as u32;
    let total: u32 = r.visits.iter().sum();
    if legal.len() == 1 {
        // Nothing to choose: no simulation is spent.
        assert_eq!(total, 0, "{pos:?}");
        assert_eq!(r.policy[legal[0]], 1.0);
    } else {
        let considered = (cfg.considered_actions.max(1)).min(legal.len() as u32);
        assert!(!r.proved || cfg.prove, "{pos:?}: proved without proving");
        if r.proved || cfg.prove {
            // A proved root ends the search early, and so does a proving search whose kept
            // moves are all solved.
            assert!(total <= cfg.simulations, "{pos:?}: {:?}", r.visits);
        } else {
            assert_eq!(total, cfg.simulations, "{pos:?}: {:?}", r.visits);
        }
        assert_eq!(visited, considered.min(cfg.simulations), "{:?}", r.visits);
        // The move is one of the last survivors of sequential halving, which the last phase
        // visited (at most one visit short of the others, if the simulations ran out mid-phase);
        // a proved root plays a best move by the exact values, survivor or not. A proving search
        // spends no phase on a solved survivor, which may then win with fewer visits.
        let most = *r.visits.iter().max().unwrap();
        assert!(
            r.proved || cfg.prove || r.visits[r.action] + 1 >= most,
            "{pos:?}: {r:?}"
        );
    }
}

fn assert_same(a: &SearchResult, b: &SearchResult, what: &str) {
    assert_eq!(a.action, b.action, "{what}: action");
    assert_eq!(a.visits, b.visits, "{what}: visits");
    assert_eq!(a.q, b.q, "{what}: q");
    assert_eq!(a.policy, b.policy, "{what}: policy");
    assert_eq!(a.value, b.value, "{what}: value");
    assert_eq!(a.net_value, b.net_value, "{what}: net value");
}

#[test]
fn finds_the_winning_capture_with_a_uniform_evaluator() {
    // Pit 2 captures North's 3 seeds and empties North's row: an immediate win.
    let rules = Rules::new(3, 2).unwrap();
    let pos = Position::parse("1,1,0,5/3,0,0,5 s", &rules).unwrap();
    let cfg = SearchConfig {
        simulations: 32,
        ..SearchConfig::default()
    };
    let r = search_batch(
        &[pos; 4],
        &[0.0, 0.0, 1.0, 1.0],
        &cfg,
        &mut UniformEvaluator,
        7,
    );
    for x in &r {
        check_result(&pos, &cfg, x);
        assert!(x.policy[1] > x.policy[0], "{:?}", x.policy);
    }
    assert_eq!(r[0].action, 1);
    assert_eq!(r[1].action, 1);
}

#[test]
fn utility_mixes_value_and_margin_and_terminal_margins_count() {
    let mut cfg = SearchConfig {
        simulations: 32,
        margin_weight: 0.25,
        ..SearchConfig::default()
    };
    assert!((cfg.utility(1.0, 0.2) - 0.8).abs() < 1e-6);
    cfg.margin_weight = 1.0;
    assert_eq!(cfg.utility(-1.0, -0.25), -0.25);
    // The winning capture also wins by the most: with the margin alone as the utility the
    // search still finds it, and its root value is the exact final margin.
    let rules = Rules::new(3, 2).unwrap();
    let pos = Position::parse("1,1,0,5/3,0,0,5 s", &rules).unwrap();
    let r = search_batch(&[pos], &[0.0], &cfg, &mut UniformEvaluator, 3);
    assert_eq!(r[0].action, 1);
    let mut end = pos;
    end.play(Move::from_action(1, 3)).unwrap();
    assert!(end.is_over());
    assert!(margin_for(&end, Side::South) > 0.0);
    assert_eq!(
        margin_for(&end, Side::North),
        -margin_for(&end, Side::South)
    );
}

#[test]
fn plays_out_games_with_any_rules() {
    let largest = Rules::new(crate::rules::MAX_PITS as u32, 1).unwrap();
    for rules in [
        Rules::kalah64(),
        Rules::new(4, 3).unwrap().with_pie(true),
        largest.with_pie(true),
    ] {
        let cfg = SearchConfig {
            simulations: 8,
            ..SearchConfig::default()
        };
        let mut pos = [Position::start(&rules); 3];
        for ply in 0..400 {
            let live: Vec<usize> = (0..3).filter(|&i| !pos[i].is_over()).collect();
            if live.is_empty() {
                break;
            }
            let roots: Vec<Position> = live.iter().map(|&i| pos[i]).collect();
            let r = search_batch(
                &roots,
                &vec![1.0; roots.len()],
                &cfg,
                &mut UniformEvaluator,
                ply,
            );
            for (k, &i) in live.iter().enumerate() {
                check_result(&roots[k], &cfg, &r[k]);
                pos[i]
                    .play(Move::from_action(r[k].action, rules.pits()))
                    .unwrap();
            }
        }
        assert!(pos.iter().all(|p| p.is_over()));
    }
}

#[test]
fn keeps_the_exact_result_with_an_exact_evaluator() {
    // Every leaf scored exactly, uniform logits: the search alone must find a move that keeps the
    // position's exact result, in every position of random games, whether the utility is the
    // result alone or mixed with the margin, and whether the search proves subtrees or not.
    let mut pie_answers = 0;
    for rules in small_rules() {
        let s = solver(&rules);
        let positions = positions_with_a_choice(&rules, 60, 11);
        pie_answers += positions.iter().filter(|p| p.swap_allowed()).count();
        let temps = vec![0.0; positions.len()];
        // Proving, with the positions of up to half the seeds solved: every simulation that
        // explores a worse reply beside a solved one must not make the line look better.
        let few = FewSeeds(&s, rules.total_seeds() / 2);
        for (margin_weight, prove) in [(0.0, false), (0.5, false), (0.0, true), (0.5, true)] {
            let cfg = SearchConfig {
                simulations: 64,
                considered_actions: 16,
                margin_weight,
                prove,
                ..SearchConfig::default()
            };
            let mut ev = ExactEvaluator::new(&s);
            let oracle = prove.then_some(&few as &dyn Oracle);
            let results = search_batch_with(&positions, &temps, &cfg, &mut ev, oracle, 5);
            for (p, r) in positions.iter().zip(&results) {
                check_result(p, &cfg, r);
                let exact = exact_values(&s, p);
                let best = s.value(p);
                let got = exact[r.action].expect("a legal action");
                assert_eq!(
                    got.signum(),
                    best.signum(),
                    "{p:?} under {rules:?}, w {margin_weight}: chose {} (exact {exact:?}), {r:?}",
                    r.action
                );
                // The root's value before search is the evaluator's, exact.
                let margin = best as f32 / rules.total_seeds() as f32;
                assert_eq!(r.net_value, cfg.utility(best.signum() as f32, margin));
            }
        }
    }
    assert!(pie_answers > 0, "no pie answer among the positions");
}

#[test]
fn with_every_position_solved_q_is_exact_and_the_move_optimal() {
    // An oracle that answers every position makes each root action a solved leaf: its Q is the
    // exact utility of the move (extra turns and the pie answer counted from the right side),
    // the evaluator sees only the roots, sequential halving never drops a better action for a
    // worse one, and the move has the best exact utility.
    let mut pie_answers = 0;
    let mut extra_turns = 0;
    for rules in small_rules() {
        let s = solver(&rules);
        let oracle = ExactOracle(&s);
        let positions = positions_with_a_choice(&rules, 40, 23);
        pie_answers += positions.iter().filter(|p| p.swap_allowed()).count();
        let temps = vec![0.0; positions.len()];
        let settings = [(16, 16), (64, 16), (50, 3)];
        for (margin_weight, prove) in [0.0, 0.5, 1.0]
            .into_iter()
            .flat_map(|w| [(w, false), (w, true)])
        {
            for (simulations, considered_actions) in settings {
                let cfg = SearchConfig {
                    simulations,
                    considered_actions,
                    margin_weight,
                    prove,
                    ..SearchConfig::default()
                };
                let mut ev = ExactEvaluator::new(&s);
                let results =
                    search_batch_with(&positions, &temps, &cfg, &mut ev, Some(&oracle), 9);
                assert_eq!(
                    ev.evaluated.get(),
                    positions.len(),
                    "only the roots are evaluated"
                );
                for (p, r) in positions.iter().zip(&results) {
                    check_result(p, &cfg, r);
                    let total = rules.total_seeds() as f32;
                    let utility = |v: i32| cfg.utility(v.signum() as f32, v as f32 / total);
                    let exact = exact_values(&s, p);
                    let legal = legal_actions(p);
                    for &a in &legal {
                        let want = utility(exact[a].unwrap());
                        if let Some(q) = r.q[a] {
                            assert!(
                                (q - want).abs() < 1e-5,
                                "{p:?}: action {a}: q {q}, exact {want}"
                            );
                            if p.after(Move::from_action(a, rules.pits()))
                                .unwrap()
                                .1
                                .extra_turn
                            {
                                extra_turns += 1;
                            }
                        }
                        // Among the considered actions, a better one is visited no less.
                        for &b in &legal {
                            let both = r.q[a].is_some() && r.q[b].is_some();
                            if both && want > utility(exact[b].unwrap()) {
                                assert!(r.visits[a] >= r.visits[b], "{p:?}: {exact:?} {r:?}");
                            }
                        }
                    }
                    if considered_actions as usize >= legal.len() {
                        let best = legal.iter().map(|&a| utility(exact[a].unwrap()));
                        let best = best.fold(f32::NEG_INFINITY, f32::max);
                        assert_eq!(
                            utility(exact[r.action].unwrap()),
                            best,
                            "{p:?} under {rules:?}, w {margin_weight}: {exact:?} {r:?}"
                        );
                        // Every root action solved at its first visit: a proving search has
                        // proved the root with one visit each, and says so.
                        assert_eq!(r.proved, prove, "{p:?}: {r:?}");
                        if prove {
                            assert!(r.visits.iter().all(|&v| v <= 1), "{p:?}: {r:?}");
                            assert_eq!(r.value, best, "{p:?}: {r:?}");
                        }
                    }
                }
            }
        }
    }
    assert!(pie_answers > 0 && extra_turns > 0);
}

/// Root visits sorted from most to fewest: what sequential halving gives each action whatever
/// the values, for 8 legal actions.
fn halving(simulations: u32, considered_actions: u32) -> Vec<u32> {
    let rules = Rules::new(8, 3).unwrap();
    let start = Position::start(&rules);
    assert_eq!(start.legal_moves().len(), 8);
    let cfg = SearchConfig {
        simulations,
        considered_actions,
        ..SearchConfig::default()
    };
    let mut out: Option<Vec<u32>> = None;
    for seed in 0..4 {
        for temperature in [0.0, 1.0] {
            let uniform = search_batch(&[start], &[temperature], &cfg, &mut UniformEvaluator, seed);
            let hashed = search_batch(&[start], &[temperature], &cfg, &mut HashEvaluator, seed);
            for r in uniform.iter().chain(&hashed) {
                check_result(&start, &cfg, r);
                let mut v = r.visits.clone();
                v.sort_unstable_by(|a, b| b.cmp(a));
                v.retain(|&n| n > 0);
                match &out {
                    None => out = Some(v),
                    Some(o) => assert_eq!(
                        o, &v,
                        "{simulations} simulations, {considered_actions} considered"
                    ),
                }
            }
        }
    }
    out.unwrap()
}

#[test]
fn visits_follow_sequential_halving() {
    // ceil(log2 k) phases share the simulations: each phase gives every action still in the
    // running simulations / (phases * running) visits (at least one), then keeps the better half
    // (rounded up); a last survivor takes what is left.
    assert_eq!(halving(8, 8), [1; 8]);
    assert_eq!(halving(10, 8), [2, 2, 1, 1, 1, 1, 1, 1]);
    assert_eq!(halving(16, 8), [4, 4, 2, 2, 1, 1, 1, 1]);
    assert_eq!(halving(100, 8), [32, 28, 12, 12, 4, 4, 4, 4]);
    assert_eq!(halving(32, 4), [12, 12, 4, 4]);
    assert_eq!(halving(20, 3), [9, 8, 3]);
    assert_eq!(halving(5, 3), [2, 2, 1]);
    assert_eq!(halving(40, 2), [20, 20]);
    assert_eq!(halving(40, 1), [40]);
    assert_eq!(
        halving(40, 0),
        [40],
        "no fewer than one action is considered"
    );
    assert_eq!(halving(3, 8), [1, 1, 1]);
    assert_eq!(halving(1, 8), [1]);
}

#[test]
fn visits_add_up_to_the_simulations_over_the_considered_actions() {
    // check_result: legal actions only, the simulations all spent over min(k, legal) actions.
    let mut roots = Vec::new();
    for rules in [
        Rules::kalah64().with_pie(true),
        Rules::new(crate::rules::MAX_PITS as u32, 2).unwrap(),
        Rules::new(3, 2).unwrap(),
    ] {
        roots.extend(midgame_positions(&rules, 12, 0, 30, 3));
    }
    // One legal move: nothing to search.
    let rules = Rules::new(3, 2).unwrap();
    let forced = Position::parse("0,0,3,3/1,1,1,3 s", &rules).unwrap();
    assert_eq!(forced.legal_moves().len(), 1);
    let three: Vec<Position> = roots
        .iter()
        .copied()
        .filter(|p| p.rules().pits() == 3)
        .collect();
    for (simulations, considered_actions) in [(1, 16), (2, 16), (7, 4), (16, 8), (33, 16), (64, 2)]
    {
        let cfg = SearchConfig {
            simulations,
            considered_actions,
            ..SearchConfig::default()
        };
        for batch in roots.chunk_by(|a, b| a.rules() == b.rules()) {
            let temps: Vec<f32> = (0..batch.len()).map(|i| (i % 3) as f32 * 0.5).collect();
            for r in [
                search_batch(batch, &temps, &cfg, &mut UniformEvaluator, 1),
                search_batch(batch, &temps, &cfg, &mut HashEvaluator, 2),
            ] {
                for (p, r) in batch.iter().zip(&r) {
                    check_result(p, &cfg, r);
                }
            }
        }
        let mut with_forced = three.clone();
        with_forced.insert(1, forced);
        let temps = vec![1.0; with_forced.len()];
        let r = search_batch(&with_forced, &temps, &cfg, &mut HashEvaluator, 4);
        for (p, r) in with_forced.iter().zip(&r) {
            check_result(p, &cfg, r);
        }
        assert_eq!(r[1].action, 2);
        assert_eq!(r[1].visits, [0; 4]);
    }
}

/// Positions of every phase of random games of `rules`, searched with a small oracle on the
/// smaller boards.
fn batch_case(rules: &Rules, seed: u64) -> (Vec<Position>, Vec<f32>) {
    let roots = midgame_positions(rules, 24, 0, 40, seed);
    let temps = (0..roots.len()).map(|i| [0.0, 1.0, 0.25][i % 3]).collect();
    (roots, temps)
}

/// Answers the positions with few seeds on the board only.
struct FewSeeds<'a>(&'a Solver, u32);

impl Oracle for FewSeeds<'_> {
    fn final_margin(&self, pos: &Position) -> Option<i32> {
        (pos.board_seeds() <= self.1).then(|| self.0.value(pos))
    }
}

#[test]
fn a_batch_equals_its_searches_run_alone() {
    let small = Rules::new(4, 3).unwrap().with_pie(true);
    let s = solver(&small);
    let few = FewSeeds(&s, 10);
    for (rules, oracle) in [
        (Rules::kalah64(), None),
        (Rules::kalah64().with_pie(true), None),
        (small, Some(&few as &dyn Oracle)),
    ] {
        let (roots, temps) = batch_case(&rules, 17);
        let cfg = SearchConfig {
            simulations: 24,
            considered_actions: 4,
            margin_weight: 0.25,
            ..SearchConfig::default()
        };
        let seed = 0xDEC0DE;
        let batch = search_batch_with(&roots, &temps, &cfg, &mut HashEvaluator, oracle, seed);
        assert_eq!(batch.len(), roots.len());
        for (i, r) in batch.iter().enumerate() {
            check_result(&roots[i], &cfg, r);
            let alone = search_batch_with(
                &roots[i..=i],
                &temps[i..=i],
                &cfg,
                &mut HashEvaluator,
                oracle,
                tree_seed(seed, i),
            );
            assert_same(r, &alone[0], &format!("root {i} of {rules:?}"));
        }
        // The same roots in the other order, each with its own seed's noise: same results.
        let mut reversed = Vec::new();
        for (i, (&p, &t)) in roots.iter().zip(&temps).enumerate().rev() {
            let alone = search_batch_with(
                &[p],
                &[t],
                &cfg,
                &mut HashEvaluator,
                oracle,
                tree_seed(seed, i),
            );
            reversed.push(alone.into_iter().next().unwrap());
        }
        for (r, alone) in batch.iter().zip(reversed.iter().rev()) {
            assert_same(r, alone, "reversed");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_results() {
    let rules = Rules::kalah64().with_pie(true);
    let (roots, temps) = batch_case(&rules, 5);
    let cfg = SearchConfig {
        simulations: 32,
        ..SearchConfig::default()
    };
    let a = search_batch(&roots, &temps, &cfg, &mut HashEvaluator, 77);
    let b = search_batch(&roots, &temps, &cfg, &mut HashEvaluator, 77);
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_same(x, y, &format!("root {i}"));
    }
}

#[test]
fn the_seed_matters_at_temperature_one_only() {
    let rules = Rules::kalah64();
    let (roots, _) = batch_case(&rules, 8);
    let cfg = SearchConfig {
        simulations: 16,
        ..SearchConfig::default()
    };
    let cold = vec![0.0; roots.len()];
    let hot = vec![1.0; roots.len()];
    let greedy = search_batch(&roots, &cold, &cfg, &mut HashEvaluator, 0);
    let sampled = search_batch(&roots, &hot, &cfg, &mut HashEvaluator, 0);
    let mut differ = 0;
    for seed in 1..6 {
        let g = search_batch(&roots, &cold, &cfg, &mut HashEvaluator, seed);
        for (i, (x, y)) in greedy.iter().zip(&g).enumerate() {
            assert_same(x, y, &format!("root {i}, seed {seed}, temperature 0"));
        }
        let s = search_batch(&roots, &hot, &cfg, &mut HashEvaluator, seed);
        differ += sampled
            .iter()
            .zip(&s)
            .filter(|(x, y)| x.action != y.action)
            .count();
    }
    // Uniform logits and values: only the Gumbel noise picks among the six openings.
    let start = [Position::start(&rules)];
    let openings: std::collections::BTreeSet<usize> = (0..16)
        .map(|seed| search_batch(&start, &[1.0], &cfg, &mut UniformEvaluator, seed)[0].action)
        .collect();
    assert!(differ > 0, "no seed changed a move at temperature 1");
    assert!(openings.len() >= 4, "openings played: {openings:?}");
}

#[test]
fn an_empty_batch_gives_no_results() {
    let r = search_batch(&[], &[], &SearchConfig::default(), &mut UniformEvaluator, 0);
    assert!(r.is_empty());
}

#[test]
#[should_panic(expected = "search_batch: 2 roots but 1 temperatures")]
fn refuses_fewer_temperatures_than_roots() {
    let start = Position::start(&Rules::kalah64());
    search_batch(
        &[start; 2],
        &[1.0],
        &SearchConfig::default(),
        &mut UniformEvaluator,
        0,
    );
}

#[test]
#[should_panic(expected = "search_batch: 1 roots but 3 temperatures")]
fn refuses_more_temperatures_than_roots() {
    let start = Position::start(&Rules::kalah64());
    search_batch(
        &[start],
        &[1.0; 3],
        &SearchConfig::default(),
        &mut UniformEvaluator,
        0,
    );
}

#[test]
#[should_panic(expected = "search_batch: 0 roots but 1 temperatures")]
fn refuses_temperatures_without_roots() {
    search_batch(
        &[],
        &[1.0],
        &SearchConfig::default(),
        &mut UniformEvaluator,
        0,
    );
}

#[test]
#[should_panic(expected = "search_batch: root 1 is over")]
fn refuses_a_finished_root() {
    let rules = Rules::new(3, 2).unwrap();
    let mut end = Position::parse("1,1,0,5/3,0,0,5 s", &rules).unwrap();
    end.play(Move::Pit(2)).unwrap();
    assert!(end.is_over());
    let start = Position::start(&rules);
    search_batch(
        &[start, end],
        &[1.0; 2],
        &SearchConfig::default(),
        &mut UniformEvaluator,
        0,
    );
}

#[test]
#[should_panic(expected = "search_batch: root 1 has 4 pits a side, root 0 has 3")]
fn refuses_roots_of_different_boards() {
    let a = Position::start(&Rules::new(3, 2).unwrap());
    let b = Position::start(&Rules::new(4, 2).unwrap());
    search_batch(
        &[a, b],
        &[1.0; 2],
        &SearchConfig::default(),
        &mut UniformEvaluator,
        0,
    );
}

/// Forgets the last position's value.
struct ShortEvaluator;

impl Evaluator for ShortEvaluator {
    fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    ) {
        UniformEvaluator.evaluate(positions, logits, values, margins);
        values.pop();
    }
}

#[test]
#[should_panic(expected = "search_batch: the evaluator gave 21 logits, 2 values and 3 margins")]
fn refuses_an_evaluator_that_leaves_a_position_out() {
    let start = Position::start(&Rules::kalah64());
    search_batch(
        &[start; 3],
        &[1.0; 3],
        &SearchConfig::default(),
        &mut ShortEvaluator,
        0,
    );
}

/// Counts the positions an evaluator is given.
struct Counting<E>(E, usize);

impl<E: Evaluator> Evaluator for Counting<E> {
    fn evaluate(
        &mut self,
        positions: &[Position],
        logits: &mut Vec<f32>,
        values: &mut Vec<f32>,
        margins: &mut Vec<f32>,
    ) {
        self.1 += positions.len();
        self.0.evaluate(positions, logits, values, margins);
    }
}

#[test]
fn a_proving_search_solves_small_games_and_then_plays_a_best_move() {
    // A misleading network (logits and values from a hash) and an oracle for positions with at
    // most half the seeds on the board. Given enough simulations, a proving search solves small
    // games outright from the oracle's answers and finished games: a proved
    // root's value and every Q it reports are exact utilities, its move is a best one, and it
    // stops spending simulations once proved. A plain search with the same budget proves nothing.
    for rules in small_rules() {
        let s = solver(&rules);
        let positions = positions_with_a_choice(&rules, 30, 31);
        let temps = vec![0.0; positions.len()];
        let total = rules.total_seeds() as f32;
        let few = FewSeeds(&s, rules.total_seeds() * 2 / 3);
        for margin_weight in [0.0, 0.5] {
            let mut cfg = SearchConfig {
                simulations: 3000,
                considered_actions: 16,
                margin_weight,
                prove: true,
                ..SearchConfig::default()
            };
            let results =
                search_batch_with(&positions, &temps, &cfg, &mut HashEvaluator, Some(&few), 3);
            let utility = |v: i32| cfg.utility(v.signum() as f32, v as f32 / total);
            let mut proved = 0;
            for (p, r) in positions.iter().zip(&results) {
                check_result(p, &cfg, r);
                if !r.proved {
                    continue;
                }
                proved += 1;
                let exact = exact_values(&s, p);
                let legal = legal_actions(p);
                let best = legal.iter().map(|&a| utility(exact[a].unwrap()));
                let best = best.fold(f32::NEG_INFINITY, f32::max);
                let what = format!("{p:?} under {rules:?}, w {margin_weight}: {exact:?} {r:?}");
                assert!((r.value - best).abs() < 1e-6, "{what}");
                assert_eq!(utility(exact[r.action].unwrap()), best, "{what}");
                for &a in &legal {
                    let q = r.q[a].expect("a proved root has visited every action");
                    assert!((q - utility(exact[a].unwrap())).abs() < 1e-6, "{what}");
                }
            }
            assert!(
                proved * 4 >= positions.len(),
                "{rules:?}, w {margin_weight}: {proved} of {} roots proved",
                positions.len()
            );
            cfg.prove = false;
            let plain =
                search_batch_with(&positions, &temps, &cfg, &mut HashEvaluator, Some(&few), 3);
            assert!(plain.iter().all(|r| !r.proved));
        }
    }
}

#[test]
fn a_proving_search_spends_its_simulations_on_new_positions() {
    // With a database at the leaves, a plain search's simulations come back to leaves it has
    // already solved; a proving search walks only into unsolved children, so the same budget
    // evaluates more positions (and, where a root is proved, stops early).
    let rules = Rules::new(4, 3).unwrap();
    let s = solver(&rules);
    let few = FewSeeds(&s, 10);
    let roots: Vec<Position> = positions_with_a_choice(&rules, 40, 8)
        .into_iter()
        .filter(|p| p.board_seeds() > 14)
        .collect();
    assert!(roots.len() >= 10);
    let temps = vec![0.0; roots.len()];
    let mut evaluated = [0; 2];
    for (i, prove) in [false, true].into_iter().enumerate() {
        let cfg = SearchConfig {
            simulations: 1000,
            considered_actions: 16,
            margin_weight: 0.5,
            prove,
            ..SearchConfig::default()
        };
        let mut ev = Counting(HashEvaluator, 0);
        let results = search_batch_with(&roots, &temps, &cfg, &mut ev, Some(&few), 4);
        for (p, r) in roots.iter().zip(&results) {
            check_result(p, &cfg, r);
        }
        evaluated[i] = ev.1;
    }
    assert!(
        evaluated[1] * 10 >= evaluated[0] * 12,
        "plain, proving: {evaluated:?} positions evaluated"
    );
}

/// An oracle for the search's mechanics, not its values: a position with at most `.0` seeds on
/// the board gets a final margin from its hash.
struct HashOracle(u32);

impl Oracle for HashOracle {
    fn final_margin(&self, pos: &Position) -> Option<i32> {
        (pos.board_seeds() <= self.0).then(|| (hash(pos) % 21) as i32 - 10)
    }
}

#[test]
fn a_proving_search_visits_a_solved_root_move_only_in_the_first_phase() {
    // Sequential halving gives each phase's simulations to the root moves it kept; a proving
    // search gives them to the kept moves it has not solved, since a solved one's value is exact.
    // Here the oracle answers every position with two seeds fewer on the board than the root, so
    // a root move that captures (or ends the game) is solved on its first visit.
    let rules = Rules::kalah64();
    let roots = positions_with_a_choice(&rules, 200, 8);
    let cfg = |prove| SearchConfig {
        simulations: 400,
        considered_actions: 16,
        margin_weight: 0.5,
        prove,
        ..SearchConfig::default()
    };
    let mut beyond_first_phase = [0; 2];
    let mut solved_moves = 0;
    for root in &roots {
        let threshold = root.board_seeds() - 2;
        let oracle = HashOracle(threshold);
        let solved: Vec<usize> = (root.legal_moves().iter())
            .filter(|&mv| {
                let (next, out) = root.after(mv).unwrap();
                out.game_over || next.board_seeds() <= threshold
            })
            .map(|mv| mv.action(rules.pits()))
            .collect();
        if solved.is_empty() {
            continue;
        }
        let k = root.legal_moves().len() as u32;
        let first_phase = 400 / ((k as f32).log2().ceil() as u32 * k);
        let run = |prove| {
            let cfg = cfg(prove);
            let r = search_batch_with(&[*root], &[0.0], &cfg, &mut HashEvaluator, Some(&oracle), 1);
            check_result(root, &cfg, &r[0]);
            r.into_iter().next().unwrap()
        };
        let (plain, proving) = (run(false), run(true));
        // A proved root stops early: only a search that ran its phases counts.
        if proving.proved {
            continue;
        }
        for (i, r) in [plain, proving].iter().enumerate() {
            for &a in &solved {
                beyond_first_phase[i] += r.visits[a].saturating_sub(first_phase);
            }
        }
        solved_moves += solved.len();
    }
    assert!(solved_moves >= 10, "{solved_moves} solved root moves");
    assert_eq!(
        beyond_first_phase[1], 0,
        "a proving search came back to a solved root move"
    );
    assert!(
        beyond_first_phase[0] > 0,
        "the plain search never came back to a solved root move: the test shows nothing"
    );
}

/// The minimax value of node `n` recomputed from the tree's leaves up: a solved node's exact
/// value, a node with no visited child its own evaluation, else the best of its visited
/// children's for the player to move.
fn negamax(t: &Tree, n: u32) -> f32 {
    let node = &t.nodes[n as usize];
    if let Some(x) = node.exact {
        return x;
    }
    let edges = &t.edges[node.first_edge as usize..][..node.edges as usize];
    let best = (edges.iter())
        .filter(|e| e.child != NONE && t.nodes[e.child as usize].visits > 0)
        .map(|e| {
            let m = negamax(t, e.child);
            if e.flip { -m } else { m }
        })
        .fold(f32::NEG_INFINITY, f32::max);
    if best == f32::NEG_INFINITY {
        node.value
    } else {
        best
    }
}

#[test]
fn minimax_backups_keep_every_node_at_the_negamax_of_its_subtree() {
    // After the search, every visited node's minimax value equals the negamax of the evaluations
    // below it, recomputed from the leaves: the backups kept it current along every path, with
    // and without proving, with finished games and oracle positions as exact leaves.
    let rules = Rules::new(4, 3).unwrap();
    let roots = positions_with_a_choice(&rules, 30, 5);
    let temps = vec![0.0; roots.len()];
    let oracle = HashOracle(6);
    let mut checked = 0;
    for prove in [false, true] {
        let cfg = SearchConfig {
            simulations: 300,
            considered_actions: 16,
            margin_weight: 0.5,
            prove,
            minimax_weight: 0.5,
            ..SearchConfig::default()
        };
        let trees = grow(&roots, &temps, &cfg, &mut HashEvaluator, Some(&oracle), 3);
        for t in &trees {
            for n in 0..t.nodes.len() as u32 {
                let node = &t.nodes[n as usize];
                if node.visits == 0 || node.first_edge == NONE {
                    continue;
                }
                let want = negamax(t, n);
                assert!(
                    (node.minimax - want).abs() < 1e-6,
                    "node {n} of {:?}: minimax {} but the subtree's negamax is {want}",
                    t.nodes[0].pos,
                    node.minimax
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} inner nodes checked");
}

#[test]
fn reported_q_blends_the_mean_with_the_minimax_value() {
    // Every visited root move's reported Q is `(1 - a) * mean + a * minimax` of its child, for
    // the player at the root; with a = 0 it is the mean alone, as before minimax backups.
    let rules = Rules::new(4, 3).unwrap();
    let roots = positions_with_a_choice(&rules, 20, 9);
    let temps = vec![0.0; roots.len()];
    let mut differ = 0;
    for weight in [0.0f32, 0.3] {
        let cfg = SearchConfig {
            simulations: 200,
            considered_actions: 16,
            minimax_weight: weight,
            ..SearchConfig::default()
        };
        let trees = grow(&roots, &temps, &cfg, &mut HashEvaluator, None, 7);
        for t in &trees {
            let r = t.result(&cfg, rules.pits() + 1);
            let root = &t.nodes[0];
            for e in &t.edges[root.first_edge as usize..][..root.edges as usize] {
                if e.child == NONE || t.nodes[e.child as usize].visits == 0 {
                    continue;
                }
                let c = &t.nodes[e.child as usize];
                let mean = c.value_sum / c.visits as f32;
                let want = (1.0 - weight) * mean + weight * c.minimax;
                let want = if e.flip { -want } else { want };
                let got = r.q[e.action as usize].expect("a visited move has a Q");
                assert!((got - want).abs() < 1e-5, "{got} != {want}");
                differ += usize::from(weight > 0.0 && (mean - c.minimax).abs() > 1e-3);
            }
        }
    }
    assert!(
        differ > 20,
        "minimax and mean differ at only {differ} root moves"
    );
}

// ---------------------------------------------------------------------------------------------
// Alpha-beta over the margin head (module `alphabeta`).
// ---------------------------------------------------------------------------------------------

use super::alphabeta::{AbOutcome, AlphaBeta, Budget};

/// The value of `pos` for the player to move by plain negamax to `depth` plies over the same
/// leaves as alpha-beta (the evaluator's margin in seeds; finished games and the oracle exact):
/// the definition that alpha-beta, its table, its move ordering and its batches must agree with.
fn plain_negamax(
    pos: &Position,
    depth: u32,
    ev: &mut dyn Evaluator,
    oracle: Option<&dyn Oracle>,
) -> f32 {
    if pos.is_over() {
        let m = pos.margin() as f32;
        return if pos.to_move() == Side::South { m } else { -m };
    }
    if let Some(m) = oracle.and_then(|o| o.final_margin(pos)) {
        return m as f32;
    }
    if depth == 0 {
        let (mut l, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
        ev.evaluate(&[*pos], &mut l, &mut v, &mut m);
        return m[0] * pos.rules().total_seeds() as f32;
    }
    pos.legal_moves()
        .iter()
        .map(|mv| {
            let child = pos.after(mv).unwrap().0;
            let v = plain_negamax(&child, depth - 1, ev, oracle);
            if child.to_move() == pos.to_move() {
                v
            } else {
                -v
            }
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

#[test]
fn alpha_beta_finds_plain_negamax_values_at_every_depth() {
    let mut checked = 0;
    for rules in small_rules().into_iter().chain([Rules::kalah64()]) {
        let solver = (rules.pits() < 6).then(|| solver(&rules));
        let few = solver.as_ref().map(|s| FewSeeds(s, 4));
        let depths = if rules.pits() < 6 { 1..=6 } else { 1..=4 };
        for pos in midgame_positions(&rules, 8, 2, 14, 11) {
            for oracle in [None, few.as_ref().map(|f| f as &dyn Oracle)] {
                for depth in depths.clone() {
                    let want = plain_negamax(&pos, depth, &mut HashEvaluator, oracle);
                    let got = AlphaBeta::new(Budget::Evals(1)).value_at_depth(
                        &pos,
                        depth,
                        &mut HashEvaluator,
                        oracle,
                    );
                    assert_eq!(got, want, "{pos:?} at depth {depth}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 250, "{checked}");
}

/// One searcher asked about the same positions through many windows, its tables kept from call to
/// call: every answer keeps the fail-soft contract (below the window: an upper bound; above it: a
/// lower bound; inside it: the value), so no bound stored in the table is misread later.
#[test]
fn alpha_beta_tables_keep_their_bounds_across_windows() {
    let mut checked = 0;
    for rules in [Rules::new(4, 2).unwrap(), Rules::new(4, 3).unwrap()] {
        for (i, pos) in midgame_positions(&rules, 6, 0, 8, 21).iter().enumerate() {
            let mut ab = AlphaBeta::new(Budget::Evals(1));
            for depth in 2..=6 {
                let truth = plain_negamax(pos, depth, &mut HashEvaluator, None);
                for k in 0..24u32 {
                    let h = hash(pos).wrapping_add(u64::from(k * 7 + depth) + i as u64);
                    let a = truth + 3.0 * unit(h, k);
                    let b = a + 0.05 + 2.0 * unit(h, k + 1).abs();
                    let r = ab.value_in_window(pos, depth, (a, b), &mut HashEvaluator, None);
                    if r <= a {
                        assert!(truth <= r, "{pos:?} d{depth} ({a}, {b}): {r} over {truth}");
                    } else if r >= b {
                        assert!(truth >= r, "{pos:?} d{depth} ({a}, {b}): {r} under {truth}");
                    } else {
                        assert_eq!(r, truth, "{pos:?} d{depth} ({a}, {b})");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The exact value of each legal move of `pos` for the player to move.
fn exact_move_values(solver: &Solver, pos: &Position) -> Vec<(Move, i32)> {
    pos.legal_moves()
        .iter()
        .map(|mv| {
            let child = pos.after(mv).unwrap().0;
            let v = if child.is_over() {
                let m = child.margin();
                if child.to_move() == Side::South {
                    m
                } else {
                    -m
                }
            } else {
                solver.value(&child)
            };
            (
                mv,
                if child.to_move() == pos.to_move() {
                    v
                } else {
                    -v
                },
            )
        })
        .collect()
}

#[test]
fn alpha_beta_over_exact_margins_plays_a_best_move_within_any_budget() {
    for rules in small_rules() {
        let solver = solver(&rules);
        for (i, pos) in midgame_positions(&rules, 20, 0, 12, 5).iter().enumerate() {
            let moves: Vec<Move> = pos.legal_moves().iter().collect();
            let values = exact_move_values(&solver, pos);
            let best = values.iter().map(|v| v.1).max().unwrap();
            let budget = Budget::Evals([1, 3, 10, 100][i % 4]);
            let mut ev = ExactEvaluator::new(&solver);
            let out = AlphaBeta::new(budget).search(pos, &moves, &mut ev, None);
            let played = values.iter().find(|v| v.0 == out.best).unwrap().1;
            if out.depth > 0 {
                assert_eq!(played, best, "{pos:?} with {budget}: {out:?}");
                assert_eq!(out.value, best as f32);
            }
            assert!(moves.contains(&out.best));
        }
    }
}

#[test]
fn alpha_beta_keeps_its_evaluation_budget_and_stops_once_solved() {
    let rules = Rules::kalah64();
    for pos in midgame_positions(&rules, 6, 4, 20, 3) {
        let moves: Vec<Move> = pos.legal_moves().iter().collect();
        let mut last_depth = 0;
        for n in [1u64, 7, 60, 400] {
            let out: AbOutcome =
                AlphaBeta::new(Budget::Evals(n)).search(&pos, &moves, &mut HashEvaluator, None);
            assert!(out.evaluated <= n, "{} > {n}", out.evaluated);
            assert!(
                out.depth >= last_depth,
                "a larger budget searched less deep"
            );
            last_depth = out.depth;
        }
        assert!(
            last_depth >= 2,
            "400 evaluations reached only depth {last_depth}"
        );
    }
    // A small game searched to its end: exact, and it says so.
    let rules = Rules::new(3, 2).unwrap();
    let solver = solver(&rules);
    for pos in midgame_positions(&rules, 10, 0, 6, 9) {
        let moves: Vec<Move> = pos.legal_moves().iter().collect();
        if moves.len() < 2 {
            continue;
        }
        let out =
            AlphaBeta::new(Budget::Evals(1_000_000)).search(&pos, &moves, &mut HashEvaluator, None);
        assert!(out.solved, "{pos:?}: {out:?}");
        assert_eq!(out.value, solver.value(&pos) as f32, "{pos:?}");
    }
}

#[test]
fn an_alpha_beta_budget_reads_as_a_time_or_a_count() {
    assert_eq!("100ms".parse(), Ok(Budget::Millis(100)));
    assert_eq!("5000".parse(), Ok(Budget::Evals(5000)));
    for bad in [
        "0",
        "0ms",
        "ms",
        "+5",
        "1e3",
        "5 ms",
        "600001ms",
        "100000001",
    ] {
        let e = bad.parse::<Budget>().unwrap_err();
        assert!(e.contains(&format!("'{bad}'")), "{e}");
    }
    assert_eq!(Budget::Millis(250).to_string(), "250ms");
}
