//! The solver's files: the endgame database (`.kdb`) and the saved transposition table
//! (`kalaha solve --table`). The input is a list of edits (offset, byte) applied to a real file
//! of small rules (or, for the table, a header and entries of the fuzzer's own), with the
//! checksum fixed up when the first byte says so: any such file loads or is refused, never a
//! panic, and a database that loads answers as the one built.
#![no_main]

use std::collections::HashMap;
use std::sync::Mutex;

use kalaha::rules::Rules;
use kalaha::solver::{DbSize, Endgame, Solver, SolverConfig};
use libfuzzer_sys::fuzz_target;

/// The saved database of each small rule set and size, built once.
fn database(rules: &Rules, seeds: u32) -> Vec<u8> {
    static BUILT: Mutex<Option<HashMap<(String, u32), Vec<u8>>>> = Mutex::new(None);
    let mut built = BUILT.lock().unwrap();
    let map = built.get_or_insert_with(HashMap::new);
    map.entry((rules.canonical_name(), seeds))
        .or_insert_with(|| {
            let path = kalaha_fuzz::scratch("built.kdb", b"");
            Endgame::build(rules, seeds, None).save(&path).unwrap();
            std::fs::read(&path).unwrap()
        })
        .clone()
}

fuzz_target!(|data: &[u8]| {
    let [a, b, c, rest @ ..] = data else {
        return;
    };
    let Some(rules) = kalaha_fuzz::small_rules(*a, *b) else {
        return;
    };
    let seeds = u32::from(c >> 2 & 7) + 1;
    if c & 2 == 0 {
        let mut file = database(&rules, seeds);
        for e in rest.chunks_exact(3) {
            let at = u16::from_le_bytes([e[0], e[1]]) as usize;
            let at = at % (file.len() + 1);
            if let Some(x) = file.get_mut(at) {
                *x ^= e[2];
            } else {
                file.push(e[2]);
            }
        }
        if c & 1 == 1 && file.len() >= 40 {
            let sum = kalaha::files::checksum(&[&file[..32], &file[40..]]);
            file[32..40].copy_from_slice(&sum.to_le_bytes());
        }
        let path = kalaha_fuzz::scratch("fuzzed.kdb", &file);
        if let Ok(db) = Endgame::load(&path, &rules, seeds) {
            assert_eq!(db.max_seeds(), seeds);
            assert!(db.fits(&rules));
        }
    } else {
        let cfg = SolverConfig {
            memory_mb: 1,
            db: DbSize::Off,
            cache_dir: None,
            ..SolverConfig::default()
        };
        let Ok(solver) = Solver::new(&rules, &cfg) else {
            return;
        };
        let mut file = rest.to_vec();
        if c & 1 == 1 && file.len() >= 40 {
            let sum = kalaha::files::checksum(&[&file[..32], &file[40..]]);
            file[32..40].copy_from_slice(&sum.to_le_bytes());
        }
        let path = kalaha_fuzz::scratch("fuzzed.ktt", &file);
        if solver.load_table(&path).is_ok() {
            // Whatever a whole table holds, the solver still proves small positions.
            let start = kalaha::rules::Position::start(&rules);
            let _ = solver.analyse_within(&start, Some(std::time::Duration::from_millis(5)), None);
        }
    }
});
