//! `kalaha play` in line mode, as a script drives it: moves in, board and replies out; bad input is
//! answered in place and never ends the game.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn play(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kalaha play");
    // The game may end before all input is read; a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().expect("kalaha play finishes")
}

fn text(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A panic on a thread of its own leaves the exit code 0 and its message on stderr.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "stderr: {err}");
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Pit numbers over and over: whichever are empty are refused, the others played, so any game
/// is played to its end.
fn every_pit(times: usize) -> String {
    "1\n2\n3\n4\n5\n6\n".repeat(times)
}

#[test]
fn a_scripted_game_against_random_is_played_to_the_end() {
    let input = every_pit(60) + "n\n";
    let out = text(&play(&["--opponent", "random", "--seed", "1"], &input));
    assert!(out.contains("You play south against random."), "{out}");
    assert!(out.contains("South (you) played"), "{out}");
    assert!(out.contains("North (random) played"), "{out}");
    assert!(out.contains("Game over: "), "{out}");
    assert!(
        out.contains("Another game with sides swapped? [y/n]"),
        "{out}"
    );
    assert!(out.trim_end().ends_with("Goodbye."), "{out}");
    // The board: North's pits 6..1 on top, South's 1..6 below, stores at the ends.
    assert!(
        out.contains("         6     5     4     3     2     1"),
        "{out}"
    );
    assert!(
        out.contains("      [  4 ][  4 ][  4 ][  4 ][  4 ][  4 ]"),
        "{out}"
    );
}

#[test]
fn the_same_seed_replays_the_same_game() {
    let input = every_pit(60) + "n\n";
    let a = text(&play(&["--opponent", "greedy", "--seed", "4"], &input));
    let b = text(&play(&["--opponent", "greedy", "--seed", "4"], &input));
    assert_eq!(a, b);
}

#[test]
fn bad_input_is_answered_and_the_game_goes_on() {
    let out = text(&play(
        &["--opponent", "greedy", "--seed", "2"],
        "x\n0\n9\n\nswap\n3\n3\nq\n",
    ));
    assert!(out.contains("'x' is not a move or a command"), "{out}");
    assert!(
        out.contains("there is no pit 0: pits are numbered 1 to 6"),
        "{out}"
    );
    assert!(out.contains("there is no pit 9"), "{out}");
    assert!(out.contains("type a pit number"), "{out}");
    assert!(out.contains("swap is not allowed"), "{out}");
    // 3 from the start ends in the store: an extra turn; then pit 3 is empty.
    assert!(out.contains("South (you) played 3: last seed in the kalaha, extra turn"));
    assert!(out.contains("pit 3 is empty"), "{out}");
    assert!(out.trim_end().ends_with("Goodbye."), "{out}");
}

#[test]
fn practice_mode_undoes_and_redoes_one_move_at_a_time() {
    let out = text(&play(&["--practice"], "3\n1\nu\nu\nu\nr\nq\n"));
    assert!(out.contains("Practice: you play both sides."), "{out}");
    assert!(out.contains("South played 3: last seed in the kalaha, extra turn"));
    assert_eq!(out.matches("took back 1 move\n").count(), 2, "{out}");
    assert!(out.contains("nothing to undo"), "{out}");
    assert!(out.contains("replayed 1 move"), "{out}");
}

#[test]
fn north_sees_its_own_row_at_the_bottom_and_the_bot_opens() {
    let out = text(&play(
        &["--opponent", "minimax:2", "--side", "north", "--seed", "1"],
        "q\n",
    ));
    assert!(out.contains("You play north against minimax:2."), "{out}");
    assert!(out.contains("        South (minimax:2)\n"), "{out}");
    assert!(out.contains("        North (you)\n"), "{out}");
    assert!(out.contains("South (minimax:2) played"), "{out}");
}

#[test]
fn the_hint_gives_every_move_its_solver_value() {
    let out = text(&play(
        &["--practice", "--pits", "3", "--seeds", "2"],
        "h\nq\n",
    ));
    assert!(
        out.contains("hint (final margin for the mover under perfect play):"),
        "{out}"
    );
    assert!(out.matches("pit ").count() >= 3, "{out}");
}

#[test]
fn another_game_swaps_sides() {
    let input = every_pit(60) + "y\n" + "q\n";
    let out = text(&play(&["--opponent", "random", "--seed", "3"], &input));
    assert!(out.contains("You play south against random."), "{out}");
    assert!(out.contains("You play north against random."), "{out}");
}

#[test]
fn an_unknown_level_or_side_is_refused() {
    let out = play(&["--level", "godlike"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown level 'godlike'"));
    let out = play(&["--side", "east", "--opponent", "random"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown side 'east'"));
}

#[cfg(feature = "train")]
#[test]
fn against_a_network_the_hint_shows_its_view_first_then_the_solver() {
    let out = text(&play(
        &["--opponent", "policy:checkpoints/kalah64:8", "--seed", "1"],
        "h\nq\n",
    ));
    let net = out
        .find("network (policy:checkpoints/kalah64:8): value")
        .unwrap_or_else(|| panic!("no network view in: {out}"));
    let solver = out
        .find("hint (final margin for the mover under perfect play):")
        .unwrap_or_else(|| panic!("no solver hint in: {out}"));
    assert!(net < solver, "{out}");
    assert!(out.contains("predicted margin"), "{out}");
}
