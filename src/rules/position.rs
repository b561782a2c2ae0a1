//! A Kalah position (board, side to move, pie state), legal moves and playing a move.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::options::{Capture, End, Leftover, Rules};
use super::sow::{SowTable, base, store};

/// One of the two seats. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Moves first; written `s`.
    South = 0,
    /// Moves second; written `n`.
    North = 1,
}

impl Side {
    /// The other seat.
    #[inline(always)]
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `0` for South, `1` for North.
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The notation letter, `s` or `n`.
    pub fn letter(self) -> char {
        match self {
            Side::South => 's',
            Side::North => 'n',
        }
    }

    /// `"south"` or `"north"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }
}

/// A move: a pit of the player to move (numbered 1..m from the owner's left) or the pie answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// Sow the pit with this number, 1..=m.
    Pit(u8),
    /// Exchange seats (pie rule), only at North's first move.
    Swap,
}

impl Move {
    /// The action index used by the environment and networks: pit `p` is `p - 1`, swap is `m`.
    pub fn action(self, pits: usize) -> usize {
        match self {
            Move::Pit(p) => p as usize - 1,
            Move::Swap => pits,
        }
    }

    /// The move for an action index (see [`Move::action`]).
    pub fn from_action(action: usize, pits: usize) -> Move {
        if action == pits {
            Move::Swap
        } else {
            Move::Pit(action as u8 + 1)
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Pit(p) => write!(f, "{p}"),
            Move::Swap => f.write_str("swap"),
        }
    }
}

/// What a move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveOutcome {
    /// The last seed landed in the mover's store: the same player moves again.
    pub extra_turn: bool,
    /// Seeds the move captured into the mover's store (the capturing seed included), 0 if none.
    pub captured: u8,
    /// The game is over after this move.
    pub game_over: bool,
    /// The move was the pie answer: the players exchanged seats.
    pub swapped: bool,
}

impl MoveOutcome {
    /// The same player moves next (an extra turn); otherwise the turn passes to the other player.
    #[inline(always)]
    pub fn same_player(&self) -> bool {
        self.extra_turn
    }
}

/// Why a move was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The pit number is not one of the mover's pits.
    #[error("pit {pit} is out of range (pits are numbered 1 to {pits})")]
    OutOfRange { pit: u32, pits: usize },
    /// The pit holds no seed.
    #[error("pit {0} is empty")]
    EmptyPit(u8),
    /// The game has already ended.
    #[error("the game is over")]
    GameOver,
    /// `swap` outside North's first move, or without the pie rule.
    #[error("swap is not allowed here (only as North's first move with the pie rule)")]
    SwapNotAllowed,
}

/// Why raw parts or bytes are not a position of the rules (see [`Position::from_parts`] and
/// [`Position::from_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The two sides have different pit counts.
    #[error("south has {south} pits but north has {north}")]
    Unbalanced { south: usize, north: usize },
    /// Pit count different from the rules.
    #[error("position has {got} pits per side but the rules say {want}")]
    PitCount { got: usize, want: usize },
    /// More seeds than a board cell can hold.
    #[error("position holds {0} seeds; the board holds at most 255")]
    TooManySeeds(u64),
    /// North's pie answer where it cannot be.
    #[error("'swap' needs the pie rule and north to move")]
    Swap,
    /// A seed total other than the rules' (only [`Position::from_bytes`] requires it).
    #[error("position holds {got} seeds but the rules play with {want}")]
    SeedTotal { got: u32, want: u32 },
    /// Seeds in a cell past the rules' last pit.
    #[error("{} pit {pit} holds seeds but the rules have {pits} pits", side.name())]
    BeyondPits { side: Side, pit: usize, pits: usize },
    /// A side-to-move byte other than 0 (south) or 1 (north).
    #[error("side-to-move byte is {0}, not 0 (south) or 1 (north)")]
    SideByte(u8),
    /// A phase byte other than 0 (opening), 1 (pie answer) or 2 (later).
    #[error("phase byte is {0}, not 0 (opening), 1 (pie answer) or 2 (later)")]
    PhaseByte(u8),
}

/// The result of a finished game, by seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    /// South has more seeds.
    South,
    /// North has more seeds.
    North,
    /// Equal scores.
    Draw,
}

impl GameResult {
    /// `"south"`, `"north"` or `"draw"`.
    pub fn name(self) -> &'static str {
        match self {
            GameResult::South => "south",
            GameResult::North => "north",
            GameResult::Draw => "draw",
        }
    }

    /// The winning seat, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            GameResult::South => Some(Side::South),
            GameResult::North => Some(Side::North),
            GameResult::Draw => None,
        }
    }
}

/// Legal moves as a bit set over pit indexes 0..m (bit `i` is pit `i + 1`), plus the swap flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MoveSet {
    /// Bit `i` set: pit `i + 1` may be sown.
    pub pits: u16,
    /// `swap` may be answered.
    pub swap: bool,
}

impl MoveSet {
    /// Number of legal moves.
    pub fn len(&self) -> usize {
        self.pits.count_ones() as usize + self.swap as usize
    }

    /// No legal move (the game is over).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a move is in the set.
    pub fn contains(&self, mv: Move) -> bool {
        match mv {
            Move::Pit(p) => (1..=16).contains(&p) && self.pits & (1 << (p - 1)) != 0,
            Move::Swap => self.swap,
        }
    }

    /// The moves in order: pits ascending, then swap.
    pub fn iter(&self) -> impl Iterator<Item = Move> + use<> {
        let mut bits = self.pits;
        let mut swap = self.swap;
        std::iter::from_fn(move || {
            if bits != 0 {
                let i = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                Some(Move::Pit(i + 1))
            } else if swap {
                swap = false;
                Some(Move::Swap)
            } else {
                None
            }
        })
    }
}

/// Where the game stands with respect to the pie rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub(crate) enum Phase {
    /// South's opening turn (with its extra turns) is still going.
    Opening = 0,
    /// North's first move: the pie answer is possible if the rules allow it.
    PieAnswer = 1,
    /// Every later move.
    Later = 2,
}

/// Cells of the board in the 32-byte layout of [`super::sow`].
pub(crate) type Cells = [u8; 32];

/// The 8 bytes of `cells` starting at `at`, as a little-endian word.
#[inline(always)]
fn word(cells: &Cells, at: usize) -> u64 {
    u64::from_le_bytes(cells[at..at + 8].try_into().expect("8 bytes"))
}

/// Adds `delta` to every cell, each byte wrapping on its own (`0xFF` subtracts one).
#[inline(always)]
fn add(cells: &mut Cells, delta: &Cells) {
    for i in 0..32 {
        cells[i] = cells[i].wrapping_add(delta[i]);
    }
}

/// Adds `k` times `delta` to every cell, each byte wrapping on its own.
#[inline(always)]
fn add_scaled(cells: &mut Cells, delta: &Cells, k: u8) {
    for i in 0..32 {
        cells[i] = cells[i].wrapping_add(delta[i].wrapping_mul(k));
    }
}

/// Bytes 0..15 of a side's half (its pits; the store byte masked off).
const ROW_LOW: u64 = u64::MAX;
const ROW_HIGH: u64 = u64::MAX >> 8;

/// Bit `i` set for each nonzero byte `i` of `x`.
#[inline(always)]
fn nonzero_bytes(x: u64) -> u16 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let high = ((x & LOW7).wrapping_add(LOW7) | x) & !LOW7;
    // Gather the eight high bits into one byte: byte i lands on bit 56 + i.
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u16
}

/// A validated position: board, side to move and pie state, with the rules it is played under.
#[derive(Clone, Copy)]
pub struct Position {
    pub(crate) cells: Cells,
    pub(crate) to_move: Side,
    pub(crate) phase: Phase,
    pub(crate) rules: Rules,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.cells == other.cells
            && self.to_move == other.to_move
            && self.swap_allowed() == other.swap_allowed()
            && self.in_opening_turn() == other.in_opening_turn()
            && self.rules == other.rules
    }
}
impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl Position {
    /// The start position: `n` seeds in every pit, empty stores, South to move.
    pub fn start(rules: &Rules) -> Position {
        let mut cells = [0u8; 32];
        for i in 0..rules.pits() {
            cells[base(0) + i] = rules.seeds();
            cells[base(1) + i] = rules.seeds();
        }
        Position {
            cells,
            to_move: Side::South,
            phase: Phase::Opening,
            rules: *rules,
        }
    }

    /// Builds a position from raw parts: each side's pits 1..m and store, the side to move, and
    /// whether North may still answer with the pie rule's swap.
    ///
    /// Any seed total up to 255 is accepted, not only the rules' own: analysis and endgame
    /// positions (`kalaha show --position`, the endgame database) hold fewer or more seeds than
    /// the start. [`Position::from_bytes`], which reads back positions of a game in flight, is
    /// the one that requires the rules' total.
    ///
    /// ```
    /// use kalaha::rules::{Position, PositionError, Rules, Side};
    /// let rules = Rules::new(3, 2).unwrap();
    /// let pos = Position::from_parts(&rules, (&[1, 0, 2], 5), (&[0, 3, 0], 1), Side::South, false);
    /// assert_eq!(pos.unwrap().total_seeds(), 12);
    /// let short = Position::from_parts(&rules, (&[1, 0], 0), (&[0, 3], 0), Side::South, false);
    /// assert_eq!(short, Err(PositionError::PitCount { got: 2, want: 3 }));
    /// ```
    pub fn from_parts(
        rules: &Rules,
        south: (&[u8], u8),
        north: (&[u8], u8),
        to_move: Side,
        swap_allowed: bool,
    ) -> Result<Position, PositionError> {
        let m = rules.pits();
        if south.0.len() != north.0.len() {
            return Err(PositionError::Unbalanced {
                south: south.0.len(),
                north: north.0.len(),
            });
        }
        if south.0.len() != m {
            return Err(PositionError::PitCount {
                got: south.0.len(),
                want: m,
            });
        }
        let total: u64 = south
            .0
            .iter()
            .chain(north.0)
            .chain([&south.1, &north.1])
            .map(|&x| x as u64)
            .sum();
        if total > 255 {
            return Err(PositionError::TooManySeeds(total));
        }
        if swap_allowed && (!rules.pie || to_move != Side::North) {
            return Err(PositionError::Swap);
        }
        let mut cells = [0u8; 32];
        cells[..m].copy_from_slice(south.0);
        cells[16..16 + m].copy_from_slice(north.0);
        cells[store(0)] = south.1;
        cells[store(1)] = north.1;
        let mut pos = Position {
            cells,
            to_move,
            phase: Phase::Later,
            rules: *rules,
        };
        if swap_allowed {
            pos.phase = Phase::PieAnswer;
        } else if pos.on_start_board() {
            pos.phase = Phase::Opening;
        }
        Ok(pos)
    }

    /// The position as 34 bytes (the 32 cells, the side to move, the phase of the opening), for
    /// files that save games in flight; [`Position::from_bytes`] reads them back.
    pub fn to_bytes(&self) -> [u8; 34] {
        let mut b = [0u8; 34];
        b[..32].copy_from_slice(&self.cells);
        b[32] = self.to_move.index() as u8;
        b[33] = self.phase as u8;
        b
    }

    /// Reads [`Position::to_bytes`] under `rules`, refusing bytes that are not a position of
    /// those rules: an unknown side or phase, seeds in a pit past `m`, another seed total.
    pub fn from_bytes(rules: &Rules, b: &[u8; 34]) -> Result<Position, PositionError> {
        let to_move = match b[32] {
            0 => Side::South,
            1 => Side::North,
            other => return Err(PositionError::SideByte(other)),
        };
        let phase = match b[33] {
            0 => Phase::Opening,
            1 => Phase::PieAnswer,
            2 => Phase::Later,
            other => return Err(PositionError::PhaseByte(other)),
        };
        let mut cells = [0u8; 32];
        cells.copy_from_slice(&b[..32]);
        let m = rules.pits();
        // Cells past pit m are empty, but for each side's store at the end of its 16 cells.
        for side in [Side::South, Side::North] {
            if let Some(j) = (m..15).find(|&j| cells[16 * side.index() + j] != 0) {
                return Err(PositionError::BeyondPits {
                    side,
                    pit: j + 1,
                    pits: m,
                });
            }
        }
        let total: u32 = cells.iter().map(|&x| x as u32).sum();
        if total != rules.total_seeds() {
            return Err(PositionError::SeedTotal {
                got: total,
                want: rules.total_seeds(),
            });
        }
        Ok(Position {
            cells,
            to_move,
            phase,
            rules: *rules,
        })
    }

    /// The rules this position is played under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The side to move (the seat; after a pie swap the players changed seats, not the board).
    #[inline(always)]
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Seeds in pit `pit` (1..=m) of `side`.
    #[inline(always)]
    pub fn pit(&self, side: Side, pit: usize) -> u8 {
        debug_assert!((1..=self.rules.pits()).contains(&pit));
        self.cells[base(side.index()) + pit - 1]
    }

    /// A side's pits, 1..=m in order.
    pub fn row(&self, side: Side) -> &[u8] {
        &self.cells[base(side.index())..base(side.index()) + self.rules.pits()]
    }

    /// Seeds in a side's store (before any leftover rule).
    #[inline(always)]
    pub fn store(&self, side: Side) -> u8 {
        self.cells[store(side.index())]
    }

    /// The same position with the stored seeds split afresh: `mine` (at most both stores'
    /// total) in the store of the player to move, the rest in the other. Every move plays the
    /// same from both; only the margin so far differs.
    pub fn with_stores_split(&self, mine: u8) -> Position {
        let me = self.to_move.index();
        let both = self.cells[store(0)] + self.cells[store(1)];
        let mine = mine.min(both);
        let mut pos = *self;
        pos.cells[store(me)] = mine;
        pos.cells[store(1 - me)] = both - mine;
        pos
    }

    /// Seeds left in a side's row.
    pub fn row_sum(&self, side: Side) -> u32 {
        self.row(side).iter().map(|&x| x as u32).sum()
    }

    /// Seeds on the board (both rows, not the stores).
    #[inline]
    pub fn board_seeds(&self) -> u32 {
        self.row_sum(Side::South) + self.row_sum(Side::North)
    }

    /// Seeds on the board and in the stores.
    pub fn total_seeds(&self) -> u32 {
        self.cells.iter().map(|&x| x as u32).sum()
    }

    /// The raw 32-byte cell array (layout documented in the `sow` module), for hashing and encoding.
    pub fn cells(&self) -> &[u8; 32] {
        &self.cells
    }

    /// Whether the board is the rules' start board with South to move (whatever the phase), which
    /// the notation reads as the start of a game.
    pub(crate) fn on_start_board(&self) -> bool {
        self.to_move == Side::South && self.cells == Position::start(&self.rules).cells
    }

    /// Whether South's opening turn (with its extra turns) is still going under the pie rule, so
    /// that North's pie answer is still to come.
    pub fn in_opening_turn(&self) -> bool {
        self.rules.pie && self.phase == Phase::Opening && !self.is_over()
    }

    /// Whether the pie answer `swap` is legal now.
    #[inline(always)]
    pub fn swap_allowed(&self) -> bool {
        self.rules.pie && self.phase == Phase::PieAnswer && !self.is_over()
    }

    #[inline(always)]
    fn row_empty(&self, side: usize) -> bool {
        let b = base(side);
        (word(&self.cells, b) & ROW_LOW) | (word(&self.cells, b + 8) & ROW_HIGH) == 0
    }

    /// Whether the game has ended under the rules' end option.
    #[inline(always)]
    pub fn is_over(&self) -> bool {
        match self.rules.end {
            End::Immediate => self.row_empty(0) || self.row_empty(1),
            End::OnTurn => self.row_empty(self.to_move.index()),
        }
    }

    /// Bit set of the pits of the player to move that hold seeds (bit `i` is pit `i + 1`),
    /// ignoring whether the game is over.
    #[inline(always)]
    pub fn nonempty_pits(&self) -> u16 {
        let b = base(self.to_move.index());
        nonzero_bytes(word(&self.cells, b) & ROW_LOW)
            | nonzero_bytes(word(&self.cells, b + 8) & ROW_HIGH) << 8
    }

    /// The legal moves (empty once the game is over).
    pub fn legal_moves(&self) -> MoveSet {
        if self.is_over() {
            return MoveSet::default();
        }
        MoveSet {
            pits: self.nonempty_pits(),
            swap: self.swap_allowed(),
        }
    }

    /// Checks a move and plays it.
    pub fn play(&mut self, mv: Move) -> Result<MoveOutcome, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        match mv {
            Move::Swap => {
                if !self.swap_allowed() {
                    return Err(IllegalMove::SwapNotAllowed);
                }
                self.phase = Phase::Later;
                Ok(MoveOutcome {
                    swapped: true,
                    ..MoveOutcome::default()
                })
            }
            Move::Pit(p) => {
                let m = self.rules.pits();
                if p == 0 || p as usize > m {
                    return Err(IllegalMove::OutOfRange {
                        pit: p as u32,
                        pits: m,
                    });
                }
                if self.pit(self.to_move, p as usize) == 0 {
                    return Err(IllegalMove::EmptyPit(p));
                }
                Ok(self.play_index_unchecked(p as usize - 1))
            }
        }
    }

    /// Returns the position after a legal move, leaving `self` unchanged.
    pub fn after(&self, mv: Move) -> Result<(Position, MoveOutcome), IllegalMove> {
        let mut next = *self;
        let outcome = next.play(mv)?;
        Ok((next, outcome))
    }

    /// Sows pit index `pit` (0-based) of the player to move: the fast path.
    ///
    /// Precondition: the game is not over and the pit holds at least one seed. Breaking it gives a
    /// wrong position, never undefined behaviour.
    #[inline(always)]
    pub fn play_index_unchecked(&mut self, pit: usize) -> MoveOutcome {
        let t = self.rules.table;
        let side = self.to_move.index();
        let start = base(side) + pit;
        let seeds = self.cells[start & 31];
        let lap_len = t.lap_len;
        let r = if seeds < lap_len {
            seeds
        } else {
            add_scaled(
                &mut self.cells,
                &t.lap[(side << 4 | pit) & 31],
                seeds / lap_len,
            );
            seeds % lap_len
        };
        let idx = SowTable::index(side, pit, r as usize);
        add(&mut self.cells, &t.sow[idx]);
        let last = t.last[idx] as usize & 31;
        let own_store = store(side);
        let extra_turn = last == own_store;
        // Capture, without branches: the last seed lies alone in a pit of the mover's row. For
        // any other cell `c` is 0 and the update below adds nothing.
        let taken = self.cells[t.opposite[last] as usize & 31];
        let lone = !extra_turn & (last >> 4 == side) & (self.cells[last] == 1);
        let allowed = match self.rules.capture {
            Capture::Standard => taken != 0,
            Capture::Empty => true,
            Capture::Off => false,
        };
        let c = ((lone & allowed) as u8).wrapping_neg();
        let captured = taken.wrapping_add(1) & c;
        let (tk, base_c, gain, loss) = (
            taken & c,
            &t.cap_base[last],
            &t.cap_gain[last],
            &t.cap_loss[last],
        );
        for i in 0..32 {
            let delta = (base_c[i] & c)
                .wrapping_add(gain[i] & tk)
                .wrapping_sub(loss[i] & tk);
            self.cells[i] = self.cells[i].wrapping_add(delta);
        }
        self.to_move = if extra_turn {
            self.to_move
        } else {
            self.to_move.other()
        };
        // Opening -> PieAnswer when the turn first passes to North; any sowing ends PieAnswer.
        const NEXT: [[Phase; 2]; 3] = [
            [Phase::PieAnswer, Phase::Opening],
            [Phase::Later, Phase::Later],
            [Phase::Later, Phase::Later],
        ];
        self.phase = NEXT[self.phase as usize][extra_turn as usize];
        MoveOutcome {
            extra_turn,
            captured,
            game_over: self.is_over(),
            swapped: false,
        }
    }

    /// Final scores `[south, north]` once the leftover rule is applied (stores as they stand
    /// while the game is still going).
    pub fn score(&self) -> [u32; 2] {
        let stores = [
            self.store(Side::South) as u32,
            self.store(Side::North) as u32,
        ];
        if !self.is_over() {
            return stores;
        }
        let rows = [self.row_sum(Side::South), self.row_sum(Side::North)];
        match self.rules.leftover {
            Leftover::Owner => [stores[0] + rows[0], stores[1] + rows[1]],
            Leftover::Discard => stores,
            Leftover::Emptier => {
                let left = rows[0] + rows[1];
                let emptier = match self.rules.end {
                    End::OnTurn => self.to_move.index(),
                    End::Immediate => usize::from(rows[0] != 0),
                };
                let mut s = stores;
                s[emptier] += left;
                s
            }
        }
    }

    /// South's score minus North's (see [`Position::score`]).
    pub fn margin(&self) -> i32 {
        let [s, n] = self.score();
        s as i32 - n as i32
    }

    /// The result once the game is over, else `None`.
    pub fn result(&self) -> Option<GameResult> {
        if !self.is_over() {
            return None;
        }
        Some(match self.margin() {
            m if m > 0 => GameResult::South,
            m if m < 0 => GameResult::North,
            _ => GameResult::Draw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_refuse_what_is_not_a_position() {
        let rules = Rules::kalah64().with_pie(true);
        let mut pos = Position::start(&rules);
        for mv in [Move::Pit(3), Move::Pit(1), Move::Swap, Move::Pit(2)] {
            let back = Position::from_bytes(&rules, &pos.to_bytes()).unwrap();
            assert_eq!(back, pos);
            assert_eq!(back.phase, pos.phase);
            pos.play(mv).unwrap();
        }
        let refused = |edit: &dyn Fn(&mut [u8; 34])| {
            let mut b = pos.to_bytes();
            edit(&mut b);
            Position::from_bytes(&rules, &b).unwrap_err()
        };
        assert_eq!(
            refused(&|b| b[10] = 1), // a pit past m = 6
            PositionError::BeyondPits {
                side: Side::South,
                pit: 11,
                pits: 6
            }
        );
        assert_eq!(
            refused(&|b| b[16 + 6] = 1),
            PositionError::BeyondPits {
                side: Side::North,
                pit: 7,
                pits: 6
            }
        );
        assert_eq!(
            refused(&|b| b[0] = b[0].wrapping_add(1)), // one seed too many
            PositionError::SeedTotal { got: 49, want: 48 }
        );
        assert_eq!(refused(&|b| b[32] = 2), PositionError::SideByte(2));
        assert_eq!(refused(&|b| b[33] = 3), PositionError::PhaseByte(3));
        assert_eq!(
            PositionError::SeedTotal { got: 49, want: 48 }.to_string(),
            "position holds 49 seeds but the rules play with 48"
        );
    }

    #[test]
    fn from_parts_names_why_it_refuses() {
        let rules = Rules::new(3, 2).unwrap();
        let row = [1u8, 2, 3];
        let parts = |s: &[u8], n: &[u8], stores: (u8, u8), side, swap| {
            Position::from_parts(&rules, (s, stores.0), (n, stores.1), side, swap)
        };
        // Any total up to 255 is a position: 12 seeds, fewer, more.
        for stores in [(0, 0), (6, 0), (0, 20)] {
            assert!(parts(&row, &row, stores, Side::South, false).is_ok());
        }
        assert_eq!(
            parts(&row, &row[..2], (0, 0), Side::South, false),
            Err(PositionError::Unbalanced { south: 3, north: 2 })
        );
        assert_eq!(
            parts(&row[..2], &row[..2], (0, 0), Side::South, false),
            Err(PositionError::PitCount { got: 2, want: 3 })
        );
        let many = [16u8; 16];
        assert_eq!(
            parts(&many, &many, (0, 0), Side::South, false),
            Err(PositionError::PitCount { got: 16, want: 3 }),
            "a pit count beyond the board"
        );
        assert_eq!(
            parts(&row, &row, (200, 44), Side::South, false),
            Err(PositionError::TooManySeeds(256))
        );
        assert_eq!(
            parts(&row, &row, (0, 0), Side::North, true),
            Err(PositionError::Swap),
            "no pie rule"
        );
        let pie = rules.with_pie(true);
        let swap = |side| Position::from_parts(&pie, (&row, 0), (&row, 0), side, true);
        assert_eq!(swap(Side::South), Err(PositionError::Swap), "south to move");
        assert!(swap(Side::North).unwrap().swap_allowed());
    }
}
