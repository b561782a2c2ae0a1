//! `kalaha judge`: a network alone (its best move by policy) scored on the judge set, the fixed
//! solved positions every training run is judged on, so any checkpoint can be compared with the
//! curves of the runs.

use std::path::PathBuf;

use anyhow::Context;
use burn::prelude::Device;
use clap::Args;

use super::{emit, emit_json};
use crate::bots::policy::search_config;
use crate::nn::{NetEvaluator, model};
use crate::rules::Rules;
use crate::search::search_batch;
use crate::train::judge::{JUDGE_SEED, JudgeSet};

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The network: a checkpoint folder, its meta.json or its weights (`policy:PATH` also works).
    #[arg(long, value_name = "PATH")]
    network: String,
    /// Positions in the judge set (the training configs use 1200).
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    positions: u64,
    /// Folder of solved judge sets (solved once there, at the seed every run uses).
    #[arg(long, value_name = "DIR", default_value = "checkpoints/judge")]
    cache: PathBuf,
    /// Seconds the solver may spend on each position when it solves the set (0: no limit);
    /// positions it cannot prove in time are left out and counted. The six-seed sets use 10.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    time_limit: f64,
    /// Also write the positions the network gets wrong to this file (JSON: position, source,
    /// ply, seeds on the board, exact value, the network's action and its value, every move's).
    #[arg(long, value_name = "FILE")]
    misses: Option<PathBuf>,
    /// Compare with this network on the same positions: the positions only one of the two gets
    /// right and an exact sign test of their difference (`against` in the JSON).
    #[arg(long, value_name = "PATH")]
    against: Option<String>,
    /// Judge the network searching this many simulations a move (its self-play search, without
    /// noise) instead of alone; `--against` then searches as much.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    simulations: Option<u32>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The network a `--network` or `--against` value names (`policy:` prefix optional): its path,
/// the loaded checkpoint and the rules it was trained for.
fn load_network(spec: &str) -> anyhow::Result<(String, model::Model, Rules)> {
    let path = spec.strip_prefix("policy:").unwrap_or(spec);
    let m = model::load(std::path::Path::new(path))?;
    let rules = m.card.rules.build()?;
    Ok((path.to_string(), m, rules))
}

/// The moves `model` picks in the set's positions: alone, or after `sims` simulations of search.
fn choices(set: &JudgeSet, model: &model::Model, sims: Option<u32>) -> Vec<usize> {
    let mut ev = NetEvaluator::new(model.net.clone(), Device::flex());
    match sims {
        None => set.picks(&mut ev),
        Some(n) => {
            let cfg = search_config(model, Some(n), None);
            set.picks_with(|positions| {
                let temps = vec![0.0; positions.len()];
                search_batch(positions, &temps, &cfg, &mut ev, JUDGE_SEED)
                    .iter()
                    .map(|r| r.action)
                    .collect()
            })
        }
    }
}

pub fn run(a: JudgeArgs) -> anyhow::Result<()> {
    if !(a.time_limit >= 0.0 && a.time_limit.is_finite()) {
        anyhow::bail!("--time-limit must be 0 (no limit) or a positive number of seconds");
    }
    let (path, m, rules) = load_network(&a.network)?;
    let other = match &a.against {
        Some(spec) => {
            let (o, other, theirs) = load_network(spec)?;
            if theirs != rules {
                anyhow::bail!(
                    "--against {o} was trained for {}, {path} for {}: they cannot be judged on one set",
                    theirs.describe(),
                    rules.describe()
                );
            }
            Some((o, other))
        }
        None => None,
    };
    if !a.json {
        eprintln!(
            "kalaha: judging {path} on {} positions of {} (solved once into {})",
            a.positions,
            rules.describe(),
            a.cache.display()
        );
    }
    let limit = (a.time_limit > 0.0).then(|| std::time::Duration::from_secs_f64(a.time_limit));
    let set = JudgeSet::load_or_build(&rules, a.positions as usize, JUDGE_SEED, &a.cache, limit)?;
    let picks = choices(&set, &m, a.simulations);
    let score = set.score_picks(&picks);
    if let Some(file) = &a.misses {
        let text = serde_json::to_string_pretty(&set.misses(&picks))?;
        crate::files::write_atomic(file, |w| std::io::Write::write_all(w, text.as_bytes()))
            .with_context(|| format!("cannot write the misses to {}", file.display()))?;
    }
    let against = other.map(|(o, other)| {
        let theirs = choices(&set, &other, a.simulations);
        (o, set.score_picks(&theirs), set.compare(&picks, &theirs))
    });
    if a.json {
        let mut v = serde_json::to_value(&score)?;
        if let Some(n) = a.simulations {
            v["simulations"] = n.into();
        }
        if let Some((o, theirs, paired)) = &against {
            v["against"] = serde_json::json!({
                "network": o,
                "optimal_rate": theirs.optimal_rate,
                "std_err": theirs.std_err,
                "only_network": paired.only_first,
                "only_against": paired.only_second,
                "p_value": paired.p_value,
            });
        }
        return emit_json(&v);
    }
    let pct = |r: f64| 100.0 * r;
    let how = a
        .simulations
        .map_or("alone".to_string(), |n| format!("with {n} simulations"));
    let mut s = format!(
        "{path}: {:.1}% ± {:.1} solver-optimal moves {how} on {} positions, {:.2} seeds lost a move\n",
        pct(score.optimal_rate),
        pct(score.std_err),
        score.positions,
        score.mean_loss
    );
    if score.unsolved > 0 {
        s += &format!(
            "  {} more positions drawn were not proved within {} s each and are left out\n",
            score.unsolved, a.time_limit
        );
    }
    if let Some(pie) = score.pie {
        s += &format!(
            "  pie rule: opening moves {:.1}% optimal of {}, swap answers {:.1}% agree with the solver of {}\n",
            pct(pie.openings.optimal_rate),
            pie.openings.positions,
            pct(pie.swaps.optimal_rate),
            pie.swaps.positions
        );
    }
    for (name, r) in [
        ("inside the database", score.inside_db),
        ("outside", score.outside_db),
    ]
    .into_iter()
    .chain(score.phases.iter().map(|(n, r)| (n.as_str(), *r)))
    .chain(score.sources.iter().map(|(n, r)| (n.as_str(), *r)))
    {
        s += &format!(
            "  {name}: {:.1}% ± {:.1} of {}\n",
            pct(r.optimal_rate),
            pct(r.std_err),
            r.positions
        );
    }
    if let Some((o, theirs, paired)) = &against {
        s += &format!(
            "against {o}: {:.1}% ± {:.1}; only {path} right in {}, only {o} in {} (sign test p = {:.3})\n",
            pct(theirs.optimal_rate),
            pct(theirs.std_err),
            paired.only_first,
            paired.only_second,
            paired.p_value
        );
    }
    emit(&s)
}
