//! Embeds the released networks (`checkpoints/<name>/`: sidecar and weights) and the committed
//! judge sets (`checkpoints/judge/judge2-*.json`) into the extension, so that `policy:auto`,
//! `Network.load("auto")` and `kalaha.judge` work wherever the package is installed. Writes
//! `$OUT_DIR/embedded.rs`: the files with a checksum of them all.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The released networks: one per rule set of the guides (their folders' names).
const RELEASED: &[&str] = &[
    "kalah64",
    "kalah64-pie",
    "children",
    "swedish",
    "danish",
    "norwegian",
];

/// FNV-1a over `bytes`, continuing from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The value of `"model": "..."` in a sidecar's text.
fn model_file(meta: &str) -> Option<String> {
    let at = meta.find("\"model\"")?;
    let rest = &meta[at + 7..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("checkpoints");
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for name in RELEASED {
        let dir = root.join(name);
        let meta = dir.join("meta.json");
        println!("cargo:rerun-if-changed={}", meta.display());
        let Ok(text) = std::fs::read_to_string(&meta) else {
            println!(
                "cargo:warning=released network {name} is missing ({})",
                meta.display()
            );
            continue;
        };
        let Some(model) = model_file(&text) else {
            println!("cargo:warning={} names no weights file", meta.display());
            continue;
        };
        let weights = dir.join(&model);
        println!("cargo:rerun-if-changed={}", weights.display());
        files.push((format!("networks/{name}/meta.json"), meta));
        files.push((format!("networks/{name}/{model}"), weights));
    }
    let judge = root.join("judge");
    println!("cargo:rerun-if-changed={}", judge.display());
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&judge)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    sets.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("judge2-") && n.ends_with(".json"))
    });
    sets.sort();
    for p in sets {
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        files.push((format!("judge/{name}"), p));
    }
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut src = String::from(
        "/// Embedded files: (path under the embedded folder, contents).\npub static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (rel, path) in &files {
        let bytes = std::fs::read(path).expect("readable embedded file");
        hash = fnv(fnv(hash, rel.as_bytes()), &bytes);
        let abs = path.canonicalize().expect("an existing file");
        writeln!(
            src,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    src.push_str("];\n");
    writeln!(
        src,
        "/// Checksum of every embedded path and file.\npub const CHECKSUM: u64 = {hash:#x};"
    )
    .unwrap();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("embedded.rs");
    std::fs::write(out, src).expect("OUT_DIR is writable");
}
