//! The `kalaha` binary: parse arguments, run, map errors to exit code 2.

use clap::Parser;

fn main() {
    let cli = kalaha::cli::Cli::parse();
    if let Err(err) = kalaha::cli::run(cli) {
        eprintln!("kalaha: {err:#}");
        std::process::exit(2);
    }
}
