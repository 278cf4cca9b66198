"""Section ``hypro``: Lv et al., HyPro, a probabilistic DRAM / SSD / disk
hierarchy, against TAC, FaCE and lazy cleaning (§5).

Inputs, as close to the paper's as this repository has (Table 3):

- TPC-B and TATP recorded from an unmodified PostgreSQL 15 with
  ``flashlayer trace capture postgres`` (pgbench's TPC-B; TATP as pgbench
  scripts), 8 KB pages, as the paper ran PostgreSQL 9.0; ours are smaller
  (about 10,000 pages instead of 35,100 and 135,100).
- MLK: the file page references of a Linux kernel build (Linux 6.1,
  ``make tinyconfig``, ``make vmlinux``) traced with strace, as the paper
  traced its Linux 2.6.27 build, 4 KB pages (``scripts/capture-mlk``).
- The generated TPC-B and TATP traces of flashlayer's own drivers, the same
  experiments at a second scale.

Table 3's workloads: our traces differ from Table 3's in pages and write
ratio by more than a third (table ``hypro/table3``), so with ``--full``
Fig. 5 and Fig. 6 run again on a trace fitted to each of Table 3's
(:mod:`flashlayer.experiments.fitted`: its pages, references and write
ratio, our trace's LRU miss ratios at 1%, 6% and 21% of the pages,
write-backs per write at 1% and hottest fifth), and their claims (ids
ending ``-fit``) judge the paper on its own workloads (*reproduces*);
the claims on our traces say whether it generalizes.

Main memory is 1% of each trace's distinct pages and the SSD 1.25% to 20%
(Table 4); devices are Table 4's (``hypro-ssd`` 271/803 µs, ``hypro-hdd``
12,700/13,700 µs) and Table 1's low-end SSD (``hypro-ssd-lowend``,
271/2,012 µs) where Fig. 6 says "low-end". The DRAM and SSD levels run LRU,
as in the paper. Total I/O time is every device's operations × its
latency.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from flashlayer import _native, papers, progress
from flashlayer.experiments import fitted
from flashlayer.experiments.parts import Parts, scratch
from flashlayer.experiments.scale import table as scale_table
from flashlayer.replay import sweep
from flashlayer.results import SimResult

if TYPE_CHECKING:
    from flashlayer.experiments import Check, Claim, Figure, Inputs, Section, Table

TPCB, TATP, MLK = "pg15-tpcb-s5.csv.gz", "pg15-tatp-100k.csv.gz", "linux61-tinyconfig-make.csv.gz"
#: A trace auto's step was not chosen on (held out).
TPCC = "pg15-tpcc-sysbench-w2.csv.gz"
FILES = [TPCB, TATP, MLK, TPCC]
#: Paper-scale captures of ``--full``: TPC-B and TATP of 2 GB (Table 3),
#: in place of the shipped ones. MLK stays the shipped kernel build (a
#: build of the paper's size takes hours under strace on 2 cores).
CAPTURES = ["pg15-tpcb-s150", "pg15-tatp-1m", "pg15-tpcc-w50"]
CAPTURED = {"TPC-B": "pg15-tpcb-s150", "TATP": "pg15-tatp-1m", "TPC-C": "pg15-tpcc-w50"}
#: Table 3 of the paper.
PAPER_TABLE3 = {"TPC-B": papers.HYPRO_TPCB, "TATP": papers.HYPRO_TATP, "MLK": papers.HYPRO_MLK}
#: With --full a trace fitted to each of Table 3's (its pages, references
#: and write ratio) takes our trace's LRU miss ratio at these shares of
#: the pages (DRAM, DRAM with the middle SSD, DRAM with the largest) and
#: its write-backs per write at DRAM's size, where DRAM's dirty evictions
#: arise.
FIT_MISSES = (0.01, 0.06, 0.21)
FIT_WRITES = (0.01,)
#: The end of the id of a claim judged on the fitted traces.
FIT_SUFFIX = "-fit"
DRAM = "1%"
SSD_SIZES = ["1.25%", "2.5%", "5%", "10%", "20%"]
SSD_X = [1.25, 2.5, 5.0, 10.0, 20.0]
HIGH_END, LOW_END, HDD = "hypro-ssd", "hypro-ssd-lowend", "hypro-hdd"
#: Series of Fig. 6 and the schemes behind them (HyPro tunes itself, §5.3).
SCHEMES = {"HyPro": "hypro", "TAC": "tac", "FaCE": "face", "LC": "lc"}
#: Table 4's sweeps of Fig. 5.
P_SINKS = [0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
P_ELEVATES = [0.001, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1]
#: Fig. 5's SSD size (the paper does not say; the middle of Table 4's range).
FIG5_SSD = "5%"
#: Generated traces: transactions per scale.
GENERATED = {
    "quick": {"tpcb": {"branches": 5, "transactions": 20_000}, "tatp": {"scale": 1, "transactions": 50_000}},
    "full": {"tpcb": {"branches": 20, "transactions": 300_000}, "tatp": {"scale": 10, "transactions": 300_000}},
}
#: "Equal" in "equal or better": within this of the best competitor.
EQUAL = 0.02
#: "Significantly varies" with p_elevate: the curve spans at least this
#: share of the I/O time (ours).
SIGNIFICANT = 0.01
#: "Up to 50% less": the largest saving lies between these.
HALF = 0.40
MOST_HALF = 0.60
#: "A little" more flash writing (§6): at most this share above.
LITTLE = 0.25
#: "auto within 5% of the best fixed pair".
WITHIN = 0.05
#: The fixed pairs auto is held against: Table 4's p_sink values, and its
#: p_elevate range at four points (the best lies at its low end on every
#: trace, figure hypro/fig5b).
GRID_ELEVATES = [0.001, 0.01, 0.02, 0.05]
#: The points auto's step bounds were chosen on (flashlayer::tier::hypro):
#: judged apart from the held-out ones.
CHOSEN_ON = {("MLK", "10%"), ("MLK", "20%"), ("TATP", "20%")}
#: Held-out settings auto is judged on besides Fig. 6's other points:
#: (label, trace, SSD device, DRAM).
HELD_OUT = (("TPC-C", "TPC-C", LOW_END, DRAM), ("TPC-B generated", "TPC-B generated", LOW_END, DRAM),
            ("TATP generated", "TATP generated", HIGH_END, DRAM), ("TPC-B, DRAM 2%", "TPC-B", LOW_END, "2%"))
#: Seeds of auto's draws.
SEEDS = [0, 1, 2]
#: Fig. 6's traces, their SSDs and figure ids.
FIG6 = (("fig6a", "MLK", LOW_END), ("fig6b", "TATP", HIGH_END), ("fig6c", "TPC-B", LOW_END))
#: Points of the tuning time series.
POINTS = 200
#: Figure hypro/where-auto-loses: segments of the trace, and the first
#: share of it in which auto climbs from the paper's starting values.
SEGMENTS = 20
START = 0.05


def run(mode: str, inputs: Inputs, quiet: bool) -> Section:
    traces_dir = inputs.traces
    parts = Parts()
    figures, tables, claims, checks, notes, runs = parts.unpack()
    with scratch("hypro") as work:
        paths = {name: inputs.captured.get(CAPTURED.get(name, ""), traces_dir / f)
                 for name, f in (("TPC-B", TPCB), ("TATP", TATP), ("MLK", MLK), ("TPC-C", TPCC))}
        traces = _traces(mode, paths, work, checks, tables, quiet)
        best = _fig5(traces["TPC-B"], figures, claims, runs, notes, quiet)
        _tuning(traces, best, figures, runs, notes, quiet)
        _auto_vs_grid(traces, figures, tables, claims, runs, quiet)
        fig6: dict[str, dict[str, list[SimResult]]] = {}
        for fid, name, ssd in FIG6:
            fig6[name] = _fig6(fid, name, traces[name], ssd, figures, runs, quiet)
        for name in ("TPC-B generated", "TATP generated"):
            _fig6(f"fig6-{name.split()[0].lower().replace('-', '')}-generated", name, traces[name], LOW_END, figures,
                  runs, quiet)
        _fig6_claims(fig6, claims, _other_seeds(traces["TPC-B"], quiet))
        tables["hypro/fig6c-io"] = _io_table(fig6["TPC-B"])
        if mode == "full":
            _on_fitted(paths, work, parts, quiet)
    parts.judged_on("PostgreSQL TPC-B and TATP and a Linux build (MLK) recorded here, whose pages and write shares "
                    "differ from Table 3's (table hypro/table3)", "generalizes")
    notes.append(
        "HyPro runs with p_sink=auto and p_elevate=auto in Fig. 6, as §5.2 says the paper does (starting from 0.2 "
        "and 0.02, re-decided every 1,000 evictions from DRAM); seed 0. Fig. 5 fixes the other probability at §5.2's value "
        "(p_elevate 0.02 in 5a, p_sink 0.2 in 5b) on the recorded TPC-B trace with the high-end SSD at "
        f"{FIG5_SSD} of the pages (the paper names neither the trace nor the size of Fig. 5)."
    )
    notes.append(
        "A write request carries its whole page (Algorithm 1: a write that misses DRAM reads nothing, a write "
        "served on the SSD is one SSD write), for every scheme. PostgreSQL traces mark a page dirty in the same "
        "fix that read it, so their writes hit DRAM."
    )
    return parts.section(
        "DRAM over SSD over disk: HyPro against TAC, FaCE and lazy cleaning (Lv et al.)",
        "HyPro keeps DRAM and the SSD exclusive and moves pages between them with two probabilities: a "
        "page hit on the SSD is elevated into DRAM with p_elevate (else served on the SSD), a page evicted from "
        "DRAM sinks to the SSD with p_sink (else goes to the disk if dirty). TAC caches pages of warm extents and "
        "writes through; FaCE appends every evicted page to a multi-version FIFO log; lazy cleaning is a "
        "write-back cache with a cleaner. DRAM is 1% of the pages, the SSD 1.25-20%, devices from HyPro's "
        "Tables 1 and 4.",
        list(paths.values()),
    )


def _traces(mode: str, paths: dict[str, Path], work: Path, checks: list[Check], tables: dict[str, Table],
            quiet: bool) -> dict[str, Any]:
    out: dict[str, Any] = {name: _native.Trace.open(str(p)) for name, p in paths.items()}
    st = out["MLK"].stats()
    share = st["writes"] / st["requests"]
    checks.append({
        "id": "hypro-mlk-read-mostly",
        "text": f"MLK ({MLK}) is read-mostly, as Table 3's 0.43% writes",
        "source": "HyPro Table 3; data/traces/README.md",
        "expected": "< 5% writes",
        "ours": f"{share:.2%} writes",
        "holds": share < 0.05,
    })
    tables["hypro/table3"] = scale_table(
        "Table 3: the paper's traces beside ours (DRAM and SSD are sized as shares of each trace's distinct pages, "
        "as Table 4 sizes them)",
        [(PAPER_TABLE3[name], p) for name, p in paths.items() if name in PAPER_TABLE3],
        [],
    )
    with progress.bar(None, "hypro: generating TPC-B and TATP traces", quiet=quiet):
        for name, kind in (("TPC-B generated", "tpcb"), ("TATP generated", "tatp")):
            path = work / f"{kind}.flt"
            _native.gen_workload(kind, path, 0, dict(GENERATED[mode][kind]))
            out[name] = _native.Trace.open(str(path))
    return out


def _on_fitted(paths: dict[str, Path], work: Path, parts: Parts, quiet: bool) -> None:
    """Fig. 5 and Fig. 6 again on traces fitted to Table 3, whose claims
    (ids ending ``-fit``) judge the paper on its own workloads."""
    figures, tables, claims, _, _, runs = parts.unpack()
    traces: dict[str, Any] = {}
    for name, paper in PAPER_TABLE3.items():
        key = name.lower().replace("-", "")
        f = fitted.shaped(paper, paths[name], FIT_MISSES, FIT_WRITES, work / f"{key}-fit.flt",
                          f"hypro: {name} fitted to Table 3", quiet)
        tables[f"hypro/fit-{key}"] = fitted.fit_table(
            f, f"{name} fitted to Table 3 ({paper.distinct_pages:,} pages, {paper.requests:,} references, "
               f"{paper.write_share:.2%} writes) and the locality of {paths[name].name}: each target beside what a "
               "replay achieves", "target")
        traces[name] = f.trace
    made: list[Claim] = []
    _fig5(traces["TPC-B"], figures, made, runs, [], quiet, FIT_SUFFIX)
    fig6 = {name: _fig6(f"{fid}{FIT_SUFFIX}", name, traces[name], ssd, figures, runs, quiet,
                        f" fitted to Table 3 (table hypro/fit-{name.lower().replace('-', '')})")
            for fid, name, ssd in FIG6}
    _fig6_claims(fig6, made, _other_seeds(traces["TPC-B"], quiet))
    tables[f"hypro/fig6c{FIT_SUFFIX}-io"] = _io_table(fig6["TPC-B"])
    for c in made:
        c["id"] += FIT_SUFFIX
        for k in ("gap", "why"):
            if c.get(k):
                c[k] = re.sub(r"(hypro/fig[56][abc])", rf"\1{FIT_SUFFIX}", str(c[k]))
    claims.extend(made)
    parts.judged_on("TPC-B, TATP and MLK fitted to Table 3: its pages, references and write ratio, the locality of "
                    + ", ".join(paths[n].name for n in PAPER_TABLE3) + " (tables "
                    + ", ".join(f"hypro/fit-{n.lower().replace('-', '')}" for n in PAPER_TABLE3) + ")",
                    "reproduces", *[c["id"] for c in made])


def _tiers(trace: Any, schemes: list[str], ssd_sizes: list[str], ssd: str = HIGH_END, hdd: str = HDD,
           series_every: int | None = None, dram: str = DRAM) -> list[SimResult]:
    """LRU in DRAM over each scheme x SSD size (schemes outermost)."""
    stores = [f"tier:ssd={size},ssd_device={ssd},hdd_device={hdd},scheme={scheme}"
              for scheme in schemes for size in ssd_sizes]
    return sweep(trace, ["lru"], [dram], stores, series_every=series_every)


def _label(rows: list[SimResult], trace: str) -> list[dict[str, Any]]:
    return [{**r, "trace": trace} for r in rows]


def _fig5(trace: Any, figures: dict[str, Figure], claims: list[Claim], runs: list[dict[str, Any]],
          notes: list[str], quiet: bool, suffix: str = "") -> tuple[float, float]:
    """Fig. 5 on TPC-B (`suffix` ``-fit``: the trace fitted to Table 3)."""
    name = "TPC-B" + (" fitted" if suffix else "")
    with progress.bar(None, f"hypro: Fig. 5 on {name}, p_sink and p_elevate", quiet=quiet):
        sink_all = _tiers(trace, [f"hypro:p_sink={p},p_elevate=0.02,seed={s}" for p in P_SINKS for s in SEEDS],
                          [FIG5_SSD])
        elev_all = _tiers(trace, [f"hypro:p_sink=0.2,p_elevate={p},seed={s}" for p in P_ELEVATES for s in SEEDS],
                          [FIG5_SSD])
    runs.extend(_label(sink_all + elev_all, name))
    # Seed 0's rows, and each point's I/O time as the mean over the seeds.
    n = len(SEEDS)
    sink_rows, elev_rows = sink_all[::n], elev_all[::n]
    sink_io = [sum(r["io_time"] for r in sink_all[i:i + n]) / n for i in range(0, len(sink_all), n)]
    elev_io = [sum(r["io_time"] for r in elev_all[i:i + n]) / n for i in range(0, len(elev_all), n)]
    sec = 1e-6
    figures[f"hypro/fig5a{suffix}"] = {
        "title": f"Fig. 5(a): I/O time (mean of seeds {', '.join(map(str, SEEDS))}), C_sinkf, C_sinkd (seed 0) "
                 f"({name}, SSD {FIG5_SSD}, p_elevate 0.02)",
        "x_label": "p_sink", "y_label": "seconds", "x": P_SINKS, "log_x": False, "log_y": True,
        "series": {
            "I/O time": [t * sec for t in sink_io],
            "C_sinkf": [(r["c_sinkf"] or 0.0) * sec for r in sink_rows],
            "C_sinkd": [(r["c_sinkd"] or 0.0) * sec for r in sink_rows],
        },
        "paper_x": {"best p_sink, about 0.15 (§5.2)": [0.15]},
    }
    figures[f"hypro/fig5b{suffix}"] = {
        "title": f"Fig. 5(b): I/O time, mean of seeds {', '.join(map(str, SEEDS))} ({name}, SSD {FIG5_SSD}, "
                 "p_sink 0.2)",
        "x_label": "p_elevate", "y_label": "seconds", "x": P_ELEVATES, "log_x": False,
        "series": {"I/O time": [t * sec for t in elev_io]},
        "paper_band": {"least I/O time, 0.01 to 0.02 (§5.2)": (0.01, 0.02)},
    }
    best_sink = P_SINKS[min(range(len(sink_io)), key=lambda i: sink_io[i])]
    best_elev = P_ELEVATES[min(range(len(elev_io)), key=lambda i: elev_io[i])]
    span = (max(elev_io) - min(elev_io)) / min(elev_io)
    ok = 0.1 <= best_sink <= 0.2
    claims.append(_claim(
        "best-p-sink", "The best fixed p_sink is near 0.15", "HyPro §5.2, Fig. 5(a)", "about 0.15",
        f"{best_sink:g} (I/O time {min(sink_io) * sec:,.0f} s, mean of {n} seeds; {max(sink_io) * sec:,.0f} s at "
        "the worst p_sink)", ok, None if ok else f"best at {best_sink:g}",
        None if ok else (
            f"Figure hypro/fig5a: the I/O time falls from p_sink {P_SINKS[0]:g} to {best_sink:g}, where sinking "
            f"pages the SSD then serves ({sink_rows[P_SINKS.index(best_sink)]['ssd_hits']:,} SSD hits against "
            f"{sink_rows[0]['ssd_hits']:,} at {P_SINKS[0]:g}) stops paying for the SSD writes "
            f"({sink_rows[P_SINKS.index(best_sink)]['ssd_writes']:,} against {sink_rows[0]['ssd_writes']:,})."),
        tolerance="the best of Table 4's p_sink values in [0.1, 0.2], by the mean over seeds"))
    # "Significantly varies": the curve's span must stand out of the seeds'
    # spread at a point, or no best can be told.
    noise = max((max(r["io_time"] for r in elev_all[i:i + n]) - min(r["io_time"] for r in elev_all[i:i + n]))
                / min(elev_io) for i in range(0, len(elev_all), n))
    told = span > 2 * noise and span >= SIGNIFICANT
    ok = 0.01 <= best_elev <= 0.02 and told
    lo, at = elev_rows[0], elev_rows[P_ELEVATES.index(0.02)]
    why = (f"The whole curve spans {span:.2%} of the I/O time (the seeds at one p_elevate lie up to {noise:.2%} "
           "apart; figure hypro/fig5b): on this trace the I/O time hardly depends on p_elevate. " if not told
           else "") + (
           f"Each elevation moves an SSD hit into DRAM, which then evicts a page that sinks or goes to disk: from "
           f"p_elevate {P_ELEVATES[0]:g} to 0.02 elevations go from {lo['elevations']:,} to {at['elevations']:,}, "
           f"disk reads from {lo['hdd_reads']:,} to {at['hdd_reads']:,} and SSD writes from {lo['ssd_writes']:,} to "
           f"{at['ssd_writes']:,} (figure hypro/fig5b).")
    claims.append(_claim(
        "best-p-elevate", "The I/O time varies significantly with p_elevate and is least between 0.01 and 0.02",
        "HyPro §5.2, Fig. 5(b)", "varies significantly; least at 0.01-0.02",
        f"least at {best_elev:g} (mean of {n} seeds); the curve spans {span:.2%}, the seeds at one point up to "
        f"{noise:.2%}", ok,
        None if ok else (f"best at {best_elev:g}" if told else f"a span of {span:.2%} (seeds {noise:.2%})"),
        None if ok else why,
        tolerance="the best of Table 4's p_elevate values in [0.01, 0.02] by the mean over seeds, and the curve's "
                  f"span at least {SIGNIFICANT:.0%} of the I/O time and more than twice the largest spread of the "
                  "seeds at one point (ours: \"significantly\")"))
    notes.append(
        "Eqs. 1-2 as flashlayer reads them (flashlayer::tier::hypro): every page DRAM evicts on a miss is followed "
        "for as long as a page sunk now would last on the SSD (its residency, by Little's law over the last window) "
        "and its first request in that time counts in R_mevict or W_mevict - the request the SSD serves if the page "
        "sank and the disk if it did not; pages a sink pushes off the SSD are followed the same way into R_fevict, "
        "W_fevict. A window is 1,000 evictions from DRAM; at its end p_sink is multiplied by C_sinkd / C_sinkf "
        "(p_elevate by the like ratio), the ratio held within [1/2, 2] while the SSD fills and within [1/1.2, 1.2] "
        "once it is full. Those two bounds were chosen by measuring MLK at 10% and 20% SSD and TATP at 20% "
        "(the points marked in table hypro/auto-vs-grid); figure hypro/auto-held-out shows auto on traces and "
        "sizes they were not chosen on. Figure hypro/fig5a shows the run totals: sinking pays (C_sinkf below "
        "C_sinkd) while the SSD has room for pages that come back."
    )
    return best_sink, best_elev


def _tuning(traces: dict[str, Any], best: tuple[float, float], figures: dict[str, Figure],
            runs: list[dict[str, Any]], notes: list[str], quiet: bool) -> None:
    """auto's probabilities over time: on TPC-B at Fig. 5's SSD size, and
    on MLK at 10%, where they move the most."""
    for fid, name, size in (("tuning", "TPC-B", FIG5_SSD), ("tuning-mlk", "MLK", "10%")):
        trace = traces[name]
        every = max(1, len(trace) // POINTS)
        ssd = dict((n, d) for _, n, d in FIG6)[name] if name == "MLK" else HIGH_END
        with progress.bar(None, f"hypro: auto's probabilities over time on {name}", quiet=quiet):
            auto = _tiers(trace, ["hypro"], [size], ssd=ssd, series_every=every)[0]
        runs.extend(_label([auto], name))
        ts = auto["series"]
        n = len(ts["requests"])
        series = {"p_sink (auto)": ts["state"]["p_sink"], "p_elevate (auto)": ts["state"]["p_elevate"]}
        if name == "TPC-B":
            series |= {"best fixed p_sink (Fig. 5a)": [best[0]] * n, "best fixed p_elevate (Fig. 5b)": [best[1]] * n}
            fixed = _tiers(trace, [f"hypro:p_sink={best[0]},p_elevate={best[1]}"], [size], ssd=ssd)[0]
            sink, elev = ts["state"]["p_sink"][-1], ts["state"]["p_elevate"][-1]
            notes.append(
                f"Figure hypro/{fid}: on TPC-B at SSD {size} auto ends at p_sink {sink:.3g} and p_elevate {elev:.3g}, "
                f"where Fig. 5's best fixed values are {best[0]:g} and {best[1]:g}; its I/O time is "
                f"{auto['io_time'] / fixed['io_time'] - 1:+.1%} against that fixed pair's (seed 0). Each window's "
                "decision weighs the pages DRAM evicted that came back while they would still be on the SSD, not "
                "the I/O time itself, so it can settle away from the best fixed pair; table hypro/auto-vs-grid gives "
                "its cost at every size.")
        figures[f"hypro/{fid}"] = {
            "title": f"auto's p_sink and p_elevate over time ({name}, SSD {size})",
            "x_label": "requests", "y_label": "probability", "x": [float(x) for x in ts["requests"]],
            "log_x": False, "log_y": True, "series": series,
        }


def _auto_vs_grid(traces: dict[str, Any], figures: dict[str, Figure], tables: dict[str, Table],
                  claims: list[Claim], runs: list[dict[str, Any]], quiet: bool) -> None:
    """auto (mean of `SEEDS`) against the best fixed pair of the grid at
    every SSD size: on Fig. 6's traces and SSDs, where three points chose
    the step's bounds (:data:`CHOSEN_ON`), and on the held-out settings of
    :data:`HELD_OUT`."""
    pairs = [f"hypro:p_sink={a},p_elevate={b}" for a in P_SINKS for b in GRID_ELEVATES]
    autos = [f"hypro:seed={s}" for s in SEEDS]
    cases = [(name, name, ssd, DRAM) for _, name, ssd in FIG6] + list(HELD_OUT)
    ratio: dict[str, list[float]] = {}
    spread: dict[str, list[tuple[float, float]]] = {}
    rows: list[list[object]] = []
    finals: dict[tuple[str, str], tuple[tuple[float, float], str, list[float]]] = {}
    with progress.bar(len(cases), f"hypro: auto against {len(pairs)} fixed pairs x {len(SSD_SIZES)} SSD sizes",
                      quiet=quiet) as bar:
        for label, name, ssd, dram in cases:
            got = _tiers(traces[name], autos + pairs, SSD_SIZES, ssd=ssd, dram=dram)
            runs.extend(_label(got[:len(autos) * len(SSD_SIZES)], label))
            ratio[label], spread[label] = [], []
            for i, size in enumerate(SSD_SIZES):
                at = [got[k * len(SSD_SIZES) + i] for k in range(len(autos) + len(pairs))]
                auto = [r["io_time"] for r in at[:len(autos)]]
                best = min(at[len(autos):], key=lambda r: r["io_time"])
                mean = sum(auto) / len(auto)
                ratio[label].append(mean / best["io_time"])
                finals[(label, size)] = ((best["p_sink"] or 0.0, best["p_elevate"] or 0.0),
                                         ", ".join(f"{r['p_sink']:.2g}/{r['p_elevate']:.2g}" for r in at[:len(autos)]),
                                         [r["p_sink"] or 0.0 for r in at[:len(autos)]])
                spread[label].append((min(auto) / best["io_time"], max(auto) / best["io_time"]))
                rows.append([label, size, "chosen on" if (label, size) in CHOSEN_ON else "held out",
                             f"{mean / 1e6:,.1f}", f"{(max(auto) - min(auto)) / 1e6:,.1f}",
                             f"{best['p_sink']:g}, {best['p_elevate']:g}", f"{best['io_time'] / 1e6:,.1f}",
                             f"{mean / best['io_time'] - 1:+.1%}", finals[(label, size)][1]])
            bar.advance(1)
    fig6_names = [name for _, name, _ in FIG6]
    for fid, names, what in (("auto-vs-grid", fig6_names, "Fig. 6's traces (the step's bounds were chosen on MLK "
                              "10% and 20% and TATP 20%)"),
                             ("auto-held-out", [c[0] for c in HELD_OUT], "held-out traces and DRAM")):
        figures[f"hypro/{fid}"] = {
            "title": f"auto (mean of seeds {', '.join(map(str, SEEDS))}) over the best of {len(pairs)} fixed pairs: "
                     + what,
            "x_label": "SSD size (% of the pages)", "y_label": "I/O time, auto / best fixed pair", "x": SSD_X,
            "log_x": False, "log_y": False,
            "series": {name: ratio[name] for name in names} | {"5% above": [1 + WITHIN] * len(SSD_X)},
        }
    tables["hypro/auto-vs-grid"] = {
        "title": "auto against the best fixed (p_sink, p_elevate) of Table 4's p_sink values x p_elevate "
                 f"{', '.join(f'{e:g}' for e in GRID_ELEVATES)}, at every SSD size (I/O time in s); 'chosen on' marks "
                 "the points the step's bounds were measured on",
        "columns": ["setting", "SSD", "step", "auto (mean)", "auto spread", "best pair", "best pair's time",
                    "auto over best", "auto's final p_sink/p_elevate per seed"],
        "rows": rows,
    }
    points = [(r, name, SSD_SIZES[i]) for name, rs in ratio.items() for i, r in enumerate(rs)]
    lost = _where_auto_loses(traces, [(name, size, finals[(name, size)][0]) for r, name, size in points
                                      if r > 1 + WITHIN and name in fig6_names], figures, quiet)
    for cid, chosen in (("auto-near-best-chosen-on", True), ("auto-near-best-held-out", False)):
        mine = [pt for pt in points if ((pt[1], pt[2]) in CHOSEN_ON) == chosen]
        misses = [pt for pt in mine if pt[0] > 1 + WITHIN]
        worst = max(mine)
        ok = not misses
        claims.append(_claim(
            cid, f"p_sink=auto and p_elevate=auto come within {WITHIN:.0%} of the best fixed pair at "
            + ("the three points the step's bounds were chosen on (MLK at 10% and 20%, TATP at 20%)" if chosen else
               "every point the step was not chosen on: Fig. 6's other points, a TPC-C trace, the generated TPC-B and "
               "TATP, and TPC-B with twice the DRAM"),
            "HyPro §4 (tuning by cost analysis) and §5.2; the threshold is ours (the paper gives none)",
            f"within {WITHIN:.0%} (ours)",
            f"{len(mine) - len(misses)}/{len(mine)} points within; worst {worst[0] - 1:+.1%} ({worst[1]} at "
            f"{worst[2]})", ok,
            None if ok else "beyond: " + "; ".join(
                f"{n} {sz} ({r - 1:+.1%}, seeds {spread[n][SSD_SIZES.index(sz)][0] - 1:+.1%} to "
                f"{spread[n][SSD_SIZES.index(sz)][1] - 1:+.1%})" for r, n, sz in misses),
            None if ok else _auto_why(worst, finals, lost),
            tolerance=f"auto's mean over seeds at most {WITHIN:.0%} above the best pair at each of the {len(mine)} "
                      "points", kind="ours"))


def _auto_why(worst: tuple[float, str, str], finals: dict[tuple[str, str], tuple[tuple[float, float], str, list[float]]],
              lost: list[str]) -> str:
    """Why auto misses: where its seeds end against the best pair."""
    (best_sink, best_elev), ends, sinks = finals[(worst[1], worst[2])]
    return (f"At the worst point ({worst[1]} at {worst[2]}) the best fixed pair is p_sink {best_sink:g}, p_elevate "
            f"{best_elev:g}, and auto's seeds end at p_sink/p_elevate {ends} (table hypro/auto-vs-grid). Each "
            "window's decision asks how many of the pages DRAM evicted came back while they would still be on the "
            "SSD. "
            + ("Here few do, so auto keeps p_sink below the best pair's." if all(p < best_sink for p in sinks) else
               "That answer swings with the trace's phases, so auto's p_sink wanders instead of settling where the "
               "best pair sits.")
            + " Figures hypro/tuning (TPC-B) and hypro/tuning-mlk (MLK at 10%) show auto's probabilities over time"
            + ("; figure hypro/where-auto-loses shows where in the trace auto's seed 0 spends more than the best "
               "pair: " + "; ".join(lost) if lost else "") + ".")


def _saving_why(fig6: dict[str, dict[str, list[SimResult]]], top: tuple[float, str, str, str, int]) -> str:
    """Where the largest saving comes from: both schemes' device operations
    and time at its point."""
    _, label, name, rival, i = top
    fid = {n: f for f, n, _ in FIG6}.get(name, "fig6")

    def ops(k: str) -> str:
        r = fig6[name][k][i]
        return (f"{k} {r['ssd_hits']:,} SSD hits, {r['ssd_writes']:,} SSD writes, {r['hdd_reads']:,} disk reads, "
                f"{r['hdd_writes']:,} disk writes ({r['ssd_time'] / 1e6:,.1f} s on the SSD, "
                f"{r['hdd_time'] / 1e6:,.1f} s on the disk)")
    h, c = fig6[name]["HyPro"][i], fig6[name][rival][i]
    return (f"The largest saving is {label} (figure hypro/{fid}): {ops('HyPro')}; {ops(rival)}. {rival} writes "
            f"{c['ssd_writes'] / max(1, h['ssd_writes']):,.1f}x as many pages to the SSD as HyPro and reads "
            f"{c['hdd_reads'] / max(1, h['hdd_reads']):,.1f}x as many from the disk: its admission, not HyPro's "
            "gain, sets how large the saving is on this trace and SSD.")


def _where_auto_loses(traces: dict[str, Any], points: list[tuple[str, str, tuple[float, float]]],
                      figures: dict[str, Figure], quiet: bool) -> list[str]:
    """Per twentieth of the trace, auto's (seed 0) I/O time over the best
    fixed pair's, at each point where auto misses; says for each how much
    of the excess accrues while auto climbs from its starting values and
    how much after."""
    series: dict[str, list[float]] = {}
    said: list[str] = []
    ssds = {name: ssd for _, name, ssd in FIG6}
    with progress.bar(len(points), "hypro: where auto loses to the best pair", quiet=quiet) as bar:
        for name, size, (sink, elevate) in points:
            trace = traces[name]
            every = max(1, len(trace) // SEGMENTS)
            auto, best = _tiers(trace, ["hypro:seed=0", f"hypro:p_sink={sink},p_elevate={elevate}"], [size],
                                ssd=ssds[name], series_every=every)
            a, b = (r["series"]["virtual_time"] for r in (auto, best))
            excess = [(a1 - a0) - (b1 - b0) for a0, a1, b0, b1 in zip([0.0, *a], a, [0.0, *b], b, strict=False)]
            # A last, partial segment joins the one before it.
            excess = [*excess[:SEGMENTS - 1], sum(excess[SEGMENTS - 1:])]
            series[f"{name} {size}"] = [e * 1e-6 for e in excess]
            total = sum(excess)
            first = max(1, round(START * len(excess)))
            start = sum(excess[:first])
            behind = sum(1 for e in excess[first:] if e > 0)
            said.append(f"{name} {size}: {total * 1e-6:,.0f} s more in all, {start / total:.0%} of it in the first "
                        f"{START:.0%} of the trace (auto starting at p_sink 0.2, p_elevate 0.02), and more than the "
                        f"pair in {behind} of the other {len(excess) - first} segments" if total > 0 else
                        f"{name} {size}: seed 0 is not above the pair (the miss is the other seeds')")
            bar.advance(1)
    if series:
        n = SEGMENTS
        figures["hypro/where-auto-loses"] = {
            "title": "auto (seed 0) over the best fixed pair, per twentieth of the trace, where auto misses 5%",
            "x_label": "trace position (%)", "y_label": "I/O time, auto - best pair (s)",
            "x": [100.0 * (i + 1) / n for i in range(n)], "log_x": False, "log_y": False, "series": series,
        }
    return said


def _fig6(fid: str, name: str, trace: Any, ssd: str, figures: dict[str, Figure], runs: list[dict[str, Any]],
          quiet: bool, fit: str = "") -> dict[str, list[SimResult]]:
    """Fig. 6 on one trace; `fit` says how a fitted trace was made."""
    name_fit = name + (" fitted" if fit else "")
    with progress.bar(None, f"hypro: {name_fit}, four schemes x {len(SSD_SIZES)} SSD sizes", quiet=quiet):
        rows = _tiers(trace, list(SCHEMES.values()), SSD_SIZES, ssd=ssd)
    runs.extend(_label(rows, name_fit))
    by: dict[str, list[SimResult]] = {}
    for label, spec in SCHEMES.items():
        by[label] = [r for r in rows if r["scheme_name"] == spec]
    kind = "low-end" if ssd == LOW_END else "high-end"
    figures[f"hypro/{fid}"] = {
        "title": f"Fig. 6: I/O time, {kind} SSD, {name}{fit}",
        "x_label": "SSD size (% of the pages)", "y_label": "I/O time (s)", "x": SSD_X,
        "series": {label: [r["io_time"] / 1e6 for r in rs] for label, rs in by.items()},
    }
    return by


def _other_seeds(trace: Any, quiet: bool) -> dict[int, list[SimResult]]:
    """HyPro on TPC-B (Fig. 6(c)'s SSD) at its other seeds, every SSD size:
    the spread of the claims that rank it against the deterministic TAC,
    FaCE and LC."""
    ssd = next(s for _, name, s in FIG6 if name == "TPC-B")
    with progress.bar(None, f"hypro: TPC-B, HyPro at seeds {', '.join(map(str, SEEDS[1:]))}", quiet=quiet):
        rows = _tiers(trace, [f"hypro:seed={s}" for s in SEEDS[1:]], SSD_SIZES, ssd=ssd)
    n = len(SSD_SIZES)
    return {s: rows[i * n:(i + 1) * n] for i, s in enumerate(SEEDS[1:])}


def _fig6_claims(fig6: dict[str, dict[str, list[SimResult]]], claims: list[Claim],
                 seeds: dict[int, list[SimResult]]) -> None:
    settings = equal_or_better = 0
    savings: list[tuple[float, str, str, str, int]] = []
    for name, by in fig6.items():
        for i, size in enumerate(SSD_SIZES):
            h = by["HyPro"][i]["io_time"]
            others = {k: v[i]["io_time"] for k, v in by.items() if k != "HyPro"}
            settings += 1
            equal_or_better += h <= min(others.values()) * (1 + EQUAL)
            for k, t in others.items():
                savings.append((1 - h / t, f"against {k} on {name} at {size}", name, k, i))
    ok = equal_or_better * 2 > settings
    lost = []
    for name, by in fig6.items():
        for i, size in enumerate(SSD_SIZES):
            hy = by["HyPro"][i]
            best = min((k for k in by if k != "HyPro"), key=lambda k: by[k][i]["io_time"])
            if hy["io_time"] > by[best][i]["io_time"] * (1 + EQUAL):
                lost.append(f"{name} {size} ({best} {1 - by[best][i]['io_time'] / hy['io_time']:.0%} less; HyPro "
                            f"ends at p_sink {hy['p_sink']:g}, p_elevate {hy['p_elevate']:g})")
    why = ("HyPro loses to a competitor at these settings, with the probabilities its tuning ends at "
           "(its tuning over time: figures hypro/tuning and hypro/tuning-mlk; against fixed pairs: table "
           "hypro/auto-vs-grid): " + "; ".join(lost)
           + " (figures hypro/fig6a, hypro/fig6b, hypro/fig6c; table hypro/fig6c-io).")
    claims.append(_claim(
        "hypro-most-settings", "HyPro is equal to (within 2%) or better than every competitor in most settings",
        "HyPro §5.3, Fig. 6", "most of the settings", f"{equal_or_better}/{settings} settings", ok,
        None if ok else f"{settings // 2 + 1 - equal_or_better} settings short of most", None if ok else why,
        tolerance=f"HyPro within {EQUAL:.0%} of the best competitor at more than half of the {settings} settings"))
    top = max(savings)
    ok = HALF <= top[0] <= MOST_HALF
    claims.append(_claim(
        "hypro-up-to-half", "HyPro saves up to 50% of the total I/O time against a competitor",
        "HyPro abstract and §5.3", "up to 50%", f"{top[0]:.1%} {top[1]}", ok,
        None if ok else (f"{HALF - top[0]:.1%} short of {HALF:.0%}" if top[0] < HALF
                         else f"{top[0] - MOST_HALF:.1%} beyond {MOST_HALF:.0%}"),
        None if ok else _saving_why(fig6, top),
        tolerance=f"the largest saving over a competitor, over all {settings} settings, in [{HALF:.0%}, {MOST_HALF:.0%}]"))
    _fig6_tpcb_claims(fig6, claims, seeds)
    _fig6_mlk_tatp_claims(fig6, claims)
    _exchange_claim(fig6, claims)


def _exchange_claim(fig6: dict[str, dict[str, list[SimResult]]], claims: list[Claim]) -> None:
    """§6: "HyPro can achieve lower hard disk access with a little exchange
    overhead increment on flash writes", read against the competitor that
    writes least to the SSD at each setting (the other reading, against
    each competitor, in the why)."""
    def disk(r: SimResult) -> int:
        return int(r["hdd_reads"]) + int(r["hdd_writes"])

    settings, lower, little = 0, 0, 0
    ratios: list[str] = []
    for name, by in fig6.items():
        for i, size in enumerate(SSD_SIZES):
            hy = by["HyPro"][i]
            others = [v[i] for k, v in by.items() if k != "HyPro"]
            fewest = min(others, key=lambda r: r["ssd_writes"])
            ratio = hy["ssd_writes"] / max(1, fewest["ssd_writes"])
            settings += 1
            lower += disk(hy) < min(disk(r) for r in others)
            little += 1 < ratio <= 1 + LITTLE
            ratios.append(f"{name} {size} {ratio:.2f}")
    ok = lower * 2 > settings and little * 2 > settings
    against = {k: sum(by["HyPro"][i]["ssd_writes"] < by[k][i]["ssd_writes"] for by in fig6.values()
                      for i in range(len(SSD_SIZES)))
               for k in next(iter(fig6.values())) if k != "HyPro"}
    claims.append(_claim(
        "lower-disk-little-more-flash", "HyPro reaches the disk less than its competitors, paying for it with a "
        "little more writing to the SSD",
        "HyPro §6", "lower disk access; a little more flash writing",
        f"disk accesses below every competitor's at {lower}/{settings} settings; SSD writes over the fewest "
        f"competitor's: " + ", ".join(ratios), ok,
        None if ok else "; ".join(([] if lower * 2 > settings else [f"lower disk access at {lower}/{settings}"])
                                  + ([] if little * 2 > settings else [
                                      f"a little more flash writing at {little}/{settings}"])),
        None if ok else ("Figure by figure (hypro/fig6a-c): HyPro writes fewer pages to the SSD than "
                         + ", ".join(f"{k} at {n}/{settings} settings" for k, n in against.items())
                         + "; its tuning ends at a small p_sink, so few pages DRAM evicts sink to the SSD, while "
                           "FaCE and LC write every one they cache."),
        tolerance=f"at more than half of the {settings} settings each: disk reads and writes below every "
                  f"competitor's, and SSD writes above the fewest competitor's by at most {LITTLE:.0%} (ours: "
                  "\"a little\")"))


def _fig6_tpcb_claims(fig6: dict[str, dict[str, list[SimResult]]], claims: list[Claim],
                      seeds: dict[int, list[SimResult]]) -> None:
    """Fig. 6 on TPC-B: HyPro's I/O time falls with the SSD's size, TAC leads at small SSDs and degrades at
    large ones."""
    tpcb = fig6["TPC-B"]
    hy_t = [r["io_time"] for r in tpcb["HyPro"]]
    best_t = [min(v[i]["io_time"] for v in tpcb.values()) for i in range(len(SSD_SIZES))]
    falls = all(b < a for a, b in pairwise(hy_t))
    off = [hy_t[i] / best_t[i] - 1 for i in range(len(SSD_SIZES))]
    ok = falls and max(off) <= 0.10
    claims.append(_claim(
        "good-at-every-size-tpcb", "On TPC-B, HyPro adapts to a larger SSD and performs well in all cases",
        "HyPro §5.3, Fig. 6(c)", "good in all cases",
        f"I/O time {', '.join(f'{t / 1e6:,.0f}' for t in hy_t)} s from 1.25% to 20%; above the best scheme by "
        f"{', '.join(f'{o:.0%}' for o in off)}", ok,
        None if ok else ("its I/O time does not fall with every larger SSD" if not falls
                         else f"{max(off):.0%} above the best scheme at {SSD_SIZES[off.index(max(off))]}"),
        None if ok else (
            f"Figure hypro/fig6c and table hypro/auto-vs-grid: at {SSD_SIZES[off.index(max(off))]} HyPro ends at "
            f"p_sink {tpcb['HyPro'][off.index(max(off))]['p_sink']:g}, p_elevate "
            f"{tpcb['HyPro'][off.index(max(off))]['p_elevate']:g}; the table gives the best fixed pair there."),
        tolerance="I/O time falls with each larger SSD, and is at most 10% above the best scheme at each size"))
    tpcb = fig6["TPC-B"]
    small = [min(tpcb, key=lambda k: tpcb[k][i]["io_time"]) for i in (0, 1)]
    ok = all(s == "TAC" for s in small)
    tac0, win0 = tpcb["TAC"][0], tpcb[small[0]][0]
    claims.append(_claim(
        "tac-small-ssd-tpcb", "On TPC-B, TAC is the best scheme at the smallest SSD sizes",
        "HyPro §5.3, Fig. 6(c)", "TAC best at 1.25% and 2.5%", f"best: {small[0]} at 1.25%, {small[1]} at 2.5%", ok,
        None if ok else f"TAC {tac0['io_time'] / win0['io_time'] - 1:+.1%} against {small[0]} at 1.25%",
        None if ok else (
            f"At 1.25% TAC writes every dirty page it caches through to the SSD: {tac0['ssd_writes']:,} SSD writes on "
            f"the low-end SSD ({tac0['ssd_time'] / 1e6:.1f} s) buy only {tac0['ssd_hits']:,} SSD hits, while "
            f"{small[0]} spends {win0['ssd_time'] / 1e6:.1f} s on the SSD"
            + (f" (its tuner ends at p_sink {win0['p_sink']:g})" if win0.get("p_sink") is not None else "")
            + "; both read and write the disk about as often (table hypro/fig6c-io)."
            + (f" At the paper's scale (table hypro/table3) an SSD of 1.25% holds "
               f"{(papers.HYPRO_TPCB.distinct_pages or 0) * 0.0125:.0f} pages against our {tac0['ssd_pages']:,}, and "
               f"TAC's extent temperatures see {PAPER_TABLE3['TPC-B'].requests / tac0['requests']:.0f}x more "
               "references to warm up."
               if tac0["requests"] < PAPER_TABLE3["TPC-B"].requests else "")),
        tolerance="exact: TAC has the lowest I/O time at both sizes"))
    # "When the flash size is large, the performance of TAC degrades": its
    # I/O time over the best scheme's is worst at the largest size, against
    # every smaller one, whichever seed HyPro (the one scheme that draws at
    # random) runs with.
    hypro_at = {SEEDS[0]: tpcb["HyPro"], **seeds}

    def standing_at(s: int) -> list[float]:
        return [tpcb["TAC"][i]["io_time"] / min(min(tpcb[k][i]["io_time"] for k in tpcb if k != "HyPro"),
                                                 hypro_at[s][i]["io_time"]) for i in range(len(SSD_SIZES))]
    by_seed = {s: standing_at(s) for s in hypro_at}
    standing = by_seed[SEEDS[0]]
    failing = [s for s, x in by_seed.items() if not all(x[-1] > y for y in x[:-1])]
    ok = not failing
    tac, face = tpcb["TAC"][-1], tpcb["FaCE"][-1]
    claims.append(_claim(
        "tac-degrades-with-ssd-size-tpcb", "On TPC-B, TAC's standing degrades when the SSD is large: its I/O time "
        "over the best scheme's is larger at 20% than at every smaller size",
        "HyPro §5.3, Fig. 6(c) (a direction only: the text gives no values)", "degrades at the largest sizes",
        "TAC over the best: " + ", ".join(f"{x:.3f}" for x in standing) + " from 1.25% to 20%; across HyPro's "
        f"seeds {', '.join(map(str, hypro_at))}: " + ", ".join(
            f"{min(v[i] for v in by_seed.values()):.3f}-{max(v[i] for v in by_seed.values()):.3f}"
            for i in range(len(SSD_SIZES))), ok,
        None if ok else "not worst at 20% with HyPro's seed " + ", ".join(map(str, failing)),
        None if ok else (
            f"At 20% TAC reads {tac['hdd_reads']:,} pages from the disk against FaCE's {face['hdd_reads']:,} (TAC "
            f"admits pages of hot extents, FaCE every page DRAM evicts, so FaCE's {face['ssd_pages']:,} SSD pages "
            f"churn) (table hypro/fig6c-io, figure hypro/fig6c)."),
        tolerance=f"exact, with each of HyPro's seeds {', '.join(map(str, SEEDS))}: TAC over the best scheme higher "
                  "at 20% than at each smaller size (the paper states a direction)"))


def _fig6_mlk_tatp_claims(fig6: dict[str, dict[str, list[SimResult]]], claims: list[Claim]) -> None:
    """Fig. 6 on MLK (FaCE the worst) and TATP (HyPro and FaCE alike)."""
    mlk = fig6["MLK"]
    worst = [max(mlk, key=lambda k: mlk[k][i]["io_time"]) for i in range(len(SSD_SIZES))]
    n_face = worst.count("FaCE")
    ok = n_face == len(SSD_SIZES)
    claims.append(_claim(
        "face-worst-mlk", "On MLK, FaCE performs the worst (it caches pages used once), at every SSD size",
        "HyPro §5.3, Fig. 6(a)", "FaCE worst", f"FaCE worst at {n_face}/{len(SSD_SIZES)} sizes "
        f"(worst: {', '.join(worst)})", ok, None if ok else "FaCE is not the worst at " + ", ".join(
            SSD_SIZES[i] for i, w in enumerate(worst) if w != "FaCE"),
        None if ok else (
            "Figure hypro/fig6a: " + ", ".join(f"{w} is the worst at {SSD_SIZES[i]}" for i, w in enumerate(worst))
            + f"; MLK is read-mostly and {fig6['MLK']['FaCE'][0]['ssd_writes']:,} of FaCE's SSD writes at 1.25% "
            "are pages DRAM evicts."),
        tolerance=f"exact: FaCE has the highest I/O time at each of the {len(SSD_SIZES)} sizes (the paper says it "
                  "without exception)"))
    tatp = fig6["TATP"]
    close = sum(1 for i in range(len(SSD_SIZES))
                if abs(tatp["HyPro"][i]["io_time"] / tatp["FaCE"][i]["io_time"] - 1) <= 0.10
                and min(tatp["HyPro"][i]["io_time"], tatp["FaCE"][i]["io_time"]) < tatp["TAC"][i]["io_time"])
    ok = close * 2 > len(SSD_SIZES)
    alike = [i for i in range(len(SSD_SIZES))
             if abs(tatp["HyPro"][i]["io_time"] / tatp["FaCE"][i]["io_time"] - 1) <= 0.10]
    tac_best = [i for i in range(len(SSD_SIZES))
                if tatp["TAC"][i]["io_time"] <= min(tatp["HyPro"][i]["io_time"], tatp["FaCE"][i]["io_time"])]
    last = len(SSD_SIZES) - 1
    hy, fa, ta = (tatp[k][last] for k in ("HyPro", "FaCE", "TAC"))
    why = (f"HyPro and FaCE are alike (within 10%) at {len(alike)}/{len(SSD_SIZES)} sizes, but TAC costs least at "
           + (", ".join(SSD_SIZES[i] for i in tac_best) or "no size") + f" (figure hypro/fig6b): at {SSD_SIZES[last]} "
           f"TAC reads {ta['hdd_reads']:,} pages from the disk against HyPro's {hy['hdd_reads']:,} and FaCE's "
           f"{fa['hdd_reads']:,}, and writes {ta['hdd_writes']:,} to it against {hy['hdd_writes']:,} and "
           f"{fa['hdd_writes']:,}. With {ta['writes'] / max(1, ta['requests']):.1%} of this TATP's requests writes, "
           "TAC's write-through costs little and its admission of hot extents keeps more of what is read again.")
    claims.append(_claim(
        "tatp-hypro-face", "On TATP, HyPro and FaCE perform alike (within 10%) and better than TAC",
        "HyPro §5.3, Fig. 6(b)", "alike and better than TAC", f"at {close}/{len(SSD_SIZES)} sizes", ok,
        None if ok else "not at most sizes", None if ok else why,
        tolerance=f"at more than half of the {len(SSD_SIZES)} sizes: HyPro within 10% of FaCE, and the lower of "
                  "them below TAC"))


def _claim(cid: str, text: str, source: str, paper_value: str, ours: str, holds: bool, gap: str | None,
           why: str | None = None, *, tolerance: str, kind: Literal["paper", "ours"] = "paper") -> Claim:
    return {"paper": "hypro", "kind": kind, "id": f"hypro-{cid}" if not cid.startswith("hypro") else cid,
            "text": text, "source": source, "paper_value": paper_value, "tolerance": tolerance, "ours": ours,
            "holds": holds, "gap": gap, "why": why}


def _io_table(by: dict[str, list[SimResult]]) -> Table:
    """Each scheme's device operations on TPC-B at the smallest and largest
    SSD: where the I/O time of Fig. 6(c) goes."""
    rows: list[list[object]] = []
    for i in (0, len(SSD_SIZES) - 1):
        for name, rs in by.items():
            r = rs[i]
            rows.append([SSD_SIZES[i], name, r["ssd_hits"], r["ssd_writes"], r["hdd_reads"], r["hdd_writes"],
                         f"{r['ssd_time'] / 1e6:.1f}", f"{r['hdd_time'] / 1e6:.1f}", f"{r['io_time'] / 1e6:.1f}"])
    return {"title": "Fig. 6(c), TPC-B: each scheme's device operations and time (s) at the smallest and largest SSD",
            "columns": ["SSD", "scheme", "SSD hits", "SSD writes", "disk reads", "disk writes", "SSD time",
                        "disk time", "I/O time"], "rows": rows}
