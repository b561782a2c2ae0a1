//! The game line by line, for pipes and scripts: one command per input line (a pit number, `swap`,
//! `u`/`undo`, `r`/`redo`, `h`/`hint`, `q`/`quit`), the board and every reply printed. Bad input is
//! answered and the game goes on; the end of input ends the session quietly.

use std::io::{BufRead, Write};

use super::{Command, Session};

fn board(s: &Session, out: &mut impl Write) -> std::io::Result<()> {
    let bottom = s.bottom();
    let lines = s.view().lines(&s.label(bottom.other()), &s.label(bottom));
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

fn prompt(s: &Session, out: &mut impl Write) -> std::io::Result<()> {
    let m = s.position().rules().pits();
    let swap = if s.position().swap_allowed() {
        ", swap"
    } else {
        ""
    };
    writeln!(
        out,
        "{} to move. Your move [1-{m}{swap}, h hint, u undo, r redo, q quit]:",
        s.label(s.position().to_move())
    )?;
    out.flush()
}

/// Plays games until the person quits or the input ends; after each game, offers another with
/// sides swapped (`y` plays it).
pub fn run(s: &mut Session, input: impl BufRead, out: &mut impl Write) -> std::io::Result<()> {
    let mut lines = input.lines();
    writeln!(out, "{}", s.position().rules().describe())?;
    loop {
        match &s.opponent {
            Some(o) if !s.seats.practice => {
                writeln!(out, "You play {} against {o}.", s.human_seat().name())?
            }
            _ => writeln!(out, "Practice: you play both sides.")?,
        }
        board(s, out)?;
        loop {
            while let Some(said) = s.bot_move() {
                writeln!(out, "{said}")?;
                board(s, out)?;
            }
            if let Some(result) = s.result() {
                writeln!(out, "{result}")?;
                break;
            }
            prompt(s, out)?;
            let Some(line) = lines.next() else {
                writeln!(out, "End of input: goodbye.")?;
                return Ok(());
            };
            let line = line?;
            let reply = match Command::parse(&line) {
                Err(e) => Err(e),
                Ok(Command::Quit) => {
                    writeln!(out, "Goodbye.")?;
                    return Ok(());
                }
                Ok(Command::Hint) => {
                    if let Some(h) = s.network_hint() {
                        writeln!(out, "{h}")?;
                    }
                    writeln!(out, "thinking...")?;
                    out.flush()?;
                    match s.hint() {
                        Ok(h) => {
                            writeln!(out, "{h}")?;
                            continue;
                        }
                        Err(e) => Err(e),
                    }
                }
                Ok(Command::Undo) => s.undo(),
                Ok(Command::Redo) => s.redo(),
                Ok(Command::Play(mv)) => s.play(mv),
            };
            match reply {
                Ok(said) => {
                    writeln!(out, "{said}")?;
                    board(s, out)?;
                }
                Err(e) => writeln!(out, "{e}")?,
            }
        }
        writeln!(out, "Another game with sides swapped? [y/n]")?;
        out.flush()?;
        let again = loop {
            match lines.next() {
                None => break false,
                Some(l) => match l?.trim().to_ascii_lowercase().as_str() {
                    "y" | "yes" => break true,
                    "n" | "no" | "q" | "quit" => break false,
                    _ => writeln!(out, "Please answer y or n.")?,
                },
            }
        };
        if !again {
            writeln!(out, "Goodbye.")?;
            return Ok(());
        }
        s.next_game();
    }
}
