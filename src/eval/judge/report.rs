//! One judgement of a network, as `kalaha judge` prints it and Python returns it: the network
//! (alone or searching) scored on a judge set, optionally paired with another network on the
//! same positions, and on the held-out sets. [`judge`] does the work; [`JudgeReport`] is the one
//! report type (its JSON is `kalaha judge --json`, its [`JudgeReport::text`] the command's text).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use burn::prelude::Device;
use serde::Serialize;

use super::{JUDGE_SEED, JudgeScore, JudgeSet, Paired};
use crate::bots::policy::{SearchOptions, search_config};
use crate::eval::heldout::{HeldoutScore, HeldoutSet};
use crate::nn::{NetEvaluator, model};
use crate::rules::Rules;
use crate::search::search_batch;

/// What to judge and how.
#[derive(Clone, Debug)]
pub struct JudgeOptions {
    /// The network: a checkpoint folder, its meta.json or weights (`policy:` prefix allowed).
    pub network: String,
    /// Another network to pair with on the same positions.
    pub against: Option<String>,
    /// Positions of the judge set (default: those of the set already solved in `cache`, else
    /// 1200).
    pub positions: Option<usize>,
    /// Folder of solved judge sets.
    pub cache: PathBuf,
    /// The seed the set is drawn from.
    pub seed: u64,
    /// The solver's limit a position when it solves the set (`Some(None)`: no limit; `None`: the
    /// cached set's).
    pub time_limit: Option<Option<Duration>>,
    /// Write the positions the network gets wrong here.
    pub misses: Option<PathBuf>,
    /// Judge the moves of this many simulations of search instead of the network alone.
    pub simulations: Option<u32>,
    /// With `simulations`: a search that proves subtrees (`:prove=on`).
    pub prove: bool,
    /// With `simulations`: the utility's margin weight (default: the checkpoint's).
    pub margin_weight: Option<f64>,
    /// With `simulations`: the Q transform's scale (default: the checkpoint's).
    pub c_scale: Option<f64>,
    /// With `simulations`: the weight of implicit minimax backups (default: the checkpoint's).
    pub minimax_weight: Option<f64>,
    /// Also the two held-out sets of this many positions, labelled by a database of this many
    /// seeds.
    pub heldout: Option<(usize, u32)>,
    /// Weight of the move head in the logits played by.
    pub moves_mix: Option<f32>,
}

/// The paired comparison with `--against` on the judge set.
#[derive(Clone, Debug, Serialize)]
pub struct Against {
    /// The other network's path.
    pub network: String,
    /// Its release id (or why it has none).
    pub network_id: String,
    /// Its share of optimal moves.
    pub optimal_rate: f64,
    /// Its standard error.
    pub std_err: f64,
    /// Positions only the judged network gets right.
    pub only_network: usize,
    /// Positions only the other one gets right.
    pub only_against: usize,
    /// Two-sided exact sign test.
    pub p_value: f64,
}

/// The paired comparison on a held-out set.
#[derive(Clone, Debug, Serialize)]
pub struct HeldoutAgainst {
    /// The other network's share of optimal moves.
    pub optimal_rate: f64,
    /// Its mean KL against the target.
    pub kl: Option<f64>,
    /// Its mean seeds lost a move.
    pub mean_loss: f64,
    /// Positions only the judged network gets right.
    pub only_network: usize,
    /// Positions only the other one gets right.
    pub only_against: usize,
    /// Two-sided exact sign test.
    pub p_value: f64,
}

/// A held-out set's score, paired where asked.
#[derive(Clone, Debug, Serialize)]
pub struct HeldoutReport {
    /// The judged network's score.
    #[serde(flatten)]
    pub score: HeldoutScore,
    /// The other network's, paired.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<HeldoutAgainst>,
}

/// One judgement.
#[derive(Clone, Debug, Serialize)]
pub struct JudgeReport {
    /// The score on the judge set.
    #[serde(flatten)]
    pub score: JudgeScore,
    /// The judged network's path.
    pub network: String,
    /// Its release id (or why it has none).
    pub network_id: String,
    /// The seed the judge set was drawn from.
    pub seed: u64,
    /// Simulations of search judged (none: the network alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulations: Option<u32>,
    /// With search: whether it proved subtrees.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prove: Option<bool>,
    /// With search: the utility's margin weight, where given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_weight: Option<f64>,
    /// With search: the Q transform's scale, where given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_scale: Option<f64>,
    /// With search: the weight of implicit minimax backups, where given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimax_weight: Option<f64>,
    /// The paired comparison, with `against`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<Against>,
    /// The held-out sets, where asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heldout: Option<Vec<HeldoutReport>>,
    /// The solver's limit a position the set was solved with.
    #[serde(skip)]
    pub time_limit: Option<Duration>,
}

/// The evaluator players use for `model`, with the move head weighed `mix` if given.
pub(crate) fn evaluator(model: &model::Model, mix: Option<f32>) -> NetEvaluator {
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

/// The release id of the network at `path` (or why it has none).
fn id_of(path: &str) -> String {
    crate::lineage::describe(&model::folder(std::path::Path::new(path)).unwrap_or_default())
}

/// Judges `o.network` as `o` says; `quiet` leaves out the progress lines on stderr.
pub fn judge(o: &JudgeOptions, quiet: bool) -> anyhow::Result<JudgeReport> {
    let options = SearchOptions::new(
        o.margin_weight,
        o.c_scale,
        o.prove.then_some(true),
        o.minimax_weight,
    )
    .map_err(anyhow::Error::msg)?;
    let (path, m, rules) = load_network(&o.network)?;
    let other = match &o.against {
        Some(spec) => {
            let (p, other, theirs) = load_network(spec)?;
            if theirs != rules {
                anyhow::bail!(
                    "--against {p} was trained for {}, {path} for {}: they cannot be judged on one set",
                    theirs.describe(),
                    rules.describe()
                );
            }
            Some((p, other))
        }
        None => None,
    };
    // Unless told otherwise, the set already solved for these rules, as it was solved.
    let cached = super::cached_settings(&rules, &o.cache);
    let positions = o.positions.or(cached.map(|c| c.0)).unwrap_or(1200);
    let limit = match o.time_limit {
        Some(t) => t,
        None => cached.and_then(|c| c.1),
    };
    if !quiet {
        eprintln!(
            "kalaha: judging {path} on {positions} positions of {} drawn from seed {} (solved once into {})",
            rules.describe(),
            o.seed,
            o.cache.display()
        );
    }
    let set = JudgeSet::load_or_build(&rules, positions, o.seed, &o.cache, limit)?;
    let picks = choices(&set, &m, o.simulations, options, o.moves_mix);
    let score = set.score_picks(&picks)?;
    if let Some(file) = &o.misses {
        let text = serde_json::to_string_pretty(&set.misses(&picks)?)?;
        crate::files::write_atomic(file, |w| std::io::Write::write_all(w, text.as_bytes()))
            .with_context(|| format!("cannot write the misses to {}", file.display()))?;
    }
    let against = match &other {
        Some((p, other)) => {
            let theirs = choices(&set, other, o.simulations, options, o.moves_mix);
            let s = set.score_picks(&theirs)?;
            let paired = set.compare(&picks, &theirs)?;
            Some(Against {
                network: p.clone(),
                network_id: id_of(p),
                optimal_rate: s.optimal_rate,
                std_err: s.std_err,
                only_network: paired.only_first,
                only_against: paired.only_second,
                p_value: paired.p_value,
            })
        }
        None => None,
    };
    let heldout = match o.heldout {
        Some((n, seeds)) => Some(heldout(
            &rules,
            n,
            seeds,
            quiet,
            &m,
            other.as_ref().map(|x| &x.1),
            o.moves_mix,
        )?),
        None => None,
    };
    let searched = o.simulations.is_some();
    Ok(JudgeReport {
        score,
        network_id: id_of(&path),
        network: path,
        seed: o.seed,
        simulations: o.simulations,
        prove: searched.then_some(o.prove),
        margin_weight: o.margin_weight.filter(|_| searched),
        c_scale: o.c_scale.filter(|_| searched),
        minimax_weight: o.minimax_weight.filter(|_| searched),
        against,
        heldout,
        time_limit: limit,
    })
}

/// The held-out sets scored for `m`, paired with `other` where given.
fn heldout(
    rules: &Rules,
    n: usize,
    seeds: u32,
    quiet: bool,
    m: &model::Model,
    other: Option<&model::Model>,
    mix: Option<f32>,
) -> anyhow::Result<Vec<HeldoutReport>> {
    let actions = rules.pits() + 1;
    let mut out = Vec::new();
    for set in &heldout_sets(rules, n, seeds, quiet)? {
        let logits = set.logits(&mut evaluator(m, mix));
        let score = set.score(&logits, actions)?;
        let against = match other {
            Some(o) => {
                let theirs = set.logits(&mut evaluator(o, mix));
                let paired =
                    Paired::of(set.correct(&logits, actions), set.correct(&theirs, actions));
                let t = set.score(&theirs, actions)?;
                Some(HeldoutAgainst {
                    optimal_rate: t.optimal_rate,
                    kl: t.kl,
                    mean_loss: t.mean_loss,
                    only_network: paired.only_first,
                    only_against: paired.only_second,
                    p_value: paired.p_value,
                })
            }
            None => None,
        };
        out.push(HeldoutReport { score, against });
    }
    Ok(out)
}

/// A network's path with its release id, once: `PATH (ID)`, or the id's own line where it
/// already names the path (`PATH (no release id)`).
fn named(path: &str, id: &str) -> String {
    match id.starts_with(path) {
        true => id.to_string(),
        false => format!("{path} ({id})"),
    }
}

impl JudgeReport {
    /// The report as `kalaha judge` prints it.
    pub fn text(&self) -> String {
        let pct = |r: f64| 100.0 * r;
        let how = self.simulations.map_or("alone".to_string(), |n| {
            let how = match self.prove.unwrap_or(false) {
                true => format!("with {n} simulations of a proving search"),
                false => format!("with {n} simulations"),
            };
            let settings: Vec<String> = [
                self.margin_weight.map(|w| format!("margin weight {w:.2}")),
                self.c_scale.map(|x| format!("c_scale {x}")),
                self.minimax_weight
                    .map(|a| format!("minimax weight {a:.2}")),
            ]
            .into_iter()
            .flatten()
            .collect();
            match settings.is_empty() {
                true => how,
                false => format!("{how} ({})", settings.join(", ")),
            }
        });
        let (path, score) = (&self.network, &self.score);
        let mut s = format!(
            "{}: {:.1}% ± {:.1} solver-optimal moves {how} on {} positions, {:.2} seeds lost a move\n",
            named(path, &self.network_id),
            pct(score.optimal_rate),
            pct(score.std_err),
            score.positions,
            score.mean_loss
        );
        if score.unsolved > 0 {
            s += &format!(
                "  {} more positions drawn were not proved within {} s each and are left out\n",
                score.unsolved,
                self.time_limit.map_or(0.0, |l| l.as_secs_f64())
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
        if let Some(a) = &self.against {
            let o = &a.network;
            s += &format!(
                "against {}: {:.1}% ± {:.1}; only {path} right in {}, only {o} in {} (sign test p = {:.3})\n",
                named(o, &a.network_id),
                pct(a.optimal_rate),
                pct(a.std_err),
                a.only_network,
                a.only_against,
                a.p_value
            );
        }
        for h in self.heldout.iter().flatten() {
            let hs = &h.score;
            // KL and set loss where the judged agent gave a distribution (none from actions).
            let kl = |kl: Option<f64>| kl.map_or(String::new(), |k| format!(", KL {k:.4}"));
            let set_loss = hs
                .set_loss
                .map_or(String::new(), |l| format!(", set loss {l:.4}"));
            s += &format!(
                "held-out {} ({} positions inside the database, set {}): {:.2}% ± {:.2} optimal{}{set_loss}, {:.3} seeds lost a move\n",
                hs.set,
                hs.positions,
                hs.checksum,
                pct(hs.optimal_rate),
                pct(hs.std_err),
                kl(hs.kl),
                hs.mean_loss
            );
            for b in &hs.bands {
                s += &format!(
                    "  {}-{} seeds: {:.2}% of {}{}, {:.3} seeds lost\n",
                    b.min_seeds,
                    b.max_seeds,
                    pct(b.optimal_rate),
                    b.positions,
                    kl(b.kl),
                    b.mean_loss
                );
            }
            if let Some(a) = &h.against {
                s += &format!(
                    "  against: {:.2}%; only {path} right in {}, only the other in {} (sign test p = {:.2e})\n",
                    pct(a.optimal_rate),
                    a.only_network,
                    a.only_against,
                    a.p_value
                );
            }
        }
        s
    }
}
