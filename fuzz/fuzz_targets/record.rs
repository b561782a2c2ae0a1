//! Game records (`rules:`, `start:`, `moves:`, what the server's `POST /api/games {record}` and
//! the page read): any text reads to a game or an error, never a panic, and a game read back
//! from its own record is the same game.
#![no_main]

use kalaha::serve::record::{read, write};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = kalaha_fuzz::text(data);
    if let Ok(game) = read(&text) {
        let record = write(&game);
        let again = read(&record).unwrap_or_else(|e| panic!("{record:?} does not read back: {e}"));
        assert_eq!(again.start(), game.start(), "{record}");
        assert_eq!(again.move_list(), game.move_list(), "{record}");
        assert_eq!(again.position(), game.position(), "{record}");
    }
});
