//! The win/draw/loss tally of a series of games, for one player: the one count behind match
//! summaries, arena pairings and training's evaluations.

/// Wins, draws and losses of one player over some games, with the sum of its final margins.
///
/// ```
/// use kalaha::bots::Tally;
/// let t: Tally = [5, 0, -2, 3].into_iter().collect();
/// assert_eq!((t.wins, t.draws, t.losses, t.games()), (2, 1, 1, 4));
/// assert_eq!(t.score(), 2.5);
/// assert_eq!(t.mean_margin(), 1.5);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won (a positive margin).
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Sum of the final margins (the player's seeds minus the opponent's).
    pub margin_sum: i64,
}

impl Tally {
    /// A tally of counts alone (a margin sum of 0), for results stored as counts.
    pub fn counts(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
            margin_sum: 0,
        }
    }

    /// Counts one finished game with the player's final margin.
    pub fn add(&mut self, margin: i32) {
        match margin.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
        self.margin_sum += margin as i64;
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Wins, draws, losses, in that order.
    pub fn wdl(&self) -> [u32; 3] {
        [self.wins, self.draws, self.losses]
    }

    /// Points: a win is one, a draw half.
    pub fn score(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Share of the games won; 0 with no game.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.games().max(1) as f64
    }

    /// Mean final margin; 0 with no game.
    pub fn mean_margin(&self) -> f64 {
        self.margin_sum as f64 / self.games().max(1) as f64
    }
}

impl std::ops::Add for Tally {
    type Output = Tally;

    /// The games of both tallies together.
    fn add(self, other: Tally) -> Tally {
        Tally {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
            margin_sum: self.margin_sum + other.margin_sum,
        }
    }
}

impl Extend<i32> for Tally {
    fn extend<I: IntoIterator<Item = i32>>(&mut self, margins: I) {
        for m in margins {
            self.add(m);
        }
    }
}

impl FromIterator<i32> for Tally {
    fn from_iter<I: IntoIterator<Item = i32>>(margins: I) -> Tally {
        let mut t = Tally::default();
        t.extend(margins);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_the_sign_of_the_margin() {
        let t: Tally = [0, 1, -1, 48, -48, 0].into_iter().collect();
        assert_eq!(t.wdl(), [2, 2, 2]);
        assert_eq!(t.games(), 6);
        assert_eq!(t.score(), 3.0);
        assert_eq!(t.win_rate(), 2.0 / 6.0);
        assert_eq!(t.mean_margin(), 0.0);
        let more: Tally = [3].into_iter().collect();
        assert_eq!((t + more).wdl(), [3, 2, 2]);
        assert_eq!((t + more).margin_sum, 3);
    }

    #[test]
    fn an_empty_tally_has_zero_rates() {
        let t = Tally::default();
        assert_eq!(
            (t.games(), t.score(), t.win_rate(), t.mean_margin()),
            (0, 0.0, 0.0, 0.0)
        );
    }
}
