//! The binary readers of the state framing (`kalaha::env::state`): a training run's state (the
//! replay buffer and the self-play games a checkpoint keeps), a distributed worker's self-play
//! batch, and a saved environment (what Python's VecEnv pickles). The first byte picks the rules
//! and whether the checksum is fixed up (so that the fuzzer gets past it into the reader); any
//! bytes are read or refused, never a panic.
#![no_main]

use kalaha::env::VecEnv;
use kalaha::train::distributed::Batch;
use kalaha::train::replay::Replay;
use kalaha::train::state::Reader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [a, b, c, rest @ ..] = data else {
        return;
    };
    let Some(rules) = kalaha_fuzz::rules(*a, *b) else {
        return;
    };
    let bytes = if c & 1 == 1 {
        kalaha_fuzz::framed(rest)
    } else {
        rest.to_vec()
    };
    match c >> 1 & 3 {
        0 => {
            if let Ok(mut r) = Reader::new(&bytes, &rules) {
                let mut replay = Replay::new(1 << 16);
                if replay.load(&mut r).is_ok() {
                    let _ = r.end();
                }
            }
        }
        1 => {
            let _ = Batch::from_bytes(&bytes, &rules);
        }
        _ => {
            if let Ok(env) = VecEnv::from_state(&bytes) {
                // What was read back writes out the same way.
                let again =
                    VecEnv::from_state(&env.save_state()).expect("its own state reads back");
                assert_eq!(again.save_state(), env.save_state());
            }
        }
    }
});
