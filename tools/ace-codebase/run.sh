#!/usr/bin/env bash
# Runs ACE's own simulator (github.com/BU-DiSC/ACE-codebase, commit
# 46f65a8, Simulation/{LRU,CFLRU,LRU-WSR}) on the workload its generator
# makes for the parameters below, baseline (-a 1) and ACE (-a 5, COW-Xa),
# and writes its counts to data/successors/ace-codebase.csv and the
# workload, as a flashlayer trace, to data/successors/ace-codebase-workload.csv.gz.
#
# Usage: tools/ace-codebase/run.sh ACE_CODEBASE_CHECKOUT
set -euo pipefail
src=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 200,000 operations, half reads, 90% of them on 10% of 10,240 pages, a
# 1,000-page buffer, read cost 1, write cost 4, concurrency 8.
args=(-b 1000 -f testfile -x 200000 -e 50 -s 90 -d 10 -r 1 -w 4 -k 8 -v 0)
out="$root/data/successors/ace-codebase.csv"
echo "policy,variant,misses,write_batches,writes,total_cost" > "$out"
for dir in LRU CFLRU LRU-WSR; do
    cp -r "$src/Simulation/$dir" "$work/$dir"
    cd "$work/$dir"
    # Its Makefile's -O0: the simulator's functions that fall off their end
    # without a return trap at higher levels.
    g++ -std=c++1y -O0 -I. buffermanager.cc -o bm parameter.cc buff_runner.cc workload_generator.cc -lpthread
    head -c 41943040 /dev/zero > testfile
    for a in 1 5; do
        ./bm "${args[@]}" -a "$a" 2>/dev/null | awk -v p="$dir" -v a="$a" -F': ' '
            /Buffer Miss/ {m=$2} /Write IO/ {b=$2} /Actual Write Count/ {w=$2} /Total Cost/ {c=$2}
            END {print p "," a "," m "," b "," w "," c}' >> "$out"
    done
done
awk 'BEGIN {print "page,op"} $1 == "R" || $1 == "W" {print $2 "," $1}' "$work/LRU/workload.txt" \
    | gzip -9 > "$root/data/successors/ace-codebase-workload.csv.gz"
