#!/usr/bin/env bash
# The evaluation report of one rule set's committed network (checkpoints/NAME), into the eval/
# folder of the run that made it, experiments/RUN/eval/ (RUN: the third argument, or else the run
# name in the network's sidecar, checkpoints/NAME/meta.json; reports written before 2026-12-02 went
# to experiments/NAME-eval/ and were moved under their runs):
#   judge.json / judge.txt  the network alone on its rule set's judge set (kalaha judge)
#   judge-64.json           the same set, scored on the moves of its 64-simulation search
#   gauntlet/               64 simulations against random, greedy, minimax:4, minimax:8 and
#                           mcts:1000: 200 games each from 100 openings of 6 random moves
#   minimax8-512sims/       512 simulations against minimax:8 on the gauntlet's openings
#   solver/                 (rule sets the solver plays from the start) 100 games against `solver`,
#                           every move of the network judged (pie: openings of 1 move, so that the
#                           swap answer is in the games)
#   solver-vs-minimax8/     (the same rule sets) perfect play against minimax:8 on the gauntlet's
#                           openings (playing for the best result against a perfect opponent,
#                           not for minimax:8's mistakes)
# usage: experiments/presets/eval.sh NAME [KALAHA_BINARY [RUN]]
set -eu
name=$1
bin=${2:-target/release/kalaha}
case $name in
  kalah64) rules=""; solver=1; open=6; judge="--positions 1200" ;;
  kalah64-pie) rules="--pie"; solver=1; open=1; judge="--positions 1200" ;;
  norwegian) rules="--rules $name"; solver=1; open=6; judge="--positions 1200" ;;
  children) rules="--rules $name"; solver=1; open=6; judge="--positions 1200 --time-limit 10" ;;
  swedish|danish) rules="--rules $name"; solver=0; judge="--positions 600 --time-limit 10" ;;
  *) echo "unknown rule set $name" >&2; exit 2 ;;
esac
net=checkpoints/$name
run=${3:-$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"]["run"]["name"])' $net/meta.json)}
out=experiments/$run/eval
mkdir -p $out
$bin judge --network $net $judge --json > $out/judge.json
$bin judge --network $net $judge > $out/judge.txt
$bin judge --network $net $judge --simulations 64 --json > $out/judge-64.json
$bin eval $rules --player policy:checkpoints/$name:64 \
  --opponents random,greedy,minimax:4,minimax:8,mcts:1000 \
  --anchor policy:checkpoints/$name:64 --games 200 --opening-moves 6 --seed 1 \
  --name $run/eval/gauntlet --run $net --json \
  > $out/gauntlet.json 2> $out/gauntlet.log
# More search against the strongest baseline: how much of the gap to it is the 64-simulation budget.
$bin eval $rules --player policy:checkpoints/$name:512 --opponents minimax:8 --games 200 \
  --opening-moves 6 --seed 1 --name $run/eval/minimax8-512sims --json > $out/minimax8-512sims.json 2> /dev/null
if [ $solver = 1 ]; then
  $bin eval $rules --player policy:checkpoints/$name:64 --opponents solver --judge policy:checkpoints/$name:64 \
    --games 100 --opening-moves $open --seed 1 --name $run/eval/solver --json \
    > $out/solver.json 2> $out/solver.log
  $bin eval $rules --player solver --opponents minimax:8 --games 200 --opening-moves 6 --seed 1 \
    --name $run/eval/solver-vs-minimax8 --json > $out/solver-vs-minimax8.json 2> /dev/null
fi
