#!/usr/bin/env bash
# Runs WATT-Simulate (Vöhringer & Leis's simulator, built from a checkout
# of github.com/itodnerd/WATT-Simulate at commit 2262572, which the fork
# yunixxq/WATT-Simulate also carries) over the traces whose outputs
# data/successors/ keeps, and writes them there again.
#
# Usage: tools/watt-simulate/run.sh WATT_SIMULATE_CHECKOUT [--bench]
#
# --bench also runs its LRU and WATT over the trace and buffer of
# `flashlayer bench policies` at its defaults (10M Zipf requests, 45,000
# pages), into data/successors/watt-simulate-bench.csv: about 40 minutes
# for LRU and 48 for WATT, one core each (the two run side by side).
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 || ( $# -eq 2 && $2 != --bench ) ]]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O2 -fconcepts -I"$src" -o "$work/driver" "$here/driver.cpp" \
    "$src"/algos/{WATT,lruStackDist,staticOpt,Generators,LRFU}.cpp
py="$root/.venv/bin/python"
run() {  # run NAME TRACE SIZES
    "$py" "$here/to_watt_csv.py" "$2" "$work/$1.csv"
    "$work/driver" "$work/$1.csv" "$3" > "$root/data/successors/watt-simulate-$1.csv"
}
run pg15-tpcc-sysbench-w2 "$root/data/traces/pg15-tpcc-sysbench-w2.csv.gz" 147,294,736,1472
run pg15-tpcb-s5 "$root/data/traces/pg15-tpcb-s5.csv.gz" 96,192,480,959
"$root/.venv/bin/flashlayer" trace gen zipf --requests 2000000 --pages 100000 --alpha 0.8 --write-ratio 0.2 \
    --seed 7 --out "$work/zipf-2m-trace.csv" 2> /dev/null
run zipf-2m "$work/zipf-2m-trace.csv" 1000,5000,10000
if [[ $# -eq 2 ]]; then
    out="$root/data/successors/watt-simulate-bench.csv"
    # The trace and buffer are `bench policies`' defaults, read from its parser.
    read -r requests pages alpha ratio seed buffer < <("$py" -c 'from flashlayer.cli import build_parser
a = build_parser().parse_args(["bench", "policies"])
print(a.requests, a.pages, a.alpha, a.write_ratio, a.seed, a.buffer)')
    "$root/.venv/bin/flashlayer" trace gen zipf --requests "$requests" --pages "$pages" --alpha "$alpha" \
        --write-ratio "$ratio" --seed "$seed" --out "$work/bench-trace.csv" 2> /dev/null
    "$py" "$here/to_watt_csv.py" "$work/bench-trace.csv" "$work/bench.csv"
    "$work/driver" "$work/bench.csv" "$buffer" lru > "$work/bench-lru.out" &
    lru=$!
    "$work/driver" "$work/bench.csv" "$buffer" watt > "$work/bench-watt.out"
    wait "$lru"
    { head -n 1 "$work/bench-lru.out"; tail -q -n +2 "$work/bench-lru.out" "$work/bench-watt.out"; } > "$out"
fi
