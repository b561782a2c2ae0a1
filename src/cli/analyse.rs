//! `kalaha analyse`: what a bot thinks of a position, beside the solver's values.
//!
//! `--json` prints one object whose keys, stable, are listed in [`JSON_KEYS`] (also shown by
//! `kalaha analyse --help`).

use std::time::Duration;

use clap::Args;

use super::analyse_out::{json, text};
use super::{PositionArgs, emit, emit_json};
use crate::bots::view::view;
use crate::bots::{BotContext, BotSpec};

/// The keys of `kalaha analyse --json`.
pub const JSON_KEYS: &str = "\
JSON keys (--json), stable:
  position, rules, to_move (\"s\" or \"n\"), bot (the spec),
  choice      the bot's move: a pit number or \"swap\"
  network     null, or for a policy: bot {value, margin, searched, proved, simulations,
              margin_weight, c_scale, database}: the value head (expected result in [-1, 1])
              and margin head (expected final margin in seeds) for the player to move, the
              search's utility after its simulations (null without search), whether a proving
              search (:prove=on) solved the position (searched and every q then exact), the
              simulations (null: the policy alone), the utility's margin weight, the scale of
              the search's Q transform (:c_scale=X), the exact final margin for the player to move
              where the bot's endgame database covers the position (null elsewhere and with
              db=off; the bot then plays a move that keeps it)
  moves       one object per legal move, in pit order: move, prior (the network's policy over the
              legal moves), visits and q (simulations through the move and its mean utility for
              the player to move), minimax (a minimax bot's score), lower and upper (the solver's
              proven bounds on the final margin for the player to move; equal when exact); null
              where the bot or the solver has no figure
  solver      null with --time-limit 0, else {lower, upper, complete, seconds} for the position";

#[derive(Debug, Args)]
#[command(after_long_help = JSON_KEYS)]
pub struct AnalyseArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// The bot: random, greedy, minimax:D, mcts:N, solver, guard:SECONDS:SPEC, policy:PATH[:SIMS][:margin=W][:c_scale=X][:prove=on][:minimax=A][:alphabeta=100ms|N][:db=off|N],
    /// policy:auto[:SIMS].
    #[arg(long, value_name = "SPEC")]
    bot: String,
    /// Seconds the solver may take to prove the moves' values (0: no solver; at most 366 days).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = crate::solver::seconds::parse_seconds)]
    time_limit: Duration,
    /// Seed of the bot's randomness.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object (its keys: see --help).
    #[arg(long)]
    json: bool,
}

pub fn run(a: AnalyseArgs) -> anyhow::Result<()> {
    let pos = *a.position.game()?.position();
    if pos.is_over() {
        anyhow::bail!("the game is over at {pos}: there is no move to analyse");
    }
    let spec: BotSpec = a.bot.parse()?;
    let mut ctx = BotContext::new();
    let player = ctx.prepare(&spec, pos.rules())?;
    let bot = view(&player, &pos, a.seed);
    let solved = if !a.time_limit.is_zero() {
        let solver = ctx.solver(pos.rules())?;
        Some(solver.analyse_within(&pos, Some(a.time_limit), None))
    } else {
        None
    };
    if a.json {
        emit_json(&json(&pos, &bot, solved.as_ref()))
    } else {
        emit(&text(&pos, &bot, solved.as_ref()))
    }
}
