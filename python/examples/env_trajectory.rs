//! Writes the reference trajectories `python/tests/data/env_trajectories.json` that the Python
//! tests replay: the library's own `VecEnv`, stepped with actions picked by a fixed rule from the
//! masks and with `step_random`, digested step by step (FNV-1a over every output).
//!
//! `cargo run --release -p kalaha-python --example env_trajectory > python/tests/data/env_trajectories.json`

use kalaha::env::VecEnv;
use kalaha::rules::{RuleChoices, Rules};

/// One reference run: rules as the Python side names them, and the run's shape.
struct Case {
    name: &'static str,
    rules: Rules,
    python_rules: &'static str,
    games: usize,
    seed: u64,
}

/// Steps with picked actions, then random steps, then picked actions again.
const PHASES: [(&str, usize); 3] = [("pick", 150), ("random", 50), ("pick", 100)];

fn main() {
    let choices = |preset, pits, seeds, capture, pie| RuleChoices {
        preset,
        pits,
        seeds,
        capture,
        pie,
        ..RuleChoices::default()
    };
    let cases = [
        Case {
            name: "international",
            rules: choices(Some("international"), None, None, None, None)
                .build()
                .unwrap(),
            python_rules: r#""international""#,
            games: 32,
            seed: 7,
        },
        Case {
            name: "kalah43-empty-pie",
            rules: choices(None, Some(4), Some(3), Some("empty"), Some(true))
                .build()
                .unwrap(),
            python_rules: r#"{"pits": 4, "seeds": 3, "capture": "empty", "pie": true}"#,
            games: 24,
            seed: 3,
        },
        Case {
            name: "danish",
            rules: choices(Some("danish"), None, None, None, None)
                .build()
                .unwrap(),
            python_rules: r#""danish""#,
            games: 16,
            seed: 11,
        },
    ];
    let mut out = String::from("{\n  \"phases\": [");
    let phases: Vec<String> = PHASES
        .iter()
        .map(|(k, n)| format!("[\"{k}\", {n}]"))
        .collect();
    out += &phases.join(", ");
    out += "],\n  \"cases\": [\n";
    let runs: Vec<String> = cases.iter().map(run).collect();
    out += &runs.join(",\n");
    out += "\n  ]\n}";
    println!("{out}");
}

/// The digests of one case's steps, as a JSON object.
fn run(case: &Case) -> String {
    let mut env = VecEnv::new(case.rules, case.games, case.seed).unwrap();
    let mut digests = vec![format!("\"{:016x}\"", digest(&env, false))];
    let mut t = 0usize;
    for (kind, steps) in PHASES {
        for _ in 0..steps {
            if kind == "random" {
                env.step_random();
            } else {
                let actions = pick(&env, t);
                env.step(&actions).unwrap();
            }
            digests.push(format!("\"{:016x}\"", digest(&env, true)));
            t += 1;
        }
    }
    format!(
        "    {{\"name\": \"{}\", \"rules\": {}, \"games\": {}, \"seed\": {}, \"digests\": [{}]}}",
        case.name,
        case.python_rules,
        case.games,
        case.seed,
        digests.join(", ")
    )
}

/// Game `i`'s action at step `t`: its legal action number `(7t + 13i) mod count`, ascending.
fn pick(env: &VecEnv, t: usize) -> Vec<u32> {
    let mask = env.mask();
    (0..env.games())
        .map(|i| {
            let legal: Vec<u32> = (0..env.action_count())
                .filter(|&a| mask[[i, a]])
                .map(|a| a as u32)
                .collect();
            legal[(7 * t + 13 * i) % legal.len()]
        })
        .collect()
}

/// FNV-1a over the outputs: observations as seed counts (flags as 0/1), masks, players to move,
/// rewards, done flags, and for finished games their final observation, scores and length.
fn digest(env: &VecEnv, stepped: bool) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let total = env.rules().total_seeds() as f32;
    let d = env.obs_dim();
    let count = |x: f32, j: usize| {
        if j >= d - 2 {
            x.round() as u8
        } else {
            (x * total).round() as u8
        }
    };
    for i in 0..env.games() {
        for j in 0..d {
            h.byte(count(env.obs()[[i, j]], j));
        }
        for a in 0..env.action_count() {
            h.byte(env.mask()[[i, a]] as u8);
        }
        h.byte(env.to_play()[i]);
        if stepped {
            h.byte((env.reward()[i] as i8) as u8);
            h.byte(env.done()[i] as u8);
            if env.done()[i] {
                for j in 0..d {
                    h.byte(count(env.final_obs()[[i, j]], j));
                }
                h.byte(env.final_score()[[i, 0]]);
                h.byte(env.final_score()[[i, 1]]);
                for b in env.final_len()[i].to_le_bytes() {
                    h.byte(b);
                }
            }
        }
    }
    h.0
}

/// 64-bit FNV-1a.
struct Fnv(u64);

impl Fnv {
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
}
