//! The vectorised environment against the rules core, one game at a time, under many rule options.

use kalaha::env::obs::{encode, encode_as, obs_dim};
use kalaha::env::rng::stream;
use kalaha::env::{EnvError, VecEnv};
use kalaha::rules::{Capture, End, Game, IllegalMove, Leftover, Move, Position, Rules, Side};
use ndarray::Array2;
use rand::RngExt;

/// Rule sets that exercise every option: pie, on-turn end, each leftover and capture rule, laps
/// that pass the start pit, and the smallest and largest boards.
fn rule_sets() -> Vec<Rules> {
    let r = |m, n| Rules::new(m, n).unwrap();
    vec![
        Rules::kalah64(),
        Rules::kalah64().with_pie(true),
        r(6, 4).with_end(End::OnTurn),
        r(6, 6).with_leftover(Leftover::Emptier),
        r(6, 6)
            .with_leftover(Leftover::Emptier)
            .with_end(End::OnTurn)
            .with_pie(true),
        r(6, 3).with_capture(Capture::Off),
        r(5, 4)
            .with_capture(Capture::Empty)
            .with_leftover(Leftover::Discard),
        r(3, 20).with_pie(true).with_capture(Capture::Empty),
        r(1, 1),
        r(2, 5)
            .with_end(End::OnTurn)
            .with_leftover(Leftover::Discard),
        r(15, 8).with_pie(true),
    ]
}

/// The player (0: the opener) who moves in a reference game.
fn player_to_move(game: &Game) -> u8 {
    (game.position().to_move() != game.seat_of(Side::South)) as u8
}

/// What the environment should report for game `i` after a move, computed from the rules core.
fn check_game(env: &VecEnv, i: usize, game: &Game, ended: Option<&Game>, mover: u8, what: &str) {
    let pos = game.position();
    let m = env.rules().pits();
    assert_eq!(&env.position(i), pos, "{what}: game {i} position");
    assert_eq!(env.swapped(i), game.swapped(), "{what}: game {i} swapped");
    assert_eq!(
        env.to_play()[i],
        player_to_move(game),
        "{what}: game {i} player"
    );
    assert_eq!(
        env.game_len(i) as usize,
        game.history().len(),
        "{what}: game {i} length"
    );
    let legal = pos.legal_moves();
    let mask: Vec<bool> = (0..=m)
        .map(|a| legal.contains(Move::from_action(a, m)))
        .collect();
    assert_eq!(env.mask().row(i).to_vec(), mask, "{what}: game {i} mask");
    let mut obs = vec![0.0; obs_dim(m)];
    encode(pos, &mut obs);
    assert_eq!(
        env.obs().row(i).to_vec(),
        obs,
        "{what}: game {i} observation"
    );
    assert_eq!(env.done()[i], ended.is_some(), "{what}: game {i} done");
    match ended {
        None => assert_eq!(env.reward()[i], 0.0, "{what}: game {i} reward"),
        Some(fin) => {
            let last = fin.last().unwrap();
            let end = fin.position();
            let [s, n] = end.score();
            let seat_score = |seat: Side| if seat == Side::South { s } else { n };
            let mover_seat = last.before.to_move();
            let mine = seat_score(mover_seat) as i64 - seat_score(mover_seat.other()) as i64;
            assert_eq!(
                env.reward()[i],
                mine.signum() as f32,
                "{what}: game {i} reward"
            );
            let p0 = seat_score(fin.seat_of(Side::South)) as u8;
            let p1 = seat_score(fin.seat_of(Side::North)) as u8;
            assert_eq!(
                env.final_score().row(i).to_vec(),
                vec![p0, p1],
                "{what}: game {i} final score"
            );
            let outcome = env.outcome(i).unwrap();
            assert_eq!(
                outcome.margin(mover as usize) as i64,
                mine,
                "{what}: game {i} margin"
            );
            assert_eq!(
                env.final_len()[i] as usize,
                fin.history().len(),
                "{what}: game {i} final length"
            );
            encode_as(end, mover_seat, &mut obs);
            assert_eq!(
                env.final_obs().row(i).to_vec(),
                obs,
                "{what}: game {i} final observation"
            );
        }
    }
}

#[test]
fn vectorised_games_match_the_rules_core_one_by_one_under_every_option() {
    for rules in rule_sets() {
        let what = rules.describe();
        let games = 48;
        let mut env = VecEnv::new(rules, games, 5).unwrap();
        env.set_grain(7); // several pieces, uneven
        let mut refs: Vec<Game> = (0..games).map(|_| Game::new(&rules)).collect();
        let mut rng = stream(11, 0);
        let (mut finished, mut swaps) = (0, 0);
        for (i, game) in refs.iter().enumerate() {
            check_game(&env, i, game, None, 0, &what);
        }
        for _ in 0..400 {
            let mut actions = vec![0u32; games];
            let mut movers = vec![0u8; games];
            for (i, game) in refs.iter_mut().enumerate() {
                let legal: Vec<Move> = game.position().legal_moves().iter().collect();
                // Take the pie answer often enough to see it.
                let mv = if legal.contains(&Move::Swap) && rng.random_range(0..2) == 0 {
                    Move::Swap
                } else {
                    legal[rng.random_range(0..legal.len())]
                };
                swaps += (mv == Move::Swap) as usize;
                actions[i] = mv.action(rules.pits()) as u32;
                movers[i] = player_to_move(game);
                game.play(mv).unwrap();
            }
            env.step(&actions).unwrap();
            for (i, game) in refs.iter_mut().enumerate() {
                if game.position().is_over() {
                    let fin = std::mem::replace(game, Game::new(&rules));
                    check_game(&env, i, game, Some(&fin), movers[i], &what);
                    finished += 1;
                } else {
                    check_game(&env, i, game, None, movers[i], &what);
                }
            }
        }
        assert!(finished > games, "{what}: only {finished} games finished");
        assert_eq!(swaps > 0, rules.pie, "{what}: pie answers played");
    }
}

/// Every output of the environment, for comparing runs.
#[derive(Debug, PartialEq)]
struct Snapshot {
    positions: Vec<Position>,
    obs: Array2<f32>,
    mask: Array2<bool>,
    to_play: Vec<u8>,
    reward: Vec<f32>,
    done: Vec<bool>,
    finals: Vec<Option<Final>>,
}

/// A finished game's final observation, scores and length.
type Final = (Vec<f32>, [u8; 2], u32);

fn snapshot(env: &VecEnv) -> Snapshot {
    Snapshot {
        positions: (0..env.games()).map(|i| env.position(i)).collect(),
        obs: env.obs().clone(),
        mask: env.mask().clone(),
        to_play: env.to_play().to_vec(),
        reward: env.reward().to_vec(),
        done: env.done().to_vec(),
        finals: (0..env.games())
            .map(|i| {
                env.outcome(i)
                    .map(|o| (env.final_obs().row(i).to_vec(), o.scores, o.len))
            })
            .collect(),
    }
}

/// Runs `steps` steps of each helper on a pool of `threads` threads with pieces of `grain` games.
fn trajectory(rules: Rules, threads: usize, grain: usize, steps: usize) -> Vec<Snapshot> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut env = VecEnv::new(rules, 300, 77).unwrap();
        env.set_grain(grain);
        let a = env.action_count();
        let logits = Array2::from_shape_fn((300, a), |(i, j)| ((i * 7 + j * 3) % 5) as f32 - 2.0);
        let probs = logits.mapv(|x| x.exp());
        let mut out = Vec::new();
        for s in 0..steps {
            match s % 4 {
                0 | 1 => env.step_random(),
                2 => env.step_logits(logits.view()).unwrap(),
                _ => env.step_probs(probs.view()).unwrap(),
            }
            out.push(snapshot(&env));
        }
        out
    })
}

#[test]
fn thread_count_and_piece_size_do_not_change_results() {
    for rules in [
        Rules::kalah64(),
        Rules::kalah64().with_pie(true).with_end(End::OnTurn),
    ] {
        let one = trajectory(rules, 1, 300, 120);
        assert_eq!(one, trajectory(rules, 2, 16, 120), "2 threads");
        assert_eq!(one, trajectory(rules, 4, 5, 120), "4 threads");
        assert!(one.iter().any(|s| s.done.iter().any(|&d| d)));
    }
}

#[test]
fn the_same_seed_repeats_and_another_seed_differs() {
    let run = |seed| {
        let mut env = VecEnv::new(Rules::kalah64(), 64, seed).unwrap();
        (0..50)
            .map(|_| {
                env.step_random();
                snapshot(&env)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
    let mut env = VecEnv::new(Rules::kalah64(), 64, 3).unwrap();
    let first: Vec<_> = (0..50)
        .map(|_| {
            env.step_random();
            snapshot(&env)
        })
        .collect();
    env.reset(3);
    let again: Vec<_> = (0..50)
        .map(|_| {
            env.step_random();
            snapshot(&env)
        })
        .collect();
    assert_eq!(first, again, "reset(seed) restarts the same games");
}

#[test]
fn an_illegal_action_is_refused_by_game_and_move_and_changes_nothing() {
    let rules = Rules::kalah64().with_pie(true);
    let mut env = VecEnv::new(rules, 5, 1).unwrap();
    // South plays pit 1 everywhere: the turn passes to North, who may swap.
    env.step(&[0; 5]).unwrap();
    env.step(&[6, 6, 6, 6, 6]).unwrap(); // every game swaps
    let before = snapshot(&env);
    // Now North (player 0) has pit 1 full; make game 3 play South's emptied pit... North's pits
    // are all full, so use out-of-range and swap-again errors, and an empty pit after a move.
    let err = env.step(&[0, 0, 0, 6, 0]).unwrap_err();
    assert_eq!(
        err,
        EnvError::Illegal {
            game: 3,
            action: 6,
            mv: Move::Swap,
            reason: IllegalMove::SwapNotAllowed
        }
    );
    assert!(
        err.to_string()
            .starts_with("game 3: action 6 (swap) is illegal"),
        "{err}"
    );
    let err = env.step(&[0, 9, 0, 0, 0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "game 1: action 9 is out of range (actions are 0 to 6)"
    );
    let err = env.step(&[0, 0]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "actions has 2 rows; the environment has 5 games"
    );
    assert_eq!(snapshot(&env), before);
    // North plays pit 1 (no extra turn), South plays pit 1 again: pit 1 is empty.
    env.step(&[0; 5]).unwrap();
    let before = snapshot(&env);
    let err = env.step(&[1, 1, 0, 1, 1]).unwrap_err();
    assert_eq!(
        err,
        EnvError::Illegal {
            game: 2,
            action: 0,
            mv: Move::Pit(1),
            reason: IllegalMove::EmptyPit(1)
        }
    );
    assert_eq!(snapshot(&env), before);
    let err = VecEnv::new(Rules::kalah64(), 1, 0)
        .unwrap()
        .step(&[6])
        .unwrap_err();
    assert_eq!(
        err,
        EnvError::Illegal {
            game: 0,
            action: 6,
            mv: Move::Swap,
            reason: IllegalMove::SwapNotAllowed
        }
    );
    assert!(matches!(VecEnv::new(rules, 0, 0), Err(EnvError::NoGames)));
}

#[test]
fn a_refused_callback_or_sampling_step_leaves_the_random_streams_alone() {
    let rules = Rules::kalah64();
    let mut a = VecEnv::new(rules, 40, 9).unwrap();
    let mut b = VecEnv::new(rules, 40, 9).unwrap();
    // Game 17 answers an out-of-range action after drawing from its stream.
    let err = a
        .step_with(|t| {
            t.rng.next_u64();
            if t.game == 17 {
                99
            } else {
                t.legal.trailing_zeros()
            }
        })
        .unwrap_err();
    assert_eq!(
        err,
        EnvError::OutOfRange {
            game: 17,
            action: 99,
            max: 6
        }
    );
    let mut bad = Array2::<f32>::ones((40, 7));
    bad[[23, 2]] = f32::NAN;
    bad[[31, 4]] = -1.0;
    let err = a.step_probs(bad.view()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "game 23: cannot sample an action: a legal action's probability is negative or not finite"
    );
    let err = a.step_logits(bad.view()).unwrap_err();
    assert!(matches!(err, EnvError::Sampling { game: 23, .. }), "{err}");
    let mut zero = Array2::<f32>::zeros((40, 7));
    zero[[0, 6]] = 1.0; // weight only on the (illegal) pie answer
    assert!(matches!(
        a.step_probs(zero.view()),
        Err(EnvError::Sampling { game: 0, .. })
    ));
    assert!(matches!(
        a.step_probs(Array2::<f32>::ones((40, 6)).view()),
        Err(EnvError::Columns { .. })
    ));
    for _ in 0..30 {
        a.step_random();
        b.step_random();
        assert_eq!(snapshot(&a), snapshot(&b));
    }
}

#[test]
fn sampling_takes_only_legal_actions_and_follows_the_probabilities() {
    let rules = Rules::kalah64();
    let games = 2000;
    let mut env = VecEnv::new(rules, games, 2).unwrap();
    // Every game at the start: pits 1..6 legal. Weights 1, 0, 0, 0, 0, 3 and a huge illegal swap.
    let mut probs = Array2::<f32>::zeros((games, 7));
    probs.column_mut(0).fill(1.0);
    probs.column_mut(5).fill(3.0);
    probs.column_mut(6).fill(1000.0);
    let start = env.position(0);
    env.step_probs(probs.view()).unwrap();
    let mut counts = [0usize; 6];
    for i in 0..games {
        let after = env.position(i);
        let played = (1..=6)
            .find(|&p| after.pit(Side::South, p) == 0 && start.pit(Side::South, p) != 0)
            .unwrap();
        counts[played - 1] += 1;
    }
    assert_eq!(counts[1..5], [0, 0, 0, 0]);
    assert!((1350..1650).contains(&counts[5]), "{counts:?}");
    // Logits: softmax of (0, -inf-ish, ...) picks pit 3 when its logit dominates.
    let mut env = VecEnv::new(rules, 50, 2).unwrap();
    let mut logits = Array2::<f32>::zeros((50, 7));
    logits.column_mut(2).fill(60.0);
    env.step_logits(logits.view()).unwrap();
    assert!((0..50).all(|i| env.position(i).to_string() == "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s"));
}

#[test]
fn a_finished_game_resets_in_the_same_step_and_keeps_its_final_state() {
    // Kalah(1,1), the player whose row empties takes the leftover: South sows its one seed into
    // its store, its row is empty, the game ends at once and South banks North's seed too.
    let rules = Rules::new(1, 1).unwrap().with_leftover(Leftover::Emptier);
    let mut env = VecEnv::new(rules, 3, 0).unwrap();
    let start_obs = env.obs().clone();
    env.step(&[0, 0, 0]).unwrap();
    assert_eq!(env.done().to_vec(), [true; 3]);
    assert_eq!(
        env.reward().to_vec(),
        [1.0; 3],
        "the opener won with its move"
    );
    assert_eq!(env.final_score().row(0).to_vec(), [2, 0]);
    assert_eq!(env.final_len().to_vec(), [1; 3]);
    let o = env.outcome(1).unwrap();
    assert_eq!(
        (o.margin(0), o.margin(1), o.value(1), o.winner()),
        (2, -2, -1, Some(0))
    );
    // South's view of the final board, before the leftover rule: own pit empty, North's pit 1,
    // stores 1 and 0 (scaled by 1/2).
    assert_eq!(
        env.final_obs().row(2).to_vec(),
        [0.0, 0.5, 0.5, 0.0, 0.0, 0.0]
    );
    assert_eq!(env.obs(), &start_obs, "already reset to the start");
    assert_eq!(env.to_play().to_vec(), [0; 3]);
    assert_eq!(env.game_len(0), 0);
    // A step that ends nothing clears the done flags and rewards.
    let mut env = VecEnv::new(Rules::kalah64(), 2, 0).unwrap();
    env.step(&[2, 0]).unwrap();
    assert_eq!(
        (env.done().to_vec(), env.reward().to_vec()),
        (vec![false; 2], vec![0.0; 2])
    );
    assert_eq!(
        env.to_play().to_vec(),
        [0, 1],
        "extra turn for game 0, turn passes in game 1"
    );
}

#[test]
fn the_pie_answer_hands_the_move_to_the_opener_without_moving_seeds() {
    let rules = Rules::kalah64().with_pie(true);
    let mut env = VecEnv::new(rules, 1, 0).unwrap();
    env.step(&[0]).unwrap();
    assert_eq!(
        (env.to_play()[0], env.mask().row(0).to_vec()),
        (1, vec![true; 7])
    );
    let board = env.obs().row(0).to_vec();
    assert_eq!(board[14..], [1.0, 0.0]);
    env.step(&[6]).unwrap();
    assert_eq!(env.to_play()[0], 0, "player 0 now moves, from North");
    assert_eq!(env.position(0).to_move(), Side::North);
    assert!(env.swapped(0));
    assert_eq!(env.obs().row(0).to_vec()[..14], board[..14]);
    assert_eq!(env.obs().row(0).to_vec()[14..], [0.0, 0.0]);
    assert!(!env.mask()[[0, 6]]);
    assert_eq!(env.reward()[0], 0.0);
}

#[test]
fn random_steps_play_legal_moves_of_the_rules_core() {
    for rules in [
        Rules::kalah64().with_pie(true),
        Rules::new(3, 20).unwrap().with_end(End::OnTurn),
    ] {
        let mut env = VecEnv::new(rules, 32, 4).unwrap();
        let mut finished = 0;
        for _ in 0..300 {
            let before: Vec<Position> = (0..32).map(|i| env.position(i)).collect();
            env.step_random();
            for (i, pos) in before.iter().enumerate() {
                let after: Vec<Position> = pos
                    .legal_moves()
                    .iter()
                    .map(|mv| pos.after(mv).unwrap().0)
                    .collect();
                if env.done()[i] {
                    finished += 1;
                    assert_eq!(env.position(i), Position::start(&rules));
                    let mut obs = vec![0.0; obs_dim(rules.pits())];
                    let ended = after.iter().any(|p| {
                        encode_as(p, pos.to_move(), &mut obs);
                        p.is_over() && env.final_obs().row(i).to_vec() == obs
                    });
                    assert!(
                        ended,
                        "game {i}: no legal move of {pos} ends it as reported"
                    );
                } else {
                    assert!(
                        after.contains(&env.position(i)),
                        "game {i}: {} is not a move from {pos}",
                        env.position(i)
                    );
                }
            }
        }
        assert!(finished > 0);
    }
}

/// Games put back with `set_games` (position, pie swap, length) go on as the games they were taken
/// from, whatever the rules; a position of other rules or a finished one is refused, and nothing
/// changes.
#[test]
fn set_games_restores_games_in_flight() {
    for rules in rule_sets() {
        let mut a = VecEnv::new(rules, 16, 5).unwrap();
        for _ in 0..7 {
            a.step_random();
        }
        let saved: Vec<(Position, bool, u32)> = (0..16)
            .map(|i| (a.position(i), a.swapped(i), a.game_len(i)))
            .collect();
        let mut b = VecEnv::new(rules, 16, 99).unwrap();
        b.set_games(&saved).unwrap();
        assert_eq!(a.obs(), b.obs());
        assert_eq!(a.mask(), b.mask());
        assert_eq!(a.to_play(), b.to_play());
        let mut rng = stream(3, 0);
        for _ in 0..60 {
            let actions: Vec<u32> = (0..16)
                .map(|i| {
                    let legal: Vec<u32> = (0..a.action_count() as u32)
                        .filter(|&x| a.mask()[[i, x as usize]])
                        .collect();
                    legal[rng.random_range(0..legal.len())]
                })
                .collect();
            a.step(&actions).unwrap();
            b.step(&actions).unwrap();
            assert_eq!(a.obs(), b.obs());
            assert_eq!(a.reward(), b.reward());
            assert_eq!(a.done(), b.done());
            for i in 0..16 {
                assert_eq!(a.outcome(i), b.outcome(i));
            }
        }
        let before = b.obs().clone();
        let mut bad = saved.clone();
        bad[3].0 = Position::start(&Rules::new(4, 3).unwrap());
        assert!(b.set_games(&bad).is_err());
        assert!(b.set_games(&saved[..15]).is_err());
        assert_eq!(&before, b.obs());
    }
}

/// A random legal action for every game of `env`, drawn from `rng`.
fn random_actions(env: &VecEnv, rng: &mut kalaha::env::rng::GameRng) -> Vec<u32> {
    (0..env.games())
        .map(|i| {
            let legal: Vec<u32> = (0..env.action_count() as u32)
                .filter(|&x| env.mask()[[i, x as usize]])
                .collect();
            legal[rng.random_range(0..legal.len())]
        })
        .collect()
}

/// `step_skipping` (Gymnasium's next-step auto-reset in one call) and `reset_games` (its
/// `reset_mask`), against the same steps made by `step` and `set_games` under every option: a
/// skipped game stays as it was (its action not read, reward 0, not done), the others step as
/// `step` steps them; `reset_games` restarts exactly the games marked; a refused call changes
/// nothing.
#[test]
fn skipped_and_reset_games_match_step_and_set_games() {
    for rules in rule_sets() {
        let g = 24;
        let mut a = VecEnv::new(rules, g, 8).unwrap();
        let mut b = VecEnv::new(rules, g, 8).unwrap();
        let mut rng = stream(5, 1);
        let mut ended = vec![false; g];
        for step in 0..120 {
            let actions = random_actions(&b, &mut rng);
            // Skip the games that ended in the last step (the next-step auto-reset) and a few more.
            let skip: Vec<bool> = (0..g)
                .map(|i| ended[i] || rng.random_range(0..6) == 0)
                .collect();
            // A skipped game's action is not read: an out-of-range one passes.
            let given: Vec<u32> = (0..g)
                .map(|i| if skip[i] { 99 } else { actions[i] })
                .collect();
            let kept: Vec<(Position, bool, u32)> = (0..g)
                .map(|i| (b.position(i), b.swapped(i), b.game_len(i)))
                .collect();
            a.step_skipping(&given, &skip).unwrap();
            b.step(&actions).unwrap();
            let (b_reward, b_done) = (b.reward().to_vec(), b.done().to_vec());
            let b_outcomes: Vec<_> = (0..g).map(|i| b.outcome(i)).collect();
            let now: Vec<(Position, bool, u32)> = (0..g)
                .map(|i| {
                    if skip[i] {
                        kept[i]
                    } else {
                        (b.position(i), b.swapped(i), b.game_len(i))
                    }
                })
                .collect();
            b.set_games(&now).unwrap();
            let what = format!("{} step {step}", rules.describe());
            assert_eq!(a.obs(), b.obs(), "{what}");
            assert_eq!(a.mask(), b.mask(), "{what}");
            assert_eq!(a.to_play(), b.to_play(), "{what}");
            for i in 0..g {
                assert_eq!(a.position(i), now[i].0, "{what} game {i}");
                assert_eq!((a.swapped(i), a.game_len(i)), (now[i].1, now[i].2));
                let (reward, done, outcome) = if skip[i] {
                    (0.0, false, None)
                } else {
                    (b_reward[i], b_done[i], b_outcomes[i])
                };
                assert_eq!(
                    (a.reward()[i], a.done()[i], a.outcome(i)),
                    (reward, done, outcome),
                    "{what} game {i}"
                );
            }
            ended = a.done().to_vec();
            // Now and then restart a few games, as Gymnasium's reset_mask does.
            if step % 7 == 3 {
                let which: Vec<bool> = (0..g).map(|_| rng.random_range(0..4) == 0).collect();
                let (reward, done) = (a.reward().to_vec(), a.done().to_vec());
                a.reset_games(&which).unwrap();
                let start = Position::start(&rules);
                let restarted: Vec<(Position, bool, u32)> = (0..g)
                    .map(|i| if which[i] { (start, false, 0) } else { now[i] })
                    .collect();
                b.set_games(&restarted).unwrap();
                assert_eq!(a.obs(), b.obs(), "{what}: reset_games");
                assert_eq!(a.mask(), b.mask(), "{what}: reset_games");
                assert_eq!(a.to_play(), b.to_play(), "{what}: reset_games");
                for i in 0..g {
                    assert_eq!(a.position(i), restarted[i].0);
                    assert_eq!(
                        (a.swapped(i), a.game_len(i)),
                        (restarted[i].1, restarted[i].2)
                    );
                    let untouched = (reward[i], done[i]);
                    let want = if which[i] { (0.0, false) } else { untouched };
                    assert_eq!((a.reward()[i], a.done()[i]), want, "{what} game {i}");
                }
                ended = a.done().to_vec();
            }
        }
        // Refused: wrong lengths, an illegal action in a game that is not skipped; nothing changes.
        let before = snapshot(&a);
        let skip = vec![false; g];
        assert!(matches!(
            a.step_skipping(&vec![0; g - 1], &skip),
            Err(EnvError::Count {
                what: "actions",
                ..
            })
        ));
        assert!(matches!(
            a.step_skipping(&vec![0; g], &skip[1..]),
            Err(EnvError::Count { what: "skip", .. })
        ));
        assert!(matches!(
            a.reset_games(&skip[1..]),
            Err(EnvError::Count { what: "which", .. })
        ));
        let mut bad = random_actions(&a, &mut rng);
        bad[5] = rules.pits() as u32 + 1;
        assert!(matches!(
            a.step_skipping(&bad, &skip),
            Err(EnvError::OutOfRange { game: 5, .. })
        ));
        let after = snapshot(&a);
        assert_eq!(
            (before.positions, before.obs, before.reward, before.done),
            (after.positions, after.obs, after.reward, after.done)
        );
    }
}
