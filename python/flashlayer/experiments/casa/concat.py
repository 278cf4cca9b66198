"""CASA §5.1 on CONCAT (OLTP, DSS, OLTP, DSS): Fig. 2, each policy's
virtual time relative to LRU's over the buffer sizes, and Fig. 3, the
clean list's size following the workload's phases."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashlayer import _native, papers, progress
from flashlayer.experiments.bounds import bound_claim, lower_bounds
from flashlayer.experiments.casa.common import LRU, POINTS, POLICIES, device
from flashlayer.replay import sweep
from flashlayer.results import SimResult, state_series

if TYPE_CHECKING:
    from flashlayer.experiments import Check, Claim, Figure, Setting

#: Fig. 2's buffer sizes as the paper gives them (pages of its CONCAT);
#: ours are the same shares of our CONCAT's distinct pages (:func:`scaled`).
PAPER_BUFFERS = {"quick": [1000, 2000, 4000, 8000, 16000],
                 "full": [1000, 2000, 4000, 6000, 8000, 10000, 12000, 14000, 16000]}
#: Fig. 3's buffer in the paper.
PAPER_FIG3_BUFFER = 1000
#: CASA Table 1 and the CONCAT built from it.
PAPER_TABLE1 = {"OLTP": papers.CASA_OLTP, "DSS": papers.CASA_DSS}
PAPER_CONCAT = papers.CASA_CONCAT


def scaled(paper_pages: int, ours_distinct: int) -> int:
    """A buffer of `paper_pages` of the paper's CONCAT, as the same share of
    a CONCAT of `ours_distinct` pages."""
    return max(1, round(paper_pages * ours_distinct / (PAPER_CONCAT.distinct_pages or ours_distinct)))


#: A capture reproduces Table 1's trace when its distinct pages and write
#: share lie within this share of the paper's.
SCALE_BOUND = 1 / 3
#: "Close to LRU" in Fig. 2a, our reading of the figure: within 5%.
CLOSE = 0.05
#: CCF-LRU at the largest buffer in Fig. 2a: the paper's "about 2x" LRU
#: at 16,000 pages, read to the nearest quarter either way.
CCF_2X = (1.75, 2.25)
#: Fig. 3a's |C| "fluctuates around 200" of 1,000 pages in the OLTP
#: phases: as a share of the buffer, read to the nearest 50 pages
#: either way.
OLTP_CLEAN = (0.15, 0.25)


def concat_check(concat: Path, oltp: Path, dss: Path) -> tuple[Check, int, int]:
    """The provenance check of CONCAT, the requests of its OLTP phase, and
    CONCAT's distinct pages."""
    a, b, c = (_native.Trace.open(p).stats() for p in (concat, oltp, dss))
    want = (2 * (b["requests"] + c["requests"]), b["distinct_pages"] + c["distinct_pages"])
    got = (a["requests"], a["distinct_pages"])
    return {
        "id": "casa-concat-shape",
        "text": "CONCAT is OLTP, DSS, OLTP, DSS: twice the requests of both traces, on their disjoint pages",
        "source": "CASA §5.1 (how CONCAT is built)",
        "expected": f"{want[0]:,} requests / {want[1]:,} distinct pages",
        "ours": f"{got[0]:,} requests / {got[1]:,} distinct pages",
        "holds": want == got,
    }, b["requests"], a["distinct_pages"]


def _relative(rows: list[SimResult], specs: dict[str, str], buffers: list[int], device: str) -> dict[str, list[float]]:
    """Virtual time of each named policy relative to LRU's, per buffer."""
    vt = {(r["policy"], r["buffer_pages"], r["device"]): r["virtual_time"] for r in rows}
    canon = {name: _native.canonical("policy", spec) for name, spec in specs.items()}
    return {name: [vt[(canon[name], b, device)] / vt[(LRU, b, device)] for b in buffers] for name in specs}


def fig2(mode: str, concat: Path, buffers: list[int], figures: dict[str, Figure], claims: list[Claim],
          runs: list[dict[str, Any]], notes: list[str], quiet: bool) -> None:
    devices = [device(1), device(64)]
    specs = [LRU, *POLICIES.values()]
    total = len(specs) * len(buffers) * len(devices)
    with progress.bar(total, "casa: CONCAT (Fig. 2)", quiet=quiet) as bar:
        rows = sweep(str(concat), specs, buffers, device=devices, on_done=lambda _: bar.advance())
    runs.extend({**r, "trace": "CONCAT"} for r in rows)
    rel = {d: _relative(rows, POLICIES, buffers, d) for d in devices}
    lbs = lower_bounds(concat, buffers, devices, mode, quiet, "casa: CONCAT")
    vt = {(r["policy"], r["buffer_pages"], r["device"]): r["virtual_time"] for r in rows}
    for fid, d in (("casa/fig2a", devices[0]), ("casa/fig2b", devices[1])):
        bound = [lbs[(b, d)] for b in buffers]
        figures[fid] = {
            "title": f"CONCAT, cost ratio {d.removeprefix('ratio:')}: virtual time relative to LRU",
            "x_label": "buffer (pages)",
            "y_label": "T_v / T_v(LRU)",
            "x": [float(b) for b in buffers],
            "series": {**rel[d], "bound": [lb / vt[(LRU, b, d)] for lb, b in zip(bound, buffers, strict=True)]},
        }
        if fid == "casa/fig2a":
            # The one value §5.1 states: CCF-LRU about twice LRU at 16,000 pages (our largest).
            figures[fid]["paper"] = {"CCFLRU": [None] * (len(buffers) - 1) + [2.0]}
            figures[fid]["title"] += " (hollow: the paper's value, \"about 2x\")"
        costs = {name: [vt[(_native.canonical("policy", spec), b, d)] for b in buffers]
                 for name, spec in {"LRU": LRU, **POLICIES}.items()}
        claims.append(bound_claim("casa", fid, f"CONCAT at {d.removeprefix('ratio:')}", costs, bound, mode))
    one = rel[devices[0]]
    worst_casa = max(one["CASA"])
    at_largest = one["CCFLRU"][-1]
    ccf_2x = CCF_2X[0] <= at_largest <= CCF_2X[1]
    holds = worst_casa <= 1 + CLOSE and ccf_2x
    claims.append({
        "paper": "casa",
        "kind": "paper",
        "id": "casa-fig2a-close-to-lru",
        "text": f"At 1:1 on CONCAT, CASA's virtual time stays within {CLOSE:.0%} of LRU's at every buffer size, "
        f"while CCF-LRU is far worse (about twice LRU's at {buffers[-1]:,} pages, the paper's 16,000 at our scale)",
        "source": "CASA Fig. 2a and §5.1 (CCF-LRU 2x LRU at 16,000 pages)",
        "paper_value": "CASA close to 1.0; CCF-LRU about 2.0 at 16,000 pages",
        "tolerance": f"CASA at most {1 + CLOSE:g}x LRU at every size; CCF-LRU {CCF_2X[0]:g}x to {CCF_2X[1]:g}x LRU "
                     "at the largest (\"about 2x\" to the nearest quarter)",
        "ours": f"CASA at most {worst_casa:.3f}; CCF-LRU {at_largest:.3f} at {buffers[-1]:,} pages",
        "holds": holds,
        "gap": None if holds else ", ".join(
            ([f"CASA {worst_casa - 1:.1%} above LRU"] if worst_casa > 1 + CLOSE else [])
            + ([] if ccf_2x else [f"CCF-LRU {at_largest:.3f}x LRU"])),
        "why": None if holds else _ccflru_why(rows, concat, buffers[-1], devices[0]),
    })
    r64 = rel[devices[1]]
    best_cflru = [min(r64[k][i] for k in POLICIES if k.startswith("CFLRU")) for i in range(len(buffers))]
    wins = [i for i in range(len(buffers)) if r64["CASA"][i] <= best_cflru[i] + 1e-12]
    misses = [(r64["CASA"][i] - best_cflru[i], buffers[i]) for i in range(len(buffers)) if i not in wins]
    raw = {(r["policy"], r["buffer_pages"], r["device"]): r for r in rows}
    canon = {name: _native.canonical("policy", spec) for name, spec in POLICIES.items()}
    why = None
    if misses:
        parts: list[str] = []
        keeps = False
        for excess, b in misses:
            best = min((k for k in POLICIES if k.startswith("CFLRU")), key=lambda k: r64[k][buffers.index(b)])
            mine, theirs = raw[(canon["CASA"], b, devices[1])], raw[(canon[best], b, devices[1])]
            reads = mine["physical_reads"] - theirs["physical_reads"]
            writes = mine["physical_writes"] - theirs["physical_writes"]
            keeps |= reads > 0
            parts.append(f"at {b:,} pages ({excess:+.3f}) CASA reads {reads:+,} pages and writes {writes:+,} against {best}"
                         + (" (a tie: 0.002 of LRU's time or less, which the paper's figure could not show)"
                            if excess <= 0.002 else ""))
        why = "; ".join(parts) + " (figure casa/fig2b)."
        if keeps:
            why += (" Where CASA reads more, its target for the clean list, tau, grows only on read hits in the clean "
                    "list, so through each DSS phase it keeps dirty OLTP pages the scans could use (figure casa/fig3: "
                    "the clean list stays below the buffer in the DSS phases), and at 1:64 those reads outweigh the "
                    "writes it saves.")
        why = why[0].upper() + why[1:]
    claims.append({
        "paper": "casa",
        "kind": "paper",
        "id": "casa-fig2b-beats-best-cflru",
        "text": "At 1:64 on CONCAT, CASA's virtual time is at or below the best of CFLRU's three windows at every "
        "buffer size",
        "source": "CASA Fig. 2b and §5.1",
        "paper_value": "at or below at every size",
        "tolerance": "exact: at or below the best CFLRU window at every buffer size",
        "ours": f"at or below at {len(wins)}/{len(buffers)} sizes",
        "holds": not misses,
        "gap": None if not misses else ", ".join(f"+{d:.3f} (relative to LRU) at {b:,} pages" for d, b in misses),
        "why": why,
    })
    notes.append(
        "Fig. 2 (CONCAT): relative virtual time at 1:1 "
        + "; ".join(f"{k} {min(v):.3f}-{max(v):.3f}" for k, v in one.items())
        + ". At 1:64 " + "; ".join(f"{k} {min(v):.3f}-{max(v):.3f}" for k, v in r64.items()) + "."
    )


def _ccflru_why(rows: list[SimResult], concat: Path, buffer: int, device: str) -> str:
    """Why CCF-LRU is not far above LRU at 1:1 on our CONCAT: how much it
    reads more, and how few of our requests write."""
    raw = {(r["policy"], r["buffer_pages"], r["device"]): r for r in rows}
    ccf, lru = raw[(_native.canonical("policy", "ccflru"), buffer, device)], raw[(LRU, buffer, device)]
    share = float(_native.Trace.open(concat).stats()["write_share"])
    return (f"CCF-LRU evicts clean pages before dirty ones, and pays for it in reads: the paper saw it read 3x LRU's "
            f"pages at 16,000 (4,444,570 against 1,433,996, §5.1); ours reads {ccf['physical_reads'] / lru['physical_reads']:.2f}x "
            f"({ccf['physical_reads']:,} against {lru['physical_reads']:,}) at {buffer:,}. Our CONCAT writes "
            f"{share:.2%} of its requests against the paper's {PAPER_CONCAT.write_share:.2%} (table casa/table1), so "
            "far fewer pages are dirty for CCF-LRU to hold on to at the expense of clean ones.")


def fig3(concat: Path, oltp_len: int, buffer: int, figures: dict[str, Figure], claims: list[Claim],
          notes: list[str], quiet: bool) -> None:
    trace = _native.Trace.open(concat)
    n = len(trace)
    every = max(1, n // POINTS)
    with progress.bar(None, "casa: |C| and tau over time (Fig. 3)", quiet=quiet):
        r = _native.replay(trace, "casa", buffer, f"cost:device={device(64)}", series_every=every)
    s = r["series"]
    xs = [float(x) for x in s["requests"]]
    clean, tau = state_series(r, "clean"), state_series(r, "tau")
    figures["casa/fig3"] = {
        "title": f"CONCAT, {buffer:,} pages (the paper's 1,000), 1:64: CASA's clean list |C| and target tau",
        "x_label": "request number",
        "y_label": "pages",
        "x": xs,
        "series": {"|C|": clean, "tau": tau},
        "log_x": False,
    }
    # Phases of CONCAT: OLTP, DSS, OLTP, DSS.
    half = n // 2
    bounds = [(0, oltp_len), (oltp_len, half), (half, half + oltp_len), (half + oltp_len, n)]
    def phase_mean(ys: list[float], lo: float, hi: float) -> float:
        pts = [y for x, y in zip(xs, ys, strict=True) if lo < x <= hi]
        return sum(pts) / len(pts) if pts else math.nan

    means = [phase_mean(clean, lo, hi) for lo, hi in bounds]
    dss_full = min(means[1], means[3]) >= 0.95 * buffer
    # The paper's |C| in each phase's middle (Fig. 3a: about 200 of 1,000
    # pages in OLTP, 1,000 in DSS), scaled to our buffer.
    def nearest(x: float) -> int:
        return min(range(len(xs)), key=lambda i: abs(xs[i] - x))

    middles = [nearest((lo + hi) / 2) for lo, hi in bounds]
    level = dict(zip(middles, (0.2 * buffer, buffer, 0.2 * buffer, buffer), strict=True))
    figures["casa/fig3"]["paper"] = {"|C|": [level.get(i) for i in range(len(xs))]}
    figures["casa/fig3"]["title"] += " (hollow: the paper's |C| per phase, scaled)"
    oltp_share = [means[0] / buffer, means[2] / buffer]
    oltp_low = all(OLTP_CLEAN[0] <= x <= OLTP_CLEAN[1] for x in oltp_share)
    taus = [phase_mean(tau, lo, hi) for lo, hi in (bounds[0], bounds[2])]
    hits, req = s["hits"], s["requests"]
    dss = [i for i, x in enumerate(req) if bounds[1][0] < x <= bounds[1][1]]
    a, b = (dss[0], dss[-1]) if len(dss) > 1 else (0, len(req) - 1)
    ratio = (hits[b] - hits[a]) / max(1, req[b] - req[a])
    mechanism = (f"tau rises only on read hits in C, by c_R x |D|/|C| (c_R = 1/65 at 1:64); in our first DSS phase "
                 f"CASA's hit ratio at {buffer:,} pages is {ratio:.1%}, so tau climbs slowly (figure casa/fig3: |C| is "
                 f"{clean[a]:.0f} as the phase starts and {clean[b]:.0f} as it ends) and dirty OLTP pages stay in D "
                 "through the phase")
    holds = dss_full and oltp_low
    claims.append({
        "paper": "casa",
        "kind": "paper",
        "id": "casa-fig3-clean-list-follows-phases",
        "text": f"With {buffer:,} pages (the paper's 1,000 at our scale) at 1:64, CASA's clean list fills the buffer "
        f"in the read-only DSS phases of CONCAT (mean |C| at least 95%, {0.95 * buffer:.0f}) and fluctuates around "
        "a fifth of it (the paper's 200 of 1,000) in the OLTP phases",
        "source": "CASA Fig. 3a (|C| about 200 in OLTP phases, 1,000 in DSS phases)",
        "paper_value": "OLTP about 200; DSS 1,000",
        "tolerance": f"mean |C| at least 95% of the buffer in both DSS phases, and {OLTP_CLEAN[0]:.0%} to "
                     f"{OLTP_CLEAN[1]:.0%} of it in both OLTP phases (\"around 200\" to the nearest 50 pages)",
        "ours": "mean |C| per phase " + " / ".join(f"{m:.0f}" for m in means) + f" of {buffer:,} (OLTP "
                + " and ".join(f"{x:.1%}" for x in oltp_share) + ")",
        "holds": holds,
        "gap": None if holds else (f"DSS phases at {min(means[1], means[3]):.0f} pages, below the "
                                   f"{0.95 * buffer:.0f} of a full clean list" if not dss_full
                                   else "OLTP phases at " + " and ".join(f"{x:.1%}" for x in oltp_share)
                                   + " of the buffer"),
        "why": None if holds else (mechanism[0].upper() + mechanism[1:] + "." if not dss_full else
                                   "Figure casa/fig3: in the OLTP phases |C| follows tau, whose mean there is "
                                   + " and ".join(f"{t:.0f}" for t in taus) + " pages: tau moves by c_R x |D|/|C| "
                                   "on read hits in C and by c_W x |C|/|D| on write hits in D, so where it settles is "
                                   "set by the phase's hits on each list, not by the buffer's size."),
    })
    notes.append(f"Fig. 3: one point every {every:,} requests; phases end at requests "
                 + ", ".join(f"{hi:,}" for _, hi in bounds) + ".")


def concat_setting(mode: str, oltp: Path, dss: Path) -> tuple[str, Setting]:
    """The workload CONCAT's claims are judged on and whether it is the
    paper's: captures at its scale whose distinct pages and write share
    lie within a third of Table 1's reproduce it."""
    ok = True
    for ours, theirs in ((oltp, PAPER_TABLE1["OLTP"]), (dss, PAPER_TABLE1["DSS"])):
        st = _native.Trace.open(ours).stats()
        pages = theirs.distinct_pages or st["distinct_pages"]
        ok &= abs(st["distinct_pages"] / pages - 1) <= SCALE_BOUND
        ok &= abs(st["write_share"] - theirs.write_share) <= SCALE_BOUND * max(theirs.write_share, 0.01)
    what = (f"CONCAT of {oltp.name} and {dss.name} (PostgreSQL TPC-C and TPC-H, as §5.1; table casa/table1 beside "
            "Table 1)")
    return what, ("reproduces" if ok and mode == "full" else "generalizes")
