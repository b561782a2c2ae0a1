//! Files written whole or not at all: the one way this library writes a file that matters
//! (checkpoints, judge sets, opening sets, endgame databases, transposition tables).
//!
//! The content goes to a temporary name beside the file (`NAME.tmp<pid>`), is flushed to disk,
//! and is renamed over the file; a failed write removes its temporary file, and temporary files
//! that a killed process left behind are removed by the next write of the same file.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary name process `pid` writes `path` under.
pub fn temp_path(path: &Path, pid: u32) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{pid}"));
    path.with_file_name(name)
}

/// Writes `path` through `write` atomically: readers see the old file or the new one, never a
/// part. The folder is created if missing.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    write_via_temp(path, |tmp| {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(tmp)?);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    })
}

/// Writes `path` atomically through `create`, which writes the whole file at the temporary name
/// it is given (for writers that take a path, such as burn's): the file is then flushed to disk
/// and renamed over `path`; a failure removes it.
pub fn write_via_temp(path: &Path, create: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    remove_stale_temps(path);
    let tmp = temp_path(path, std::process::id());
    let result = (|| {
        create(&tmp)?;
        File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Make the rename itself durable where the platform allows opening a folder.
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomic`] of a byte string.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic(path, |w| w.write_all(bytes))
}

/// Removes the temporary files of `path` left by processes no longer running. Only where `/proc`
/// tells which processes run (Linux); elsewhere they stay.
pub fn remove_stale_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|s| s.to_str())) else {
        return;
    };
    if !Path::new("/proc/self").exists() {
        return;
    }
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}.tmp");
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A 64-bit checksum of `parts` (four multiply-rotate lanes over 8-byte words, then mixed), fast
/// enough to check a file of hundreds of megabytes in a fraction of a second. Where a part ends
/// counts: each part's tail is padded and mixed with its length.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    let mut c = Checksum::new();
    for part in parts {
        c.update(part);
    }
    c.finish()
}

/// [`checksum`] taken one part at a time.
#[derive(Clone, Debug)]
pub struct Checksum {
    lanes: [u64; 4],
    total: u64,
}

const P: [u64; 4] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0xD6E8_FEB8_6659_FD93,
];

impl Checksum {
    /// The checksum of no parts yet.
    pub fn new() -> Checksum {
        Checksum {
            lanes: [1, 2, 3, 4],
            total: 0,
        }
    }

    /// Adds one part.
    pub fn update(&mut self, part: &[u8]) {
        self.total += part.len() as u64;
        let mut chunks = part.chunks_exact(32);
        for c in &mut chunks {
            for (k, lane) in self.lanes.iter_mut().enumerate() {
                let w = u64::from_le_bytes(c[8 * k..8 * k + 8].try_into().expect("8 bytes"));
                *lane = (*lane ^ w).wrapping_mul(P[k]).rotate_left(31);
            }
        }
        let mut tail = [0u8; 32];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(tail[8 * k..8 * k + 8].try_into().expect("8 bytes"));
            *lane = (*lane ^ w ^ rest.len() as u64)
                .wrapping_mul(P[k])
                .rotate_left(31);
        }
    }

    /// The checksum of the parts added.
    pub fn finish(&self) -> u64 {
        let mut h = self.total;
        for (k, lane) in self.lanes.iter().enumerate() {
            h = (h ^ lane).wrapping_mul(P[(k + 1) % 4]).rotate_left(27);
        }
        h ^ (h >> 32)
    }
}

impl Default for Checksum {
    fn default() -> Checksum {
        Checksum::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("kalaha-files-{}", std::process::id()));
        let path = dir.join("x.json");
        write_bytes(&path, b"old").unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert!(!temp_path(&path, std::process::id()).exists());
        // A temporary file of a process that is gone is removed by the next write.
        let stale = temp_path(&path, u32::MAX - 1);
        std::fs::write(&stale, b"left behind").unwrap();
        write_bytes(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert!(!stale.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
