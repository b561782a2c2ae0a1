//! `kalaha release`: a run's latest network copied into `checkpoints/<NAME>/` as a released
//! network (its weights and its sidecar, which then names no optimizer or run state), where
//! `policy:auto`, `kalaha play` and the Python package find it (`checkpoints/README.md`).

use std::path::PathBuf;

use clap::Args;

use super::{emit, emit_json};
use crate::train::release;

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// The run's folder: a recipe's (e.g. `checkpoints/runs/kalah64`: its last stage's network) or
    /// one run's, or its meta.json.
    #[arg(value_name = "RUN_DIR")]
    run: PathBuf,
    /// The released network's folder name (e.g. `kalah64`; not `judge` or `runs`).
    #[arg(value_name = "NAME")]
    name: String,
    /// The folder of released networks.
    #[arg(long, value_name = "DIR", default_value = "checkpoints")]
    into: PathBuf,
    /// Replace a released network of that name.
    #[arg(long)]
    force: bool,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: ReleaseArgs) -> anyhow::Result<()> {
    let r = release::release(&a.run, &a.into, &a.name, a.force)?;
    if a.json {
        return emit_json(&r);
    }
    let c = &r.release;
    let mut out = format!(
        "{} {} as {} ({}, iteration {}) from {}: {} and meta.json\n",
        if r.replaced { "replaced" } else { "released" },
        r.network.display(),
        c.id,
        r.rules,
        r.iteration,
        r.run.display(),
        r.model
    );
    out.push_str(&format!(
        "  parent {}, {:.0} s of training ({:.0} s with its parents), commit {}\n",
        c.parent.as_ref().map_or("none", |p| p.id.as_str()),
        c.training_seconds,
        c.lineage_seconds,
        c.commit
    ));
    if c.rebuildable {
        out.push_str("  rebuildable from its recipe\n");
    }
    for h in &c.history {
        out.push_str(&format!("  {h}\n"));
    }
    emit(&out)
}
