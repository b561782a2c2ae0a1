//! Helpers the fuzz targets share: rules from a byte, a scratch file per process, and the
//! checksum fix-up that lets the fuzzer past a file's checksum into the reader behind it.

use std::path::PathBuf;

use kalaha::rules::{Capture, End, Leftover, RuleChoices, Rules};

/// Rules from two bytes: pits 1-15 (the low nibble of `a`, 0 read as 1), seeds 1-16 (its high
/// nibble plus one; a board past 255 seeds is refused by the rules and gives `None`), and the
/// capture, leftover, end and pie options from `b`. Kalah(6,4) is `a = 0x36`, `b = 0`.
pub fn rules(a: u8, b: u8) -> Option<Rules> {
    let pick = |n: u8, all: usize| n as usize % all;
    RuleChoices::<String> {
        pits: Some(u32::from(a & 15).max(1)),
        seeds: Some(u32::from(a >> 4) + 1),
        capture: Some(Capture::ALL[pick(b, Capture::ALL.len())].name().into()),
        leftover: Some(
            Leftover::ALL[pick(b >> 2, Leftover::ALL.len())]
                .name()
                .into(),
        ),
        end: Some(End::ALL[pick(b >> 4, End::ALL.len())].name().into()),
        pie: Some(b & 0x80 != 0),
        ..RuleChoices::default()
    }
    .build()
    .ok()
}

/// Small rules (pits 1-3, seeds 1-4) for the targets that build a solver or a database.
pub fn small_rules(a: u8, b: u8) -> Option<Rules> {
    rules((a % 4) | ((a >> 4) % 4) << 4, b)
}

/// A scratch file of this process, named `name`, holding `bytes`.
pub fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kalaha-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("a scratch file");
    path
}

/// A scratch folder of this process, named `name`, emptied.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("kalaha-fuzz-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// `bytes` with its last 8 bytes replaced by the checksum of the rest (the framing of
/// `kalaha::env::state`: run states, self-play batches, saved environments).
pub fn framed(bytes: &[u8]) -> Vec<u8> {
    if bytes.len() < 8 {
        return bytes.to_vec();
    }
    let body = &bytes[..bytes.len() - 8];
    let mut out = body.to_vec();
    out.extend_from_slice(&kalaha::files::checksum(&[body]).to_le_bytes());
    out
}

/// Text from bytes, lossily (the readers take text).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
