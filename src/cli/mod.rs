//! The `kalaha` command line: argument parsing and printing; the library does the work.

mod analyse;
mod analyse_out;
mod bench;
mod bench_solver;
#[cfg(feature = "train")]
mod bench_train;
mod eval;
mod json;
#[cfg(feature = "train")]
mod judge;
mod matches;
#[cfg(feature = "train")]
mod networks;
mod play;
mod progress;
#[cfg(feature = "train")]
mod release;
mod serve;
mod show;
mod solve;
mod solve_out;
#[cfg(feature = "train")]
mod train;

use std::io::Write;

use clap::{Args, Parser, Subcommand};

use crate::rules::{Game, Position, RuleChoices, Rules, parse_moves};

/// Kalah(m,n): rules, bots, matches and benchmarks.
#[derive(Debug, Parser)]
#[command(name = "kalaha", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Draw a position and list its legal moves.
    Show(show::ShowArgs),
    /// Play a series of games between two bots with fixed seats.
    Match(matches::MatchArgs),
    /// Solve a position exactly: its value and every move's value under perfect play.
    Solve(solve::SolveArgs),
    /// What a bot thinks of a position (a network's prior, value and search), beside the solver's
    /// values.
    Analyse(analyse::AnalyseArgs),
    /// Play a game against a bot (or both sides) in the terminal; line by line when piped.
    Play(play::PlayArgs),
    /// Rate bots in a gauntlet or round robin, optionally judged move by move by the solver.
    Eval(eval::EvalArgs),
    /// Serve the board in the browser: play, practise and analyse, with a JSON API.
    Serve(serve::ServeArgs),
    /// Measure throughput.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Train a policy/value network by self-play from a TOML config.
    #[cfg(feature = "train")]
    Train(train::TrainArgs),
    /// Score a network alone on the judge set, the solved positions training runs are judged on.
    #[cfg(feature = "train")]
    Judge(judge::JudgeArgs),
    /// Release a run's latest network as `checkpoints/NAME/` (its weights and sidecar).
    #[cfg(feature = "train")]
    Release(release::ReleaseArgs),
    /// List the released networks: id, rules, lineage and figures, their weights checked.
    #[cfg(feature = "train")]
    Networks(networks::NetworksArgs),
}

/// Rule flags shared by every subcommand that plays a game.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// Named rule set: international (default), swedish, danish, norwegian, children.
    #[arg(long, value_name = "PRESET")]
    rules: Option<String>,
    /// Pits per side, m (default 6, or the preset's).
    #[arg(long, value_name = "M")]
    pits: Option<u32>,
    /// Seeds per pit, n (default 4, or the preset's).
    #[arg(long, value_name = "N")]
    seeds: Option<u32>,
    /// Capture rule: standard, empty or off.
    #[arg(long, value_name = "RULE")]
    capture: Option<String>,
    /// Leftover rule: owner, emptier or discard.
    #[arg(long, value_name = "RULE")]
    leftover: Option<String>,
    /// End rule: immediate or on-turn.
    #[arg(long, value_name = "RULE")]
    end: Option<String>,
    /// Pie rule: North may answer `swap` at its first move.
    #[arg(long)]
    pie: bool,
}

impl RuleArgs {
    /// The rules these flags describe: the preset, then each flag given on top of it.
    pub fn rules(&self) -> anyhow::Result<Rules> {
        Ok(self.choices().build()?)
    }

    /// The rule choices these flags make.
    pub fn choices(&self) -> RuleChoices<&str> {
        RuleChoices {
            preset: self.rules.as_deref(),
            pits: self.pits,
            seeds: self.seeds,
            capture: self.capture.as_deref(),
            leftover: self.leftover.as_deref(),
            end: self.end.as_deref(),
            // `--pie` turns the rule on; without it the preset decides.
            pie: self.pie.then_some(true),
        }
    }
}

/// Rule flags plus the position to start from, shared by `show` and `solve`.
#[derive(Debug, Clone, Args)]
pub struct PositionArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Start from this position (notation), else from the rules' start.
    #[arg(long, value_name = "NOTATION", allow_hyphen_values = true)]
    position: Option<String>,
    /// Moves to play first, e.g. 3,1,6.
    #[arg(long, value_name = "MOVES", default_value = "")]
    moves: String,
}

impl PositionArgs {
    /// The game these flags describe: the start (or `--position`) with `--moves` played.
    pub fn game(&self) -> anyhow::Result<Game> {
        let rules = self.rules.rules()?;
        let start = match &self.position {
            Some(text) => Position::parse(text, &rules)?,
            None => Position::start(&rules),
        };
        Ok(Game::from_moves(start, &parse_moves(&self.moves)?)?)
    }
}

/// Writes text to stdout; a closed pipe ends the output quietly.
pub(crate) fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Prints a value as one line of JSON.
pub(crate) fn emit_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    emit(&format!("{}\n", serde_json::to_string(value)?))
}

/// Runs the command line; the error is printed by `main` with exit code 2.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Show(a) => show::run(a),
        Command::Match(a) => matches::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Analyse(a) => analyse::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Play(a) => play::run(a),
        Command::Serve(a) => serve::run_args(a),
        Command::Bench(b) => bench::run(b),
        #[cfg(feature = "train")]
        Command::Train(a) => train::run(a),
        #[cfg(feature = "train")]
        Command::Judge(a) => judge::run(a),
        #[cfg(feature = "train")]
        Command::Release(a) => release::run(a),
        #[cfg(feature = "train")]
        Command::Networks(a) => networks::run(a),
    }
}
