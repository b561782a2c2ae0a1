//! `kalaha networks`: the released networks found where `policy:auto` looks, each with its
//! release id, rules, shape, lineage and figures, its weights and parent checked
//! ([`crate::lineage::verify`]).

use clap::Args;
use serde::Serialize;

use super::{emit, emit_json};
use crate::lineage::{self, ParentCheck, ReleaseCard, Trust};
use crate::nn::model;

#[derive(Debug, Args)]
pub struct NetworksArgs {
    /// Print one JSON object a line.
    #[arg(long)]
    json: bool,
}

/// One released network as listed.
#[derive(Serialize)]
struct Listed {
    folder: String,
    rules: String,
    network: String,
    trust: Trust,
    parent: ParentCheck,
    release: Option<ReleaseCard>,
}

pub fn run(a: NetworksArgs) -> anyhow::Result<()> {
    let roots = model::checkpoint_roots();
    let mut listed = Vec::new();
    for root in &roots {
        for dir in model::released_networks(root) {
            let Ok(card) = model::load_card(&dir) else {
                continue;
            };
            let released = lineage::read(&dir)?;
            let (trust, parent) = lineage::verify(&released, &roots);
            listed.push(Listed {
                folder: dir.display().to_string(),
                rules: card.rules.build().map(|r| r.describe()).unwrap_or_default(),
                network: card.network.describe(),
                trust,
                parent,
                release: released.card,
            });
        }
    }
    if a.json {
        for l in &listed {
            emit_json(l)?;
        }
        return Ok(());
    }
    let mut out = String::new();
    for l in &listed {
        let Some(c) = &l.release else {
            out.push_str(&format!("{}: no release id ({})\n", l.folder, l.rules));
            continue;
        };
        out.push_str(&format!("{}  {}\n", c.id, l.folder));
        out.push_str(&format!("  {}, {}\n", l.rules, l.network));
        let judged = c.judged.as_ref().and_then(|j| {
            j.judge_optimal
                .map(|o| format!("{:.1}% optimal alone on the judge set", 100.0 * o))
        });
        out.push_str(&format!(
            "  {:.1} h of training ({:.1} h with its parents){}\n",
            c.training_seconds / 3600.0,
            c.lineage_seconds / 3600.0,
            judged.map(|j| format!(", {j}")).unwrap_or_default()
        ));
        match (&c.parent, &l.parent) {
            (Some(p), ParentCheck::Absent) => {
                out.push_str(&format!("  parent {} (no longer released here)\n", p.id))
            }
            (Some(p), _) => out.push_str(&format!("  parent {}\n", p.id)),
            (None, _) => {}
        }
        match &c.recipe {
            Some(r) if c.rebuildable => out.push_str(&format!(
                "  rebuildable: kalaha train --config {} (stages {}; commit {})\n",
                r.config,
                r.stages
                    .iter()
                    .map(|s| format!("{} {}", s.name, s.iterations))
                    .collect::<Vec<_>>()
                    .join(", "),
                c.commit
            )),
            _ => out.push_str("  not rebuildable from the repository\n"),
        }
        for h in &c.history {
            out.push_str(&format!("    {h}\n"));
        }
        if !l.trust.is_verified() {
            out.push_str(&format!("  {}\n", l.trust));
        }
    }
    if listed.is_empty() {
        out.push_str(&format!(
            "no released networks in {}\n",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    emit(&out)
}
