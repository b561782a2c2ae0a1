//! The rules core against RULES.md: worked examples, every option, and an independent
//! reference implementation (tests/common/reference.rs) over random games and perft counts.

mod common;

use common::reference::RefPos;
use kalaha::rules::{
    Capture, End, Game, GameResult, IllegalMove, Leftover, Move, NotationError, Position,
    PositionError, Preset, Rules, Side, parse_moves, perft,
};
use proptest::prelude::*;

fn pos(text: &str, rules: &Rules) -> Position {
    Position::parse(text, rules).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn k64() -> Rules {
    Rules::kalah64()
}

// ---- Worked examples of RULES.md ----

#[test]
fn example_south_plays_3_from_the_start_and_moves_again() {
    let mut p = Position::start(&k64());
    let out = p.play(Move::Pit(3)).unwrap();
    assert!(out.extra_turn);
    assert_eq!(out.captured, 0);
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s");
    assert_eq!(p.to_move(), Side::South);
}

#[test]
fn example_capture_of_one_plus_five() {
    // South's pit 2 holds 1, pit 3 is empty, North's pit 4 (facing South's pit 3) holds 5.
    let mut p = pos("4,1,0,4,4,4,0/4,4,4,5,4,4,0 s", &k64());
    let out = p.play(Move::Pit(2)).unwrap();
    assert_eq!(out.captured, 6);
    assert!(!out.extra_turn);
    assert_eq!(p.to_string(), "4,0,0,4,4,4,6/4,4,4,0,4,4,0 n");
}

#[test]
fn example_lap_of_13_ends_in_the_emptied_start_pit_and_captures() {
    let rules = Preset::Swedish.rules();
    let mut p = pos("13,6,6,6,6,6,0/6,6,6,6,6,6,0 s", &rules);
    let out = p.play(Move::Pit(1)).unwrap();
    // Pits 2..6 (+1), store (+1), North 1..6 (+1), skip North's store, back into pit 1; it
    // captures itself and the facing North pit 6, which holds 6 + 1.
    assert_eq!(out.captured, 1 + 7);
    assert_eq!(p.to_string(), "0,7,7,7,7,7,9/7,7,7,7,7,0,0 n");
}

#[test]
fn example_last_seed_into_store_empties_the_row_and_north_banks_its_own() {
    let mut p = pos("0,0,0,0,0,1,20/3,4,5,6,7,2,0 s", &k64());
    let out = p.play(Move::Pit(6)).unwrap();
    assert!(out.extra_turn && out.game_over);
    assert!(p.is_over());
    assert_eq!(p.score(), [21, 27]);
    assert_eq!(p.result(), Some(GameResult::North));
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.play(Move::Pit(1)), Err(IllegalMove::GameOver));
}

// ---- Sowing details ----

#[test]
fn sowing_skips_the_opponents_store_but_not_ones_own() {
    let mut p = pos("1,0,0,0,0,8,0/0,0,0,0,0,9,0 s", &k64());
    p.play(Move::Pit(6)).unwrap();
    // 8 seeds from pit 6: store, North 1..6, skip North's store, South pit 1.
    assert_eq!(p.to_string(), "2,0,0,0,0,0,1/1,1,1,1,1,10,0 n");
    let mut q = pos("0,0,0,0,0,9,0/1,0,0,0,0,8,0 n", &k64());
    q.play(Move::Pit(6)).unwrap();
    assert_eq!(q.to_string(), "1,1,1,1,1,10,0/2,0,0,0,0,0,1 s");
    // Into an empty pit of one's own after a lap of the board: that is a capture.
    let mut c = pos("0,0,0,0,0,8,0/0,0,0,0,0,9,0 s", &k64());
    assert_eq!(c.play(Move::Pit(6)).unwrap().captured, 1 + 10);
    assert_eq!(c.to_string(), "0,0,0,0,0,0,12/1,1,1,1,1,0,0 n");
}

#[test]
fn a_lap_passes_the_emptied_start_pit_which_then_holds_a_seed() {
    // 20 seeds from South pit 1 in Kalah(6,4)-sized board: one lap of 13, then 7 more.
    let rules = Rules::new(6, 4).unwrap();
    let mut p = pos("20,0,0,0,0,0,0/1,1,1,1,1,1,0 s", &rules);
    let out = p.play(Move::Pit(1)).unwrap();
    // Lap: every cycle cell +1 (pit 1 too); then 7 more: pits 2..6, store, North pit 1.
    assert_eq!(p.to_string(), "1,2,2,2,2,2,2/3,2,2,2,2,2,0 n");
    assert!(!out.extra_turn && out.captured == 0);
}

#[test]
fn two_full_laps_back_into_the_start_pit_do_not_capture() {
    // m = 2: the lap is 5 cells. 10 seeds from South pit 1 end in pit 1, which got a seed on the
    // first lap: no capture.
    let rules = Rules::new(2, 4).unwrap();
    let mut p = pos("10,0,0/1,1,0 s", &rules);
    let out = p.play(Move::Pit(1)).unwrap();
    assert_eq!(out.captured, 0);
    assert_eq!(p.to_string(), "2,2,2/3,3,0 n");
    // 5 seeds: one lap exactly, the last in the emptied start pit: capture with facing pit 2.
    let mut q = pos("5,0,0/1,1,0 s", &rules);
    let out = q.play(Move::Pit(1)).unwrap();
    assert_eq!(out.captured, 1 + 2);
    assert_eq!(q.to_string(), "0,1,4/2,0,0 n");
}

#[test]
fn chained_extra_turns_keep_the_same_player() {
    let mut g = Game::new(&k64());
    for mv in parse_moves("3,6").unwrap() {
        g.play(mv).unwrap();
    }
    // 3 reaches the store exactly; then pit 6 holds 5 and goes past it: turn passes.
    assert_eq!(g.position().to_move(), Side::North);
    let mut p = pos("0,0,0,0,3,1,0/1,1,1,1,1,1,0 s", &k64());
    assert!(p.play(Move::Pit(6)).unwrap().extra_turn);
    // Pit 5's three seeds go past the store: the turn passes.
    assert!(!p.play(Move::Pit(5)).unwrap().extra_turn);
    assert_eq!(p.to_move(), Side::North);
    let mut q = pos("0,0,0,3,2,1,0/1,1,1,1,1,1,0 s", &k64());
    for pit in [6, 5, 4] {
        let out = q.play(Move::Pit(pit)).unwrap();
        assert!(out.extra_turn, "pit {pit}");
        assert_eq!(q.to_move(), Side::South);
    }
}

// ---- Capture options ----

#[test]
fn capture_with_an_empty_opposite_pit_under_each_option() {
    // South pit 1 holds 1, pit 2 empty, facing North pit 5 empty.
    let text = "1,0,0,0,0,1,0/1,1,1,1,0,1,0 s";
    let expect = [
        (Capture::Standard, 0, "0,1,0,0,0,1,0/1,1,1,1,0,1,0 n"),
        (Capture::Empty, 1, "0,0,0,0,0,1,1/1,1,1,1,0,1,0 n"),
        (Capture::Off, 0, "0,1,0,0,0,1,0/1,1,1,1,0,1,0 n"),
    ];
    for (capture, captured, after) in expect {
        let rules = k64().with_capture(capture);
        let mut p = pos(text, &rules);
        let out = p.play(Move::Pit(1)).unwrap();
        assert_eq!(out.captured, captured, "{capture}");
        assert_eq!(p.to_string(), after, "{capture}");
    }
}

#[test]
fn capture_with_a_full_opposite_pit_under_each_option() {
    let text = "1,0,0,0,0,1,0/1,1,1,1,3,1,0 s";
    for (capture, captured) in [
        (Capture::Standard, 4),
        (Capture::Empty, 4),
        (Capture::Off, 0),
    ] {
        let mut p = pos(text, &k64().with_capture(capture));
        assert_eq!(
            p.play(Move::Pit(1)).unwrap().captured,
            captured,
            "{capture}"
        );
    }
}

#[test]
fn landing_in_an_empty_pit_on_the_opponents_side_never_captures() {
    let mut p = pos("0,0,0,0,0,2,0/0,4,4,4,4,4,0 s", &k64());
    let out = p.play(Move::Pit(6)).unwrap();
    assert_eq!(out.captured, 0);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,1/1,4,4,4,4,4,0 n");
}

// ---- End and leftover options ----

#[test]
fn end_immediate_versus_on_turn_when_the_opponents_row_empties() {
    // South plays pit 1 with its last seed into... North's row is already empty after North's move:
    // here South's move leaves North's row empty and North to move.
    let text = "0,0,0,0,0,2,10/0,0,0,0,0,1,10 n";
    for (end, over_after) in [(End::Immediate, true), (End::OnTurn, true)] {
        let mut p = pos(text, &k64().with_end(end));
        // North sows its last seed into its store: its row is empty and it moves again.
        let out = p.play(Move::Pit(6)).unwrap();
        assert!(out.extra_turn);
        assert_eq!(p.is_over(), over_after, "{end}");
    }
    // South to move with seeds while North's row is empty: over at once only under `immediate`.
    let text = "0,0,0,0,1,2,10/0,0,0,0,0,0,11 s";
    assert!(pos(text, &k64()).is_over());
    let mut p = pos(text, &k64().with_end(End::OnTurn));
    assert!(!p.is_over());
    assert_eq!(p.legal_moves().len(), 2);
    // South sows pit 6: store, then North pit 1: North now has a seed and is to move.
    p.play(Move::Pit(6)).unwrap();
    assert_eq!(p.to_string(), "0,0,0,0,1,0,11/1,0,0,0,0,0,11 n");
    assert!(!p.is_over());
}

#[test]
fn each_leftover_rule_gives_its_own_score() {
    // South's row is empty, North has 6 seeds left.
    let text = "0,0,0,0,0,0,20/1,1,1,1,1,1,16 n";
    let expect = [
        (Leftover::Owner, [20, 22]),
        (Leftover::Emptier, [26, 16]),
        (Leftover::Discard, [20, 16]),
    ];
    for (leftover, score) in expect {
        let p = pos(text, &k64().with_leftover(leftover));
        assert!(p.is_over());
        assert_eq!(p.score(), score, "{leftover}");
    }
    // The results differ: north, south, south.
    let results: Vec<_> = [Leftover::Owner, Leftover::Emptier, Leftover::Discard]
        .iter()
        .map(|&l| pos(text, &k64().with_leftover(l)).result().unwrap())
        .collect();
    assert_eq!(
        results,
        [GameResult::North, GameResult::South, GameResult::South]
    );
}

#[test]
fn emptier_under_on_turn_gives_the_leftover_to_the_player_to_move() {
    let rules = k64().with_end(End::OnTurn).with_leftover(Leftover::Emptier);
    let p = pos("0,0,0,0,0,0,20/1,1,1,1,1,1,16 s", &rules);
    assert!(p.is_over());
    assert_eq!(p.score(), [26, 16]);
    // North to move with seeds: not over under on-turn.
    assert!(!pos("0,0,0,0,0,0,20/1,1,1,1,1,1,16 n", &rules).is_over());
}

// ---- Pie rule ----

#[test]
fn pie_swap_only_at_norths_first_move() {
    let rules = k64().with_pie(true);
    let mut g = Game::new(&rules);
    assert!(!g.position().swap_allowed());
    assert_eq!(g.play(Move::Swap), Err(IllegalMove::SwapNotAllowed));
    g.play(Move::Pit(3)).unwrap(); // extra turn: still South's opening
    assert!(!g.position().swap_allowed());
    // The notation says so, and reads back into the opening turn (the pie answer still to come).
    let text = g.position().to_string();
    assert_eq!(text, "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s opening");
    let read = Position::parse(&text, &rules).unwrap();
    assert!(read.in_opening_turn());
    assert_eq!(read, *g.position());
    let later = Position::parse("4,4,0,5,5,5,1/4,4,4,4,4,4,0 s", &rules).unwrap();
    assert!(!later.in_opening_turn());
    assert_ne!(
        later,
        *g.position(),
        "the opening turn is part of the position"
    );
    assert!(Position::start(&rules).in_opening_turn());
    assert!(!Position::start(&rules).to_string().contains("opening"));
    g.play(Move::Pit(1)).unwrap();
    assert_eq!(g.position().to_move(), Side::North);
    assert!(g.position().swap_allowed());
    assert!(g.position().to_string().ends_with(" n swap"));
    let before = *g.position();
    let out = g.play(Move::Swap).unwrap();
    assert!(out.swapped);
    assert!(g.swapped());
    assert_eq!(g.seat_of(Side::South), Side::North);
    // The board and the seat to move stay; the swap is spent.
    assert_eq!(g.position().cells(), before.cells());
    assert_eq!(g.position().to_move(), Side::North);
    assert!(!g.position().swap_allowed());
    assert_eq!(g.play(Move::Swap), Err(IllegalMove::SwapNotAllowed));
    // Undo gives the swap back.
    g.undo();
    assert!(!g.swapped());
    assert!(g.position().swap_allowed());
}

#[test]
fn pie_answer_is_gone_once_north_has_sown() {
    let rules = k64().with_pie(true);
    let mut g = Game::from_moves(Position::start(&rules), &parse_moves("1").unwrap()).unwrap();
    assert!(g.position().swap_allowed());
    g.play(Move::Pit(3)).unwrap(); // North's extra turn
    assert_eq!(g.position().to_move(), Side::North);
    assert!(!g.position().swap_allowed());
    let without_pie =
        Game::from_moves(Position::start(&k64()), &parse_moves("1").unwrap()).unwrap();
    assert!(!without_pie.position().swap_allowed());
}

// ---- Errors ----

#[test]
fn illegal_moves_are_refused_and_change_nothing() {
    let mut p = pos("0,4,4,4,4,4,0/4,4,4,4,4,4,0 s", &k64());
    let before = p;
    assert_eq!(p.play(Move::Pit(1)), Err(IllegalMove::EmptyPit(1)));
    assert_eq!(
        p.play(Move::Pit(0)),
        Err(IllegalMove::OutOfRange { pit: 0, pits: 6 })
    );
    assert_eq!(
        p.play(Move::Pit(7)),
        Err(IllegalMove::OutOfRange { pit: 7, pits: 6 })
    );
    assert_eq!(p.play(Move::Swap), Err(IllegalMove::SwapNotAllowed));
    assert_eq!(p, before);
    assert_eq!(IllegalMove::EmptyPit(1).to_string(), "pit 1 is empty");
}

#[test]
fn malformed_notation_names_the_problem() {
    let r = k64();
    let err = |t: &str| Position::parse(t, &r).unwrap_err();
    assert_eq!(
        err("4,4,4,4,4,0/4,4,4,4,4,0 s"),
        NotationError::Position(PositionError::PitCount { got: 5, want: 6 })
    );
    assert_eq!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,0 s"),
        NotationError::Unbalanced { south: 6, north: 5 }
    );
    assert_eq!(
        err("4,4,x,4,4,4,0/4,4,4,4,4,4,0 s"),
        NotationError::NotANumber("x".into())
    );
    assert_eq!(
        err("4,4,-1,4,4,4,0/4,4,4,4,4,4,0 s"),
        NotationError::Negative("-1".into())
    );
    assert_eq!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,4,0 x"),
        NotationError::Side("x".into())
    );
    assert_eq!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,4,0"),
        NotationError::Shape("4,4,4,4,4,4,0/4,4,4,4,4,4,0".into())
    );
    assert_eq!(
        err("4,4,4,4,4,4,0 s"),
        NotationError::Halves("4,4,4,4,4,4,0".into())
    );
    assert_eq!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s swap"),
        NotationError::Position(PositionError::Swap)
    );
    assert_eq!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s extra"),
        NotationError::Trailing("extra".into())
    );
    assert_eq!(
        err("4,4,0,5,5,5,1/4,4,4,4,4,4,0 s opening"),
        NotationError::Opening,
        "no pie rule, no opening turn"
    );
    let pie = k64().with_pie(true);
    for text in [
        "4,4,0,5,5,5,1/4,4,4,4,4,4,0 n opening",
        "4,4,0,5,5,4,1/4,4,4,4,4,4,1 s opening",
    ] {
        assert_eq!(
            Position::parse(text, &pie).unwrap_err(),
            NotationError::Opening,
            "{text}"
        );
    }
    assert_eq!(
        Position::parse("4,4,0,5,5,5,1/4,4,4,4,4,4,0 s opening swap", &pie).unwrap_err(),
        NotationError::Trailing("swap".into())
    );
    assert_eq!(
        err("99,99,99,4,4,4,0/4,4,4,4,4,4,0 s"),
        NotationError::Position(PositionError::TooManySeeds(333))
    );
    assert_eq!(
        err("99999999999999999999999,0,0,0,0,0,0/0,0,0,0,0,0,0 s"),
        NotationError::Position(PositionError::TooManySeeds(u64::MAX))
    );
    assert!(
        err("4,4,4,4,4,4,0/4,4,4,4,4,4,0 x")
            .to_string()
            .contains("'s' or 'n'")
    );
}

#[test]
fn move_lists_report_the_first_bad_move() {
    let err = Game::from_moves(Position::start(&k64()), &parse_moves("3,3").unwrap()).unwrap_err();
    assert_eq!(err.to_string(), "move 2 (3) is illegal: pit 3 is empty");
    assert!(
        parse_moves("3,x")
            .unwrap_err()
            .to_string()
            .contains("move 2 ('x')")
    );
    assert!(parse_moves("").unwrap().is_empty());
    assert_eq!(
        parse_moves("1, swap ,2").unwrap(),
        vec![Move::Pit(1), Move::Swap, Move::Pit(2)]
    );
}

#[test]
fn game_record_undo_and_redo() {
    let mut g = Game::new(&k64());
    for mv in parse_moves("3,1,2,4").unwrap() {
        g.play(mv).unwrap();
    }
    let end = *g.position();
    assert_eq!(g.move_list(), "3,1,2,4");
    assert_eq!(g.undo(), Some(Move::Pit(4)));
    assert_eq!(g.undo(), Some(Move::Pit(2)));
    assert_eq!(g.move_list(), "3,1");
    assert_eq!(g.redo(), Some(Move::Pit(2)));
    assert_eq!(g.redo(), Some(Move::Pit(4)));
    assert_eq!(g.redo(), None);
    assert_eq!(*g.position(), end);
    while g.undo().is_some() {}
    assert_eq!(*g.position(), Position::start(&k64()));
    // A new move after undo drops the redo list.
    g.play(Move::Pit(1)).unwrap();
    assert_eq!(g.redo(), None);
}

// ---- The reference implementation over random games ----

/// Any rule set the program accepts: 1 to 15 pits, as many seeds a pit as fit a board of at most
/// 255 seeds (`2 × pits × seeds ≤ 255`, up to Kalah(1,127)), every option. Half the cases draw
/// the largest boards of their pit count, where cells pass 127 and sowings lap the board.
fn rules_strategy() -> impl Strategy<Value = Rules> {
    (1u32..=15, any::<bool>())
        .prop_flat_map(|(m, full)| {
            let most = 255 / (2 * m);
            let n = if full {
                (most.saturating_sub(2).max(1)..=most).boxed()
            } else {
                (1..=most).boxed()
            };
            (Just(m), n, 0usize..3, 0usize..3, 0usize..2, any::<bool>())
        })
        .prop_filter_map("board too full", |(m, n, c, l, e, pie)| {
            Some(
                Rules::new(m, n)
                    .ok()?
                    .with_capture(Capture::ALL[c])
                    .with_leftover(Leftover::ALL[l])
                    .with_end(End::ALL[e])
                    .with_pie(pie),
            )
        })
}

fn assert_same(p: &Position, r: &RefPos) {
    for (side, idx) in [(Side::South, 0), (Side::North, 1)] {
        assert_eq!(
            p.row(side),
            r.row(idx)
                .iter()
                .map(|&x| x as u8)
                .collect::<Vec<_>>()
                .as_slice(),
            "{p}"
        );
        assert_eq!(p.store(side) as u32, r.store(idx), "{p}");
    }
    assert_eq!(p.to_move().index(), r.to_move, "{p}");
    assert_eq!(p.is_over(), r.over(), "{p}");
    assert_eq!(p.swap_allowed(), r.swap_allowed(), "{p}");
    assert_eq!(p.score(), r.score(), "{p}");
    let legal: Vec<usize> = p
        .legal_moves()
        .iter()
        .filter_map(|m| {
            if let Move::Pit(x) = m {
                Some(x as usize)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(legal, r.legal_pits(), "{p}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_games_match_the_reference(rules in rules_strategy(), choices in prop::collection::vec(any::<u16>(), 5000)) {
        let mut p = Position::start(&rules);
        let mut r = RefPos::start(&rules);
        let total = rules.total_seeds();
        let mut moves = 0;
        for c in choices {
            assert_same(&p, &r);
            prop_assert_eq!(p.total_seeds(), total, "seeds are conserved");
            if p.is_over() {
                break;
            }
            let legal: Vec<Move> = p.legal_moves().iter().collect();
            let mv = legal[c as usize % legal.len()];
            let out = p.play(mv).unwrap();
            match mv {
                Move::Swap => r.swap(),
                Move::Pit(x) => {
                    let ro = r.sow(x as usize);
                    prop_assert_eq!(out.extra_turn, ro.extra_turn);
                    prop_assert_eq!(out.captured as u32, ro.captured);
                }
            }
            prop_assert_eq!(out.game_over, p.is_over());
            // The printed position reads back as the same position.
            prop_assert_eq!(Position::parse(&p.to_string(), &rules).unwrap(), p);
            moves += 1;
        }
        assert_same(&p, &r);
        prop_assert!(p.is_over(), "every game ends: not over after {} moves", moves);
    }

    #[test]
    fn notation_parser_never_panics(text in "\\PC{0,60}") {
        let _ = Position::parse(&text, &Rules::kalah64());
    }

    #[test]
    fn notation_parser_never_panics_on_near_misses(
        nums in prop::collection::vec("-?[0-9]{1,4}|x|", 0..16),
        side in "s|n|S|x|",
        extra in "|swap| swap| opening| junk",
    ) {
        let half = nums.len() / 2;
        let text = format!("{}/{} {}{}", nums[..half].join(","), nums[half..].join(","), side, extra);
        for rules in [Rules::kalah64(), Rules::kalah64().with_pie(true), Rules::new(7, 3).unwrap()] {
            if let Ok(p) = Position::parse(&text, &rules) {
                prop_assert_eq!(Position::parse(&p.to_string(), &rules).unwrap(), p);
            }
        }
    }

    #[test]
    fn any_valid_board_round_trips(
        m in 1usize..=15,
        cells in prop::collection::vec(0u8..=8, 32),
        north in any::<bool>(),
    ) {
        let rules = Rules::new(m as u32, 1).unwrap();
        let south_row = &cells[..m];
        let north_row = &cells[16..16 + m];
        let total: u32 = south_row.iter().chain(north_row).map(|&x| x as u32).sum::<u32>() + cells[15] as u32;
        prop_assume!(total <= 255);
        let side = if north { Side::North } else { Side::South };
        let p = Position::from_parts(&rules, (south_row, cells[15]), (north_row, 0), side, false).unwrap();
        let text = p.to_string();
        prop_assert_eq!(Position::parse(&text, &rules).unwrap(), p);
    }
}

// ---- Perft against the reference, and the kept table ----

/// Rule sets of the perft table: (m, n, capture, leftover, end, pie).
fn perft_rules() -> Vec<Rules> {
    vec![
        Rules::kalah64(),
        Preset::Norwegian.rules(),
        Preset::Danish.rules(),
        Preset::Children.rules(),
        Rules::new(4, 3)
            .unwrap()
            .with_capture(Capture::Empty)
            .with_pie(true),
        Rules::new(3, 2)
            .unwrap()
            .with_leftover(Leftover::Discard)
            .with_end(End::OnTurn)
            .with_pie(true),
    ]
}

fn perft_line(rules: &Rules, depth: u32, count: u64) -> String {
    format!("{} depth={depth} count={count}", rules.describe())
}

const PERFT_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.txt");
const PERFT_DEPTH: u32 = 8;

/// Writes tests/data/perft.txt from the reference implementation (run with `--ignored`).
#[test]
#[ignore]
fn regenerate_perft_table() {
    let mut out =
        String::from("# Perft counts from tests/common/reference.rs (seed-by-seed sowing).\n");
    for rules in perft_rules() {
        for depth in 1..=PERFT_DEPTH {
            out += &perft_line(&rules, depth, RefPos::start(&rules).perft(depth));
            out += "\n";
        }
    }
    std::fs::write(PERFT_FILE, out).unwrap();
}

#[test]
fn perft_matches_the_kept_table() {
    let table = std::fs::read_to_string(PERFT_FILE).unwrap();
    let mut checked = 0;
    for rules in perft_rules() {
        for depth in 1..=PERFT_DEPTH {
            let line = perft_line(&rules, depth, perft(&Position::start(&rules), depth));
            assert!(
                table.lines().any(|l| l == line),
                "not in {PERFT_FILE}: {line}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * PERFT_DEPTH as usize);
}

#[test]
fn perft_matches_the_reference_at_small_depth() {
    for rules in perft_rules() {
        for depth in 1..=5 {
            assert_eq!(
                perft(&Position::start(&rules), depth),
                RefPos::start(&rules).perft(depth),
                "{rules:?} {depth}"
            );
        }
    }
}
