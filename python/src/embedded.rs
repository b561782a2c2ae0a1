//! The released networks and committed judge sets built into the extension (`build.rs`),
//! written once into the solver's cache folder so that the library reads them as files.

use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::Context;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The cache folder (`$KALAHA_CACHE`, else `~/.cache/kalaha`), or an error saying how to set one.
pub fn cache_dir() -> anyhow::Result<PathBuf> {
    kalaha::solver::default_cache_dir().context(
        "no cache folder for the package's networks and judge sets (set KALAHA_CACHE or HOME)",
    )
}

/// The folder holding the embedded files (`networks/<name>/`, `judge/`), written there on first
/// use (each file to a temporary name, then renamed); one folder per build's files.
pub fn dir() -> anyhow::Result<PathBuf> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| extract().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(anyhow::Error::msg)
}

fn extract() -> anyhow::Result<PathBuf> {
    let dir = cache_dir()?.join(format!("python-{CHECKSUM:016x}"));
    for (rel, bytes) in FILES {
        let path = dir.join(rel);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
            continue;
        }
        let parent = path.parent().expect("embedded files lie in folders");
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        kalaha::files::write_atomic(&path, |w| std::io::Write::write_all(w, bytes))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(dir)
}

/// Where `policy:auto` and `Network.load("auto")` look: the package's own networks first (so
/// that a `checkpoints/` folder in the working directory, damaged or not, does not shadow
/// them), then the library's folders ([`kalaha::nn::model::checkpoint_roots`]) for rules the
/// package ships no network for. A network of other rules is given by its path.
pub fn checkpoint_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Ok(d) = dir() {
        roots.push(d.join("networks"));
    }
    roots.extend(kalaha::nn::model::checkpoint_roots());
    roots
}
