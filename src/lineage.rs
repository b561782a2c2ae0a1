//! Release identity and lineage: what a released network's sidecar (`meta.json`, its `release`
//! object) says of where the network came from, and the checks that it still says the truth.
//!
//! A release id is `NAME-YYYYMMDD-HASH8`: the network's folder name, the day it was released and
//! the first eight hex digits of the SHA-256 of its weights file. The card also names the recipe
//! it was trained with (the config file and that file's hash, its stages, their training time and
//! the commits of the binaries that ran them), its parent release (id and weights hash) where it
//! started from one, and its judged figures. A card whose weights hash or parent does not check
//! out is reported by [`verify`], never trusted silently.
//!
//! Std, serde and sha2 only: no network code, so the fast build (`--no-default-features`) lists
//! and checks released networks too.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The commit of the source this binary was built from (`git rev-parse --short=12 HEAD` at build
/// time, `+dirty` where tracked files had uncommitted changes then), or `unknown` outside git.
pub const COMMIT: &str = env!("KALAHA_COMMIT");

/// The `release` object of a released network's sidecar.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseCard {
    /// `NAME-YYYYMMDD-HASH8`, immutable: a new release of the same name gets a new id.
    pub id: String,
    /// The folder name it was released under (`kalah64`).
    pub name: String,
    /// The day of the release, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// SHA-256 of the weights file, hex.
    pub weights_sha256: String,
    /// Whether `recipe` rebuilds it from its parent (or from nothing): false for a network whose
    /// history is written down in `history` but cannot be replayed from the repository.
    pub rebuildable: bool,
    /// The recipe it was trained with, where one made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<RecipeRecord>,
    /// The release it started from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentRef>,
    /// Training wall-clock seconds of its own recipe (all stages, all sittings).
    pub training_seconds: f64,
    /// Training seconds with the parents' (where their cards say).
    pub lineage_seconds: f64,
    /// The commit of the binary that ran its last stage (see [`COMMIT`]).
    pub commit: String,
    /// Its figures at the end of training, as judged then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
    /// Where the network is not rebuildable: its true history, oldest first, one line a stage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<String>,
}

/// The recipe of a release: the config file and the stages it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecipeRecord {
    /// The config file, as given to `kalaha train --config` (relative to the repository root).
    pub config: String,
    /// SHA-256 of that file's text when it ran.
    pub config_sha256: String,
    /// `--set` overrides given on the command line (none for a recipe as shipped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<String>,
    /// The stages, in order.
    pub stages: Vec<StageRecord>,
}

/// One stage of a recipe as it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageRecord {
    /// The stage's name in the config.
    pub name: String,
    /// Iterations it ran.
    pub iterations: u32,
    /// Its training wall-clock seconds, summed over sittings.
    pub seconds: f64,
    /// The commits of the binaries of its sittings, in order, without repeats.
    pub commits: Vec<String>,
}

/// The parent release a network started from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParentRef {
    /// Its release id.
    pub id: String,
    /// SHA-256 of its weights.
    pub weights_sha256: String,
}

/// The figures a network was judged by when it was released (the network alone, best move).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judged {
    /// Iteration of its last stage they were taken at.
    pub iteration: u32,
    /// Share of solver-optimal moves on the judge set, if judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_optimal: Option<f64>,
    /// Standard error of `judge_optimal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_stderr: Option<f64>,
    /// Positions of the judge set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_positions: Option<usize>,
    /// Share of optimal moves on each held-out set, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heldout: Vec<(String, f64)>,
}

/// SHA-256 of a byte string, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of a file's contents, lower-case hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The release id of network `name` released on `date` (`YYYY-MM-DD`) with weights of hash
/// `sha256`.
pub fn release_id(name: &str, date: &str, sha256: &str) -> String {
    format!(
        "{name}-{}-{}",
        date.replace('-', ""),
        &sha256[..8.min(sha256.len())]
    )
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date(secs / 86_400)
}

/// The date `days` days after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A released network as its sidecar describes it: the folder, its weights file and its card.
#[derive(Clone, Debug)]
pub struct Released {
    /// Its folder.
    pub dir: PathBuf,
    /// Its weights file, in `dir`.
    pub model_file: String,
    /// Its `release` object, if the sidecar has one.
    pub card: Option<ReleaseCard>,
}

/// Why a sidecar cannot be read for its release card.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The sidecar is missing or unreadable.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The sidecar.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The sidecar is not a checkpoint sidecar, or its `release` object is malformed.
    #[error("{path}: {why}")]
    Malformed {
        /// The sidecar.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// Reads the release card (and weights file name) of the checkpoint in `dir`.
pub fn read(dir: &Path) -> Result<Released, ReadError> {
    let path = dir.join("meta.json");
    let text = std::fs::read_to_string(&path).map_err(|source| ReadError::Io {
        path: path.clone(),
        source,
    })?;
    let malformed = |why: String| ReadError::Malformed {
        path: path.clone(),
        why,
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| malformed(format!("not JSON: {e}")))?;
    let model_file = v["files"]["model"]
        .as_str()
        .ok_or_else(|| malformed("names no weights file (files.model)".into()))?
        .to_string();
    let card = match v.get("release") {
        None | Some(serde_json::Value::Null) => None,
        Some(r) => Some(
            serde_json::from_value(r.clone())
                .map_err(|e| malformed(format!("bad release object: {e}")))?,
        ),
    };
    Ok(Released {
        dir: dir.to_path_buf(),
        model_file,
        card,
    })
}

/// What [`verify`] found of a released network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "detail")]
pub enum Trust {
    /// Its weights hash to the card's hash and its id matches; its parent, where named, is
    /// present with the same hash or absent.
    Verified,
    /// The sidecar has no release card (a run's checkpoint, or a network released before ids).
    Unreleased,
    /// Something does not check out: the card is not to be trusted.
    Mismatch(String),
}

impl Trust {
    /// Whether the card checked out.
    pub fn is_verified(&self) -> bool {
        *self == Trust::Verified
    }
}

impl fmt::Display for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trust::Verified => f.write_str("verified"),
            Trust::Unreleased => f.write_str("no release card"),
            Trust::Mismatch(why) => write!(f, "NOT TRUSTED: {why}"),
        }
    }
}

/// What [`verify`] found of a parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParentCheck {
    /// No parent named.
    None,
    /// Found among the released networks with the same weights hash.
    Present,
    /// Not among the released networks searched (a superseded release).
    Absent,
}

/// Checks a released network: its weights against the card's hash, the id against its name,
/// date and hash, and its parent (if named) against a release of that id among `roots`' folders.
pub fn verify(r: &Released, roots: &[PathBuf]) -> (Trust, ParentCheck) {
    verify_at(r, roots, 0)
}

fn verify_at(r: &Released, roots: &[PathBuf], depth: usize) -> (Trust, ParentCheck) {
    let Some(card) = &r.card else {
        return (Trust::Unreleased, ParentCheck::None);
    };
    let weights = r.dir.join(&r.model_file);
    let sha = match sha256_file(&weights) {
        Ok(s) => s,
        Err(e) => {
            return (
                Trust::Mismatch(format!("cannot read {}: {e}", weights.display())),
                ParentCheck::None,
            );
        }
    };
    if sha != card.weights_sha256 {
        return (
            Trust::Mismatch(format!(
                "{} hashes to {}, the card says {}",
                weights.display(),
                &sha[..12],
                &card.weights_sha256[..12.min(card.weights_sha256.len())]
            )),
            ParentCheck::None,
        );
    }
    let folder = r.dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if folder.as_deref().is_some_and(|f| f != card.name) {
        return (
            Trust::Mismatch(format!(
                "released as {}, found in the folder {}",
                card.name,
                r.dir.display()
            )),
            ParentCheck::None,
        );
    }
    if card.id != release_id(&card.name, &card.date, &sha) {
        return (
            Trust::Mismatch(format!(
                "id {} is not NAME-DATE-HASH8 of its card ({})",
                card.id,
                release_id(&card.name, &card.date, &sha)
            )),
            ParentCheck::None,
        );
    }
    let Some(parent) = &card.parent else {
        return (Trust::Verified, ParentCheck::None);
    };
    let Some(p) = find(&parent.id, roots) else {
        return (Trust::Verified, ParentCheck::Absent);
    };
    let names_other = p
        .card
        .as_ref()
        .is_none_or(|pc| pc.weights_sha256 != parent.weights_sha256);
    if names_other {
        return (
            Trust::Mismatch(format!(
                "its parent {} in {} does not have the weights it names",
                parent.id,
                p.dir.display()
            )),
            ParentCheck::Present,
        );
    }
    // The parent's own card must check out too (a chain is as good as its links; ids hold their
    // weights' hash, so cards cannot name each other in a loop without a mismatch).
    if depth < 32
        && let (Trust::Mismatch(why), _) = verify_at(&p, roots, depth + 1)
    {
        return (
            Trust::Mismatch(format!("its parent {}: {why}", parent.id)),
            ParentCheck::Present,
        );
    }
    (Trust::Verified, ParentCheck::Present)
}

/// The released networks in `roots` (each root's sub-folders with a readable sidecar, by name).
pub fn released_in(roots: &[PathBuf]) -> Vec<Released> {
    let mut out = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("meta.json").is_file())
            .collect();
        dirs.sort();
        out.extend(dirs.iter().filter_map(|d| read(d).ok()));
    }
    out
}

/// The released network of id `id` among `roots`' folders (its card's id; the weights are not
/// hashed here: [`verify`] does that).
pub fn find(id: &str, roots: &[PathBuf]) -> Option<Released> {
    released_in(roots)
        .into_iter()
        .find(|r| r.card.as_ref().is_some_and(|c| c.id == id))
}

/// Why a parent release named by id cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ParentError {
    /// No released network has that id.
    #[error("no released network has the id {id} (searched {searched}; released there: {found})")]
    NotFound {
        /// The id asked for.
        id: String,
        /// The folders searched.
        searched: String,
        /// The ids found.
        found: String,
    },
    /// It is there, but does not check out.
    #[error("the release {id} in {dir} is not to be trusted: {why}")]
    Untrusted {
        /// The id.
        id: String,
        /// Its folder.
        dir: PathBuf,
        /// Why.
        why: String,
    },
}

/// The folder of the verified release `id` among `roots`, as a training start (`run.parent`).
pub fn resolve_parent(id: &str, roots: &[PathBuf]) -> Result<(PathBuf, ReleaseCard), ParentError> {
    let Some(r) = find(id, roots) else {
        let found: Vec<String> = released_in(roots)
            .into_iter()
            .filter_map(|r| r.card.map(|c| c.id))
            .collect();
        return Err(ParentError::NotFound {
            id: id.to_string(),
            searched: roots
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            found: if found.is_empty() {
                "none".into()
            } else {
                found.join(", ")
            },
        });
    };
    match verify(&r, roots) {
        (Trust::Verified, _) => Ok((r.dir, r.card.expect("verified cards exist"))),
        (t, _) => Err(ParentError::Untrusted {
            id: id.to_string(),
            dir: r.dir,
            why: t.to_string(),
        }),
    }
}

/// A released network's id for a person, where its sidecar has a release card: the id, followed
/// by why it is not trusted where it does not check out; `None` without a card.
pub fn id_note(dir: &Path) -> Option<String> {
    note(&read(dir).ok()?)
}

/// [`id_note`] of a sidecar already read.
fn note(r: &Released) -> Option<String> {
    let card = r.card.as_ref()?;
    Some(match verify(r, &[]).0 {
        Trust::Verified => card.id.clone(),
        t => format!("{} ({t})", card.id),
    })
}

/// One line naming a released network for a person: its id and whether it checks out, or why
/// it has no id.
pub fn describe(dir: &Path) -> String {
    match read(dir) {
        Ok(r) => note(&r).unwrap_or_else(|| format!("{} (no release id)", dir.display())),
        Err(e) => format!("{} ({e})", dir.display()),
    }
}

/// Whether `name` may name a released network's or a recipe stage's folder: letters, digits,
/// `-` and `_`, at least one.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_ids() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_723), "2024-01-01");
        assert_eq!(civil_date(20_793), "2026-12-06");
        assert_eq!(civil_date(11_016), "2000-02-29");
        let sha = sha256_hex(b"abc");
        assert_eq!(
            sha,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            release_id("kalah64", "2026-12-06", &sha),
            "kalah64-20261206-ba7816bf"
        );
    }

    fn card(dir: &Path, name: &str, weights: &[u8], parent: Option<ParentRef>) -> ReleaseCard {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("model-000001.bpk"), weights).unwrap();
        let sha = sha256_hex(weights);
        let c = ReleaseCard {
            id: release_id(name, "2026-12-06", &sha),
            name: name.into(),
            date: "2026-12-06".into(),
            weights_sha256: sha,
            rebuildable: true,
            recipe: None,
            parent,
            training_seconds: 1.0,
            lineage_seconds: 1.0,
            commit: "abc".into(),
            judged: None,
            history: vec![],
        };
        let meta = serde_json::json!({"files": {"model": "model-000001.bpk"}, "release": c});
        std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
        c
    }

    #[test]
    fn verify_reports_changed_weights_and_parents() {
        let root = std::env::temp_dir().join(format!("kalaha-lineage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let roots = vec![root.clone()];
        let a = card(&root.join("a"), "a", b"weights a", None);
        let child = ParentRef {
            id: a.id.clone(),
            weights_sha256: a.weights_sha256.clone(),
        };
        card(&root.join("b"), "b", b"weights b", Some(child.clone()));
        let b = read(&root.join("b")).unwrap();
        assert_eq!(verify(&b, &roots), (Trust::Verified, ParentCheck::Present));
        assert_eq!(resolve_parent(&a.id, &roots).unwrap().0, root.join("a"));
        // The parent's weights change under it: the child is not trusted, nor is the parent.
        std::fs::write(root.join("a/model-000001.bpk"), b"other").unwrap();
        assert!(matches!(
            verify(&read(&root.join("a")).unwrap(), &roots).0,
            Trust::Mismatch(_)
        ));
        assert!(matches!(verify(&b, &roots).0, Trust::Mismatch(_)));
        assert!(matches!(
            resolve_parent(&a.id, &roots),
            Err(ParentError::Untrusted { .. })
        ));
        // A parent named with other weights than the release of its id has.
        std::fs::write(root.join("a/model-000001.bpk"), b"weights a").unwrap();
        let wrong = ParentRef {
            weights_sha256: "00".repeat(32),
            ..child
        };
        card(&root.join("c"), "c", b"weights c", Some(wrong));
        assert!(matches!(
            verify(&read(&root.join("c")).unwrap(), &roots).0,
            Trust::Mismatch(_)
        ));
        // A parent no longer released is absent, not an error.
        std::fs::remove_dir_all(root.join("a")).unwrap();
        assert_eq!(verify(&b, &roots), (Trust::Verified, ParentCheck::Absent));
        assert!(matches!(
            resolve_parent(&a.id, &roots),
            Err(ParentError::NotFound { .. })
        ));
        let _ = std::fs::remove_dir_all(&root);
    }
}
