#!/bin/bash
# A/B of two kalaha binaries on one thread: user seconds of N alternating runs each, sorted.
# usage: ab.sh N binA binB -- kalaha-args...
# e.g.   ab.sh 5 ./kalaha-old ./kalaha-new -- solve --moves 3,1,6,2 --value-only --memory 1024 --json
n=$1; a=$2; b=$3; shift 4
t=$(mktemp)
for i in $(seq "$n"); do
  for x in "$a" "$b"; do
    RAYON_NUM_THREADS=1 /usr/bin/time -f "%U" -o "$t" "$x" "$@" > /dev/null 2>&1
    echo "$x $(cat "$t")"
  done
done | sort -k1,1 -k2,2n | awk '{a[$1] = a[$1] " " $2} END {for (k in a) print k ":" a[k]}'
rm -f "$t"
