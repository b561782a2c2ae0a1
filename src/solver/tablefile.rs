//! The transposition table on disk, so that a long solve stopped by a time limit or Ctrl-C can be
//! taken up again later where it stopped.
//!
//! Every entry is a true bound on a position's gain, whatever search wrote it, so a table saved
//! by one solve is as good as the table of the solve that goes on from it. A table saved for one
//! game (board, rule options) is refused for any other.
//!
//! # File format (version 2, all integers little-endian)
//!
//! | offset | bytes | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `KALAHATT` |
//! | 8 | 4 | format version, 2 (version 1 had buckets of 4 entries, a power of two of them) |
//! | 12 | 1 | pits per side `m` |
//! | 13 | 1 | seeds per pit `n` |
//! | 14 | 1 | capture: 0 standard, 1 empty, 2 off |
//! | 15 | 1 | leftover: 0 owner, 1 emptier, 2 discard |
//! | 16 | 1 | end: 0 immediate, 1 on-turn |
//! | 17 | 1 | pie rule: 0 off, 1 on |
//! | 18 | 1 | key bits |
//! | 19 | 1 | entries in a bucket, 8 |
//! | 20 | 4 | reserved, 0 |
//! | 24 | 8 | entries (a multiple of 8: the buckets one after another) |
//! | 32 | 8 | checksum ([`super::endgame::checksum`]) of bytes 0..32, then of the payload in parts of [`PART`] bytes |
//! | 40 | 8 per entry | payload: the raw entries (module `table`) |
//!
//! A table of another size is moved entry by entry into the solver's (a smaller one keeps the
//! entries with the most work behind them).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::endgame::{Checksum, code_capture, code_end, code_leftover};
use super::table::{Table, WAYS};
use crate::rules::Rules;

const MAGIC: &[u8; 8] = b"KALAHATT";
const VERSION: u32 = 2;
const HEADER: usize = 40;
/// Bytes of one checksummed part of the payload.
pub const PART: usize = 1 << 20;
const WORDS: usize = PART / 8;

/// Why a table file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TableFileError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a table file, or a header that does not make sense.
    #[error("{0} is not a kalaha table file of format version {VERSION}")]
    Format(PathBuf),
    /// A table file of another format version.
    #[error(
        "{path} is a table file of format version {found}; this kalaha reads version {VERSION}: remove it to start afresh"
    )]
    Version { path: PathBuf, found: u32 },
    /// Saved for another board or other rule options.
    #[error("{path} holds a table for {saved}, not for {wanted}")]
    OtherGame {
        path: PathBuf,
        saved: String,
        wanted: String,
    },
    /// The file is shorter or longer than its header says.
    #[error(
        "{path} has {found} bytes where its header calls for {expected} (cut short?); remove it to start afresh"
    )]
    Length {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    /// The contents do not match the checksum.
    #[error(
        "{0} is damaged (checksum mismatch): nothing of it was used; remove it to start afresh"
    )]
    Checksum(PathBuf),
    /// The saved table cannot be moved into a table of this size.
    #[error(
        "{path} holds a table of {saved_mb} MiB that cannot be moved into one of {table_mb} MiB; solve with the --memory it was saved with"
    )]
    Size {
        path: PathBuf,
        saved_mb: u64,
        table_mb: u64,
    },
    /// The solver was set up without a transposition table.
    #[error("the solver has no transposition table to save or load")]
    NoTable,
}

/// What a table file holds besides its entries.
fn game_bytes(rules: &Rules, tt: &Table) -> [u8; 8] {
    [
        rules.pits() as u8,
        rules.seeds(),
        code_capture(rules.capture),
        code_leftover(rules.leftover),
        code_end(rules.end),
        rules.pie as u8,
        tt.key_bits() as u8,
        WAYS as u8,
    ]
}

/// The game a header's bytes 12..20 name, in words.
fn describe(g: &[u8]) -> String {
    let pick = |names: &[&'static str], i: u8| names.get(i as usize).copied().unwrap_or("?");
    format!(
        "Kalah({},{}) capture={} leftover={} end={}{}",
        g[0],
        g[1],
        pick(&["standard", "empty", "off"], g[2]),
        pick(&["owner", "emptier", "discard"], g[3]),
        pick(&["immediate", "on-turn"], g[4]),
        if g[5] != 0 { " pie" } else { "" }
    )
}

/// Writes `tt` (a table for `rules`) to `path` whole or not at all
/// ([`crate::files::write_atomic`]); returns the entries in use. No search may write the table
/// meanwhile.
pub(crate) fn save(tt: &Table, rules: &Rules, path: &Path) -> Result<u64, TableFileError> {
    let mut header = [0u8; 32];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    header[12..20].copy_from_slice(&game_bytes(rules, tt));
    header[24..32].copy_from_slice(&(tt.len() as u64).to_le_bytes());
    let mut used = 0;
    crate::files::write_atomic(path, |f| {
        f.write_all(&header)?;
        // The checksum's place, filled in once the entries are written.
        f.write_all(&[0u8; 8])?;
        let mut sum = Checksum::new();
        sum.update(&header);
        let mut words = vec![0u64; WORDS];
        let mut bytes = vec![0u8; PART];
        let mut at = 0;
        while at < tt.len() {
            let n = WORDS.min(tt.len() - at);
            tt.read_raw(at, &mut words[..n]);
            for (w, b) in words[..n].iter().zip(bytes.chunks_exact_mut(8)) {
                used += Table::in_use(*w) as u64;
                b.copy_from_slice(&w.to_le_bytes());
            }
            sum.update(&bytes[..n * 8]);
            f.write_all(&bytes[..n * 8])?;
            at += n;
        }
        f.seek(SeekFrom::Start(32))?;
        f.write_all(&sum.finish().to_le_bytes())
    })
    .map_err(|source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(used)
}

/// Adds the entries of the table file `path` to `tt` (a table for `rules`); returns the entries
/// in use in the file. A file that is damaged leaves `tt` empty.
pub(crate) fn load(tt: &Table, rules: &Rules, path: &Path) -> Result<u64, TableFileError> {
    let io = |source| TableFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = [0u8; HEADER];
    if len < HEADER as u64 || file.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
        return Err(TableFileError::Format(path.to_path_buf()));
    }
    let version = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(TableFileError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let ours = game_bytes(rules, tt);
    if head[19] != ours[7] {
        return Err(TableFileError::Format(path.to_path_buf()));
    }
    // The first seven bytes name the game and its keys; the number of buckets may differ.
    if head[12..19] != ours[..7] {
        return Err(TableFileError::OtherGame {
            path: path.to_path_buf(),
            saved: describe(&head[12..18]),
            wanted: describe(&ours[..6]),
        });
    }
    let entries = u64::from_le_bytes(head[24..32].try_into().expect("8 bytes"));
    if entries == 0 || entries % WAYS as u64 != 0 || entries > 1 << 40 {
        return Err(TableFileError::Format(path.to_path_buf()));
    }
    let buckets = (entries / WAYS as u64) as usize;
    let expected = HEADER as u64 + entries * 8;
    if len != expected {
        return Err(TableFileError::Length {
            path: path.to_path_buf(),
            found: len,
            expected,
        });
    }
    if !tt.can_take(buckets) {
        return Err(TableFileError::Size {
            path: path.to_path_buf(),
            saved_mb: (entries * 8) >> 20,
            table_mb: (tt.len() as u64 * 8) >> 20,
        });
    }
    let mut sum = Checksum::new();
    sum.update(&head[..32]);
    let mut reader = std::io::BufReader::with_capacity(PART, file);
    let mut bytes = vec![0u8; PART];
    let mut used = 0;
    let mut at = 0usize;
    let result = (|| -> Result<(), TableFileError> {
        while (at as u64) < entries {
            let n = WORDS.min((entries - at as u64) as usize);
            reader.read_exact(&mut bytes[..n * 8]).map_err(io)?;
            sum.update(&bytes[..n * 8]);
            // Entries that no search writes (crafted or damaged under a good checksum) are
            // refused: their bounds would contradict one another in the table.
            let total = rules.total_seeds() as i32;
            for b in bytes[..n * 8].chunks_exact(8 * WAYS) {
                let words: Vec<u64> = b
                    .chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                    .collect();
                if !Table::sound_bucket(&words, total) {
                    return Err(TableFileError::Format(path.to_path_buf()));
                }
            }
            for (i, b) in bytes[..n * 8].chunks_exact(8).enumerate() {
                let w = u64::from_le_bytes(b.try_into().expect("8 bytes"));
                used += Table::in_use(w) as u64;
                tt.put_raw(at + i, buckets, w);
            }
            at += n;
        }
        if sum.finish() != u64::from_le_bytes(head[32..40].try_into().expect("8 bytes")) {
            return Err(TableFileError::Checksum(path.to_path_buf()));
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(used),
        Err(e) => {
            // Entries from a file that is not whole are never trusted.
            tt.clear();
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{DbSize, Solver, SolverConfig};

    /// Found by `fuzz/run tables` (fuzz/CRASHES.md): a table file whose checksum is right but
    /// whose entries no search writes (a lower bound over its upper, bounds past the game's
    /// seeds) is refused, never loaded into bounds that trip the table's own checks.
    #[test]
    fn entries_no_search_writes_are_refused_under_a_good_checksum() {
        let rules = Rules::new(3, 2).unwrap();
        let cfg = SolverConfig {
            memory_mb: 1,
            db: DbSize::Off,
            cache_dir: None,
            ..SolverConfig::default()
        };
        let solver = Solver::new(&rules, &cfg).unwrap();
        let _ = solver.analyse_within(&crate::rules::Position::start(&rules), None, None);
        let dir = std::env::temp_dir().join(format!("kalaha-tablefile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.ktt");
        solver.save_table(&path).unwrap();
        let good = std::fs::read(&path).unwrap();
        let used = (HEADER..good.len())
            .step_by(8)
            .find(|&at| Table::in_use(u64::from_le_bytes(good[at..at + 8].try_into().unwrap())))
            .expect("an entry in use");
        let fresh = || Solver::new(&rules, &cfg).unwrap();
        assert!(fresh().load_table(&path).unwrap() > 0);
        // Lower bound 73 over upper bound -223 (the fuzzer's), then a bound past the 12 seeds.
        for (lower, upper) in [(73, -223), (-5, 40)] {
            let mut bad = good.clone();
            let mut e = u64::from_le_bytes(bad[used..used + 8].try_into().unwrap());
            e = (e & !((1 << 18) - 1))
                | (((upper + 255) as u64 & 511) << 9)
                | ((lower + 255) as u64 & 511);
            bad[used..used + 8].copy_from_slice(&e.to_le_bytes());
            let mut sum = Checksum::new();
            sum.update(&bad[..32]);
            sum.update(&bad[HEADER..]);
            bad[32..40].copy_from_slice(&sum.finish().to_le_bytes());
            std::fs::write(&path, &bad).unwrap();
            let solver = fresh();
            match solver.load_table(&path) {
                Err(TableFileError::Format(_)) => {}
                other => panic!("bounds {lower}..{upper}: {other:?}"),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
