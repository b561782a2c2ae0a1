//! An independent, deliberately plain Kalah implementation: seed-by-seed sowing over a board in
//! sowing order. The rules core is checked against it; it shares no code with `src/rules`.

#![allow(dead_code)]

use kalaha::rules::{Capture, End, Leftover, Rules};

/// A position of the reference implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefPos {
    pub m: usize,
    /// `2m + 2` cells in sowing order: South pits, South store, North pits, North store.
    pub board: Vec<u32>,
    /// 0 South, 1 North.
    pub to_move: usize,
    pub north_sowings: u32,
    pub swapped_once: bool,
    pub capture: Capture,
    pub leftover: Leftover,
    pub end: End,
    pub pie: bool,
}

/// What a reference move did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefOutcome {
    pub extra_turn: bool,
    pub captured: u32,
}

impl RefPos {
    pub fn start(rules: &Rules) -> RefPos {
        let m = rules.pits();
        let mut board = vec![rules.seeds() as u32; 2 * m + 2];
        board[m] = 0;
        board[2 * m + 1] = 0;
        RefPos {
            m,
            board,
            to_move: 0,
            north_sowings: 0,
            swapped_once: false,
            capture: rules.capture,
            leftover: rules.leftover,
            end: rules.end,
            pie: rules.pie,
        }
    }

    fn store_of(&self, side: usize) -> usize {
        if side == 0 { self.m } else { 2 * self.m + 1 }
    }

    fn pit_cell(&self, side: usize, pit: usize) -> usize {
        if side == 0 { pit - 1 } else { self.m + pit }
    }

    pub fn row(&self, side: usize) -> Vec<u32> {
        (1..=self.m)
            .map(|p| self.board[self.pit_cell(side, p)])
            .collect()
    }

    pub fn store(&self, side: usize) -> u32 {
        self.board[self.store_of(side)]
    }

    fn row_empty(&self, side: usize) -> bool {
        self.row(side).iter().all(|&x| x == 0)
    }

    pub fn over(&self) -> bool {
        match self.end {
            End::Immediate => self.row_empty(0) || self.row_empty(1),
            End::OnTurn => self.row_empty(self.to_move),
        }
    }

    pub fn swap_allowed(&self) -> bool {
        self.pie
            && self.to_move == 1
            && self.north_sowings == 0
            && !self.swapped_once
            && !self.over()
    }

    /// Pit numbers (1-based) that may be sown.
    pub fn legal_pits(&self) -> Vec<usize> {
        if self.over() {
            return Vec::new();
        }
        (1..=self.m)
            .filter(|&p| self.board[self.pit_cell(self.to_move, p)] > 0)
            .collect()
    }

    pub fn swap(&mut self) {
        assert!(self.swap_allowed());
        self.swapped_once = true;
    }

    /// Sows pit `pit` (1-based) of the player to move, one seed at a time.
    pub fn sow(&mut self, pit: usize) -> RefOutcome {
        let side = self.to_move;
        let n = self.board.len();
        let start = self.pit_cell(side, pit);
        let mut seeds = self.board[start];
        assert!(seeds > 0 && !self.over());
        self.board[start] = 0;
        let mut i = start;
        while seeds > 0 {
            i = (i + 1) % n;
            if i == self.store_of(1 - side) {
                continue;
            }
            self.board[i] += 1;
            seeds -= 1;
        }
        if side == 1 {
            self.north_sowings += 1;
        }
        let own_pit = if side == 0 {
            i < self.m
        } else {
            i > self.m && i < 2 * self.m + 1
        };
        let mut out = RefOutcome {
            extra_turn: false,
            captured: 0,
        };
        if i == self.store_of(side) {
            out.extra_turn = true;
            return out;
        }
        if own_pit && self.board[i] == 1 {
            let opp = 2 * self.m - i;
            let take = match self.capture {
                Capture::Standard => self.board[opp] > 0,
                Capture::Empty => true,
                Capture::Off => false,
            };
            if take {
                out.captured = self.board[opp] + 1;
                let s = self.store_of(side);
                self.board[s] += out.captured;
                self.board[i] = 0;
                self.board[opp] = 0;
            }
        }
        self.to_move = 1 - side;
        out
    }

    /// Final scores once over (leftover applied), else the stores.
    pub fn score(&self) -> [u32; 2] {
        let stores = [self.store(0), self.store(1)];
        if !self.over() {
            return stores;
        }
        let rows = [
            self.row(0).iter().sum::<u32>(),
            self.row(1).iter().sum::<u32>(),
        ];
        match self.leftover {
            Leftover::Owner => [stores[0] + rows[0], stores[1] + rows[1]],
            Leftover::Discard => stores,
            Leftover::Emptier => {
                let empty_side = match self.end {
                    End::OnTurn => self.to_move,
                    End::Immediate => {
                        if rows[0] == 0 {
                            0
                        } else {
                            1
                        }
                    }
                };
                let mut s = stores;
                s[empty_side] += rows[0] + rows[1];
                s
            }
        }
    }

    /// Counts move sequences of exactly `depth` moves (sowings and swaps).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for p in self.legal_pits() {
            let mut next = self.clone();
            next.sow(p);
            total += next.perft(depth - 1);
        }
        if self.swap_allowed() {
            let mut next = self.clone();
            next.swap();
            total += next.perft(depth - 1);
        }
        total
    }
}
