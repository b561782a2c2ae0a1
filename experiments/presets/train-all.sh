#!/usr/bin/env bash
# Trains the networks of every rule set (experiments/presets/README.md) one after another (each resumes if its checkpoint
# exists, so the chain can be stopped with Ctrl-C and started again). Runs write
# checkpoints/runs/<name>-run/ and experiments/<name>-run/; to release one:
# `kalaha release checkpoints/runs/<name>-run <name> --force` (checkpoints/README.md). (The first runs, on
# 2026-12-01, were still named <name>, so their logs are experiments/<name>/train.log.)
# usage: experiments/presets/train-all.sh [KALAHA_BINARY] [NAME...]
set -u
bin=${1:-target/release/kalaha}
shift || true
names=${*:-kalah64-pie children swedish danish norwegian}
for n in $names; do
  mkdir -p experiments/$n-run
  if [ -f checkpoints/runs/$n-run/meta.json ]; then resume=--resume; else resume=; fi
  echo "== $n $(date -u +%H:%M:%S)" >&2
  "$bin" train --config configs/$n.toml $resume >> experiments/$n-run/train.log 2>&1 || echo "$n failed: $?" >&2
done
