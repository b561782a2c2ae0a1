//! Embeds the commit this binary is built from (`KALAHA_COMMIT`, read by `lineage::COMMIT`), so
//! that a training run and the network it releases name the code that made them.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}+dirty") } else { c }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=KALAHA_COMMIT={commit}");
    // A new commit (HEAD moves, or the branch it names does) or a change to the index rebuilds
    // the stamp; edits that are never staged do not (the stamp says "+dirty" as of the build).
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        for f in ["HEAD", "index", "packed-refs"] {
            println!("cargo:rerun-if-changed={git_dir}/{f}");
        }
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={git_dir}/{head}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
