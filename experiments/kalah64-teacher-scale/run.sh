#!/usr/bin/env bash
# experiments/kalah64-teacher-scale: the data curve of kalah64-teacher carried further and aimed at
# the committed network. More middle-game positions labelled by the same teacher as the curve's
# third point (the 4x256 kalah64-v3 network's 512-simulation search, the database at the leaves;
# seed 4, so the curve's 1,000,000 lines are this file's first ones), then the committed 4x512
# network continued on them, supervised, beside the database's exact endgame labels.
#   experiments/kalah64-teacher-scale/run.sh teach POSITIONS   # resumable: appends to the cached file
#   experiments/kalah64-teacher-scale/run.sh fresh             # seed 3's 20,000 lines, never trained on
#   experiments/kalah64-teacher-scale/run.sh train [--resume] [--set KEY=VALUE ...]     # from checkpoints/kalah64
#   experiments/kalah64-teacher-scale/run.sh scratch [--resume] [--set KEY=VALUE ...]   # a point of the curve on the file as it stands
# scratch is the curve's recipe (kalah64-teacher's third point: a new 4x512 network, 450 iterations,
# the config's learning rate); train continues the committed network 300 iterations at 0.0005.
# train and scratch first write the file without the Kalah(6,4) judge set's positions (unless it is
# newer than the teacher's file; midgame-teacher/without.py: the judge-like draw repeats positions,
# and the judge set is drawn the same way), and train on that.
# KALAHA names the binary, PYTHON an interpreter with the kalaha package.
set -euo pipefail
cd "$(dirname "$0")/../.."
k=${KALAHA:-./target/release/kalaha}
PY=${PYTHON:-python3}
cache=${KALAHA_CACHE:-$HOME/.cache/kalaha}
teacher=experiments/kalah64-v3/network
file=$cache/midgame-teacher-6x4-seed4-s512.jsonl       # teach.py's own name for seed 4, 512 simulations
trained=$cache/midgame-teacher-6x4-seed4-s512-nojudge.jsonl
step=${1:?"teach POSITIONS, fresh, train or scratch"}
shift
case $step in
  teach) exec $PY experiments/midgame-teacher/teach.py --seed 4 --positions "${1:?positions}" \
           --network $teacher --out "$file" ;;
  fresh) exec $PY experiments/midgame-teacher/teach.py --seed 3 --positions 20000 --network $teacher ;;
  train|scratch)
         [[ $trained -nt $file ]] ||
           $PY experiments/midgame-teacher/without.py "$file" \
             --judge checkpoints/judge/judge2-6x4-standard-owner-immediate-piefalse-1200-2026.json \
             --out "$trained" --json > experiments/kalah64-teacher-scale/without.json
         if [[ $step == train ]]; then
           arm=(--set run.name='"kalah64-teacher-scale"' --set run.iterations=300
                --set run.init='"checkpoints/kalah64"' --set optim.lr=0.0005 --set optim.warmup_steps=50)
         else
           arm=(--set run.name='"kalah64-teacher-scale-scratch"' --set run.iterations=450)
         fi
         exec $k train --config configs/kalah64-supervised.toml "${arm[@]}" --set network.hidden=512 \
           --set selfplay.label_file="\"$trained\"" \
           --set selfplay.label_file_share=1.0 --set selfplay.label_file_holdout=0 \
           --set run.experiment_dir='"experiments/kalah64-teacher-scale"' "$@" ;;
  *) echo "kalah64-teacher-scale.sh: the step is teach, fresh, train or scratch, not '$step'" >&2
     exit 2 ;;
esac
