//! The GPU backend (`--features wgpu`, `run.device = "wgpu"`) trains as the CPU backend does: the
//! same AdamW steps from the same weights on the same batch on both, the losses, weights and
//! outputs within `kalaha::train::bench`'s tolerances; and the whole training loop runs on it.
//! Where no adapter is found (no Vulkan driver; Debian's `mesa-vulkan-drivers` gives lavapipe,
//! which runs them on the CPU) the tests print why and pass without checking anything, unless
//! `KALAHA_REQUIRE_GPU=1` (as CI runs them, where lavapipe is installed): then a missing adapter
//! fails them.
#![cfg(feature = "wgpu")]

use kalaha::train::TrainConfig;
use kalaha::train::bench::{CompareSpec, TrainBenchSpec, bench_train, compare_devices};

/// Whether this machine has a wgpu adapter (the reason printed where not).
fn have_gpu(test: &str) -> bool {
    match kalaha::train::device("wgpu") {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var("KALAHA_REQUIRE_GPU").as_deref() != Ok("1"),
                "{test}: KALAHA_REQUIRE_GPU=1 but no wgpu adapter: {e:#}"
            );
            eprintln!("{test}: skipped, no wgpu adapter on this machine: {e:#}");
            false
        }
    }
}

#[test]
fn training_steps_on_the_gpu_match_the_cpu() {
    if !have_gpu("training_steps_on_the_gpu_match_the_cpu") {
        return;
    }
    let c = compare_devices("cpu", "wgpu", &CompareSpec::default()).unwrap();
    eprintln!("{}", serde_json::to_string(&c).unwrap());
    assert!(c.within_tolerance, "cpu and wgpu differ: {c:?}");
    // The steps did train.
    assert!(c.losses[0].last() < c.losses[0].first());
}

#[test]
fn the_training_loop_runs_on_the_gpu() {
    if !have_gpu("the_training_loop_runs_on_the_gpu") {
        return;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let cfg = TrainConfig::load(&path, &[]).unwrap();
    let spec = TrainBenchSpec {
        device: "wgpu".into(),
        iterations: 1,
        warmup: 1,
    };
    let r = bench_train(&cfg, &spec).unwrap();
    eprintln!(
        "smoke on wgpu: {:.0} samples/s, {:.0} positions/s",
        r.samples_per_sec, r.positions_per_sec
    );
    // What is counted (see tests/cli.rs): each rate over its own part of the iteration.
    assert!(
        r.positions_per_sec * r.seconds_per_iteration >= 0.99 * r.positions_per_iteration as f64
    );
    assert!(
        r.samples_per_sec * r.seconds_per_iteration
            >= 0.99 * (r.batch_size as f64 * r.steps_per_iteration as f64)
    );
}
