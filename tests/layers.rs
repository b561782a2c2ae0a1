//! The library's layers: a module may use only the modules below it (the order of `src/lib.rs`'s
//! text). A new upward `crate::` path in code (comments aside) fails this test, naming the file.

use std::path::Path;

/// Bottom to top.
const LAYERS: &[&str] = &[
    "files", "lineage", "rules", "bench", "env", "solver", "search", "nn", "bots", "eval", "train",
    "play", "serve", "cli",
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The modules a file names as `crate::MODULE`, outside comments.
fn uses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + 7..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut bad = Vec::new();
    for (level, module) in LAYERS.iter().enumerate() {
        let mut fs = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            files(&dir, &mut fs);
        }
        let file = src.join(format!("{module}.rs"));
        if file.is_file() {
            fs.push(file);
        }
        assert!(!fs.is_empty(), "module {module} has no source");
        for f in fs {
            let text = std::fs::read_to_string(&f).unwrap();
            for used in uses(&text) {
                match LAYERS.iter().position(|m| *m == used) {
                    Some(l) if l > level => bad.push(format!(
                        "{} uses crate::{used} (layer {l}, above {module}'s {level})",
                        f.strip_prefix(&src).unwrap().display()
                    )),
                    Some(_) => {}
                    None => bad.push(format!(
                        "{} uses crate::{used}, a module missing from the layer list",
                        f.display()
                    )),
                }
            }
        }
    }
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn every_module_of_lib_rs_has_a_layer_and_the_docs_name_them_in_order() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(m) = line.strip_prefix("pub mod ") {
            let m = m.trim_end_matches(';');
            assert!(
                LAYERS.contains(&m),
                "src/lib.rs declares {m}, which has no layer here"
            );
        }
    }
    // The numbered list of the crate docs: each item names its modules in backticks before the
    // first colon.
    let mut named = Vec::new();
    for line in lib.lines() {
        let Some(item) = line.strip_prefix("//! ") else {
            continue;
        };
        let Some((num, rest)) = item.split_once(". ") else {
            continue;
        };
        if num.parse::<u32>().is_err() {
            continue;
        }
        let head = rest
            .split(':')
            .next()
            .unwrap_or("")
            .replace("(feature `train`)", "");
        for part in head.split('`').skip(1).step_by(2) {
            named.push(part.to_string());
        }
    }
    assert_eq!(
        named, LAYERS,
        "src/lib.rs's docs list the layers in another order"
    );
}
