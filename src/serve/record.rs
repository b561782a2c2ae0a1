//! Game records in the project's notation: three lines, `rules:` (the rule options as
//! `key=value`, or a preset name), `start:` (a position in the notation of [`crate::rules`]) and
//! `moves:` (the moves, comma-separated). `start:` may be left out for the rules' start.
//!
//! ```text
//! rules: pits=6 seeds=4 capture=standard leftover=owner end=immediate pie=off
//! start: 4,4,4,4,4,4,0/4,4,4,4,4,4,0 s
//! moves: 3,1,6
//! ```

use crate::rules::{Game, Position, RuleChoices, Rules, parse_moves};

/// The record of `game`.
pub fn write(game: &Game) -> String {
    let s = game.start().rules().spec();
    format!(
        "rules: pits={} seeds={} capture={} leftover={} end={} pie={}\nstart: {}\nmoves: {}\n",
        s.pits,
        s.seeds,
        s.capture,
        s.leftover,
        s.end,
        if s.pie { "on" } else { "off" },
        game.start(),
        game.move_list()
    )
}

/// Reads a record back into a game (its moves played, nothing to redo); the error names the line
/// and what is wrong with it.
pub fn read(text: &str) -> Result<Game, String> {
    let (mut rules_line, mut start, mut moves) = (None, None, None);
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(format!(
                "record line {}: '{line}' is not 'rules: ...', 'start: ...' or 'moves: ...'",
                n + 1
            ));
        };
        let slot = match key.trim() {
            "rules" => &mut rules_line,
            "start" => &mut start,
            "moves" => &mut moves,
            other => {
                return Err(format!(
                    "record line {}: unknown field '{other}' (expected rules, start or moves)",
                    n + 1
                ));
            }
        };
        if slot.replace(value.trim().to_string()).is_some() {
            return Err(format!(
                "record line {}: '{}' is given twice",
                n + 1,
                key.trim()
            ));
        }
    }
    let rules = read_rules(rules_line.as_deref().unwrap_or("international"))?;
    let start = match start {
        Some(s) => Position::parse(&s, &rules).map_err(|e| format!("record start: {e}"))?,
        None => Position::start(&rules),
    };
    let moves =
        parse_moves(moves.as_deref().unwrap_or("")).map_err(|e| format!("record moves: {e}"))?;
    Game::from_moves(start, &moves).map_err(|e| format!("record moves: {e}"))
}

/// The `rules:` line: a preset name, then `key=value` options on top of it.
fn read_rules(text: &str) -> Result<Rules, String> {
    let mut c = RuleChoices::default();
    let num = |k: &str, v: &str| {
        v.parse::<u32>()
            .map_err(|_| format!("record rules: {k}={v} is not a whole number"))
    };
    for word in text.split_whitespace() {
        match word.split_once('=') {
            None if c.preset.is_none() => c.preset = Some(word),
            None => return Err(format!("record rules: '{word}' is not key=value")),
            Some(("pits", v)) => c.pits = Some(num("pits", v)?),
            Some(("seeds", v)) => c.seeds = Some(num("seeds", v)?),
            Some(("capture", v)) => c.capture = Some(v),
            Some(("leftover", v)) => c.leftover = Some(v),
            Some(("end", v)) => c.end = Some(v),
            Some(("pie", v)) => {
                c.pie = Some(match v {
                    "on" | "true" => true,
                    "off" | "false" => false,
                    _ => return Err(format!("record rules: pie={v}: expected on or off")),
                })
            }
            Some((k, _)) => return Err(format!("record rules: unknown option '{k}'")),
        }
    }
    c.build().map_err(|e| format!("record rules: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    #[test]
    fn a_record_reads_back_to_the_same_game() {
        let rules = Rules::kalah64().with_pie(true);
        let g = Game::from_moves(Position::start(&rules), &[Move::Pit(3), Move::Pit(1)]).unwrap();
        let back = read(&write(&g)).unwrap();
        assert_eq!(back.position(), g.position());
        assert_eq!(back.move_list(), "3,1");
        assert_eq!(
            read("rules: swedish\nmoves: 1")
                .unwrap()
                .position()
                .rules()
                .seeds(),
            6
        );
    }

    #[test]
    fn bad_records_name_the_line() {
        assert!(read("rules: pits=x").unwrap_err().contains("pits=x"));
        assert!(read("moves: 1,9").unwrap_err().contains("move 2"));
        assert!(read("hello").unwrap_err().contains("line 1"));
        assert!(read("start: 1,2/3 s").unwrap_err().contains("record start"));
    }
}
