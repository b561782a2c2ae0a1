//! The terminal game (ratatui + crossterm): the board from your side, the cells the last sowing
//! changed in yellow, a log of the moves with extra turns and captures, and single keys for every
//! command. Keys: `1`-`9` or ←/→ then Enter to sow a pit, `s` swap, `h` hint, `u` undo, `r` redo,
//! `q`/Esc quit; at the end `y` plays another game with sides swapped.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::{DefaultTerminal, Frame};

use super::board::Cell;
use super::{Command, Session};
use crate::rules::Move;

struct Ui {
    log: Vec<String>,
    hint: Option<String>,
    cursor: usize,
    status: String,
}

fn cell_span(c: &Cell, selected: bool) -> Span<'static> {
    let mut style = Style::default();
    if c.changed {
        style = style.fg(Color::Yellow).add_modifier(Modifier::BOLD);
    }
    if selected {
        style = style.bg(Color::Blue);
    }
    Span::styled(format!("[{:>3}]", c.seeds), style)
}

fn board_lines(s: &Session, ui: &Ui) -> Vec<Line<'static>> {
    let v = s.view();
    let bottom = s.bottom();
    let my_turn = s.human_to_move() && s.position().to_move() == bottom;
    let numbers = |cells: &[Cell]| -> Line<'static> {
        let mut spans = vec![Span::raw("       ")];
        spans.extend(cells.iter().map(|c| {
            Span::styled(
                format!("{:>4} ", c.pit),
                Style::default().fg(Color::DarkGray),
            )
        }));
        Line::from(spans)
    };
    let row = |cells: &[Cell], selectable: bool| -> Line<'static> {
        let mut spans = vec![Span::raw("       ")];
        spans.extend(
            cells
                .iter()
                .map(|c| cell_span(c, selectable && c.pit == ui.cursor + 1)),
        );
        Line::from(spans)
    };
    let width = 5 * v.top.len();
    let store = |c: &Cell| cell_span(c, false);
    vec![
        Line::from(format!("       {}", s.label(bottom.other()))),
        numbers(&v.top),
        row(&v.top, false),
        Line::from(vec![
            Span::raw("  "),
            store(&v.top_store),
            Span::raw(" ".repeat(width)),
            store(&v.bottom_store),
        ]),
        row(&v.bottom_row, my_turn),
        numbers(&v.bottom_row),
        Line::from(format!("       {}", s.label(bottom))),
    ]
}

fn draw(term: &mut DefaultTerminal, s: &Session, ui: &Ui) -> std::io::Result<()> {
    term.draw(|f| render(f, s, ui))?;
    Ok(())
}

/// Draws the whole screen: the rules and players, the board, the log with any hint, the keys.
fn render(f: &mut Frame, s: &Session, ui: &Ui) {
    let [top, board, log, help] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(9),
        Constraint::Min(4),
        Constraint::Length(2),
    ])
    .areas(f.area());
    let who = if s.seats.practice {
        "practice: you play both sides".to_string()
    } else {
        format!(
            "you play {} against {}",
            s.human_seat().name(),
            s.opponent
                .as_ref()
                .map(|o| o.to_string())
                .unwrap_or_default()
        )
    };
    f.render_widget(
        Paragraph::new(format!("{}, {who}", s.position().rules().describe())),
        top,
    );
    f.render_widget(
        Paragraph::new(board_lines(s, ui))
            .block(Block::default().borders(Borders::ALL).title(" kalaha ")),
        board,
    );
    let mut lines: Vec<Line> = ui
        .log
        .iter()
        .rev()
        .take(log.height.saturating_sub(3) as usize)
        .rev()
        .map(|l| Line::from(l.clone()))
        .collect();
    for h in ui.hint.iter().flat_map(|h| h.lines()) {
        lines.push(Line::styled(
            h.to_string(),
            Style::default().fg(Color::Cyan),
        ));
    }
    lines.push(Line::styled(
        ui.status.clone(),
        Style::default().add_modifier(Modifier::BOLD),
    ));
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::default().borders(Borders::TOP)),
        log,
    );
    f.render_widget(
        Paragraph::new("1-9 or ←/→ + Enter: sow   s: swap   h: hint   u: undo   r: redo   q: quit")
            .style(Style::default().fg(Color::DarkGray)),
        help,
    );
}

fn status(s: &Session) -> String {
    match s.result() {
        Some(r) => format!("{r} Another game with sides swapped? y/n"),
        None if s.human_to_move() => format!("{} to move.", s.label(s.position().to_move())),
        None => format!("{} is thinking...", s.label(s.position().to_move())),
    }
}

/// Runs the terminal game until the person quits.
pub fn run(s: &mut Session) -> anyhow::Result<()> {
    let mut term = ratatui::try_init()?;
    let result = event_loop(&mut term, s);
    ratatui::try_restore()?;
    result
}

fn event_loop(term: &mut DefaultTerminal, s: &mut Session) -> anyhow::Result<()> {
    let mut ui = Ui {
        log: vec![],
        hint: None,
        cursor: 0,
        status: String::new(),
    };
    let m = s.position().rules().pits();
    loop {
        // Let the bot move, showing each position it leaves.
        loop {
            ui.status = status(s);
            draw(term, s, &ui)?;
            match s.bot_move() {
                Some(said) => ui.log.push(said),
                None => break,
            }
        }
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        if s.result().is_some() {
            match key.code {
                KeyCode::Char('y') | KeyCode::Enter => {
                    s.next_game();
                    ui.log.push("--- new game, sides swapped ---".into());
                    ui.hint = None;
                }
                KeyCode::Char('n') | KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                KeyCode::Char('u') => {
                    let _ = s.undo();
                }
                _ => {}
            }
            continue;
        }
        let cmd = match key.code {
            KeyCode::Char('q') | KeyCode::Esc => Command::Quit,
            KeyCode::Char('h') | KeyCode::Char('?') => Command::Hint,
            KeyCode::Char('u') => Command::Undo,
            KeyCode::Char('r') => Command::Redo,
            KeyCode::Char('s') => Command::Play(Move::Swap),
            KeyCode::Char(c @ '1'..='9') => Command::Play(Move::Pit(c as u8 - b'0')),
            KeyCode::Left => {
                ui.cursor = ui.cursor.saturating_sub(1);
                continue;
            }
            KeyCode::Right => {
                ui.cursor = (ui.cursor + 1).min(m - 1);
                continue;
            }
            KeyCode::Enter | KeyCode::Char(' ') => Command::Play(Move::Pit(ui.cursor as u8 + 1)),
            _ => continue,
        };
        let reply = match cmd {
            Command::Quit => return Ok(()),
            Command::Hint => {
                // The network's view at once, the solver's proof when it comes.
                let net = s.network_hint();
                ui.hint = net.clone();
                ui.status = "the solver is thinking...".into();
                draw(term, s, &ui)?;
                match s.hint() {
                    Ok(h) => {
                        ui.hint = Some(match net {
                            Some(n) => format!("{n}\n{h}"),
                            None => h,
                        });
                        continue;
                    }
                    Err(e) => Err(e),
                }
            }
            Command::Undo => s.undo(),
            Command::Redo => s.redo(),
            Command::Play(mv) => s.play(mv),
        };
        ui.hint = None;
        match reply {
            Ok(said) => ui.log.push(said),
            Err(e) => ui.log.push(format!("! {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::rules::{Rules, Side};

    /// The screen as text, one line per row.
    fn screen(s: &Session, ui: &Ui) -> String {
        let mut term = Terminal::new(TestBackend::new(90, 24)).unwrap();
        term.draw(|f| render(f, s, ui)).unwrap();
        let buf = term.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_screen_shows_the_board_the_log_the_hint_and_the_keys() {
        let mut s = Session::new(&Rules::kalah64(), Side::South, None, 1);
        s.play(Move::Pit(3)).unwrap();
        let ui = Ui {
            log: vec!["South played 3: last seed in the kalaha, extra turn".into()],
            hint: Some("network view\nhint: pit 6: +2".into()),
            cursor: 0,
            status: status(&s),
        };
        let text = screen(&s, &ui);
        assert!(text.contains(" kalaha "), "{text}");
        assert!(text.contains("practice: you play both sides"), "{text}");
        // After 3: South's row reads 4 4 0 5 5 5 and its store holds 1.
        assert!(text.contains("[  4][  4][  0][  5][  5][  5]"), "{text}");
        assert!(text.contains("[  1]"), "{text}");
        assert!(text.contains("extra turn"), "{text}");
        let (net, hint) = (text.find("network view"), text.find("hint: pit 6"));
        assert!(
            net.is_some() && hint > net,
            "the hint's lines in order: {text}"
        );
        assert!(text.contains("South to move."), "{text}");
        assert!(text.contains("h: hint"), "{text}");
        // The last sowing is drawn in yellow.
        let mut term = Terminal::new(TestBackend::new(90, 24)).unwrap();
        term.draw(|f| render(f, &s, &ui)).unwrap();
        let buf = term.backend().buffer();
        let yellow = (0..buf.area.height)
            .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
            .filter(|&p| buf[p].fg == Color::Yellow)
            .count();
        assert!(yellow > 0, "no cell marked as changed");
    }
}
