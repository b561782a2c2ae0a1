//! The files training and judging read from the cache and checkpoints: the judge set's cache
//! (its file name, which says its size and time limit, and its JSON) and the label file (JSON
//! lines of solved positions). The first byte picks the rules and the reader; any name or
//! contents are read or refused, never a panic (a name of `-t1e30` once panicked).
#![no_main]

use std::collections::HashSet;

use kalaha::eval::judge::{JUDGE_SEED, JudgeSet, cached_positions, cached_settings};
use kalaha::rules::Rules;
use kalaha::train::label_file::LabelFile;
use libfuzzer_sys::fuzz_target;

/// The judge cache's file-name prefix of `rules` (as the cache writes it).
fn prefix(rules: &Rules) -> String {
    let s = rules.spec();
    format!(
        "judge2-{}x{}-{:?}-{:?}-{:?}-pie{}",
        s.pits, s.seeds, s.capture, s.leftover, s.end, s.pie
    )
    .to_lowercase()
}

fuzz_target!(|data: &[u8]| {
    let [a, b, c, rest @ ..] = data else {
        return;
    };
    let Some(rules) = kalaha_fuzz::rules(*a, *b) else {
        return;
    };
    let text = kalaha_fuzz::text(rest);
    match c % 3 {
        0 => {
            // A file name: the settings part after the rules' prefix.
            let name: String = text
                .chars()
                .take(64)
                .filter(|c| *c != '/' && *c != '\0')
                .collect();
            let dir = kalaha_fuzz::scratch_dir("judge-names");
            let _ = std::fs::write(dir.join(format!("{}-{name}.json", prefix(&rules))), "{}");
            let _ = cached_settings(&rules, &dir);
            let _ = cached_positions(&rules, &dir);
        }
        1 => {
            // A judge set's JSON under the name the cache reads (never a missing file: that
            // would draw and solve a set).
            let n = 1 + usize::from(c >> 2);
            let dir = kalaha_fuzz::scratch_dir("judge-json");
            let name = format!("{}-{n}-{JUDGE_SEED}.json", prefix(&rules));
            std::fs::write(dir.join(&name), text.as_bytes()).unwrap();
            assert_eq!(cached_settings(&rules, &dir), Some((n, None)), "{name}");
            let _ = JudgeSet::load_or_build(&rules, n, JUDGE_SEED, &dir, None);
            let _ = cached_positions(&rules, &dir);
        }
        _ => {
            let path = kalaha_fuzz::scratch("labels.jsonl", text.as_bytes());
            let exclude: HashSet<String> = HashSet::new();
            let _ = LabelFile::load(&path, &rules, u64::from(c >> 2), &exclude);
        }
    }
});
