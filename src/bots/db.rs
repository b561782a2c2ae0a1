//! The endgame database a network player consults: which size (the one its checkpoint was trained
//! with, at most a default that suits the rules) and loading it from the solver's cache, built
//! there the first time.

use std::sync::Arc;

use anyhow::bail;

use super::BOT_MEMORY_MB;
use crate::rules::Rules;
use crate::solver::{DEFAULT_MEMORY_MB, DbSource, Endgame, EndgameOracle, auto_db_seeds_for};

/// The database size of a network's self-play where its checkpoint does not record one, for a
/// game of at most [`SMALL_GAME_SEEDS`] seeds (Kalah(6,4) trains with it).
pub const DEFAULT_DB_SEEDS: u32 = 18;

/// The most seeds in a game that [`DEFAULT_DB_SEEDS`] is the default for.
pub const SMALL_GAME_SEEDS: u32 = 48;

/// Seeds on the board of the database a network player of `rules` consults (0: none): the size a
/// player picks by default, [`DEFAULT_DB_SEEDS`] in games of at most [`SMALL_GAME_SEEDS`] seeds,
/// else (and never more than) the size the solver bots' solver picks
/// ([`crate::solver::DbSize::Auto`] within [`BOT_MEMORY_MB`]); or `recorded`, the checkpoint's
/// own `selfplay.endgame_db_seeds`, where its sidecar has one and it is smaller. A network trained
/// with a larger database (the children's game's, 24 seeds: 1.25 GB, minutes to build) plays with
/// the default one, so that no player builds more than that on first use. Never more than the
/// seeds in the game.
pub fn db_seeds(recorded: Option<u32>, rules: &Rules) -> u32 {
    let total = rules.total_seeds();
    let auto = auto_db_seeds_for(rules, BOT_MEMORY_MB).unwrap_or(0);
    let default = if total <= SMALL_GAME_SEEDS {
        auto.min(DEFAULT_DB_SEEDS)
    } else {
        auto
    };
    recorded.unwrap_or(default).min(default).min(total)
}

/// Boards from which a database build is worth a line on stderr: smaller ones build in well
/// under a second (18 seeds for six pits, 87 million boards, take about 5 s on two cores).
pub const BUILD_NOTICE_BOARDS: u128 = 1 << 22;

/// The database of `seeds` seeds for `rules`, from the solver's default cache folder, built
/// (and saved there) if it is not there yet: a line on stderr says so where that takes a while
/// ([`BUILD_NOTICE_BOARDS`]). Refuses a database larger than [`DEFAULT_MEMORY_MB`] or of more
/// seeds than the game holds.
pub fn load(rules: &Rules, seeds: u32) -> anyhow::Result<Arc<EndgameOracle>> {
    if seeds > rules.total_seeds() {
        bail!(
            "endgame database of {seeds} seeds: {} has only {} seeds",
            rules.describe(),
            rules.total_seeds()
        );
    }
    if let Err(why) = crate::solver::endgame::check_budget(rules.pits(), seeds, DEFAULT_MEMORY_MB) {
        bail!("endgame database: {why} (play without it with :db=off)");
    }
    let cache = crate::solver::default_cache_dir();
    let file = cache
        .as_ref()
        .map(|dir| dir.join(Endgame::file_name(rules, seeds)));
    let large = crate::solver::endgame::entries(rules.pits(), seeds) >= BUILD_NOTICE_BOARDS;
    if large && !file.as_ref().is_some_and(|f| f.exists()) {
        let place = match &file {
            Some(f) => format!("saved to {}", f.display()),
            None => "in memory: there is no cache folder".to_string(),
        };
        eprintln!(
            "kalaha: building the endgame database of {seeds} seeds for {} ({place})",
            rules.describe()
        );
    }
    let (oracle, source) = EndgameOracle::load_or_build(rules, seeds, cache.as_deref(), None);
    if let DbSource::Rebuilt { .. } = source {
        eprintln!("kalaha: endgame database {source}");
    }
    Ok(Arc::new(oracle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Preset;

    #[test]
    fn the_recorded_size_wins_up_to_eighteen_in_small_games() {
        let k64 = Rules::kalah64();
        assert_eq!(db_seeds(Some(12), &k64), 12);
        // A network trained with a larger database plays with the default one.
        assert_eq!(db_seeds(Some(24), &Preset::Children.rules()), 18);
        assert_eq!(db_seeds(Some(0), &k64), 0);
        assert_eq!(db_seeds(None, &k64), 18);
        // Never more than the game holds.
        let small = Rules::new(3, 2).unwrap();
        assert_eq!(db_seeds(None, &small), 12);
        assert_eq!(db_seeds(Some(18), &small), 12);
        // Larger games: what the solver bots' solver picks.
        let swedish = Preset::Swedish.rules();
        assert_eq!(
            db_seeds(None, &swedish),
            auto_db_seeds_for(&swedish, BOT_MEMORY_MB).unwrap()
        );
    }

    #[test]
    fn a_database_too_large_is_refused_with_a_way_out() {
        let Err(e) = load(&Rules::kalah64(), 40) else {
            panic!("a database of 40 seeds for six pits was loaded");
        };
        let e = e.to_string();
        assert!(e.contains("needs") && e.contains(":db=off"), "{e}");
    }
}
