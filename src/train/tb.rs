//! A TensorBoard scalar log that can never take the run down.
//!
//! tensorboard-rs panics on any I/O error and in many of its functions, and two writers opened in
//! the same second in one folder write the same file name. So this wrapper uses only scalars, opens
//! each writer in its own fresh sub-folder, and catches every panic: after the first one the log
//! is switched off with a warning and training goes on.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use tensorboard_rs::summary_writer::SummaryWriter;

/// Scalar logger over one TensorBoard event file.
pub struct TbLog {
    writer: Option<SummaryWriter>,
    dir: PathBuf,
}

static OPENED: AtomicU64 = AtomicU64::new(0);

impl TbLog {
    /// Opens a new event file in a fresh sub-folder of `parent` (named by time, process and a
    /// counter, so no two writers share one).
    pub fn open(parent: &Path) -> TbLog {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        let n = OPENED.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("tb-{stamp}-{}-{n}", std::process::id()));
        let writer = std::fs::create_dir_all(&dir)
            .ok()
            .and_then(|_| catch_unwind(|| SummaryWriter::new(&dir)).ok());
        if writer.is_none() {
            eprintln!(
                "kalaha: warning: cannot open a TensorBoard log in {}; logging is off",
                dir.display()
            );
        }
        TbLog { writer, dir }
    }

    /// The folder of this log's event file.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `f` on the writer; a panic switches the log off.
    fn with(&mut self, f: impl FnOnce(&mut SummaryWriter)) {
        if let Some(w) = self.writer.as_mut()
            && catch_unwind(AssertUnwindSafe(|| f(w))).is_err()
        {
            eprintln!(
                "kalaha: warning: TensorBoard log {} failed; logging is off",
                self.dir.display()
            );
            // The writer may be broken: forget it rather than run its (panicking) drop.
            std::mem::forget(self.writer.take());
        }
    }

    /// Logs one scalar (non-finite values are skipped).
    pub fn scalar(&mut self, tag: &str, value: f64, step: u64) {
        if value.is_finite() {
            self.with(|w| w.add_scalar(tag, value as f32, step as usize));
        }
    }

    /// Writes what is buffered to disk.
    pub fn flush(&mut self) {
        self.with(|w| w.flush());
    }
}

impl Drop for TbLog {
    fn drop(&mut self) {
        if let Some(w) = self.writer.take()
            && catch_unwind(AssertUnwindSafe(move || drop(w))).is_err()
        {
            eprintln!(
                "kalaha: warning: closing TensorBoard log {} failed",
                self.dir.display()
            );
        }
    }
}

/// Scalar events read back from an event file: `(tag, step, value)`. Checks the TFRecord framing
/// (length, its CRC, data, data CRC) and decodes just enough protobuf to find scalar summaries.
pub fn read_scalars(path: &Path) -> anyhow::Result<Vec<(String, i64, f32)>> {
    let bytes = std::fs::read(path)?;
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        anyhow::ensure!(
            at + 12 <= bytes.len(),
            "truncated record header at byte {at}"
        );
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into()?) as usize;
        let len_crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into()?);
        anyhow::ensure!(
            masked_crc(&bytes[at..at + 8]) == len_crc,
            "bad length checksum at byte {at}"
        );
        let data_at = at + 12;
        anyhow::ensure!(
            data_at + len + 4 <= bytes.len(),
            "truncated record at byte {at}"
        );
        let data = &bytes[data_at..data_at + len];
        let crc = u32::from_le_bytes(bytes[data_at + len..data_at + len + 4].try_into()?);
        anyhow::ensure!(masked_crc(data) == crc, "bad data checksum at byte {at}");
        parse_event(data, &mut out);
        at = data_at + len + 4;
    }
    Ok(out)
}

fn masked_crc(data: &[u8]) -> u32 {
    // CRC-32C (Castagnoli), bitwise; files here are small.
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    let crc = !crc;
    (crc.rotate_right(15)).wrapping_add(0xa282_ead8)
}

/// Protobuf fields of one message: (field number, wire type, varint value or bytes).
fn fields(mut b: &[u8]) -> Vec<(u64, u8, u64, &[u8])> {
    fn varint(b: &mut &[u8]) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&x, rest) = b.split_first()?;
            *b = rest;
            v |= ((x & 0x7f) as u64) << shift;
            if x & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let Some(key) = varint(&mut b) else { break };
        let (num, wire) = (key >> 3, (key & 7) as u8);
        match wire {
            0 => match varint(&mut b) {
                Some(v) => out.push((num, 0, v, &b[..0])),
                None => break,
            },
            1 if b.len() >= 8 => {
                out.push((
                    num,
                    1,
                    u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
                    &b[..0],
                ));
                b = &b[8..];
            }
            2 => {
                let Some(len) = varint(&mut b) else { break };
                let len = len as usize;
                if len > b.len() {
                    break;
                }
                out.push((num, 2, 0, &b[..len]));
                b = &b[len..];
            }
            5 if b.len() >= 4 => {
                out.push((
                    num,
                    5,
                    u32::from_le_bytes(b[..4].try_into().expect("4 bytes")) as u64,
                    &b[..0],
                ));
                b = &b[4..];
            }
            _ => break,
        }
    }
    out
}

/// Event { step = 2; summary = 5 { value = 1 { tag = 1; simple_value = 2 } } }.
fn parse_event(data: &[u8], out: &mut Vec<(String, i64, f32)>) {
    let ev = fields(data);
    let step = ev
        .iter()
        .find(|f| f.0 == 2 && f.1 == 0)
        .map(|f| f.2 as i64)
        .unwrap_or(0);
    for summary in ev.iter().filter(|f| f.0 == 5 && f.1 == 2) {
        for value in fields(summary.3).iter().filter(|f| f.0 == 1 && f.1 == 2) {
            let vf = fields(value.3);
            let tag = vf
                .iter()
                .find(|f| f.0 == 1 && f.1 == 2)
                .map(|f| String::from_utf8_lossy(f.3).into_owned());
            let simple = vf
                .iter()
                .find(|f| f.0 == 2 && f.1 == 5)
                .map(|f| f32::from_bits(f.2 as u32));
            if let (Some(tag), Some(v)) = (tag, simple) {
                out.push((tag, step, v));
            }
        }
    }
}

/// The event files under a folder (recursively).
pub fn event_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(event_files(&p));
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("events.out.tfevents"))
        {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_round_trip_and_two_logs_do_not_collide() {
        let dir = std::env::temp_dir().join(format!("kalaha-tb-{}", std::process::id()));
        {
            let mut a = TbLog::open(&dir);
            let mut b = TbLog::open(&dir);
            a.scalar("loss/policy", 1.5, 3);
            b.scalar("loss/value", 0.25, 4);
            a.flush();
            b.flush();
        }
        let files = event_files(&dir);
        assert_eq!(files.len(), 2);
        let all: Vec<_> = files
            .iter()
            .flat_map(|f| read_scalars(f).unwrap())
            .collect();
        assert!(all.contains(&("loss/policy".to_string(), 3, 1.5)));
        assert!(all.contains(&("loss/value".to_string(), 4, 0.25)));
        std::fs::remove_dir_all(&dir).ok();
    }
}
