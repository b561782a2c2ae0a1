//! The solver against an independent full-tree negamax, with each part switched on and off.

use std::time::Duration;

use rand::RngExt;

use super::bench::midgame_positions;
use super::endgame::{DbSource, Endgame, entries};
use super::key::Encoder;
use super::{Analysis, DbSize, Detail, Solver, SolverConfig};
use crate::rules::{Capture, End, Leftover, Move, Position, Rules, Side};

/// Final margin for the player to move under perfect play: the whole tree, no table, no pruning.
fn plain(pos: &Position) -> i32 {
    if pos.is_over() {
        let m = pos.margin();
        return if pos.to_move() == Side::South { m } else { -m };
    }
    pos.legal_moves()
        .iter()
        .map(|mv| plain_move(pos, mv))
        .max()
        .expect("a move")
}

/// Value of one move for the player to move, by [`plain`].
fn plain_move(pos: &Position, mv: Move) -> i32 {
    let (next, out) = pos.after(mv).expect("legal");
    if out.extra_turn {
        plain(&next)
    } else {
        -plain(&next)
    }
}

fn config(db: DbSize, transposition: bool, mtd: bool) -> SolverConfig {
    SolverConfig {
        memory_mb: 64,
        db,
        cache_dir: None,
        transposition,
        mtd,
        build_progress: None,
    }
}

/// Every way of running the solver that must give the same answers.
fn configs(max_db: u32) -> Vec<SolverConfig> {
    vec![
        config(DbSize::Off, true, true),
        config(DbSize::Off, false, true),
        config(DbSize::Off, true, false),
        config(DbSize::Off, false, false),
        config(DbSize::Seeds(max_db.min(4)), true, true),
        config(DbSize::Seeds(max_db), true, true),
        config(DbSize::Seeds(max_db), false, false),
    ]
}

fn check_against_plain(pos: &Position, a: &Analysis) {
    assert!(a.complete(), "{pos:?}: not solved");
    let want: Vec<(Move, i32)> = pos
        .legal_moves()
        .iter()
        .map(|mv| (mv, plain_move(pos, mv)))
        .collect();
    let got: Vec<(Move, i32)> = a.moves.iter().map(|m| (m.mv, m.value().unwrap())).collect();
    assert_eq!(got, want, "{pos:?} under {:?}", pos.rules());
    assert_eq!(a.value(), Some(plain(pos)), "{pos:?}");
}

fn all_rules(m: u32, n: u32) -> Vec<Rules> {
    let mut out = Vec::new();
    for &capture in Capture::ALL {
        for &leftover in Leftover::ALL {
            for &end in End::ALL {
                for pie in [false, true] {
                    let r = Rules::new(m, n)
                        .unwrap()
                        .with_capture(capture)
                        .with_leftover(leftover)
                        .with_end(end);
                    out.push(r.with_pie(pie));
                }
            }
        }
    }
    out
}

#[test]
fn small_boards_from_the_start_equal_plain_negamax_under_every_option() {
    for (m, n) in [(1, 3), (2, 2), (3, 1), (2, 3), (4, 1)] {
        for rules in all_rules(m, n) {
            let start = Position::start(&rules);
            let want = plain(&start);
            for cfg in configs(rules.total_seeds()) {
                let solver = Solver::new(&rules, &cfg).unwrap();
                let a = solver.analyse(&start);
                assert_eq!(a.value(), Some(want), "{rules:?} {cfg:?}");
                check_against_plain(&start, &a);
            }
        }
    }
}

#[test]
fn positions_of_larger_boards_equal_plain_negamax() {
    let mut rng = crate::env::rng::stream(7, 0);
    for (m, n) in [(3, 2), (3, 3)] {
        for rules in all_rules(m, n) {
            if rng.random_range(0..4) != 0 {
                continue;
            }
            // Later positions keep the plain search small; with the pie rule, also the opening.
            let from = if rules.pie { 0 } else { 4 };
            let positions = midgame_positions(&rules, 3, from, 10, rng.random_range(0..1000));
            let solvers: Vec<Solver> = configs(8)
                .iter()
                .map(|c| Solver::new(&rules, c).unwrap())
                .collect();
            for pos in positions {
                if pos.board_seeds() > 10 {
                    continue;
                }
                for s in &solvers {
                    check_against_plain(&pos, &s.analyse(&pos));
                }
            }
        }
    }
}

#[test]
fn the_pie_answer_is_valued_as_the_opponent_taking_over_the_opening_seat() {
    let rules = Rules::new(3, 2).unwrap().with_pie(true);
    let solver = Solver::new(&rules, &config(DbSize::Off, true, true)).unwrap();
    let mut pos = Position::start(&rules);
    // Play South's opening turn out until North may answer.
    while !pos.swap_allowed() {
        let mv = pos.legal_moves().iter().next().unwrap();
        pos.play(mv).unwrap();
    }
    let a = solver.analyse(&pos);
    let swap = a
        .moves
        .iter()
        .find(|m| m.mv == Move::Swap)
        .expect("swap is a move")
        .value()
        .unwrap();
    let (after, _) = pos.after(Move::Swap).unwrap();
    assert_eq!(swap, -solver.value(&after));
    check_against_plain(&pos, &a);
}

#[test]
fn database_gains_agree_with_search_for_every_board() {
    for (m, b) in [(2, 8), (3, 7), (4, 5)] {
        for rules in all_rules(m, 6).into_iter().filter(|r| !r.pie) {
            let db = Endgame::build(&rules, b, None);
            let solver = Solver::new(&rules, &config(DbSize::Off, true, true)).unwrap();
            let enc = Encoder::new(m as usize, b);
            let mut pits = vec![0u8; 2 * m as usize];
            for r in 0..entries(m as usize, b) as u64 {
                enc.unrank(r, &mut pits);
                let (mine, theirs) = pits.split_at(m as usize);
                let pos = Position::from_parts(&rules, (mine, 0), (theirs, 0), Side::South, false)
                    .unwrap();
                assert_eq!(db.gain(r), solver.value(&pos), "{rules:?} board {pits:?}");
            }
        }
    }
}

#[test]
fn a_corrupt_or_foreign_database_file_is_rebuilt_never_trusted() {
    let dir = std::env::temp_dir().join(format!("kalaha-db-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rules = Rules::new(4, 3).unwrap();
    let (built, source) = Endgame::load_or_build(Some(&dir), &rules, 8, None);
    let path = dir.join(Endgame::file_name(&rules, 8));
    assert_eq!(source, DbSource::Built(Some(path.clone())));
    let (_, source) = Endgame::load_or_build(Some(&dir), &rules, 8, None);
    assert_eq!(source, DbSource::Loaded(path.clone()));

    let good = std::fs::read(&path).unwrap();
    let mut flipped = good.clone();
    let at = good.len() - 100;
    flipped[at] ^= 4;
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (flipped, "checksum"),
        (good[..good.len() - 1].to_vec(), "bytes where"),
        (b"not a database at all".to_vec(), "not an endgame database"),
    ];
    // What a process killed while saving left behind goes; a running process's file stays.
    let dead = crate::files::temp_path(&path, 4_000_000_000);
    let alive = crate::files::temp_path(&path, 1);
    std::fs::write(&dead, b"half a database").unwrap();
    std::fs::write(&alive, b"being written").unwrap();
    for (bytes, why) in cases {
        std::fs::write(&path, bytes).unwrap();
        let (db, source) = Endgame::load_or_build(Some(&dir), &rules, 8, None);
        match source {
            DbSource::Rebuilt { reason, .. } => assert!(reason.contains(why), "{reason}"),
            other => panic!("expected a rebuild, got {other:?}"),
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            good,
            "the rebuilt file is whole again"
        );
        assert!(!dead.exists() && alive.exists());
        assert_eq!(
            (0..100).map(|r| db.gain(r)).collect::<Vec<_>>(),
            (0..100).map(|r| built.gain(r)).collect::<Vec<_>>()
        );
    }
    // A file for other rules under this name is refused too.
    let other = Endgame::build(&rules.with_capture(Capture::Empty), 8, None);
    other.save(&path).unwrap();
    let (_, source) = Endgame::load_or_build(Some(&dir), &rules, 8, None);
    assert!(
        matches!(source, DbSource::Rebuilt { ref reason, .. } if reason.contains("other rules")),
        "{source:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_time_limit_stops_with_bounds_that_hold_the_value() {
    let rules = Rules::new(5, 3).unwrap();
    let cfg = config(DbSize::Seeds(8), true, true);
    let exact = Solver::new(&rules, &cfg)
        .unwrap()
        .analyse(&Position::start(&rules));
    let solver = Solver::new(&rules, &cfg).unwrap();
    let a = solver.analyse_within(
        &Position::start(&rules),
        Some(Duration::from_millis(1)),
        None,
    );
    let v = exact.value().unwrap();
    assert!(a.lower <= v && v <= a.upper, "{a:?} vs {v}");
    for (m, e) in a.moves.iter().zip(&exact.moves) {
        assert!(m.lower <= e.lower && e.upper <= m.upper, "{m:?} vs {e:?}");
    }
    solver.stop();
    let b = solver.analyse(&Position::start(&rules));
    assert!(b.lower <= v && v <= b.upper);
}

#[test]
fn a_time_limit_holds_without_a_database_too() {
    // Without a database the parallel splits give every move a searcher of its own that may
    // finish in fewer nodes than a poll interval: each reads the clock when it starts, so a 1 ms
    // limit stops the analysis of Kalah(6,3)'s start (about 5 M nodes in full) long before.
    let rules = Rules::new(6, 3).unwrap();
    let solver = Solver::new(&rules, &config(DbSize::Off, true, true)).unwrap();
    let a = solver.analyse_with(
        &Position::start(&rules),
        Some(Duration::from_millis(1)),
        Detail::Optimal,
        None,
    );
    assert!(!a.complete(), "{a:?}");
    assert!(a.nodes < 500_000, "{} nodes after a 1 ms limit", a.nodes);
}

#[test]
fn a_batch_is_judged_in_order_and_matches_one_by_one() {
    let rules = Rules::new(4, 3).unwrap();
    let positions = midgame_positions(&rules, 12, 3, 12, 5);
    let solver = Solver::new(&rules, &config(DbSize::Seeds(6), true, true)).unwrap();
    let batch = solver.judge(&positions);
    let fresh = Solver::new(&rules, &config(DbSize::Off, false, true)).unwrap();
    for (p, a) in positions.iter().zip(&batch) {
        let one = fresh.analyse(p);
        assert_eq!(a.moves, one.moves, "{p:?}");
        assert_eq!(a.best(), one.best());
        for m in &a.moves {
            assert_eq!(a.loss(m.mv), Some(a.value().unwrap() - m.value().unwrap()));
        }
    }
}

#[test]
fn a_database_that_does_not_fit_the_budget_is_refused_with_the_numbers() {
    let rules = Rules::kalah64();
    let err = Solver::new(
        &rules,
        &SolverConfig {
            memory_mb: 8,
            db: DbSize::Seeds(20),
            ..config(DbSize::Off, true, true)
        },
    )
    .err()
    .expect("too large");
    assert!(err.to_string().contains("needs 216 MiB"), "{err}");
}

#[test]
fn a_solver_larger_than_the_machine_is_refused_before_it_is_built() {
    use super::config::check_room;
    let gib = |g: u128| g << 30;
    // The default set-up for Kalah(6,5): 2.7 GB of database and a 2 GiB table.
    assert!(check_room(2_707_475_148, gib(2), Some(gib(24))).is_ok());
    assert!(check_room(2_707_475_148, gib(2), None).is_ok());
    let err = check_room(2_707_475_148, gib(2), Some(gib(4))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the solver would take 4631 MiB (endgame database 2583 MiB, table 2048 MiB), more than nine tenths of this machine's 4096 MiB of memory: lower --memory or --db-seeds"
    );
    // Nine tenths is the line.
    assert!(check_room(gib(9), 0, Some(gib(10))).is_ok());
    assert!(check_room(gib(9) + 1, 0, Some(gib(10))).is_err());
    // Linux tells how much memory there is.
    if cfg!(target_os = "linux") {
        assert!(super::mem::physical_memory().is_some_and(|b| b > gib(1)));
    }
}

#[test]
fn the_table_fills_the_budget_up_to_what_the_game_needs() {
    let table_mb = |rules: &Rules, memory_mb| {
        let cfg = SolverConfig {
            memory_mb,
            ..config(DbSize::Off, true, true)
        };
        Solver::new(rules, &cfg).unwrap().memory_bytes() >> 20
    };
    // Any size within the budget (not only powers of two), at most 1 GiB for Kalah(6,4) and
    // 64 MiB for a game of 24 seeds; twice as much for each 6 seeds more.
    assert_eq!(table_mb(&Rules::kalah64(), 300), 300);
    assert_eq!(table_mb(&Rules::kalah64(), 4096), 1024);
    let small = Rules::new(4, 3).unwrap();
    assert_eq!(table_mb(&small, 4096), 64);
    let k65 = Rules::new(6, 5).unwrap();
    assert_eq!(table_mb(&k65, 8192), 4096);
}

#[test]
fn value_only_optimal_and_every_analyses_agree_with_plain_negamax() {
    use super::Detail;
    let mut rng = crate::env::rng::stream(11, 0);
    for rules in all_rules(3, 2) {
        let positions = midgame_positions(&rules, 3, 2, 8, rng.random_range(0..1000));
        for cfg in configs(6) {
            let solver = Solver::new(&rules, &cfg).unwrap();
            for pos in &positions {
                let want: Vec<(Move, i32)> = pos
                    .legal_moves()
                    .iter()
                    .map(|mv| (mv, plain_move(pos, mv)))
                    .collect();
                let v = plain(pos);
                let optimal: Vec<Move> = want.iter().filter(|w| w.1 == v).map(|w| w.0).collect();
                // Value only: the value, one optimal move exact, every bound true.
                let a = solver.analyse_with(pos, None, Detail::Value, None);
                assert_eq!(a.value(), Some(v), "{pos:?} {cfg:?}");
                assert!(!a.best().is_empty(), "{pos:?}: no best move proven");
                for (m, w) in a.moves.iter().zip(&want) {
                    assert!(m.lower <= w.1 && w.1 <= m.upper, "{pos:?} {m:?} vs {w:?}");
                }
                // Every move on its own: all exact.
                solver.clear_table();
                check_against_plain(pos, &solver.analyse_with(pos, None, Detail::Every, None));
                // Optimal: exactly the optimal moves.
                solver.clear_table();
                let a = solver.analyse_with(pos, None, Detail::Optimal, None);
                assert_eq!(a.best(), optimal, "{pos:?} {cfg:?}");
                for (m, w) in a.moves.iter().zip(&want) {
                    assert!(m.lower <= w.1 && w.1 <= m.upper, "{pos:?} {m:?} vs {w:?}");
                }
            }
        }
    }
}

#[test]
fn the_automatic_database_grows_with_the_game_within_the_budget() {
    use super::config::auto_db_seeds;
    let gb = |g: u128| g << 30;
    // Kalah(6,4) builds in seconds; the longer solves of (6,5) and (6,6) get a larger database.
    assert_eq!(auto_db_seeds(6, 48, gb(5)), Some(18));
    assert_eq!(auto_db_seeds(6, 60, 4608 << 20), Some(26));
    assert_eq!(auto_db_seeds(6, 72, 4608 << 20), Some(26));
    // Kalah(6,5)'s cap: 26 seeds (2.71 G entries), not 27 (3.91 G), however large the budget.
    assert_eq!(auto_db_seeds(6, 60, gb(64)), Some(26));
    // Three fifths of the budget cap it: 24 seeds (1.25 G entries) within 2 GiB, not 25
    // (1.85 G); 19 seeds (141 M) within 256 MiB, not 20 (226 M).
    assert_eq!(auto_db_seeds(6, 60, gb(2)), Some(24));
    assert_eq!(auto_db_seeds(6, 60, 256 << 20), Some(19));
    // Small games are covered whole.
    assert_eq!(auto_db_seeds(3, 9, gb(2)), Some(9));
}

#[test]
fn splitting_the_search_between_threads_never_changes_an_answer() {
    // Without a database, nodes with 14 seeds or more split (young brothers wait): the starts of
    // Kalah(3,3) and (4,3) split near the top. Each answer must equal the one of a single thread,
    // which never splits (and which the plain-negamax tests check).
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut cases: Vec<(Rules, SolverConfig)> = Vec::new();
    for rules in all_rules(3, 3).into_iter().step_by(5) {
        cases.push((rules, config(DbSize::Off, true, true)));
        cases.push((rules, config(DbSize::Off, false, false)));
    }
    let k43 = Rules::new(4, 3).unwrap();
    cases.push((k43, config(DbSize::Off, true, true)));
    cases.push((k43, config(DbSize::Off, true, false)));
    cases.push((k43.with_pie(true), config(DbSize::Off, true, true)));
    for (rules, cfg) in cases {
        let start = Position::start(&rules);
        let analyse = |pool: &rayon::ThreadPool| {
            pool.install(|| Solver::new(&rules, &cfg).unwrap().analyse(&start))
        };
        let (a, b) = (analyse(&one), analyse(&two));
        assert!(a.complete() && b.complete(), "{rules:?} {cfg:?}");
        assert_eq!(a.moves, b.moves, "{rules:?} {cfg:?}");
        assert_eq!(a.value(), b.value(), "{rules:?} {cfg:?}");
    }
}

#[test]
fn a_saved_table_takes_a_solve_up_where_it_stopped_and_damage_is_refused() {
    use super::TableFileError;
    let rules = Rules::new(4, 3).unwrap();
    let start = Position::start(&rules);
    let dir = std::env::temp_dir().join(format!("kalaha-table-test-{}", std::process::id()));
    let path = dir.join("k43.ktt");
    let small = SolverConfig {
        memory_mb: 4,
        ..config(DbSize::Off, true, true)
    };
    let first = Solver::new(&rules, &small).unwrap();
    let fresh = first.analyse(&start);
    assert!(fresh.complete());
    let used = first.save_table(&path).unwrap();
    assert!(used > 0);

    // Into a table of the same size and of another size: the same answers, from the table.
    for memory_mb in [4, 16, 2] {
        let cfg = SolverConfig {
            memory_mb,
            ..small.clone()
        };
        let s = Solver::new(&rules, &cfg).unwrap();
        assert_eq!(s.load_table(&path).unwrap(), used);
        let again = s.analyse(&start);
        assert_eq!(again.moves, fresh.moves, "{memory_mb} MiB");
        assert_eq!(again.value(), fresh.value());
        if memory_mb >= 4 {
            assert!(
                again.nodes * 10 < fresh.nodes,
                "{memory_mb} MiB: {} nodes against {} fresh",
                again.nodes,
                fresh.nodes
            );
        }
    }

    // Another game's solver refuses the file.
    let other = Solver::new(&Rules::new(4, 4).unwrap(), &small).unwrap();
    assert!(matches!(
        other.load_table(&path),
        Err(TableFileError::OtherGame { .. })
    ));

    // One byte changed in the payload: refused, and nothing of it is used.
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let s = Solver::new(&rules, &small).unwrap();
    assert!(matches!(
        s.load_table(&path),
        Err(TableFileError::Checksum(_))
    ));
    let after = s.analyse(&start);
    assert_eq!(after.moves, fresh.moves);
    assert!(
        after.nodes * 2 > fresh.nodes,
        "nothing of a damaged file is kept: {} nodes against {} fresh",
        after.nodes,
        fresh.nodes
    );

    // Cut short: refused with the sizes.
    std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
    assert!(matches!(
        s.load_table(&path),
        Err(TableFileError::Length { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
