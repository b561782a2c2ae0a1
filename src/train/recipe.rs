//! Recipes: a training config whose `[[stage]]` tables run in order, each a run of its own that
//! starts from the one before it (a narrow stage, a widening, continuations with other keys or
//! schedules), so that one `kalaha train --config` rebuilds a released network from nothing or
//! from its parent release.
//!
//! ```toml
//! [run]
//! name = "kalah64"            # stages go to <checkpoint_dir>/kalah64/<stage>/
//! # ... every section as in a one-run config: the first stage's settings
//!
//! [[stage]]
//! name = "base"
//! iterations = 850
//!
//! [[stage]]
//! name = "widen"
//! iterations = 300
//! set = { network.hidden = 512, optim.lr = 0.0005 }   # on top of the stages before it
//! ```
//!
//! Stage `k`'s config is the file's, then the `set` tables of stages 1 to `k` in order; its
//! `run.iterations` is the stage's; then the command line's `--set` overrides (all but
//! `run.name` and the folders, which place the recipe as a whole); its checkpoints go to
//! `<run.checkpoint_dir>/<run.name>/<stage>/` and its logs beside them, and every stage after the
//! first starts from the one before it (`run.init`) unless its `set` names another start. A config
//! without stages is a recipe of one stage: the config itself, in `<checkpoint_dir>/<name>/`.
//!
//! Each sitting writes `recipe.json` into the recipe's folder: the config file, its hash, the
//! overrides and the commit of the binary, one entry a sitting; `kalaha release` reads it.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::TrainConfig;
use super::config::{apply_set_value, locate};

/// One stage of a recipe, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// Its name in the config (its folder's name in a staged recipe).
    pub name: String,
    /// Its whole config.
    pub config: TrainConfig,
}

impl Stage {
    /// Its checkpoint folder.
    pub fn dir(&self) -> PathBuf {
        self.config.run.checkpoint_dir.join(&self.config.run.name)
    }
}

/// A config's stages, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The config file, as given (`configs/kalah64.toml`).
    pub config: String,
    /// SHA-256 of the config file's text.
    pub config_sha256: String,
    /// The command line's overrides.
    pub sets: Vec<String>,
    /// The recipe's folder: `<run.checkpoint_dir>/<run.name>`.
    pub root: PathBuf,
    /// Whether the config has `[[stage]]` tables (else its one stage is the config itself).
    pub staged: bool,
    /// The stages, at least one.
    pub stages: Vec<Stage>,
}

/// A `[[stage]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StageTable {
    name: String,
    iterations: u32,
    #[serde(default)]
    set: toml::Table,
}

/// The stage names a recipe may not use: they would clash with the files beside them.
fn check_stage_name(name: &str) -> anyhow::Result<()> {
    if !crate::lineage::is_plain_name(name) || name.starts_with("tb-") {
        bail!("stage name '{name}' must be a plain folder name (letters, digits, - and _)");
    }
    Ok(())
}

/// Whether a `--set` override names the recipe's name or folders (applied to the recipe, not to
/// each stage).
fn places_the_recipe(set: &str) -> bool {
    matches!(
        super::config::override_key(set),
        "run.name" | "run.checkpoint_dir" | "run.experiment_dir"
    )
}

/// Flattens a `set` table (`{ network.hidden = 512 }` or `{ "network.hidden" = 512 }`) into
/// dotted keys and values.
fn flatten(prefix: &str, t: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(inner) => flatten(&key, inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

impl Recipe {
    /// Reads a config file as a recipe, with `--set` overrides.
    pub fn load(path: &Path, sets: &[String]) -> anyhow::Result<Recipe> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        Recipe::parse(&text, sets, &path.display().to_string())
            .with_context(|| format!("config {}", path.display()))
    }

    /// Parses config text (`config` names it) as a recipe, with `--set` overrides; every stage's
    /// config is checked.
    pub fn parse(text: &str, sets: &[String], config: &str) -> anyhow::Result<Recipe> {
        let mut table: toml::Table = text.parse()?;
        let stage_tables = match table.remove("stage") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => {
                if a.is_empty() {
                    bail!("stage: an empty list (leave it out for a one-stage config)");
                }
                a.into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        v.try_into::<StageTable>()
                            .with_context(|| format!("stage {}", i + 1))
                    })
                    .collect::<anyhow::Result<Vec<_>>>()?
            }
            Some(_) => bail!("stage must be a list of tables ([[stage]])"),
        };
        let config_sha256 = crate::lineage::sha256_hex(text.as_bytes());
        if stage_tables.is_empty() {
            let cfg =
                TrainConfig::from_table(table, sets).map_err(|e| locate(e, text, sets, None))?;
            let root = cfg.run.checkpoint_dir.join(&cfg.run.name);
            return Ok(Recipe {
                config: config.to_string(),
                config_sha256,
                sets: sets.to_vec(),
                root,
                staged: false,
                stages: vec![Stage {
                    name: cfg.run.name.clone(),
                    config: cfg,
                }],
            });
        }
        // The file's own settings with the overrides: the recipe's name and folders.
        let base = TrainConfig::from_table(table.clone(), sets)
            .map_err(|e| locate(e, text, sets, None))
            .context("the settings before the stages")?;
        let root = base.run.checkpoint_dir.join(&base.run.name);
        let logs = base.run.experiment_dir.join(&base.run.name);
        let mut stages: Vec<Stage> = Vec::new();
        let mut acc = table;
        for (i, st) in stage_tables.into_iter().enumerate() {
            let what = format!("stage {} ({})", i + 1, st.name);
            check_stage_name(&st.name).with_context(|| what.clone())?;
            if stages.iter().any(|s| s.name == st.name) {
                bail!("{what}: a stage of that name comes earlier");
            }
            let mut own = Vec::new();
            flatten("", &st.set, &mut own);
            for (key, value) in &own {
                if matches!(
                    key.as_str(),
                    "run.name" | "run.iterations" | "run.checkpoint_dir" | "run.experiment_dir"
                ) {
                    bail!(
                        "{what}: set {key}: a stage's name, length and folders come from the recipe"
                    );
                }
                apply_set_value(&mut acc, key, value.clone()).with_context(|| what.clone())?;
            }
            let mut t = acc.clone();
            let names_start = own
                .iter()
                .any(|(k, _)| k == "run.init" || k == "run.parent");
            if i > 0 && !names_start {
                let run = t
                    .get_mut("run")
                    .and_then(|r| r.as_table_mut())
                    .context("run: missing")?;
                run.remove("parent");
                let prev = stages[i - 1].dir();
                run.insert(
                    "init".into(),
                    toml::Value::String(prev.display().to_string()),
                );
            }
            let cfg = TrainConfig::from_table_with(t, &[], |t| {
                let run = t
                    .get_mut("run")
                    .and_then(|r| r.as_table_mut())
                    .context("run: missing")?;
                run.insert("name".into(), toml::Value::String(st.name.clone()));
                run.insert(
                    "iterations".into(),
                    toml::Value::Integer(i64::from(st.iterations)),
                );
                run.insert(
                    "checkpoint_dir".into(),
                    toml::Value::String(root.display().to_string()),
                );
                run.insert(
                    "experiment_dir".into(),
                    toml::Value::String(logs.display().to_string()),
                );
                // The command line's overrides apply to every stage, over the stage's own keys
                // (`--set run.iterations=2` shortens each stage), but those that place the
                // recipe's folder place it once, above.
                for set in sets.iter().filter(|s| !places_the_recipe(s)) {
                    super::config::apply_set(t, set)?;
                }
                Ok(())
            })
            .map_err(|e| locate(e, text, sets, Some(i)))
            .with_context(|| what.clone())?;
            stages.push(Stage {
                name: st.name,
                config: cfg,
            });
        }
        Ok(Recipe {
            config: config.to_string(),
            config_sha256,
            sets: sets.to_vec(),
            root,
            staged: true,
            stages,
        })
    }

    /// The one stage of a config without stages; a recipe of several is refused, naming them.
    pub fn single(self) -> anyhow::Result<TrainConfig> {
        if self.staged {
            bail!(
                "{} is a recipe of {} stages ({}): `kalaha train --config` runs them in order; pick one with --stage NAME",
                self.config,
                self.stages.len(),
                self.names().join(", ")
            );
        }
        Ok(self.stages.into_iter().next().expect("one stage").config)
    }

    /// The stage named `name` (or, for `None`, the one stage of a config without stages).
    pub fn stage(self, name: Option<&str>) -> anyhow::Result<TrainConfig> {
        let Some(name) = name else {
            return self.single();
        };
        Ok(self.only(name)?.stages.swap_remove(0).config)
    }

    /// The recipe cut to its stage `name` alone (in its own folder, starting as in the recipe).
    pub fn only(mut self, name: &str) -> anyhow::Result<Recipe> {
        let names = self.names();
        let Some(i) = self.stages.iter().position(|s| s.name == name) else {
            bail!("no stage '{name}' (the stages: {})", names.join(", "));
        };
        self.stages = vec![self.stages.swap_remove(i)];
        Ok(self)
    }

    /// The stages' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.stages.iter().map(|s| s.name.clone()).collect()
    }

    /// The last stage: the one whose network the recipe makes.
    pub fn last(&self) -> &Stage {
        self.stages.last().expect("a recipe has a stage")
    }

    /// Adds this sitting to `recipe.json` in the recipe's folder (written whole or not at all).
    pub fn record_sitting(&self) -> anyhow::Result<()> {
        let path = self.root.join(RECIPE_FILE);
        let mut file = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str::<RecipeFile>(&text)
                .with_context(|| format!("corrupt {}", path.display()))?,
            Err(_) => RecipeFile {
                config: self.config.clone(),
                stages: self.names(),
                staged: self.staged,
                sittings: Vec::new(),
            },
        };
        file.stages = self.names();
        file.sittings.push(Sitting {
            date: crate::lineage::today(),
            commit: crate::lineage::COMMIT.to_string(),
            config_sha256: self.config_sha256.clone(),
            sets: self.sets.clone(),
        });
        crate::files::write_bytes(&path, serde_json::to_string_pretty(&file)?.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The name of the recipe's record in its folder.
pub const RECIPE_FILE: &str = "recipe.json";

/// `recipe.json`: what ran in a recipe's folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecipeFile {
    /// The config file.
    pub config: String,
    /// Its stages' names, in order (the latest sitting's).
    pub stages: Vec<String>,
    /// Whether the stages are sub-folders (else the recipe's folder is its one stage's).
    pub staged: bool,
    /// Each sitting of `kalaha train`, in order.
    pub sittings: Vec<Sitting>,
}

/// One sitting of `kalaha train` on a recipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sitting {
    /// Its day (UTC).
    pub date: String,
    /// The binary's commit.
    pub commit: String,
    /// SHA-256 of the config file then.
    pub config_sha256: String,
    /// The command line's overrides.
    pub sets: Vec<String>,
}

/// Reads `recipe.json` in `dir`, if there is one.
pub fn read_record(dir: &Path) -> anyhow::Result<Option<RecipeFile>> {
    let path = dir.join(RECIPE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(
            serde_json::from_str(&text).with_context(|| format!("corrupt {}", path.display()))?,
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Where a recipe stands in its folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageState {
    /// No checkpoint yet.
    Fresh,
    /// A checkpoint at this iteration, short of the stage's length.
    Partial(u32),
    /// Finished.
    Done,
}

/// The state of `stage` on disk.
pub fn stage_state(stage: &Stage) -> StageState {
    match super::checkpoint::load_meta(&stage.dir()) {
        Err(_) => StageState::Fresh,
        Ok(m) if m.iteration >= stage.config.run.iterations => StageState::Done,
        Ok(m) => StageState::Partial(m.iteration),
    }
}

/// What [`train`] tells its caller as it goes.
pub enum Event<'a> {
    /// A stage starts or resumes: its index (from 0), the recipe's stage count, the stage, and the
    /// trainer (its folders and progress so far).
    Stage(usize, usize, &'a Stage, &'a super::Trainer),
    /// A finished stage passed over.
    Skipped(usize, usize, &'a Stage),
    /// An iteration of the current stage.
    Progress(&'a super::Progress),
    /// The stage ended (finished, or stopped by `stop`).
    StageEnd(&'a super::Meta),
}

/// How a sitting of [`train`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every stage is finished; the network is the last stage's.
    Finished,
    /// `stop` was raised: the current stage's checkpoint is saved and `--resume` goes on from it.
    Stopped,
}

/// Runs the recipe's stages in order, from where its folder stands: finished stages are passed
/// over, a stage with a checkpoint is resumed (only with `resume`: without it an existing
/// checkpoint is refused, as a one-stage run refuses it), a fresh stage starts from its start.
/// Stops after the current iteration when `stop` is raised, its checkpoint saved.
pub fn train(
    recipe: &Recipe,
    resume: bool,
    stop: &std::sync::atomic::AtomicBool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> anyhow::Result<Outcome> {
    use std::sync::atomic::Ordering;
    let n = recipe.stages.len();
    let mut recorded = false;
    for (i, stage) in recipe.stages.iter().enumerate() {
        let state = stage_state(stage);
        if recipe.staged && state == StageState::Done && resume {
            on_event(Event::Skipped(i, n, stage));
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Stopped);
        }
        if !recorded {
            recipe.record_sitting()?;
            recorded = true;
        }
        let go_on = resume && state != StageState::Fresh;
        let mut trainer = super::Trainer::new(stage.config.clone(), go_on)
            .with_context(|| format!("stage {} of {n} ({})", i + 1, stage.name))?;
        on_event(Event::Stage(i, n, stage, &trainer));
        trainer.run(stop, &mut |p| on_event(Event::Progress(p)))?;
        on_event(Event::StageEnd(trainer.meta()));
        if stop.load(Ordering::Relaxed) && trainer.meta().iteration < stage.config.run.iterations {
            return Ok(Outcome::Stopped);
        }
    }
    Ok(Outcome::Finished)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMOKE: &str = include_str!("../../configs/smoke.toml");

    fn staged(extra: &str) -> String {
        format!(
            "{SMOKE}\n[[stage]]\nname = \"narrow\"\niterations = 2\n\n[[stage]]\nname = \"wide\"\niterations = 3\n{extra}"
        )
    }

    #[test]
    fn stages_accumulate_their_sets_and_chain_their_starts() {
        let text = staged(
            "set = { network.hidden = 64, \"optim.lr\" = 0.0005 }\n\n[[stage]]\nname = \"more\"\niterations = 1\nset = { run.seed = 9 }\n",
        );
        let r = Recipe::parse(&text, &["search.simulations=8".into()], "x.toml").unwrap();
        assert!(r.staged);
        assert_eq!(r.names(), ["narrow", "wide", "more"]);
        let base = TrainConfig::parse(SMOKE, &[]).unwrap();
        assert_eq!(r.root, base.run.checkpoint_dir.join(&base.run.name));
        let [a, b, c] = &r.stages[..] else { panic!() };
        assert_eq!(a.config.run.iterations, 2);
        assert_eq!(a.config.run.init, base.run.init);
        assert_eq!(a.config.network.hidden, base.network.hidden);
        assert_eq!(a.dir(), r.root.join("narrow"));
        assert_eq!(b.config.network.hidden, 64);
        assert_eq!(b.config.optim.lr, 0.0005);
        assert_eq!(b.config.run.init.as_deref(), Some(a.dir().as_path()));
        // Stage 3 keeps stage 2's settings, adds its own, and starts from stage 2.
        assert_eq!(c.config.network.hidden, 64);
        assert_eq!(c.config.run.seed, 9);
        assert_eq!(c.config.run.init.as_deref(), Some(b.dir().as_path()));
        // The command line's overrides apply to every stage.
        assert!(r.stages.iter().all(|s| s.config.search.simulations == 8));
        // `--set run.iterations=1` shortens every stage; `--set run.name` moves the recipe.
        let sets = ["run.iterations=1".to_string(), "run.name=other".to_string()];
        let short = Recipe::parse(&text, &sets, "x.toml").unwrap();
        assert!(short.stages.iter().all(|s| s.config.run.iterations == 1));
        assert_eq!(short.root, base.run.checkpoint_dir.join("other"));
        assert_eq!(short.stages[1].config.run.name, "wide");
        assert_eq!(short.stages[1].dir(), short.root.join("wide"));
        assert_eq!(short.clone().only("wide").unwrap().names(), ["wide"]);
        assert!(short.only("nope").is_err());
        // A staged config is not one run.
        let err = TrainConfig::parse(&text, &[]).unwrap_err().to_string();
        assert!(
            err.contains("recipe of 3 stages (narrow, wide, more)"),
            "{err}"
        );
        assert_eq!(r.clone().stage(Some("wide")).unwrap().network.hidden, 64);
        assert!(r.stage(Some("nope")).is_err());
    }

    #[test]
    fn a_config_without_stages_is_its_own_one_stage() {
        let r = Recipe::parse(SMOKE, &[], "smoke.toml").unwrap();
        assert!(!r.staged);
        let cfg = TrainConfig::parse(SMOKE, &[]).unwrap();
        assert_eq!(r.stages.len(), 1);
        assert_eq!(r.stages[0].config, cfg);
        assert_eq!(r.stages[0].dir(), r.root);
    }

    #[test]
    fn bad_stages_are_refused_by_name() {
        let bad = |extra: &str, want: &str| {
            let e = format!("{:#}", Recipe::parse(&staged(extra), &[], "x").unwrap_err());
            assert!(e.contains(want), "{extra}: {e}");
        };
        bad("set = { network.hidden = 0 }", "network.hidden");
        bad("set = { run.iterations = 5 }", "run.iterations");
        bad("set = { nope.x = 1 }", "nope");
        bad(
            "\n[[stage]]\nname = \"wide\"\niterations = 1",
            "a stage of that name",
        );
        bad(
            "\n[[stage]]\nname = \"a/b\"\niterations = 1",
            "plain folder name",
        );
        bad(
            "\n[[stage]]\nname = \"c\"\niterations = 1\ncolour = 1",
            "colour",
        );
        let e = Recipe::parse(&format!("stage = 3\n{SMOKE}"), &[], "x").unwrap_err();
        assert!(e.to_string().contains("[[stage]]"));
    }
}
