#!/bin/bash
# Round 7: Kalah(6,4) cold (every move) twice, then the judging benchmark twice.
# usage: k64.sh KALAHA-BINARY OUT-DIR
k=$1; out=$2
for i in 1 2; do
  C=$(mktemp -d)
  KALAHA_CACHE=$C /usr/bin/time -v "$k" solve --json > "$out/kalah64-cold-$i.json" 2> "$out/kalah64-cold-$i.time"
  rm -rf "$C"
done
for i in 1 2; do
  "$k" bench solver --json > "$out/bench-solver-$i.json"
done
