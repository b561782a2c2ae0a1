//! The arena: every pairing of a gauntlet or a round robin played from both seats, each pair of
//! games from one shared opening, all games in parallel and deterministic for a seed.
//!
//! With a network player, [`BATCHED_GAMES`] games are played at once on plain threads of their
//! own ([`play_on_threads`]) and the network's evaluations from all of them share forward passes
//! ([`Player::batched`], as the server's games do), while the other players' moves are thought
//! one per core ([`Gate`]). The CPU backend computes each position's outputs alike in any batch,
//! so the games are the same.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::Serialize;

pub use crate::bots::BATCHED_GAMES;
use crate::bots::{Gate, Player, Tally, game_rng, play_game_proved, play_on_threads};
use crate::rules::{Game, Position, Side};

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Player 0 against every other player.
    Gauntlet,
    /// Every player against every other.
    RoundRobin,
}

impl Mode {
    /// The pairings `(a, b)` with `a < b` for `players` players.
    pub fn pairings(&self, players: usize) -> Vec<(usize, usize)> {
        match self {
            Mode::Gauntlet => (1..players).map(|b| (0, b)).collect(),
            Mode::RoundRobin => (0..players)
                .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
                .collect(),
        }
    }

    /// Its name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Gauntlet => "gauntlet",
            Mode::RoundRobin => "round robin",
        }
    }
}

/// One finished game of the arena.
#[derive(Clone, Debug)]
pub struct ArenaGame {
    /// Index into the pairings.
    pub pairing: usize,
    /// The opening (and pair of games) it started from.
    pub opening: usize,
    /// Whether the pairing's first player started as South.
    pub a_south: bool,
    /// The whole game.
    pub game: Game,
    /// What the bot that made each move proved about it (none for bots that do not prove).
    pub proofs: Vec<Option<crate::bots::guard::Proof>>,
    /// The seconds each move's bot took to choose it.
    pub seconds: Vec<f32>,
}

impl ArenaGame {
    /// Final margin for the pairing's first player (its seeds minus the other's), after any pie
    /// swap.
    pub fn a_margin(&self) -> i32 {
        let south_margin = self.game.position().margin();
        let a_start = if self.a_south {
            Side::South
        } else {
            Side::North
        };
        if self.game.seat_of(a_start) == Side::South {
            south_margin
        } else {
            -south_margin
        }
    }

    /// For each move of the game, whether the pairing's first player made it.
    pub fn movers_are_a(&self) -> Vec<bool> {
        let a_start = if self.a_south {
            Side::South
        } else {
            Side::North
        };
        let mut swapped = false;
        self.game
            .history()
            .iter()
            .map(|h| {
                let seat = h.before.to_move();
                let starting = if swapped { seat.other() } else { seat };
                swapped ^= h.outcome.swapped;
                starting == a_start
            })
            .collect()
    }
}

/// Everything an arena run needs.
#[derive(Clone, Debug)]
pub struct Arena {
    /// The players.
    pub players: Vec<Player>,
    /// Gauntlet or round robin.
    pub mode: Mode,
    /// Start positions; opening `i` is the start of the `i`th pair of games of every pairing.
    pub openings: Vec<Position>,
    /// Seed of the bots' randomness.
    pub seed: u64,
    /// Batch each network player's evaluations across the games played at once (else each game
    /// calls its network alone, one position at a time, as many games at once as cores).
    pub batch: bool,
}

impl Arena {
    /// The pairings played.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        self.mode.pairings(self.players.len())
    }

    /// Games the run plays: two per opening per pairing.
    pub fn total_games(&self) -> usize {
        self.pairings().len() * self.openings.len() * 2
    }

    /// Plays every game in parallel; `on_game` is called after each (from any thread). Once
    /// `stop` is set no new game starts, and the games finished so far are returned. The games
    /// are the same whatever the thread count, in a fixed order.
    pub fn run(&self, on_game: &(dyn Fn() + Sync), stop: &AtomicBool) -> Vec<ArenaGame> {
        let cores = rayon::current_num_threads();
        if let Some(players) = self.batched_players(cores) {
            let gate = Gate::new(cores);
            let (jobs, order) = self.jobs();
            return play_on_threads(&order, BATCHED_GAMES, stop, |j| {
                let game = self.play_job(&players, jobs[j], j, Some(&gate));
                on_game();
                game
            })
            .into_iter()
            .map(|d| d.1)
            .collect();
        }
        self.play(on_game, stop)
    }

    /// The players with every network player's evaluations batched on `threads` threads, where
    /// the arena batches, plays more than one game and has a network player.
    fn batched_players(&self, threads: usize) -> Option<Vec<Player>> {
        #[cfg(feature = "train")]
        if self.batch
            && self.total_games() > 1
            && self.players.iter().any(|p| p.network().is_some())
        {
            return self
                .players
                .iter()
                .map(|p| p.clone().batched(threads))
                .collect::<std::io::Result<_>>()
                .ok();
        }
        let _ = threads;
        None
    }

    /// The games to play, `(pairing, opening, a_south)` by index, and the order to start them in.
    fn jobs(&self) -> (Vec<(usize, usize, bool)>, Vec<usize>) {
        let per = self.openings.len();
        let jobs: Vec<(usize, usize, bool)> = (0..self.pairings().len())
            .flat_map(|p| (0..per).flat_map(move |o| [(p, o, true), (p, o, false)]))
            .collect();
        // Expensive pairings first, so the last games do not leave a core idle: spread them by
        // interleaving pairings rather than playing one pairing after another.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&j| (jobs[j].1, jobs[j].2, jobs[j].0));
        (jobs, order)
    }

    /// Plays game `j` of `jobs` with `players`, each unbatched player's moves holding a place of
    /// `gate` if there is one.
    fn play_job(
        &self,
        players: &[Player],
        job: (usize, usize, bool),
        j: usize,
        gate: Option<&Gate>,
    ) -> ArenaGame {
        let (p, o, a_south) = job;
        let (a, b) = self.pairings()[p];
        let (south, north) = if a_south { (a, b) } else { (b, a) };
        let mut rng = game_rng(self.seed, j as u64);
        let played = play_game_proved(
            self.openings[o],
            &players[south],
            &players[north],
            &mut rng,
            gate,
        );
        ArenaGame {
            pairing: p,
            opening: o,
            a_south,
            game: played.game,
            proofs: played.proofs,
            seconds: played.seconds,
        }
    }

    /// Plays every game with the arena's own players on the current thread pool.
    fn play(&self, on_game: &(dyn Fn() + Sync), stop: &AtomicBool) -> Vec<ArenaGame> {
        let (jobs, order) = self.jobs();
        let mut done: Vec<(usize, ArenaGame)> = order
            .par_iter()
            .with_max_len(1)
            .filter_map(|&j| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let game = self.play_job(&self.players, jobs[j], j, None);
                on_game();
                Some((j, game))
            })
            .collect();
        done.sort_by_key(|d| d.0);
        done.into_iter().map(|d| d.1).collect()
    }
}

/// Totals of one pairing, for its first player `a`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PairingResult {
    /// First player's name.
    pub a: String,
    /// Second player's name.
    pub b: String,
    /// Games played.
    pub games: u32,
    /// Games `a` won.
    pub a_wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games `b` won.
    pub b_wins: u32,
    /// Mean of `a`'s seeds minus `b`'s.
    pub a_mean_margin: f64,
    /// `a`'s wins, draws, losses when it started as South.
    pub a_as_south: [u32; 3],
    /// `a`'s wins, draws, losses when it started as North.
    pub a_as_north: [u32; 3],
    /// How long `a` took a move.
    pub a_move_seconds: MoveTimes,
    /// How long `b` took a move.
    pub b_move_seconds: MoveTimes,
    /// What `a` proved about its moves (null for a bot that does not prove).
    pub a_proofs: Option<ProvenMoves>,
    /// What `b` proved about its moves.
    pub b_proofs: Option<ProvenMoves>,
}

/// A proving player's moves in a series by what it proved about each
/// ([`crate::bots::guard::Proof`]), unjudged: the judge (`--judge`) checks them against the solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProvenMoves {
    /// Moves proven best.
    pub optimal: u32,
    /// Moves proven to keep the result.
    pub keeps_result: u32,
    /// Moves with nothing proven in time.
    pub not_proven: u32,
}

impl ProvenMoves {
    /// Count one more move with this proof.
    fn add(&mut self, proof: crate::bots::guard::Proof) {
        use crate::bots::guard::Proof;
        *match proof {
            Proof::Optimal => &mut self.optimal,
            Proof::KeepsResult => &mut self.keeps_result,
            Proof::NotProven => &mut self.not_proven,
        } += 1;
    }
}

/// How long a player took to choose its moves in a series: wall seconds, as the arena played them
/// (with several games at once on a shared machine, or a network's evaluations batched across
/// games, a move waits for others: `--no-batch` and one thread time a player alone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MoveTimes {
    /// Moves timed.
    pub moves: u32,
    /// Mean seconds a move.
    pub mean: f64,
    /// Median seconds a move.
    pub median: f64,
    /// The 95th percentile.
    pub p95: f64,
    /// The longest move.
    pub max: f64,
}

impl MoveTimes {
    /// The summary of these move times (seconds).
    pub fn of(mut seconds: Vec<f32>) -> MoveTimes {
        if seconds.is_empty() {
            return MoveTimes::default();
        }
        seconds.sort_by(f32::total_cmp);
        let at = |q: f64| f64::from(seconds[((seconds.len() - 1) as f64 * q).round() as usize]);
        MoveTimes {
            moves: seconds.len() as u32,
            mean: seconds.iter().map(|&s| f64::from(s)).sum::<f64>() / seconds.len() as f64,
            median: at(0.5),
            p95: at(0.95),
            max: at(1.0),
        }
    }
}

impl PairingResult {
    /// Points of `a` (a draw is half).
    pub fn a_score(&self) -> f64 {
        Tally::counts(self.a_wins, self.draws, self.b_wins).score()
    }
}

/// Sums the finished games by pairing.
pub fn tally(
    players: &[Player],
    pairings: &[(usize, usize)],
    games: &[ArenaGame],
) -> Vec<PairingResult> {
    // `a`'s games by pairing, from South and from North.
    let mut seats = vec![[Tally::default(); 2]; pairings.len()];
    // Each pairing's move times and proofs: `a`'s, then `b`'s.
    let mut times = vec![[Vec::new(), Vec::new()]; pairings.len()];
    let mut proofs = vec![[None, None]; pairings.len()];
    for g in games {
        seats[g.pairing][usize::from(!g.a_south)].add(g.a_margin());
        for ((&s, proof), by_a) in g.seconds.iter().zip(&g.proofs).zip(g.movers_are_a()) {
            let who = usize::from(!by_a);
            times[g.pairing][who].push(s);
            if let Some(p) = proof {
                proofs[g.pairing][who]
                    .get_or_insert_with(ProvenMoves::default)
                    .add(*p);
            }
        }
    }
    pairings
        .iter()
        .zip(seats)
        .zip(times)
        .zip(proofs)
        .map(
            |(((&(a, b), [south, north]), [a_times, b_times]), [a_proofs, b_proofs])| {
                let both = south + north;
                PairingResult {
                    a: players[a].to_string(),
                    b: players[b].to_string(),
                    games: both.games(),
                    a_wins: both.wins,
                    draws: both.draws,
                    b_wins: both.losses,
                    a_mean_margin: both.mean_margin(),
                    a_as_south: south.wdl(),
                    a_as_north: north.wdl(),
                    a_move_seconds: MoveTimes::of(a_times),
                    b_move_seconds: MoveTimes::of(b_times),
                    a_proofs,
                    b_proofs,
                }
            },
        )
        .collect()
}
