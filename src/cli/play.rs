//! `kalaha play`: a person against a bot, or both sides by hand; the terminal UI on a terminal,
//! line by line otherwise.

use std::io::IsTerminal;

use clap::Args;

use super::RuleArgs;
use crate::bots::{BotContext, BotSpec};
use crate::play::{Level, Session, line, tui};
use crate::rules::{Rules, Side};

#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Your seat: south (moves first) or north.
    #[arg(long, default_value = "south", value_name = "SIDE")]
    side: String,
    /// Opponent strength: easy (greedy), medium (minimax:6), hard (the network trained for exactly
    /// these rules with 64 simulations, or mcts:2000 without one; $KALAHA_CHECKPOINTS, then
    /// ./checkpoints), strongest (also `perfect`: the exact solver guarding hard's search, 0.9 s a
    /// move; it says of each move whether it proved it best, proved it keeps the result, or proved
    /// nothing in time; the solver alone without a network).
    #[arg(
        long,
        default_value = "hard",
        value_name = "LEVEL",
        conflicts_with = "opponent"
    )]
    level: String,
    /// Any bot spec as the opponent instead of a level: random, greedy, minimax:D, mcts:N, solver,
    /// guard:SECONDS:SPEC (the solver guarding another bot),
    /// policy:PATH[:SIMS][:margin=W][:c_scale=X][:prove=on][:minimax=A][:alphabeta=100ms|N][:db=off|N], policy:auto[:SIMS] (the network trained for these rules).
    #[arg(long, value_name = "SPEC")]
    opponent: Option<String>,
    /// Play both sides yourself, with undo and redo.
    #[arg(long, conflicts_with = "opponent")]
    practice: bool,
    /// Seed of the opponent's choices (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Line mode even on a terminal.
    #[arg(long)]
    line: bool,
}

/// The checkpoint level hard plays under `rules`: the network trained for exactly these rules
/// ([`BotContext::find_network`]), loaded into `ctx`; else why there is none (or it cannot play).
#[cfg(feature = "train")]
fn network(ctx: &mut BotContext, rules: &Rules) -> Result<String, String> {
    let found = ctx.find_network(rules).map_err(|e| e.to_string())?;
    let path = found.dir.display().to_string();
    let spec = Level::Hard.spec(Some(&path));
    ctx.prepare(&spec, rules).map_err(|e| format!("{e:#}"))?;
    let release = crate::lineage::id_note(&found.dir)
        .map(|id| format!(", release {id}"))
        .unwrap_or_default();
    eprintln!(
        "kalaha: level hard is the network {path} ({}{release}) with {} simulations",
        rules.canonical_name(),
        crate::play::HARD_SIMULATIONS
    );
    Ok(path)
}

#[cfg(not(feature = "train"))]
fn network(_: &mut BotContext, _: &Rules) -> Result<String, String> {
    Err("this build has no network support (feature `train`)".into())
}

pub fn run(a: PlayArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
    let side = match a.side.to_ascii_lowercase().as_str() {
        "south" | "s" => Side::South,
        "north" | "n" => Side::North,
        other => anyhow::bail!("unknown side '{other}' (expected south or north)"),
    };
    let mut ctx = BotContext::new();
    let opponent = if a.practice {
        None
    } else {
        let spec: BotSpec = match &a.opponent {
            Some(s) => s.parse()?,
            None => {
                let level: Level = a.level.parse().map_err(anyhow::Error::msg)?;
                let ck = if matches!(level, Level::Hard | Level::Perfect) {
                    match network(&mut ctx, &rules) {
                        Ok(p) => Some(p),
                        Err(why) => {
                            let instead = match level {
                                Level::Hard => "level hard plays mcts:2000",
                                _ => "level strongest is the exact solver alone",
                            };
                            eprintln!("kalaha: {why}; {instead} instead");
                            None
                        }
                    }
                } else {
                    None
                };
                level.spec(ck.as_deref())
            }
        };
        Some(ctx.prepare(&spec, &rules)?)
    };
    let seed = a.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut session = Session::new(&rules, side, opponent, seed);
    if !a.line && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return tui::run(&mut session);
    }
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    match line::run(&mut session, stdin, &mut out) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
