//! The board as the guides draw it for a player: their row at the bottom from pit 1 on the left,
//! their kalaha on the right, the opponent's row on top running the other way, the opponent's
//! kalaha on the left; the cells the last sowing changed are marked.

use crate::rules::{Played, Position, Side};

/// One cell: a pit or a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Pit number 1..m (0 for a store).
    pub pit: usize,
    /// Seeds in it.
    pub seeds: u8,
    /// Whether the last move changed it.
    pub changed: bool,
}

/// What to draw, from one side's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardView {
    /// The side at the bottom.
    pub bottom: Side,
    /// Top row, left to right (the opponent's pits m..1).
    pub top: Vec<Cell>,
    /// Bottom row, left to right (own pits 1..m).
    pub bottom_row: Vec<Cell>,
    /// The opponent's store, on the left.
    pub top_store: Cell,
    /// Own store, on the right.
    pub bottom_store: Cell,
}

impl BoardView {
    /// The view of `pos` with `bottom` at the bottom, marking what `last` (the move that led to
    /// `pos`, if any) changed.
    pub fn new(pos: &Position, bottom: Side, last: Option<&Played>) -> BoardView {
        let m = pos.rules().pits();
        let changed_pit =
            |side: Side, p: usize| last.is_some_and(|l| l.before.pit(side, p) != pos.pit(side, p));
        let changed_store =
            |side: Side| last.is_some_and(|l| l.before.store(side) != pos.store(side));
        let top_side = bottom.other();
        BoardView {
            bottom,
            top: (1..=m)
                .rev()
                .map(|p| Cell {
                    pit: p,
                    seeds: pos.pit(top_side, p),
                    changed: changed_pit(top_side, p),
                })
                .collect(),
            bottom_row: (1..=m)
                .map(|p| Cell {
                    pit: p,
                    seeds: pos.pit(bottom, p),
                    changed: changed_pit(bottom, p),
                })
                .collect(),
            top_store: Cell {
                pit: 0,
                seeds: pos.store(top_side),
                changed: changed_store(top_side),
            },
            bottom_store: Cell {
                pit: 0,
                seeds: pos.store(bottom),
                changed: changed_store(bottom),
            },
        }
    }

    /// The board as text lines, with the two players' labels; a changed cell has a `*`.
    pub fn lines(&self, top_label: &str, bottom_label: &str) -> Vec<String> {
        let cell = |c: &Cell| format!("{:>3}{}", c.seeds, if c.changed { '*' } else { ' ' });
        let numbers =
            |row: &[Cell]| -> String { row.iter().map(|c| format!("{:>4}  ", c.pit)).collect() };
        let seeds = |row: &[Cell]| -> String {
            row.iter()
                .map(|c| format!("[{}]", cell(c)))
                .collect::<String>()
        };
        let width = 6 * self.top.len();
        vec![
            format!("        {top_label}"),
            format!("      {}", numbers(&self.top)),
            format!("      {}", seeds(&self.top)),
            format!(
                "  ({}){}({})",
                cell(&self.top_store),
                " ".repeat(width.saturating_sub(2)),
                cell(&self.bottom_store)
            ),
            format!("      {}", seeds(&self.bottom_row)),
            format!("      {}", numbers(&self.bottom_row)),
            format!("        {bottom_label}"),
        ]
    }
}
