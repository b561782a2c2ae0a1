//! Writes the binary seeds of the corpus (`fuzz/run seeds`): real run states, self-play batches'
//! framing, saved environments, endgame databases and a saved table, each behind the bytes their
//! target reads first (see each target). Not a fuzz target, though built as one (the coverage
//! instrumentation needs libFuzzer linked): `fuzz/run seeds` runs it once on an empty input.
#![no_main]

use std::path::Path;

use kalaha::env::VecEnv;
use kalaha::rules::{Position, Rules};
use kalaha::search::MAX_ACTIONS;
use kalaha::solver::{DbSize, Solver, SolverConfig};
use kalaha::train::replay::{NO_LOST, Replay, Sample};
use kalaha::train::state::Writer;

fn write(target: &str, name: &str, head: &[u8], body: &[u8]) {
    let dir = Path::new("corpus").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = head.to_vec();
    bytes.extend_from_slice(body);
    std::fs::write(dir.join(name), bytes).unwrap();
}

fn write_seeds() {
    // Kalah(6,4) is a = 6 | 3 << 4 in kalaha_fuzz::rules; b = 0: standard, owner, immediate.
    let (a, b) = (6u8 | 3 << 4, 0u8);
    let rules = kalaha_fuzz::rules(a, b).unwrap();
    assert_eq!(rules, Rules::kalah64());
    // A run state: two samples, no games in flight; c = 1 (checksum fixed, run state).
    let mut pos = Position::start(&rules);
    let mut samples = Vec::new();
    for mv in [3u8, 1] {
        let mut policy = [0.0; MAX_ACTIONS];
        policy[1] = 1.0;
        samples.push(Sample {
            pos,
            policy,
            value: 0.5,
            margin: 0.1,
            exact: false,
            lost: NO_LOST,
        });
        pos.play(kalaha::rules::Move::Pit(mv)).unwrap();
    }
    let mut w = Writer::new();
    Replay::write_samples(&mut w, &samples);
    w.u64(0);
    write("run_state", "replay", &[a, b, 1], &w.finish());
    // A saved environment of 3 games a few moves in; c = 5 (checksum fixed, environment).
    let mut env = VecEnv::new(rules, 3, 7).unwrap();
    for _ in 0..5 {
        env.step_random();
    }
    write("run_state", "vec-env", &[a, b, 5], &env.save_state());
    // Endgame databases of Kalah(3,2) under two option sets: c = (seeds - 1) << 2 | 1, no edits.
    for (name, a, b, seeds) in [
        ("k32-db4", 3u8 | 1 << 4, 0u8, 4u8),
        ("k22-db3", 2 | 1 << 4, 0b10101, 3),
    ] {
        write("tables", name, &[a, b, (seeds - 1) << 2 | 1], &[]);
    }
    // A saved table of a Kalah(3,2) solve (1 MiB table): c = 3 (checksum fixed, table).
    let (a, b) = (3u8 | 1 << 4, 0u8);
    let small = kalaha_fuzz::small_rules(a, b).unwrap();
    let cfg = SolverConfig {
        memory_mb: 1,
        db: DbSize::Off,
        cache_dir: None,
        ..SolverConfig::default()
    };
    let solver = Solver::new(&small, &cfg).unwrap();
    let _ = solver.analyse_within(&Position::start(&small), None, None);
    let path = kalaha_fuzz::scratch("seed.ktt", b"");
    solver.save_table(&path).unwrap();
    let table = std::fs::read(&path).unwrap();
    // The header and the first entries only (the fuzzer's inputs are at most 4 KiB).
    let mut cut = table[..40].to_vec();
    cut[24..32].copy_from_slice(&64u64.to_le_bytes());
    cut.extend_from_slice(&table[40..table.len().min(40 + 8 * 64)]);
    write("tables", "k32-table", &[a, b, 3], &cut);
    write("tables", "k32-table-whole-header", &[a, b, 2], &table[..40]);
}

static WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

libfuzzer_sys::fuzz_target!(|_data: &[u8]| {
    if !WRITTEN.swap(true, std::sync::atomic::Ordering::Relaxed) {
        write_seeds();
    }
});
