//! Embeds the released networks (every folder `checkpoints/<name>/` but `judge/` and `runs/`
//! whose sidecar names its weights alone: `checkpoints/README.md`) and the committed judge sets (`checkpoints/judge/judge2-*.json`) into the extension, so that `policy:auto`,
//! `Network.load("auto")` and `kalaha.judge` work wherever the package is installed. Writes
//! `$OUT_DIR/embedded.rs`: the files with a checksum of them all.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Folders of `checkpoints/` that hold no released networks (as `kalaha::nn::model::NOT_NETWORKS`).
const NOT_NETWORKS: &[&str] = &["judge", "labels", "runs"];

/// FNV-1a over `bytes`, continuing from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The text of the `"files"` object in a sidecar's text (the last: the sidecar writes it last).
fn sidecar_files(meta: &str) -> Option<&str> {
    let at = meta.rfind("\"files\"")?;
    let rest = &meta[at..];
    Some(&rest[..rest.find('}')?])
}

/// The value of `"model": "..."` in a sidecar's `files`.
fn model_file(files: &str) -> Option<String> {
    let at = files.find("\"model\"")?;
    let rest = &files[at + 7..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}

/// Whether a sidecar's `files` name the weights alone: `"optim"` and `"state"` absent or null.
fn released(files: &str) -> bool {
    ["\"optim\"", "\"state\""].iter().all(|key| {
        files.find(key).is_none_or(|at| {
            let rest = files[at + key.len()..].trim_start();
            rest.strip_prefix(':')
                .is_some_and(|v| v.trim_start().starts_with("null"))
        })
    })
}

/// The released networks in `root`, sorted by name: their names and sidecars' text.
fn released_networks(root: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if NOT_NETWORKS.contains(&name.as_str()) {
            continue;
        }
        let meta = entry.path().join("meta.json");
        let Ok(text) = std::fs::read_to_string(&meta) else {
            continue;
        };
        // Not a run's sidecar (a run left beside the networks): it changes at every checkpoint.
        if sidecar_files(&text).is_some_and(released) {
            println!("cargo:rerun-if-changed={}", meta.display());
            found.push((name, text));
        }
    }
    found.sort();
    found
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("checkpoints");
    // Not `checkpoints/` itself: cargo would scan it whole, run output (`runs/`) included, and
    // build again at every checkpoint of a run. Each network's files are watched; a new one is
    // seen once checkpoints/README.md, which lists the networks, changes (or on a clean build).
    println!(
        "cargo:rerun-if-changed={}",
        root.join("README.md").display()
    );
    let networks = released_networks(&root);
    if networks.is_empty() {
        println!("cargo:warning=no released networks in {}", root.display());
    }
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for (name, text) in networks {
        let dir = root.join(&name);
        let meta = dir.join("meta.json");
        let Some(model) = sidecar_files(&text).and_then(model_file) else {
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
