#!/usr/bin/env bash
# experiments/kalah64-hard-floor: what decides the `hard` level's games against `solver`. Every
# measurement is on midgame-labels/games.py's perfect-play lines (6 random moves, then perfect
# play on both sides, every position outside the database solved), with score.py's result-keeping
# measures: the share of moves that keep the game-theoretic result, and the share of game sides
# whose every move keeps it (what the `hard` level would reach against `solver` from those openings).
#   experiments/kalah64-hard-floor/run.sh [STEP ...]   # steps: sims networks ensemble margin margin-loss bins capacity exact c-scale (default all)
# The networks step reads the runs of kalah64-teacher-scale (checkpoints/runs/, not in git: its
# README gives the commands). The games against solver are kalaha eval series (the README's commands).
# Writes experiments/kalah64-hard-floor/*.json. PYTHON names an interpreter with the kalaha package.
set -euo pipefail
cd "$(dirname "$0")/../midgame-labels"
PY=${PYTHON:-python3}
out=../kalah64-hard-floor
labels=labels-6x4-games-seed1.jsonl
committed=../../checkpoints/kalah64
score() { $PY score.py --labels $labels --json "$@"; }
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(sims networks ensemble margin margin-loss bins capacity exact c-scale)
for step in "${steps[@]}"; do
  case $step in
    sims)     # the committed network's search with more simulations
              for s in 16 64 256 1024; do score --network $committed --simulations $s > $out/committed-s$s.json; done ;;
    networks) # the teacher-trained networks, paired with the committed one, at 64 and 1,024 simulations
              for s in 64 1024; do
                score --network ../kalah64-teacher-scale/network --against $committed --simulations $s > $out/candidate-s$s.json
              done
              score --network ../../checkpoints/runs/kalah64-teacher-scale-fifth --against $committed > $out/fifth900-s64.json
              score --network ../../checkpoints/runs/kalah64-teacher-scale-within1 --against $committed > $out/within1-s64.json
              score --network ../../checkpoints/runs/kalah64-teacher-scale-within1-more --against $committed > $out/within1more-s64.json ;;
    ensemble) # the mean of two networks' outputs as the search's evaluator
              $PY ensemble.py --networks $committed ../kalah64-teacher-scale/network --json > $out/ensemble-s64.json ;;
    margin)   # the search's utility leaning on the value head, (1 - W) * value + W * margin, paired with W = 1
              $PY search_scale.py --labels $labels --network $committed --c-scale --c-visit --considered \
                --margin-weight 0.95 0.9 0.85 0.75 0.5 --json > $out/margin-games.json
              $PY search_scale.py --network $committed --labels ../../checkpoints/labels/labels-6x4-seed1.jsonl \
                --c-scale --c-visit --considered --margin-weight 0.9 --json > $out/margin-judge-like.json ;;
    margin-loss) # the set-valued scratch run with optim.margin_weight 32, paired with the weight-8 run
              m32=../../checkpoints/runs/kalah64-teacher-scale-within1-m32 w8=../../checkpoints/runs/kalah64-teacher-scale-within1
              score --network $m32 --against $w8 > $out/m32-vs-within1-s64.json
              $PY values.py --networks $w8 $m32 --labels $labels --json > $out/values-m32-vs-within1.json ;;
    bins)     # the set-valued scratch run with a margin distribution (network.margin_bins; its
              # cross-entropy weighed 1, and 0.25: -q), paired with the run of value and margin
              # outputs, at the checkpoints' W = 1 and at 0.9
              w8=../../checkpoints/runs/kalah64-teacher-scale-within1
              for run in bins bins-q; do
                net=../../checkpoints/runs/kalah64-teacher-scale-within1-$run
                score --network $net --against $w8 > $out/$run-vs-within1-s64.json
                score --network $net --against $w8 --margin-weight 0.9 > $out/$run-vs-within1-s64-w0.9.json
              done
              $PY values.py --networks $w8 ../../checkpoints/runs/kalah64-teacher-scale-within1-bins \
                ../../checkpoints/runs/kalah64-teacher-scale-within1-bins-q --labels $labels --json > $out/values-bins-vs-within1.json ;;
    capacity) # the set-valued scratch run with a larger network for play, four times the width
              # (4x1024), paired with the 4x512 run
              w8=../../checkpoints/runs/kalah64-teacher-scale-within1
              w1024=../../checkpoints/runs/kalah64-teacher-scale-within1-w1024
              score --network $w1024 --against $w8 > $out/w1024-vs-within1-s64.json
              $PY values.py --networks $w8 $w1024 --labels $labels --json > $out/values-capacity-vs-within1.json ;;
    exact)    # the set-valued scratch run on the teacher file with its 19-30-seed lines solved
              # (midgame-teacher/exact.py) at 450 iterations (a copy of the checkpoint, -450),
              # paired with the teacher's lines; then continued to 900, paired with 450; each also
              # alone on a sample of the exact lines it trained on (every 54th of the first shard)
              w8=../../checkpoints/runs/kalah64-teacher-scale-within1
              x=../../checkpoints/runs/kalah64-teacher-scale-within1-exact30
              seen=$(mktemp)
              awk 'NR % 54 == 0' "${KALAHA_CACHE:-$HOME/.cache/kalaha}/midgame-exact30-seed4.0.jsonl" > "$seen"
              score --network $x-450 --against $w8 > $out/exact30-vs-within1-s64.json
              $PY values.py --networks $w8 $x-450 --labels $labels --json > $out/values-exact30-vs-within1.json
              $PY score.py --labels "$seen" --network $x-450 --against $w8 --simulations 1 --json > $out/exact30-seen-s1.json
              score --network $x --against $x-450 > $out/exact30-900-vs-450-s64.json
              $PY score.py --labels "$seen" --network $x --against $x-450 --simulations 1 --json > $out/exact30-900-seen-s1.json
              # a larger network on the same file, paired with the 4x512's 450: on the seen sample,
              # the perfect-play lines at 64 simulations and the heads (the judge-like labels and the
              # judge set: paired-eval.sh ... exact30-TAG-vs-450)
              point() {  # TAG NETWORK
                $PY score.py --labels "$seen" --network $2 --against $x-450 --simulations 1 --json > $out/exact30-$1-seen-s1.json
                score --network $2 --against $x-450 > $out/exact30-$1-vs-450-s64.json
                $PY values.py --networks $x-450 $2 --labels $labels --json > $out/values-exact30-$1-vs-450.json
              }
              # four times the width (4x1024, 450 iterations; a copy of the checkpoint, -450)
              point w1024 ../../checkpoints/runs/kalah64-teacher-scale-within1-exact30-w1024-450
              # depth: 4 residual blocks of 512 (450 iterations; a copy of the checkpoint, -450, before the
              # run went on towards 900), also paired with the committed network
              r=../../checkpoints/runs/kalah64-teacher-scale-within1-exact30-res4-450
              r8=../../checkpoints/runs/kalah64-teacher-scale-within1-exact30-res8
              point res4 $r
              score --network $r --against $committed > $out/exact30-res4-vs-committed-s64.json
              # the same run continued to 900 iterations, paired with its 450
              score --network ${r%-450} --against $r > $out/exact30-res4-900-vs-450-s64.json
              # eight residual blocks of 512 (450 iterations), also paired with the four blocks
              point res8 $r8
              score --network $r8 --against $r > $out/exact30-res8-vs-res4-s64.json
              # the 4x1024 run continued to 900 iterations, paired with its 450
              w=../../checkpoints/runs/kalah64-teacher-scale-within1-exact30-w1024
              score --network $w --against $w-450 > $out/exact30-w1024-900-vs-450-s64.json
              $PY score.py --labels "$seen" --network $w --against $w-450 --simulations 1 --json > $out/exact30-w1024-900-seen-s1.json
              rm "$seen" ;;
    c-scale)  # the search's Q transform leaning harder on the searched values (`:c_scale=X`), paired
              # with the checkpoint's c_scale 2 on the lines; then c_scale 3 in 400 games against solver
              # (pair_games.py against the committed series, kalah64-teacher-scale)
              $PY search_scale.py --labels $labels --network $committed --c-scale 3 4 6 --c-visit 100 \
                --considered --json > $out/c-scale-games.json
              $PY search_scale.py --network $committed --c-scale 3 --c-visit --considered --json \
                > $out/c-scale-midgame.json
              for s in 1 2 3 4; do
                (cd ../.. && ${KALAHA:-./target/release/kalaha} eval --player policy:checkpoints/kalah64:64:c_scale=3 \
                  --opponents solver --judge policy:checkpoints/kalah64:64:c_scale=3 --games 100 --opening-moves 6 \
                  --seed $s --name kalah64-hard-floor/cscale3-vs-solver-seed$s --json \
                  > experiments/kalah64-hard-floor/cscale3-vs-solver-seed$s.json)
              done ;;
    *) echo "kalah64-hard-floor.sh: steps are sims, networks, ensemble, margin, margin-loss, bins, capacity, exact and c-scale, not '$step'" >&2; exit 2 ;;
  esac
done
