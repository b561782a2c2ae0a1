//! What the commands show while they work: progress bars on stderr, Ctrl-C as a request to stop,
//! and the command line as typed (for reports).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

use crate::eval::run::Progress;

/// A progress bar of `len` steps named `what`.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    ProgressBar::new(len).with_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what}, {{elapsed}} elapsed, eta {{eta}}"
        ))
        .expect("valid template"),
    )
}

/// A flag that Ctrl-C sets (the work stops starting new games and reports what it did).
pub fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    stop
}

/// The command line as typed, quoting the arguments that need it.
pub fn command_line() -> String {
    std::iter::once("kalaha".to_string())
        .chain(std::env::args().skip(1))
        .map(|s| {
            if s.contains([' ', ',', '"']) && !s.starts_with("--") {
                format!("'{s}'")
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An evaluation's bars: the games, then the positions judged.
pub struct EvalBars {
    games: ProgressBar,
    judged: ProgressBar,
}

impl EvalBars {
    /// Bars not yet drawn.
    pub fn new() -> EvalBars {
        EvalBars {
            games: bar(0, "games"),
            judged: bar(0, "positions judged"),
        }
    }

    /// Clears both bars.
    pub fn finish(&self) {
        self.games.finish_and_clear();
        self.judged.finish_and_clear();
    }
}

impl Progress for EvalBars {
    fn games_planned(&self, planned: usize) {
        self.games.set_length(planned as u64);
    }
    fn game_done(&self) {
        self.games.inc(1);
    }
    fn judged(&self, done: usize, total: usize) {
        self.games.finish_and_clear();
        self.judged.set_length(total as u64);
        self.judged.set_position(done as u64);
    }
}
