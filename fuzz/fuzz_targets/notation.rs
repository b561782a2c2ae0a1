//! The position notation: any text under any rule set parses to a position or an error, never a
//! panic, and a position read back from its own notation is the same position.
#![no_main]

use kalaha::rules::{Position, RuleChoices};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // The first byte picks the rules: pits 1-15 (low nibble), seeds 1-16, capture, pie.
    let rules = RuleChoices::<String> {
        pits: Some(u32::from(choice & 15).max(1)),
        seeds: Some(u32::from(choice >> 4) + 1),
        pie: Some(choice & 0x80 != 0),
        ..RuleChoices::default()
    }
    .build();
    let Ok(rules) = rules else {
        return;
    };
    if let Ok(pos) = Position::parse(text, &rules) {
        let again = Position::parse(&pos.to_string(), &rules)
            .unwrap_or_else(|e| panic!("{pos} does not read back: {e}"));
        assert_eq!(again, pos, "{text:?} -> {pos}");
        let _ = pos.legal_moves();
        let _ = pos.is_over();
    }
});
