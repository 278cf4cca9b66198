#!/usr/bin/env bash
# Runs ACE's own simulator (github.com/BU-DiSC/ACE-codebase, commit
# 46f65a8, Simulation/{LRU,CFLRU,LRU-WSR}), baseline (-a 1), ACE (-a 5,
# COW-Xa: the written pages stay), ACE evicting what it writes (-a 3,
# CONE-Xa), and both with a window of the 8 pages nearest eviction (-a 4,
# COW-a; -a 2, CONE-a), reads costing 1, writes 4, concurrency 8, and keeps
# its counts in data/successors:
#
# - ace-codebase.csv: 200,000 operations, half reads, 90% of them on 10% of
#   10,240 pages, a 1,000-page buffer; the workload it generated, as a
#   flashlayer trace, in ace-codebase-workload.csv.gz.
# - ace-codebase-figure8.csv: the four workloads of the authors'
#   buffer-manager runs (BU-DiSC/parametric_io, Bufferpool/*/script.sh and
#   Example_Plots/Fig 8/a/ssd_latency.txt): 2,000,000 operations over
#   344,066 pages (the disk of their Fig 7 plots), a 20,000-page buffer. MS:
#   half reads, 90% of operations on 10% of the pages; WIS: 10% reads; RIS:
#   90% reads; MU: half reads, 50% on 50%.
# - ace-codebase-asymmetry.csv: their Fig 8h's runs as their code makes
#   them: the MS workload, LRU alone, with ACE (-a 5) and with a window
#   (-a 4), writes costing α reads and α written at once (-w α -k α), α =
#   1, 2, 4, 8.
#
# The simulator reads and writes a file of the disk's size; it is made on
# /dev/shm (a sparse file), where a run takes a minute at most, not many.
#
# Usage: tools/ace-codebase/run.sh ACE_CODEBASE_CHECKOUT
set -euo pipefail
src=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
disk=$(mktemp -p /dev/shm ace-disk.XXXXXX)
trap 'rm -rf "$work" "$disk"' EXIT
truncate -s $((344066 * 4096)) "$disk"

# One run: prints misses,write_batches,writes,total_cost. Its main falls off
# its end, so its exit status means nothing; a run is good if it printed
# its total cost. Its concurrent writes seek and write on the file
# descriptor its reads seek and read on, from a thread pool, so a run can
# die of a short read ("Error in doOneRead"); the counts do not depend on
# what the I/O reads, so such a run is tried again, up to three times. The
# runs but Fig 8h's read at cost 1, write at 4, 8 at once.
costs=(-r 1 -w 4 -k 8)
simulate() {
    for _ in 1 2 3; do
        ./bm "$@" -f testfile -v 0 > run.out 2>/dev/null || true
        grep -q "Total Cost" run.out && break
    done
    grep -q "Total Cost" run.out || { echo "ACE's simulator failed three times on: $*" >&2; exit 1; }
    awk -F': ' '/Buffer Miss/ {m=$2} /Write IO/ {b=$2} /Actual Write Count/ {w=$2} /Total Cost/ {c=$2}
        END {print m "," b "," w "," c}' run.out
}

small="$root/data/successors/ace-codebase.csv"
figure8="$root/data/successors/ace-codebase-figure8.csv"
asymmetry="$root/data/successors/ace-codebase-asymmetry.csv"
echo "policy,variant,misses,write_batches,writes,total_cost" > "$small"
echo "workload,policy,variant,misses,write_batches,writes,total_cost" > "$figure8"
echo "alpha,variant,misses,write_batches,writes,total_cost" > "$asymmetry"
for dir in LRU CFLRU LRU-WSR; do
    cp -r "$src/Simulation/$dir" "$work/$dir"
    cd "$work/$dir"
    # Its Makefile's -O0: the simulator's functions that fall off their end
    # without a return trap at higher levels.
    g++ -std=c++1y -O0 -I. buffermanager.cc -o bm parameter.cc buff_runner.cc workload_generator.cc -lpthread 2>/dev/null
    ln -sf "$disk" testfile
    for a in 1 2 3 4 5; do
        # An assignment, so that a failed run stops the script (set -e).
        row=$(simulate "${costs[@]}" -b 1000 -n 10240 -x 200000 -e 50 -s 90 -d 10 -a "$a")
        echo "$dir,$a,$row" >> "$small"
    done
    [ "$dir" = LRU ] && awk 'BEGIN {print "page,op"} $1 == "R" || $1 == "W" {print $2 "," $1}' workload.txt \
        | gzip -9 > "$root/data/successors/ace-codebase-workload.csv.gz"
    for w in "MS 50 90 10" "WIS 10 90 10" "RIS 90 90 10" "MU 50 50 50"; do
        read -r name e s d <<< "$w"
        for a in 1 2 3 4 5; do
            row=$(simulate "${costs[@]}" -b 20000 -n 344066 -x 2000000 -e "$e" -s "$s" -d "$d" -a "$a")
            echo "$name,$dir,$a,$row" >> "$figure8"
        done
    done
    [ "$dir" = LRU ] || continue
    for alpha in 1 2 4 8; do
        for a in 1 4 5; do
            row=$(simulate -b 20000 -n 344066 -x 2000000 -e 50 -s 90 -d 10 -a "$a" -r 1 -w "$alpha" -k "$alpha")
            echo "$alpha,$a,$row" >> "$asymmetry"
        done
    done
done
