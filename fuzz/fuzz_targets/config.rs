//! The training config with `--set` overrides (what `kalaha train --config F --set K=V` and
//! Python's `train_config` read): the first line of the input is the overrides, `;`-separated,
//! the rest the TOML; it reads to a checked config (or recipe) or an error, never a panic.
#![no_main]

use kalaha::train::{Recipe, TrainConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = kalaha_fuzz::text(data);
    let (sets, toml) = text.split_once('\n').unwrap_or(("", &text));
    let sets: Vec<String> = sets
        .split(';')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    if let Ok(cfg) = TrainConfig::parse(toml, &sets) {
        // A checked config's time limits are in range (they once panicked at 1e30).
        let _ = cfg.judge_time_limit();
        let _ = cfg.label_time_limit();
        let _ = cfg.rules();
    }
    let _ = Recipe::parse(toml, &sets, "fuzz.toml");
});
