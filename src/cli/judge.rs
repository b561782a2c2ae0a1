//! `kalaha judge`: a network alone (its best move by policy) scored on the judge set, the fixed
//! solved positions every training run is judged on, so any checkpoint can be compared with the
//! curves of the runs.

use std::path::PathBuf;

use anyhow::Context;
use burn::prelude::Device;
use clap::Args;

use super::{emit, emit_json};
use crate::bots::policy::{SearchOptions, search_config};
use crate::nn::{NetEvaluator, model};
use crate::rules::Rules;
use crate::search::search_batch;
use crate::train::heldout::HeldoutSet;
use crate::train::judge::{JUDGE_SEED, JudgeSet, Paired};

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The network: a checkpoint folder, its meta.json or its weights (`policy:PATH` also works).
    #[arg(long, value_name = "PATH")]
    network: String,
    /// Positions in the judge set (default: those of the set already solved for the network's
    /// rules in --cache, else 1200).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    positions: Option<u64>,
    /// Folder of solved judge sets (solved once there, at the seed every run uses).
    #[arg(long, value_name = "DIR", default_value = "checkpoints/judge")]
    cache: PathBuf,
    /// Draw the set from this seed instead of the one every run is judged on (a fresh sample of
    /// the same sources, solved once into --cache): how far a figure is from one sample's luck.
    /// Judge sets in the cache are left out of training, so keep other seeds' sets elsewhere.
    #[arg(long, default_value_t = JUDGE_SEED)]
    seed: u64,
    /// Seconds the solver may spend on each position when it solves the set (0: no limit);
    /// positions it cannot prove in time are left out and counted (default: the limit of the set
    /// already solved for the network's rules, else none; the six-seed sets use 10).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
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
    /// With `--simulations`: the search proves subtrees (MCTS-solver, `:prove=on` of a
    /// `policy:` bot), for both networks.
    #[arg(long, requires = "simulations")]
    prove: bool,
    /// With `--simulations`: the search's utility `(1 - W) * value + W * margin` (`:margin=W` of a
    /// `policy:` bot), for both networks. Default: the checkpoint's.
    #[arg(long, value_name = "W", requires = "simulations")]
    margin_weight: Option<f64>,
    /// With `--simulations`: the scale of the search's Q transform `(c_visit + max visits) * X * q`
    /// (`:c_scale=X` of a `policy:` bot), for both networks. Default: the checkpoint's.
    #[arg(long, value_name = "X", requires = "simulations")]
    c_scale: Option<f64>,
    /// Also score the network alone on the two held-out sets inside the endgame database (drawn
    /// as training draws and as the judge draws; built once into the solver's cache), with
    /// `--against` paired on them too (`heldout` in the JSON).
    #[arg(long)]
    heldout: bool,
    /// Positions in each held-out set.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
    heldout_positions: u64,
    /// Seeds on the board of the database that labels the held-out sets.
    #[arg(long, value_name = "SEEDS", default_value_t = crate::train::judge::DB_REPORT_SEEDS, value_parser = clap::value_parser!(u32).range(1..=30))]
    heldout_db_seeds: u32,
    /// Weight of a network's move head in the logits it plays by (logits minus this times each
    /// move's predicted seeds lost; 0: the policy alone). Default: the players' own.
    #[arg(long, value_name = "W")]
    moves_mix: Option<f32>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The evaluator players use for `model`, with the move head weighed `mix` if given.
fn evaluator(model: &model::Model, mix: Option<f32>) -> NetEvaluator {
    let ev = NetEvaluator::new(model.net.clone(), Device::flex());
    match mix {
        Some(w) => ev.with_moves_mix(w),
        None => ev,
    }
}

/// The held-out sets of `rules` labelled by a database of `seeds`, loaded or built.
fn heldout_sets(
    rules: &Rules,
    n: usize,
    seeds: u32,
    quiet: bool,
) -> anyhow::Result<Vec<HeldoutSet>> {
    if !quiet {
        eprintln!(
            "kalaha: held-out sets of {n} positions (database of {seeds} seeds, built once into the solver's cache)"
        );
    }
    HeldoutSet::in_cache(rules, n, seeds)
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
fn choices(
    set: &JudgeSet,
    model: &model::Model,
    sims: Option<u32>,
    options: SearchOptions,
    mix: Option<f32>,
) -> Vec<usize> {
    let mut ev = evaluator(model, mix);
    match sims {
        None => set.picks(&mut ev),
        Some(n) => {
            let cfg = search_config(model, Some(n), options);
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
    if a.time_limit.is_some_and(|t| !(t >= 0.0 && t.is_finite())) {
        anyhow::bail!("--time-limit must be 0 (no limit) or a positive number of seconds");
    }
    if a.margin_weight.is_some_and(|w| !(0.0..=1.0).contains(&w)) {
        anyhow::bail!("--margin-weight must be a number from 0 to 1");
    }
    let scales = crate::bots::PLAY_C_SCALES;
    if a.c_scale.is_some_and(|x| !scales.contains(&x)) {
        anyhow::bail!(
            "--c-scale must be a number from {} to {}",
            scales.start(),
            scales.end()
        );
    }
    let options = SearchOptions {
        prove: a.prove.then_some(true),
        margin: a.margin_weight.map(|w| w as f32),
        c_scale: a.c_scale.map(|x| x as f32),
    };
    if a.moves_mix.is_some_and(|w| !(0.0..=100.0).contains(&w)) {
        anyhow::bail!("--moves-mix must be a number from 0 to 100");
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
    // Unless told otherwise, the set already solved for these rules, as it was solved.
    let cached = crate::train::judge::cached_settings(&rules, &a.cache);
    let positions = a
        .positions
        .map(|n| n as usize)
        .or(cached.map(|c| c.0))
        .unwrap_or(1200);
    let limit = match a.time_limit {
        Some(t) => (t > 0.0).then(|| std::time::Duration::from_secs_f64(t)),
        None => cached.and_then(|c| c.1),
    };
    if !a.json {
        eprintln!(
            "kalaha: judging {path} on {positions} positions of {} drawn from seed {} (solved once into {})",
            rules.describe(),
            a.seed,
            a.cache.display()
        );
    }
    let set = JudgeSet::load_or_build(&rules, positions, a.seed, &a.cache, limit)?;
    let picks = choices(&set, &m, a.simulations, options, a.moves_mix);
    let score = set.score_picks(&picks)?;
    if let Some(file) = &a.misses {
        let text = serde_json::to_string_pretty(&set.misses(&picks)?)?;
        crate::files::write_atomic(file, |w| std::io::Write::write_all(w, text.as_bytes()))
            .with_context(|| format!("cannot write the misses to {}", file.display()))?;
    }
    let against = other
        .as_ref()
        .map(|(o, other)| -> anyhow::Result<_> {
            let theirs = choices(&set, other, a.simulations, options, a.moves_mix);
            Ok((
                o.clone(),
                set.score_picks(&theirs)?,
                set.compare(&picks, &theirs)?,
            ))
        })
        .transpose()?;
    let mut held = Vec::new();
    if a.heldout {
        let sets = heldout_sets(
            &rules,
            a.heldout_positions as usize,
            a.heldout_db_seeds,
            a.json,
        )?;
        let actions = rules.pits() + 1;
        for set in &sets {
            let logits = set.logits(&mut evaluator(&m, a.moves_mix));
            let score = set.score(&logits, actions)?;
            let paired = match &other {
                Some((_, o)) => {
                    let theirs = set.logits(&mut evaluator(o, a.moves_mix));
                    let paired =
                        Paired::of(set.correct(&logits, actions), set.correct(&theirs, actions));
                    Some((set.score(&theirs, actions)?, paired))
                }
                None => None,
            };
            held.push((score, paired));
        }
    }
    let id = |p: &str| {
        crate::lineage::describe(&model::folder(std::path::Path::new(p)).unwrap_or_default())
    };
    if a.json {
        let mut v = serde_json::to_value(&score)?;
        v["network_id"] = id(&path).into();
        v["seed"] = a.seed.into();
        if let Some(n) = a.simulations {
            v["simulations"] = n.into();
            v["prove"] = a.prove.into();
            if let Some(w) = a.margin_weight {
                v["margin_weight"] = w.into();
            }
            if let Some(x) = a.c_scale {
                v["c_scale"] = x.into();
            }
        }
        if let Some((o, theirs, paired)) = &against {
            v["against"] = serde_json::json!({
                "network": o,
                "network_id": id(o),
                "optimal_rate": theirs.optimal_rate,
                "std_err": theirs.std_err,
                "only_network": paired.only_first,
                "only_against": paired.only_second,
                "p_value": paired.p_value,
            });
        }
        if a.heldout {
            v["heldout"] = held
                .iter()
                .map(|(h, paired)| {
                    let mut x = serde_json::to_value(h).unwrap_or_default();
                    if let Some((theirs, paired)) = paired {
                        x["against"] = serde_json::json!({
                            "optimal_rate": theirs.optimal_rate,
                            "kl": theirs.kl,
                            "mean_loss": theirs.mean_loss,
                            "only_network": paired.only_first,
                            "only_against": paired.only_second,
                            "p_value": paired.p_value,
                        });
                    }
                    x
                })
                .collect();
        }
        return emit_json(&v);
    }
    let pct = |r: f64| 100.0 * r;
    let how = a.simulations.map_or("alone".to_string(), |n| {
        let how = match a.prove {
            true => format!("with {n} simulations of a proving search"),
            false => format!("with {n} simulations"),
        };
        let settings: Vec<String> = [
            a.margin_weight.map(|w| format!("margin weight {w:.2}")),
            a.c_scale.map(|x| format!("c_scale {x}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        match settings.is_empty() {
            true => how,
            false => format!("{how} ({})", settings.join(", ")),
        }
    });
    let mut s = format!(
        "{path} ({}): {:.1}% ± {:.1} solver-optimal moves {how} on {} positions, {:.2} seeds lost a move\n",
        id(&path),
        pct(score.optimal_rate),
        pct(score.std_err),
        score.positions,
        score.mean_loss
    );
    if score.unsolved > 0 {
        s += &format!(
            "  {} more positions drawn were not proved within {} s each and are left out\n",
            score.unsolved,
            limit.map_or(0.0, |l| l.as_secs_f64())
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
    for (h, paired) in &held {
        s += &format!(
            "held-out {} ({} positions inside the database, set {}): {:.2}% ± {:.2} optimal, KL {:.4}, set loss {:.4}, {:.3} seeds lost a move\n",
            h.set,
            h.positions,
            h.checksum,
            pct(h.optimal_rate),
            pct(h.std_err),
            h.kl,
            h.set_loss,
            h.mean_loss
        );
        for b in &h.bands {
            s += &format!(
                "  {}-{} seeds: {:.2}% of {}, KL {:.4}, {:.3} seeds lost\n",
                b.min_seeds,
                b.max_seeds,
                pct(b.optimal_rate),
                b.positions,
                b.kl,
                b.mean_loss
            );
        }
        if let Some((theirs, paired)) = paired {
            s += &format!(
                "  against: {:.2}%; only {path} right in {}, only the other in {} (sign test p = {:.2e})\n",
                pct(theirs.optimal_rate),
                paired.only_first,
                paired.only_second,
                paired.p_value
            );
        }
    }
    emit(&s)
}
