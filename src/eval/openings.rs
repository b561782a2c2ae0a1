//! Opening sets: start positions reached by a few random moves, so that deterministic bots do not
//! replay one game over and over. Each pair of games (one per seat) shares an opening; a set can be
//! saved as JSON and reused so that two evaluations play the same starts.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Context as _;
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::bots::game_rng;
use crate::rules::{Game, Move, Position, Rules, RulesSpec, parse_moves};

/// Format tag of an opening file.
pub const FORMAT: &str = "kalaha-openings-1";

/// Mixed into the seed so that openings and game moves come from different streams.
const OPENING_STREAM: u64 = 0x6f70_656e_696e_6773;

/// Attempts to find an opening not yet in the set before a duplicate is accepted.
const TRIES: u32 = 64;

/// One opening: the moves from the rules' start and the position they reach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// Moves from the start, e.g. `3,1,6`.
    pub moves: String,
    /// The position reached, in notation.
    pub position: String,
}

/// A saved set of openings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningSet {
    /// Always [`FORMAT`].
    pub format: String,
    /// The rules the openings are for.
    pub rules: RulesSpec,
    /// Random moves played to reach each opening.
    pub opening_moves: u32,
    /// The seed the set was drawn from.
    pub seed: u64,
    /// The openings, in order.
    pub openings: Vec<Opening>,
}

impl OpeningSet {
    /// Draws `count` openings of `moves` random pit moves each (never `swap`, never a finished
    /// game), distinct where the rules leave room for it, from `seed`. Opening `i` depends only on
    /// `seed` and the openings before it.
    pub fn generate(rules: &Rules, count: usize, moves: u32, seed: u64) -> OpeningSet {
        let mut rng = game_rng(seed ^ OPENING_STREAM, 0);
        let mut seen = HashSet::new();
        let mut openings = Vec::with_capacity(count);
        while openings.len() < count {
            let mut pick = None;
            for _ in 0..TRIES {
                let game = random_opening(rules, moves, &mut rng);
                let o = Opening {
                    moves: game.move_list(),
                    position: game.position().to_string(),
                };
                if !seen.contains(&o.position) {
                    pick = Some(o);
                    break;
                }
                pick.get_or_insert(o);
            }
            let o = pick.expect("at least one try");
            seen.insert(o.position.clone());
            openings.push(o);
        }
        OpeningSet {
            format: FORMAT.to_string(),
            rules: rules.spec(),
            opening_moves: moves,
            seed,
            openings,
        }
    }

    /// The start positions, checked against `rules`: each opening's moves must be legal from the
    /// start and reach the recorded position.
    pub fn positions(&self, rules: &Rules) -> anyhow::Result<Vec<Position>> {
        if self.format != FORMAT {
            anyhow::bail!(
                "unknown opening file format '{}' (expected {FORMAT})",
                self.format
            );
        }
        if self.rules != rules.spec() {
            anyhow::bail!(
                "the openings are for other rules ({}), not {}",
                self.rules
                    .build()
                    .map_or("invalid".to_string(), |r| r.describe()),
                rules.describe()
            );
        }
        self.openings
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let mv = parse_moves(&o.moves).with_context(|| format!("opening {}", i + 1))?;
                let game = Game::from_moves(Position::start(rules), &mv)
                    .with_context(|| format!("opening {}", i + 1))?;
                let pos = *game.position();
                // Files written before the notation marked South's opening turn under the pie
                // rule (`... s opening`) record such openings without the marker.
                let text = pos.to_string();
                if text != o.position && text.strip_suffix(" opening") != Some(&o.position) {
                    anyhow::bail!(
                        "opening {}: moves {} reach {pos}, not {}",
                        i + 1,
                        o.moves,
                        o.position
                    );
                }
                if pos.is_over() {
                    anyhow::bail!("opening {}: the game is already over", i + 1);
                }
                Ok(pos)
            })
            .collect()
    }

    /// Reads a set from a JSON file.
    pub fn load(path: &Path) -> anyhow::Result<OpeningSet> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading openings {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing openings {}", path.display()))
    }

    /// Writes the set as JSON, whole or not at all ([`crate::files::write_atomic`]).
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        crate::files::write_atomic(path, |w| Ok(serde_json::to_writer_pretty(w, self)?))
            .with_context(|| format!("writing openings {}", path.display()))
    }
}

/// Plays up to `moves` random pit moves from the start, never one that ends the game; stops
/// early if every move would (possible only on tiny boards).
fn random_opening(rules: &Rules, moves: u32, rng: &mut impl rand::Rng) -> Game {
    let mut game = Game::new(rules);
    for _ in 0..moves {
        let pos = *game.position();
        let ok: Vec<Move> = pos
            .legal_moves()
            .iter()
            .filter(|&m| m != Move::Swap && !pos.after(m).is_ok_and(|(p, _)| p.is_over()))
            .collect();
        if ok.is_empty() {
            break;
        }
        let mv = ok[rng.random_range(0..ok.len())];
        game.play(mv).expect("a legal move");
    }
    game
}
