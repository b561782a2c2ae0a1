//! The endgame database: the exact gain of every board with few seeds left, built by retrograde
//! analysis and kept on disk in a cache folder.
//!
//! How it is built: the module `retrograde`.
//!
//! The gain of a board does not depend on the number of seeds per pit `n`, the stores or the pie
//! rule; it does depend on `m` and the capture, leftover and end rules, which name the file.
//!
//! # File format (version 1, all integers little-endian)
//!
//! | offset | bytes | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `KALAHAEG` |
//! | 8 | 4 | format version, 1 |
//! | 12 | 1 | pits per side `m` |
//! | 13 | 1 | capture: 0 standard, 1 empty, 2 off |
//! | 14 | 1 | leftover: 0 owner, 1 emptier, 2 discard |
//! | 15 | 1 | end: 0 immediate, 1 on-turn |
//! | 16 | 4 | most seeds on the board `B` |
//! | 20 | 4 | reserved, 0 |
//! | 24 | 8 | entries, `C(B + 2m, 2m)` |
//! | 32 | 8 | checksum of bytes 0..32 and of the payload ([`checksum`]) |
//! | 40 | entries | payload: for each board rank (module `key`), the gain for the player to move as an `i8` |
//!
//! A file whose size, header or checksum does not match is never trusted: it is rebuilt.

use super::key::binomial;
use super::mem::{ZeroBuf, prefetch};
use crate::rules::{Capture, End, Leftover, Rules};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 8] = b"KALAHAEG";
const VERSION: u32 = 1;
const HEADER: usize = 40;
/// Most seeds a database may cover (gains must fit in an `i8`).
pub const MAX_DB_SEEDS: u32 = 100;

/// Exact gains of every board with at most `max_seeds` seeds, for one set of rules.
pub struct Endgame {
    m: usize,
    capture: Capture,
    leftover: Leftover,
    end: End,
    max_seeds: u32,
    values: ZeroBuf<u8>,
}

/// Where a database came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbSource {
    /// Read from this file.
    Loaded(PathBuf),
    /// Built, and written to this file if there is one.
    Built(Option<PathBuf>),
    /// The file was refused for this reason and rebuilt.
    Rebuilt { path: PathBuf, reason: String },
}

impl fmt::Display for DbSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbSource::Loaded(p) => write!(f, "loaded {}", p.display()),
            DbSource::Built(Some(p)) => write!(f, "built and saved to {}", p.display()),
            DbSource::Built(None) => f.write_str("built in memory"),
            DbSource::Rebuilt { path, reason } => {
                write!(f, "rebuilt {} ({reason})", path.display())
            }
        }
    }
}

/// How far a database build has got, for a progress display.
#[derive(Debug, Default)]
pub struct BuildProgress {
    done: AtomicU64,
    total: AtomicU64,
}

impl BuildProgress {
    /// Boards solved so far and boards in all (0 and 0 until a build starts).
    pub fn get(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    pub(super) fn start(&self, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    pub(super) fn add(&self, boards: u64) {
        self.done.fetch_add(boards, Ordering::Relaxed);
    }
}

/// Entries of a database for `m` pits a side and at most `max_seeds` seeds.
pub fn entries(m: usize, max_seeds: u32) -> u128 {
    binomial(max_seeds as u64 + 2 * m as u64, 2 * m as u64)
}

/// Refuses a database of `seeds` seeds for `m` pits a side that takes more than `memory_mb` MiB,
/// saying how much it needs.
pub fn check_budget(m: usize, seeds: u32, memory_mb: usize) -> Result<(), String> {
    let bytes = entries(m, seeds);
    if bytes > (memory_mb as u128) << 20 {
        return Err(format!(
            "a database of {seeds} seeds for {m} pits a side needs {} MiB; the memory budget is {memory_mb} MiB",
            (bytes >> 20) + 1
        ));
    }
    Ok(())
}

pub(super) fn code_capture(c: Capture) -> u8 {
    match c {
        Capture::Standard => 0,
        Capture::Empty => 1,
        Capture::Off => 2,
    }
}

pub(super) fn code_leftover(l: Leftover) -> u8 {
    match l {
        Leftover::Owner => 0,
        Leftover::Emptier => 1,
        Leftover::Discard => 2,
    }
}

pub(super) fn code_end(e: End) -> u8 {
    match e {
        End::Immediate => 0,
        End::OnTurn => 1,
    }
}

pub use crate::files::{Checksum, checksum};

impl Endgame {
    /// Builds the database for `rules` (only `m` and the capture, leftover and end rules matter)
    /// covering every board with at most `max_seeds` seeds, on the rayon pool, posting how far it
    /// has got to `progress`.
    pub fn build(rules: &Rules, max_seeds: u32, progress: Option<&BuildProgress>) -> Endgame {
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        Endgame {
            m: rules.pits(),
            capture: rules.capture,
            leftover: rules.leftover,
            end: rules.end,
            max_seeds,
            values: super::retrograde::build(rules, max_seeds, progress)
                .expect("memory for the endgame database"),
        }
    }

    /// Hints the processor to fetch the entry of `rank`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, rank: u64) {
        if let Some(x) = self.values.get(rank as usize) {
            prefetch(x);
        }
    }

    /// Most seeds on the board that the database covers.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.values.len()
    }

    /// Whether the database answers for positions played under `rules`.
    pub fn fits(&self, rules: &Rules) -> bool {
        rules.pits() == self.m
            && rules.capture == self.capture
            && rules.leftover == self.leftover
            && rules.end == self.end
    }

    /// Gain for the player to move of the board with rank `rank` (see the module `key`).
    /// Precondition: the board holds at most [`Endgame::max_seeds`] seeds.
    #[inline(always)]
    pub fn gain(&self, rank: u64) -> i32 {
        self.values[rank as usize] as i8 as i32
    }

    fn header(&self) -> [u8; 32] {
        let mut h = [0u8; 32];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.m as u8;
        h[13] = code_capture(self.capture);
        h[14] = code_leftover(self.leftover);
        h[15] = code_end(self.end);
        h[16..20].copy_from_slice(&self.max_seeds.to_le_bytes());
        h[24..32].copy_from_slice(&(self.values.len() as u64).to_le_bytes());
        h
    }

    /// The file name for these rules and size, e.g. `endgame-v1-m6-standard-owner-immediate-b16.kdb`.
    pub fn file_name(rules: &Rules, max_seeds: u32) -> String {
        format!(
            "endgame-v{VERSION}-m{}-{}-{}-{}-b{max_seeds}.kdb",
            rules.pits(),
            rules.capture,
            rules.leftover,
            rules.end
        )
    }

    /// Writes the database to `path` whole or not at all ([`crate::files::write_atomic`]: a
    /// temporary file renamed over it, removed if writing fails; those that killed processes left
    /// behind go too).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let header = self.header();
        let sum = checksum(&[&header, &self.values]);
        crate::files::write_atomic(path, |f| {
            f.write_all(&header)?;
            f.write_all(&sum.to_le_bytes())?;
            f.write_all(&self.values)
        })
    }

    /// Reads a database from `path`, checking that it is whole and made for `rules` and
    /// `max_seeds`; the error says why it was refused.
    pub fn load(path: &Path, rules: &Rules, max_seeds: u32) -> Result<Endgame, String> {
        use std::io::Read;
        let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        let mut head = [0u8; HEADER];
        if len < HEADER as u64 || file.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
            return Err("not an endgame database".into());
        }
        let want = Endgame {
            m: rules.pits(),
            capture: rules.capture,
            leftover: rules.leftover,
            end: rules.end,
            max_seeds,
            values: ZeroBuf::new(0).ok_or("out of memory")?,
        };
        let count = entries(want.m, max_seeds) as usize;
        let mut header = want.header();
        header[24..32].copy_from_slice(&(count as u64).to_le_bytes());
        if head[..32] != header {
            return Err("made for other rules, size or format version".into());
        }
        if len != (HEADER + count) as u64 {
            return Err(format!(
                "{len} bytes where {} were expected",
                HEADER + count
            ));
        }
        let mut values = ZeroBuf::<u8>::new(count).ok_or("out of memory")?;
        file.read_exact(&mut values).map_err(|e| e.to_string())?;
        let stored = u64::from_le_bytes(head[32..40].try_into().expect("8 bytes"));
        if checksum(&[&head[..32], &values]) != stored {
            return Err("checksum mismatch".into());
        }
        Ok(Endgame { values, ..want })
    }

    /// Loads the database for `rules` and `max_seeds` from `dir`, or builds it (and saves it there)
    /// when the file is missing or refused, posting the build's progress to `progress`. With no
    /// folder it is built in memory.
    pub fn load_or_build(
        dir: Option<&Path>,
        rules: &Rules,
        max_seeds: u32,
        progress: Option<&BuildProgress>,
    ) -> (Endgame, DbSource) {
        let max_seeds = max_seeds.min(MAX_DB_SEEDS);
        let Some(dir) = dir else {
            return (
                Endgame::build(rules, max_seeds, progress),
                DbSource::Built(None),
            );
        };
        let path = dir.join(Endgame::file_name(rules, max_seeds));
        let refused = if path.exists() {
            match Endgame::load(&path, rules, max_seeds) {
                Ok(db) => return (db, DbSource::Loaded(path)),
                Err(reason) => Some(reason),
            }
        } else {
            None
        };
        let db = Endgame::build(rules, max_seeds, progress);
        let saved = db.save(&path);
        let source = match (refused, saved) {
            (Some(reason), _) => DbSource::Rebuilt { path, reason },
            (None, Ok(())) => DbSource::Built(Some(path)),
            (None, Err(_)) => DbSource::Built(None),
        };
        (db, source)
    }
}

/// The default cache folder: `$KALAHA_CACHE`, else `$XDG_CACHE_HOME/kalaha`, else
/// `~/.cache/kalaha`; `None` if there is no home.
pub fn default_cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("KALAHA_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("kalaha")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("kalaha")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_sees_every_byte_and_the_split() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let base = checksum(&[&data]);
        for i in [0, 31, 32, 999] {
            let mut d = data.clone();
            d[i] ^= 1;
            assert_ne!(checksum(&[&d]), base);
        }
        assert_ne!(checksum(&[&data[..999]]), base);
    }
}
