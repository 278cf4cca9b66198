"""Section ``koltsidas``: Koltsidas & Viglas 2008, a flash and a magnetic
disk side by side (§6).

Every figure runs the paper's B+-tree (16-byte keys, 80-byte payloads,
loaded in random key order) on flashlayer's buffer pool over its hybrid
store, priced by Table 1 (flash read 1, write 118; magnetic read 23, write
12, in cost units). A query set is drawn once and re-executed; the pool is
emptied after each execution, as §6 does, so every page leaves through the
eviction protocol and the placement decides for each. Full scale is the
paper's: 1,000,000 records and a 20 MB pool (5,120 pages of 4 KB). Quick
scale keeps the shape (the pool is the same 14% of the tree, the query sets
the same share of the records) at 50,000 records.

The paper reports seconds of wall time on its disks; we report virtual time
in Table 1's cost units, so claims compare orders and ratios, not seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal

from flashlayer import _native, progress
from flashlayer.experiments.parts import judged_on

if TYPE_CHECKING:

    from flashlayer.experiments import Check, Claim, Figure, Inputs, Section, Table

FILES: list[str] = []

#: Records, pool pages and the query-set scale (1.0 = the paper's sizes).
SCALE = {
    "quick": {"records": 50_000, "buffer": 256, "queries": 0.05},
    "full": {"records": 1_000_000, "buffer": 5_120, "queries": 1.0},
}
#: 140 MB for 1M records (§6): pages of 4 KB per record.
PAGES_PER_RECORD = 140e6 / 4096 / 1_000_000
READ: dict[str, Any] = {"read_only": 1.0}
UPDATE: dict[str, Any] = {"update_only": 1.0}
PLACEMENTS = {"conservative": "conservative", "optimistic": "optimistic", "hybrid": "hybrid",
              "optimal": "optimal"}
#: Sequence 1 (Fig. 11) and sequence 2 (Fig. 12) of §6.2; 0 = read set, 1 = update set.
SEQ1 = [0] * 10 + [1] * 10 + [0] * 20
SEQ2 = ([0] * 3 + [1] * 3) * 3
#: The paper's totals (seconds), §6.2.
PAPER_SEQ1 = {"optimal": 6366, "optimistic": 7003, "hybrid": 8338, "conservative": 9784, "M-only": 13920,
              "F-only": 12760}
PAPER_SEQ2 = {"optimal": 3920, "conservative": 3932, "hybrid": 4060, "optimistic": 4560, "M-only": 4150,
              "F-only": 6552}
LAMBDAS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
#: Best λ's gain over LRU, §6.4 (query sets A and B).
PAPER_LAMBDA_GAIN = {"A": 0.21, "B": 0.15}
#: Fig. 13: M-only "comparable to" hybrid's 60/40 mix (ours).
COMPARABLE = 0.10
#: Fig. 10: M "remains almost constant" (ours).
ALMOST_CONSTANT = 0.10
#: Fig. 13: "more than 70% read-intensive", and how much a cost may fall
#: and still "not improve" (ours).
MIX_READ_MOSTLY = 0.7
NO_GAIN = 0.03
#: §6.4: where Fig. 14's cost is least.
PAPER_BEST_LAMBDA = {"A": 0.9, "B": 0.5}
#: How far from the paper's gain ours may lie (points), and its best λ
#: (one step of :data:`LAMBDAS`).
GAIN_POINTS = 0.05
LAMBDA_STEP = 0.1
WITHIN = 0.03
#: Executions that place the pages before Fig. 14 measures one.
WARMUP = 3
#: §6.2: "all algorithms adapt very quickly to the update workload": within
#: the first ``QUICK_EXECUTIONS`` of sequence 1's ten update executions,
#: each online placement makes at least ``ADAPTED`` of the fall in pages on
#: flash it makes by the tenth (ours: the first 30% of the phase).
QUICK_EXECUTIONS = 3
ADAPTED = 0.9
#: §6.3: "the number of pages that migrate to the flash disk is constant
#: across workloads": at each interesting-set size, every mix's pages on
#: flash within this share of the mixes' mean (ours: "constant").
CONSTANT = 0.10
ONLINE = ["conservative", "optimistic", "hybrid"]


def run(mode: str, inputs: Inputs, quiet: bool) -> Section:
    s = SCALE[mode]
    ctx = _Ctx(records=int(s["records"]), buffer=int(s["buffer"]), scale=float(s["queries"]), quiet=quiet)
    figures: dict[str, Figure] = {}
    tables: dict[str, Table] = {}
    claims: list[Claim] = []
    checks: list[Check] = []
    notes: list[str] = []
    _fig9_10(ctx, figures, claims, notes, checks)
    _sequences(ctx, figures, claims, notes)
    _fig13(ctx, figures, claims, notes, mode)
    _fig14(ctx, figures, tables, claims, notes)
    judged_on(claims, "the query sets of §6 on a B+-tree, generated as the paper specifies", "reproduces")
    return {
        "title": "Flash and magnetic disk side by side (Koltsidas & Viglas 2008)",
        "intro": "Each page lives on the flash disk or the magnetic disk, placed by its own workload: conservative "
        "(physical operations), optimistic (logical ones), hybrid (both), against the offline optimum; and a "
        "buffer whose cost segment evicts the page that is cheapest to lose. A B+-tree of "
        f"{ctx.records:,} records on a {ctx.buffer:,}-page pool over flashlayer's hybrid store, Table 1's costs.",
        "figures": figures,
        "tables": tables,
        "claims": claims,
        "checks": checks,
        "notes": notes,
        "runs": [],
        "traces": [],
    }


def _last_run(ctx: _Ctx, sets: list[dict[str, Any]], seq: list[int], fid: str, policy: str,
              label: str) -> dict[str, Any]:
    """The measured (last) execution of `seq` on the hybrid placement under `policy`."""
    r = ctx.sequence(sets, seq, "hybrid", f"{fid} {label}", policy=policy)
    return dict(r["runs"][-1])


class _Ctx:
    def __init__(self, records: int, buffer: int, scale: float, quiet: bool) -> None:
        self.records = records
        self.buffer = buffer
        self.scale = scale
        self.quiet = quiet

    def queries(self, paper: int) -> int:
        return max(100, round(paper * self.scale))

    def sequence(self, sets: list[dict[str, Any]], sequence: list[int], placement: str, label: str,
                 policy: str = "lru") -> dict[str, Any]:
        total = len(sequence) * (2 if placement == "optimal" else 1)
        with progress.bar(total, f"koltsidas: {label}", quiet=self.quiet) as bar:
            return _native.hybrid_sequence(sets, sequence, placement, records=self.records,
                                           buffer_pages=self.buffer, policy=policy,
                                           progress=lambda done, _total: bar.advance())


def _costs(r: dict[str, Any]) -> list[float]:
    return [float(run["virtual_time"]) for run in r["runs"]]


def _fig9_10(ctx: _Ctx, figures: dict[str, Figure], claims: list[Claim], notes: list[str],
             checks: list[Check]) -> None:
    """§6.1: one query set 15 times on F, M and M/F (conservative, LRU)."""
    q = ctx.queries(50_000)
    sets = {
        "fig9a": ("read-only query set (80% lookups, 20% range queries)", dict(READ)),
        "fig9b": ("insert/update query set (30% inserts, 70% updates)", dict(UPDATE)),
        "fig10a": ("mixed: 40% of keys read-only, 40% update-only, 20% read or updated 50/50",
                   {"read_only": 0.4, "update_only": 0.4}),
        "fig10b": ("mixed: 70% of keys read-only, 30% update-only", {"read_only": 0.7, "update_only": 0.3}),
    }
    all_totals: dict[str, dict[str, float]] = {}
    for fid, (title, params) in sets.items():
        series: dict[str, list[float]] = {}
        moved: list[int] = []
        for name, placement in (("F", "f-only"), ("M", "m-only"), ("M/F", "conservative")):
            r = ctx.sequence([{**params, "queries": q}], [0] * 15, placement, f"{fid} {name}")
            series[name] = _costs(r)
            if name == "M/F":
                moved = [int(run["migrations"]) for run in r["runs"]]
            if fid == "fig9a" and name == "M":
                _tree_check(ctx, int(r["tree_pages"]), checks)
        figures[f"koltsidas/{fid}"] = {
            "title": f"Fig. {fid[3:]}: {title}, {q:,} queries, 15 executions (LRU, conservative for M/F)",
            "x_label": "execution",
            "y_label": "cost (Table 1 units)",
            "x": [float(i + 1) for i in range(15)],
            "series": series,
            "log_x": False,
            # §6.1: the executions during which M/F's pages migrate.
            "paper_x": {"M/F's pages migrate: 4th and 7th": [4.0, 7.0]} if fid == "fig9a"
            else {"M/F's internal nodes migrate: 4th": [4.0]},
        }
        totals = {k: sum(v) for k, v in series.items()}
        notes.append(f"{fid}: totals F {totals['F']:,.0f}, M {totals['M']:,.0f}, M/F {totals['M/F']:,.0f}.")
        if fid == "fig9a":
            claims.append(_fig9a_claim(series, moved))
        if fid == "fig9b":
            claims.append(_fig9b_claim(series, moved))
        all_totals[fid] = totals
        if fid.startswith("fig10"):
            ok = totals["M/F"] < min(totals["M"], totals["F"])
            claims.append(_claim(
                f"koltsidas-{fid}-both-disks-beat-either",
                f"{title}: M/F costs less in total than M alone and than F alone",
                f"Koltsidas Fig. {fid[3:]}", "M/F < M and M/F < F",
                f"M/F {totals['M/F']:,.0f}, M {totals['M']:,.0f}, F {totals['F']:,.0f}", ok,
                None if ok else "M/F is not below both",
                None if ok else f"Figure koltsidas/{fid}: totals " + ", ".join(f"{k} {v:,.0f}" for k, v in totals.items())
                + ".",
                tolerance="exact: M/F's total below both"))
    a, b = all_totals["fig10a"], all_totals["fig10b"]
    change = {k: b[k] / a[k] - 1 for k in ("F", "M/F", "M")}
    ok = change["F"] < 0 and change["M/F"] < 0 and abs(change["M"]) <= ALMOST_CONSTANT
    claims.append(_claim(
        "koltsidas-fig10-read-share-helps-flash",
        "From Fig. 10(a) to 10(b), as the share of read-only pages grows from 40% to 70%, F and M/F cost less while "
        "M stays almost constant",
        "Koltsidas §6.1, Fig. 10 (a direction: the text gives no values)", "F and M/F fall; M almost constant",
        ", ".join(f"{k} {v:+.1%}" for k, v in change.items()), ok,
        None if ok else "; ".join(([] if change["F"] < 0 and change["M/F"] < 0 else ["F or M/F does not fall"])
                                  + ([] if abs(change["M"]) <= ALMOST_CONSTANT else [f"M moves {change['M']:+.1%}"])),
        None if ok else ("Figures koltsidas/fig10a and koltsidas/fig10b: Table 1 prices a magnetic read at 23 units "
                         "and a write at 12, so M's total moves with the share of queries that write."),
        tolerance=f"F's and M/F's totals lower in (b); M's within ±{ALMOST_CONSTANT:.0%} (ours: \"almost "
                  "constant\")"))


def _tree_check(ctx: _Ctx, pages: int, checks: list[Check]) -> None:
    want = ctx.records * PAGES_PER_RECORD
    ok = abs(pages / want - 1) <= 0.2
    checks.append({
        "id": "koltsidas-tree-size",
        "text": f"The B+-tree of {ctx.records:,} records has the paper's density (140 MB for 1M records of "
                "16 + 80 bytes in 4 KB pages), within 20%",
        "source": "Koltsidas §6 (datasets)",
        "expected": f"{want:,.0f} pages",
        "ours": f"{pages:,} pages",
        "holds": ok,
    })


def _sequences(ctx: _Ctx, figures: dict[str, Figure], claims: list[Claim], notes: list[str]) -> None:
    """§6.2: two sequences of the read and the update set, four placements."""
    q = ctx.queries(100_000)
    sets = [{**READ, "queries": q}, {**UPDATE, "queries": q}]
    competitive: dict[str, float] = {}
    for fig, seq, paper, key in (("fig11", SEQ1, PAPER_SEQ1, "seq1"), ("fig12", SEQ2, PAPER_SEQ2, "seq2")):
        results = {name: ctx.sequence(sets, seq, placement, f"{fig} {name}") for name, placement in
                   (*PLACEMENTS.items(), ("M-only", "m-only"), ("F-only", "f-only"))}
        shape = "r×10, u×10, r×20" if key == "seq1" else "r×3, u×3, three times"
        figures[f"koltsidas/{fig}"] = {
            "title": f"Fig. {fig[3:]}: sequence {key[-1]} ({shape}), {q:,} queries a set: cost per execution",
            "x_label": "execution",
            "y_label": "cost (Table 1 units)",
            "x": [float(i + 1) for i in range(len(seq))],
            "series": {name: _costs(results[name]) for name in PLACEMENTS},
            "log_x": False,
        }
        figures[f"koltsidas/{fig}-flash"] = {
            "title": f"Fig. {fig[3:]}: sequence {key[-1]}, pages on the flash disk after each execution",
            "x_label": "execution",
            "y_label": "pages on flash",
            "x": [float(i + 1) for i in range(len(seq))],
            "series": {name: [float(r["pages_on_flash"]) for r in results[name]["runs"]] for name in PLACEMENTS},
            "log_x": False,
        }
        totals = {name: sum(_costs(r)) for name, r in results.items()}
        names = ["optimal", "optimistic", "hybrid", "conservative", "M-only", "F-only"]
        figures[f"koltsidas/totals-{key}"] = {
            "title": f"Sequence {key[-1]}: each placement's total over the optimum's (hollow: the paper's, from "
                     f"its seconds)",
            "x_label": "placement",
            "y_label": "total / optimal placement's",
            "x": [float(i) for i in range(len(names))],
            "categories": names,
            "series": {"total": [totals[n] / totals["optimal"] for n in names]},
            "paper": {"total": [paper[n] / paper["optimal"] for n in names]},
        }
        dp = results["optimal"]["optimum"]
        notes.append(f"Sequence {key[-1]} totals: " + ", ".join(f"{n} {totals[n]:,.0f}" for n in names)
                     + f" (the optimum's dynamic program over the same events, closing the tree included: {dp:,.0f}); "
                     "paper (s): "
                     + ", ".join(f"{n} {paper[n]:,}" for n in names) + ".")
        first_u = seq.index(1)
        notes.append(f"Sequence {key[-1]}: pages on flash before and after each placement's first update execution: "
                     + ", ".join(f"{n} {results[n]['runs'][first_u - 1]['pages_on_flash']:,} -> "
                                 f"{results[n]['runs'][first_u]['pages_on_flash']:,}" for n in PLACEMENTS)
                     + f" (tree of {results['hybrid']['tree_pages']:,} pages). The online placements count since a "
                     "page's last move, so a page read through many executions needs as many writes before it moves "
                     "back; the paper saw them adapt quickly to updates.")
        ours = ", ".join(f"{n} {totals[n]:,.0f}" for n in names)
        theirs = ", ".join(f"{n} {paper[n]:,}" for n in names)
        if key == "seq1":
            claims.append(_adapt_claim(seq, {n: [int(r["pages_on_flash"]) for r in results[n]["runs"]]
                                             for n in ONLINE}))
            order = [totals["optimal"], totals["optimistic"], totals["hybrid"], totals["conservative"]]
            ok = order == sorted(order) and totals["conservative"] < min(totals["M-only"], totals["F-only"])
            claims.append(_claim(
                "koltsidas-seq1-order",
                "Sequence 1 (r×10, u×10, r×20): optimistic is nearest the optimum, then hybrid, then conservative, "
                "and all are below M-only and F-only",
                "Koltsidas §6.2, Fig. 11", theirs, ours, ok, None if ok else "the order differs",
                None if ok else ("Figures koltsidas/fig11 and koltsidas/fig11-flash: each placement's cost per "
                                 "execution and the pages it keeps on flash."),
                tolerance="exact order of the four totals; conservative below M-only and F-only"))
        else:
            ok = _seq2_order_holds(totals)
            first = results["conservative"]["runs"][0]
            per_page = first["misses"] / max(1, int(results["conservative"]["tree_pages"]))
            fewest, flips = _seq2_against_reads(ctx, q, figures, totals, per_page)
            needed = (118 + 12) / (23 - 1)
            why = (f"In the paper the optimum saves {1 - paper['optimal'] / paper['M-only']:.1%} against M-only "
                   f"({paper['optimal']:,} against {paper['M-only']:,} s, measured on its devices); here "
                   f"{1 - totals['optimal'] / totals['M-only']:.1%} (figure koltsidas/totals-seq2): priced by Table "
                   "1, moving the read set to flash pays far more, so the placement that moves pages soonest "
                   "(optimistic) comes nearest the optimum and conservative, which moves a page only after "
                   f"{needed:.1f} physical reads ((w_f + w_m) / (r_m - r_f)), trails. Fewer reads a page do not "
                   "change this: figure koltsidas/seq2-vs-reads runs sequence 2 with up to 8x fewer queries a set "
                   f"(down to {fewest:.1f} reads a page an execution, {per_page:.1f} at Fig. 12's size), and "
                   + (f"the paper's order appears at {flips:.1f} reads a page or fewer."
                      if flips is not None else "the paper's order appears at none of them."))
            claims.append(_claim(
                "koltsidas-seq2-order",
                "Sequence 2 (r×3, u×3 alternating): conservative within 2% of the optimum, hybrid next, optimistic "
                "worst and above M-only",
                "Koltsidas §6.2, Fig. 12", theirs, ours, ok, None if ok else "the order differs", None if ok else why,
                tolerance="conservative at most 2% above the optimum; hybrid between conservative and optimistic; "
                          "optimistic above M-only"))
        claims.append(_distance_claim(key, fig, totals, paper))
        competitive[key] = totals["conservative"] / totals["optimal"]
    ok = all(r < 3 for r in competitive.values())
    claims.append(_claim(
        "koltsidas-conservative-3-competitive",
        "Conservative placement costs less than three times the optimal off-line placement on both sequences",
        "Koltsidas §4 and Appendix (conservative is 3-competitive: CONS(t) < 3 OPT(t) + C_0)",
        "below 3x the optimum (C_0, a constant, aside)",
        ", ".join(f"sequence {k[-1]}: {r:.2f}x" for k, r in competitive.items()), ok,
        None if ok else "at or above 3x", None if ok else (
            "Figures koltsidas/totals-seq1 and koltsidas/totals-seq2: the theorem allows a constant C_0 beside "
            "3 OPT(t), which a short sequence does not amortise."),
        tolerance="exact: the totals' ratio below 3 on each sequence (the theorem's C_0 taken as 0, the stricter "
                  "reading)"))


def _adapt_claim(seq: list[int], flash: dict[str, list[int]]) -> Claim:
    """§6.2, Fig. 11: how soon each online placement moves the read set's
    pages off flash once sequence 1 turns to updates."""
    first_u = seq.index(1)
    last_u = len(seq) - 1 - seq[::-1].index(1)

    def made(pages: list[int], start: int, before: int, end: int) -> float:
        """The share of the change from `before` to `pages[end]` made by
        execution `start + QUICK_EXECUTIONS` (0 where there is none)."""
        total = before - pages[end]
        return (before - pages[min(start + QUICK_EXECUTIONS - 1, end)]) / total if total else 0.0

    share = {n: made(v, first_u, v[first_u - 1], last_u) for n, v in flash.items()}
    slow = [n for n, x in share.items() if x < ADAPTED]
    # The same measure on the initial read phase, where no history is
    # carried (every page starts on the magnetic disk with no counts).
    initial = {n: made(v, 0, 0, first_u - 1) for n, v in flash.items()}
    ok = not slow
    return _claim(
        "koltsidas-seq1-adapt-quickly-to-updates",
        "Sequence 1: every online placement adapts very quickly to the update workload, moving the read set's "
        "pages off the flash disk in the first update executions",
        "Koltsidas §6.2, Fig. 11 (\"this is why all algorithms adapt very quickly to the update workload\")",
        "very quickly (the text gives no count)",
        "; ".join(f"{n}: {v[first_u - 1]:,} -> " + ", ".join(f"{x:,}" for x in v[first_u:last_u + 1])
                  + f" pages on flash, {share[n]:.0%} of the fall by update execution {QUICK_EXECUTIONS}"
                  for n, v in flash.items()), ok,
        None if ok else ", ".join(f"{n} {share[n]:.0%}" for n in slow),
        None if ok else (
            "Figure koltsidas/fig11-flash: the placements count since a page's last move (Figures 3-5: conservative's "
            "C and the logical and physical counts of optimistic and hybrid are reset only at a migration), so a "
            "page read through ten executions carries ten executions of read savings, and the update set's writes "
            "must outweigh them before it moves back; pages leave flash one by one over the ten update executions. "
            "The same measure on the initial read phase, where no history is carried, gives "
            + ", ".join(f"{n} {initial[n]:.0%}" for n in flash)
            + f" of the phase's rise by its execution {QUICK_EXECUTIONS}."),
        tolerance=f"each online placement makes at least {ADAPTED:.0%} of the fall in pages on flash it makes over "
                  f"the ten update executions within the first {QUICK_EXECUTIONS} (ours: \"very quickly\")")


#: A placement's total over the optimum's holds within this factor of the
#: paper's (either way).
DISTANCE_TOLERANCE = 1.15


def _distance_claim(key: str, fig: str, totals: dict[str, float], paper: Mapping[str, float]) -> Claim:
    """Figs. 11-12: how far each placement and each single disk is from
    the optimum, against the paper's distances."""
    names = [n for n in paper if n != "optimal"]
    ours = {n: totals[n] / totals["optimal"] for n in names}
    theirs = {n: paper[n] / paper["optimal"] for n in names}
    off = [n for n in names if not theirs[n] / DISTANCE_TOLERANCE <= ours[n] <= theirs[n] * DISTANCE_TOLERANCE]
    ok = not off
    return _claim(
        f"koltsidas-{key}-distance-to-optimum",
        f"Sequence {key[-1]}: each placement's and each single disk's total, over the optimum's, as in the paper",
        f"Koltsidas §6.2, Fig. {fig[3:]}", ", ".join(f"{n} {theirs[n]:.2f}x" for n in names),
        ", ".join(f"{n} {ours[n]:.2f}x" for n in names), ok,
        None if ok else ", ".join(f"{n} {ours[n]:.2f}x against {theirs[n]:.2f}x" for n in off),
        None if ok else (
            f"Figures koltsidas/{fig} and koltsidas/{fig}-flash: the cost of each execution and the pages each "
            "placement keeps on flash; Table 1's prices make a page on flash far cheaper to read than on the "
            "magnetic disk, so the distance of a placement is set by how soon it moves the read set there."),
        tolerance=f"each ratio within a factor {DISTANCE_TOLERANCE:g} of the paper's")


#: Queries a set of the sequence-2 experiment, as shares of Fig. 12's
#: (whose own run is the last point).
SEQ2_SHARES = [0.125, 0.25, 0.5]


def _seq2_order_holds(totals: dict[str, float]) -> bool:
    """Fig. 12's order: conservative within 2% of the optimum, hybrid next,
    optimistic worst and above M-only."""
    return (totals["conservative"] <= 1.02 * totals["optimal"]
            and totals["conservative"] <= totals["hybrid"] <= totals["optimistic"]
            and totals["optimistic"] > totals["M-only"])


def _seq2_against_reads(ctx: _Ctx, q: int, figures: dict[str, Figure], totals: dict[str, float],
                        per_page: float) -> tuple[float, float | None]:
    """Sequence 2 at fewer queries a set than Fig. 12's (whose `totals` and
    reads of a page per read execution, `per_page`, are the last point):
    each placement's total relative to the optimum against the reads a page
    gets in one read execution. Returns the fewest reads per page run, and
    the most at which the paper's order holds (None if at no size)."""
    points: list[tuple[float, dict[str, float]]] = []
    for share in SEQ2_SHARES:
        n = max(100, round(q * share))
        sets = [{**READ, "queries": n}, {**UPDATE, "queries": n}]
        results = {name: ctx.sequence(sets, SEQ2, placement, f"seq2 at {share:g}x queries, {name}")
                   for name, placement in (*PLACEMENTS.items(), ("M-only", "m-only"))}
        first = results["conservative"]["runs"][0]
        points.append((first["misses"] / max(1, int(results["conservative"]["tree_pages"])),
                       {name: sum(_costs(r)) for name, r in results.items()}))
    points.append((per_page, totals))
    names = ("conservative", "hybrid", "optimistic", "M-only")
    figures["koltsidas/seq2-vs-reads"] = {
        "title": "Sequence 2 with fewer queries a set: total cost relative to the optimum",
        "x_label": "physical reads of a page in one read execution (conservative)",
        "y_label": "total / optimal",
        "x": [x for x, _ in points],
        "series": {n: [t[n] / t["optimal"] for _, t in points] for n in names},
        "log_x": True,
    }
    holds_at = [x for x, t in points if _seq2_order_holds(t)]
    return min(x for x, _ in points), max(holds_at) if holds_at else None


def _fig13(ctx: _Ctx, figures: dict[str, Figure], claims: list[Claim], notes: list[str], mode: str) -> None:
    """§6.3: interesting-set size against its read/update mix (hybrid)."""
    q = ctx.queries(1_000_000)
    sizes = [0.1, 0.25, 0.5, 0.75, 1.0] if mode == "full" else [0.1, 0.5, 1.0]
    mixes = [0.9, 0.7, 0.6, 0.5, 0.3] if mode == "full" else [0.9, 0.6, 0.3]
    series: dict[str, list[float]] = {}
    on_flash: dict[str, list[int]] = {}
    for p in mixes:
        name = f"{p:.0%} read - {1 - p:.0%} update"
        series[name], on_flash[name] = [], []
        for f in sizes:
            r = ctx.sequence([{"interesting": f, "interesting_read_prob": p, "queries": q}], [0], "hybrid",
                             f"fig13 {name}, interesting {f:.0%}")
            series[name].append(sum(_costs(r)))
            on_flash[name].append(int(r["runs"][-1]["pages_on_flash"]))
    # §6.3's single disks, at the smallest and largest interesting set of
    # every mix: M "comparable to the 60% read - 40% write workload", F
    # "much higher".
    ends = [0, len(sizes) - 1]
    single: dict[str, dict[str, list[float]]] = {"M-only": {}, "F-only": {}}
    for disk, placement in (("M-only", "m-only"), ("F-only", "f-only")):
        for p, name in zip(mixes, series, strict=True):
            single[disk][name] = [sum(_costs(ctx.sequence(
                [{"interesting": sizes[i], "interesting_read_prob": p, "queries": q}], [0], placement,
                f"fig13 {disk} {name}, interesting {sizes[i]:.0%}"))) for i in ends]
    figures["koltsidas/fig13"] = {
        "title": f"Fig. 13: {q:,} queries, hybrid placement; other keys read or updated 50/50; the magnetic disk "
                 "alone (M) at each mix's ends",
        "x_label": "interesting set (share of keys)",
        "y_label": "cost (Table 1 units)",
        "x": sizes,
        "series": series | {f"M, {n}": [single["M-only"][n][ends.index(i)] if i in ends else None
                                        for i in range(len(sizes))] for n in series},
        "log_x": False,
    }
    mid = next(n for n, p in zip(series, mixes, strict=True) if abs(p - 0.6) < 1e-9)
    m_off = [(n, i) for n in series for k, i in enumerate(ends)
             if abs(single["M-only"][n][k] / series[mid][i] - 1) > COMPARABLE]
    # "Except when the entire dataset is interesting."
    f_low = [(n, i) for n in series for k, i in enumerate(ends) if sizes[i] < 1.0 and single["F-only"][n][k] <= max(
        series[m][i] for m in series)]
    ok = not m_off and not f_low
    claims.append(_claim(
        "koltsidas-fig13-single-disks",
        "Mixed workloads: the magnetic disk alone costs about what hybrid costs on the 60% read - 40% update mix, "
        "at every mix and set size; the flash disk alone costs far more unless every key is interesting",
        "Koltsidas §6.3, Fig. 13", "M-only comparable to the 60/40 mix; F-only much higher (except when the "
        "entire dataset is interesting)",
        "M-only over hybrid's 60/40: " + ", ".join(
            f"{n.split(' -')[0]} {single['M-only'][n][k] / series[mid][i]:.2f}x at {sizes[i]:.0%}"
            for n in series for k, i in enumerate(ends))
        + "; F-only over the dearest hybrid mix: " + ", ".join(
            f"{single['F-only'][n][k] / max(series[m][i] for m in series):.2f}x" for n in series
            for k, i in enumerate(ends)), ok,
        None if ok else "; ".join([f"M-only on {n} at {sizes[i]:.0%}" for n, i in m_off]
                                  + [f"F-only not above hybrid on {n} at {sizes[i]:.0%}" for n, i in f_low]),
        None if ok else ("Figure koltsidas/fig13 (M-only at each mix's ends): Table 1 prices a magnetic write at 12 "
                         "units and a read at 23, so on the magnetic disk alone a mix that updates more costs less, "
                         "and M-only follows the mix of the interesting set instead of staying level."),
        tolerance=f"M-only within ±{COMPARABLE:.0%} of hybrid's 60/40 cost at the same size (ours: \"comparable\"), "
                  "at both ends of every mix; F-only above every hybrid mix at the same size below a whole "
                  "interesting set"))
    notes.append("Fig. 13: " + "; ".join(f"{n}: " + ", ".join(f"{c:,.0f}" for c in v) for n, v in series.items()))
    names = list(series)
    # "Performance improves when the interesting set becomes more
    # read-intensive": at each size, cost falls as the read share grows.
    wrong = [f for i, f in enumerate(sizes)
             if any(series[a][i] > series[b][i] for a, b in pairwise(names))]
    claims.append(_claim(
        "koltsidas-fig13-reads-help",
        "Mixed workloads: at every size of the interesting set, the more read-intensive its pages, the lower the "
        "cost", "Koltsidas §6.3, Fig. 13 (a direction: the text gives no values)", "falls with the read share",
        "; ".join(f"{f:.0%}: " + ", ".join(f"{series[n][i]:,.0f}" for n in names) for i, f in enumerate(sizes)),
        not wrong, None if not wrong else "not falling at " + ", ".join(f"{f:.0%}" for f in wrong),
        None if not wrong else _fig13_why(on_flash, sizes),
        tolerance="exact: at each size, each mix's cost at most the next less read-intensive mix's"))
    claims.append(_constant_claim(on_flash, sizes, mixes))
    read_mostly = [n for n, p in zip(names, mixes, strict=True) if p > MIX_READ_MOSTLY]
    update_heavy = [n for n, p in zip(names, mixes, strict=True) if p < MIX_READ_MOSTLY]
    grows = {n: series[n][-1] < series[n][0] for n in read_mostly}
    flat = {n: series[n][-1] >= (1 - NO_GAIN) * series[n][0] for n in update_heavy}
    ok = all(grows.values()) and all(flat.values())
    claims.append(_claim(
        "koltsidas-fig13-size-helps-only-when-read-mostly",
        "Mixed workloads: a larger interesting set lowers the cost when its pages are more than 70% read, and "
        "not when they are updated more than 30% of the time",
        "Koltsidas §6.3, Fig. 13", "lower at the largest set for > 70% reads; no gain for > 30% updates",
        "; ".join(f"{n}: {series[n][0]:,.0f} -> {series[n][-1]:,.0f}" for n in names), ok,
        None if ok else "; ".join([f"{n} not lower at the largest set" for n, v in grows.items() if not v]
                                  + [f"{n} gains with size" for n, v in flat.items() if not v]),
        None if ok else _fig13_why(on_flash, sizes),
        tolerance=f"read-mostly mixes: cost at the largest set below the smallest's; update-heavy mixes: at most "
                  f"{NO_GAIN:.0%} below it (ours: \"does not improve\")"))


def _constant_claim(on_flash: dict[str, list[int]], sizes: list[float], mixes: list[float]) -> Claim:
    """§6.3: at each interesting-set size, as many pages on flash whatever
    the read/update mix."""
    def spread(names: list[str], i: int) -> float:
        counts = [on_flash[n][i] for n in names]
        mean = sum(counts) / len(counts)
        return max(abs(c - mean) for c in counts) / mean if mean else 0.0

    names = list(on_flash)
    off = [f for i, f in enumerate(sizes) if spread(names, i) > CONSTANT]
    # The paragraph's next sentences: leaves of the interesting set do not
    # migrate once updated more than 30% of the time, so the other reading
    # holds the count constant only across the read-mostly mixes.
    mostly = [n for n, p in zip(names, mixes, strict=True) if p >= MIX_READ_MOSTLY]
    ok = not off
    return _claim(
        "koltsidas-fig13-migrations-constant-across-mixes",
        "Mixed workloads: for a given interesting set, the number of pages that migrate to the flash disk is the "
        "same whatever its read/update mix",
        "Koltsidas §6.3, Fig. 13 (\"the number of pages that migrate to the flash disk is constant across "
        "workloads with different read/update probabilities\")",
        "constant across the mixes at each size",
        "; ".join(f"{f:.0%}: " + ", ".join(f"{on_flash[n][i]:,}" for n in names) + f" (±{spread(names, i):.0%})"
                  for i, f in enumerate(sizes)) + " pages on flash, mixes from most read-intensive", ok,
        None if ok else "not constant at " + ", ".join(f"{f:.0%}" for f in off),
        None if ok else (
            "Figure koltsidas/fig13 and the pages hybrid keeps on flash at the end of each run (ours). Hybrid moves "
            "a page when its reads' saving on flash (22 units each, Table 1) outweighs its writes' extra cost there "
            "(106 each) by w_f + w_m, so the more of the interesting set's queries update, the fewer of its leaves "
            "ever pass: the count falls with the update share. The paragraph's next sentences say as much (leaves "
            "of the interesting set do not migrate once updated more than 30% of the time); read so, the count "
            f"would be constant across the mixes at least {MIX_READ_MOSTLY:.0%} read, where ours varies by "
            + ", ".join(f"±{spread(mostly, i):.0%} at {f:.0%}" for i, f in enumerate(sizes)) + "."),
        tolerance=f"at every size, each mix's pages on flash within ±{CONSTANT:.0%} of the mixes' mean "
                  "(ours: \"constant\")")


def _fig13_why(on_flash: dict[str, list[int]], sizes: list[float]) -> str:
    """Why Fig. 13's costs order as they do: where hybrid left the pages,
    and what Table 1 charges on each disk."""
    return ("Figure koltsidas/fig13, with the pages hybrid keeps on flash at the end of each run: " + "; ".join(
        f"{n}: " + ", ".join(f"{c:,} at {f:.0%}" for c, f in zip(v, sizes, strict=True)) for n, v in on_flash.items())
        + ". Table 1 (the paper's normalised costs) prices a magnetic write at 12 units and a magnetic read at 23, "
        "so where hybrid leaves an interesting set on the magnetic disk, the more of its queries update, the less "
        "they cost.")


def _fig14(ctx: _Ctx, figures: dict[str, Figure], tables: dict[str, Table], claims: list[Claim],
           notes: list[str]) -> None:
    """§6.4: the cost segment's λ, after the pages are placed (hybrid)."""
    query_sets = {
        "A": ("query set A: 50% of keys read-only, the rest read or updated 50/50", 100_000,
              {"read_only": 0.5}),
        "B": ("query set B: 10% of keys read-only and hot (90% of queries), the rest read or updated 50/50",
              150_000, {"read_only": 0.1, "hot_keys": 0.1, "hot_queries": 0.9}),
    }
    for (key, (title, paper_q, params)), fid in zip(query_sets.items(), ("fig14a", "fig14b"), strict=True):
        q = ctx.queries(paper_q)
        sets = [{**params, "queries": q}]
        seq = [0] * (WARMUP + 1)

        last = partial(_last_run, ctx, sets, seq, fid)

        measured = [last(f"koltsidas:lambda={lam}", f"λ={lam}") for lam in LAMBDAS]
        costs = [float(m["virtual_time"]) for m in measured]
        lru = float(last("lru", "LRU")["virtual_time"])
        auto_run = last("koltsidas", "λ=auto")
        auto = float(auto_run["virtual_time"])
        auto_lambda = float(auto_run.get("state", {}).get("lambda", float("nan")))
        tables[f"koltsidas/{fid}-io"] = {
            "title": f"Fig. 14({fid[-1]}): the measured execution's I/O at each λ",
            "columns": ["λ", "hits", "flash reads", "magnetic reads", "magnetic writes", "flash writes", "cost"],
            "rows": [[lam, m["hits"], m["flash"]["reads"], m["magnetic"]["reads"], m["magnetic"]["writes"],
                      m["flash"]["writes"], f"{m['virtual_time']:,.0f}"] for lam, m in zip(LAMBDAS, measured,
                                                                                       strict=True)],
        }
        figures[f"koltsidas/{fid}"] = {
            "title": f"Fig. 14({fid[-1]}): {title}, {q:,} queries, measured after {WARMUP} placing executions",
            "x_label": "λ (cost segment share of the buffer)",
            "y_label": "cost (Table 1 units)",
            "x": LAMBDAS,
            "series": {"cost segment": costs, "LRU": [lru] * len(LAMBDAS), "lambda=auto": [auto] * len(LAMBDAS)},
            # §6.4 gives one point: the best λ and its gain over LRU.
            "paper": {"cost segment": [lru * (1 - PAPER_LAMBDA_GAIN[key]) if lam == PAPER_BEST_LAMBDA[key] else None
                                       for lam in LAMBDAS]},
            "log_x": False,
        }
        best = min(costs)
        best_lambda = LAMBDAS[costs.index(best)]
        gain = 1 - best / lru
        notes.append(f"Fig. 14 set {key}: " + ", ".join(f"λ={lam}: {c:,.0f}" for lam, c in zip(LAMBDAS, costs,
                                                                                                  strict=True))
                     + f"; LRU {lru:,.0f}; lambda=auto {auto:,.0f}.")
        near_lambda = abs(best_lambda - PAPER_BEST_LAMBDA[key]) <= LAMBDA_STEP + 1e-9
        ok = abs(gain - PAPER_LAMBDA_GAIN[key]) <= GAIN_POINTS and near_lambda
        lo, hi = measured[0], measured[-1]
        why = (f"As λ grows from 0 to 1, flash reads rise from {lo['flash']['reads']:,} to {hi['flash']['reads']:,} "
               f"and hits fall from {lo['hits']:,} to {hi['hits']:,}, while magnetic reads go from "
               f"{lo['magnetic']['reads']:,} to {hi['magnetic']['reads']:,} (table koltsidas/{fid}-io): the cost "
               "segment evicts the page cheapest to lose, a clean page on flash (one unit to read again), and "
               + ("in this set those are the hot read-only pages most queries read, so it gives up more hits on "
                  "them than the dearer magnetic pages it keeps are worth."
                  if hi["flash"]["reads"] > lo["flash"]["reads"] else
                  "the pages it keeps instead are not read again often enough to pay for it."))
        claims.append(_claim(
            f"koltsidas-fig14-{key.lower()}-best-lambda-gain",
            f"Query set {key}: the cost is least at λ = {PAPER_BEST_LAMBDA[key]:g}, {PAPER_LAMBDA_GAIN[key]:.0%} below "
            "LRU's (λ = 0)",
            "Koltsidas §6.4, Fig. 14" + ("(a) (improves up to λ = 0.9; the benefit reaches 21%)" if key == "A" else
                                         "(b) (best at λ = 0.5, 15% better than LRU)"),
            f"least at λ = {PAPER_BEST_LAMBDA[key]:g}, {PAPER_LAMBDA_GAIN[key]:.0%} below LRU",
            f"least at λ = {best_lambda}, {gain:+.1%} below LRU", ok,
            None if ok else "; ".join(
                ([f"{gain - PAPER_LAMBDA_GAIN[key]:+.1%} from the paper's gain"]
                 if abs(gain - PAPER_LAMBDA_GAIN[key]) > GAIN_POINTS else [])
                + ([f"least at λ = {best_lambda}"] if not near_lambda else [])), None if ok else why,
            tolerance=f"the gain within ±{GAIN_POINTS * 100:g} points of the paper's (it prints whole percentages of "
                      f"its measured times), the best λ within one step ({LAMBDA_STEP:g}) of the paper's"))
        at_one = costs[LAMBDAS.index(1.0)] / lru
        below = key == "A"
        # Set B: "when internal node pages do not fit in the time segment
        # (for some λ > 0.9), performance ... becomes even worse than
        # LRU": above LRU at λ = 1, and not before λ passes 0.9.
        early = [lam for lam, c in zip(LAMBDAS, costs, strict=True) if 0 < lam <= 0.9 + 1e-9 and c > lru]
        ok = at_one < 1 if below else at_one > 1 and not early
        claims.append(_claim(
            f"koltsidas-fig14-{key.lower()}-lambda-1",
            f"Query set {key}: with the whole buffer a cost segment (λ = 1) the cost is "
            + ("still below LRU's" if below else "above LRU's, and only past λ = 0.9 (the internal nodes no longer "
                                                 "fit in the time segment)"),
            f"Koltsidas §6.4, Fig. 14({key.lower()})", "below LRU at λ = 1" if below else
            "above LRU only for λ > 0.9",
            f"{at_one:.3f}x LRU at λ = 1" + ("" if below else "; above LRU at λ = "
                                              + (", ".join(f"{lam:g}" for lam in early) or "none up to 0.9")), ok,
            None if ok else (f"{at_one:.3f}x LRU at λ = 1" if (at_one >= 1) == below else
                             "above LRU already at λ = " + ", ".join(f"{lam:g}" for lam in early)),
            None if ok else why, tolerance="exact: the side of LRU's cost the paper states"
            + ("" if below else ", at every λ of the sweep")))
        ratio = auto / best
        ok = ratio <= 1 + WITHIN
        nearest = min(range(len(LAMBDAS)), key=lambda i: abs(LAMBDAS[i] - auto_lambda))
        auto_why = (f"λ=auto ends the measured execution at λ = {auto_lambda:.2f} where the best fixed λ is "
                    f"{best_lambda}; the fixed λ nearest it, {LAMBDAS[nearest]}, costs "
                    f"{costs[nearest] / best - 1:+.1%} against the best (table koltsidas/{fid}-io): its rule (§5: "
                    "grow the cost segment while r_m·H_m > r_f·M_f) settles away from the cheapest split, or moves "
                    "during the execution it is measured in.")
        claims.append(_claim(
            f"koltsidas-fig14-{key.lower()}-lambda-auto-near-best",
            f"Query set {key}: lambda=auto costs at most {WITHIN:.0%} more than the best fixed λ",
            "Koltsidas §5 (adapt λ by r_m·H_m > r_f·M_f); the best fixed λ from our sweep 0-1",
            f"within {WITHIN:.0%} (ours: the paper gives no threshold)", f"{ratio - 1:+.2%} (best fixed λ = "
            f"{best_lambda})", ok,
            None if ok else f"{ratio - 1 - WITHIN:.2%} beyond", None if ok else auto_why,
            tolerance=f"at most {WITHIN:.0%} above the best fixed λ of the sweep", kind="ours"))


#: "Equal" read off Fig. 9 for M/F against M, either way: a tenth, what a
#: bar's height can be told apart by on the figure's axis.
EQUAL = 0.1
#: "One order of magnitude" (§6.1, Fig. 9(b)): F over M whose decimal
#: logarithm rounds to 1.
MAGNITUDE = (10 ** 0.5, 10 ** 1.5)
#: "Improves slightly" (§6.1, Fig. 9(b)): M/F's 4th execution below M's by
#: more than nothing and by at most this share.
SLIGHTLY = 0.25


def _starts_at_m(mf: list[float], m: list[float]) -> bool:
    """Whether M/F's executions 1-3 are "initially equal" to M's."""
    return all(abs(mf[i] / m[i] - 1) <= EQUAL for i in range(3))


def _fig9a_claim(series: dict[str, list[float]], moved: list[int]) -> Claim:
    """Fig. 9(a) as §6.1 describes it, execution by execution: M/F runs at
    M's cost ("initially equal") until pages migrate in the 4th and the 7th
    executions, and at F's after."""
    mf, m, f = series["M/F"], series["M"], series["F"]
    falls = sorted(range(1, len(mf)), key=lambda i: mf[i - 1] - mf[i], reverse=True)[:2]
    at = sorted(i + 1 for i in falls)
    first = _starts_at_m(mf, m)
    last = all(mf[i] <= 1.1 * f[i] for i in range(7, len(mf)))
    steps = len(at) == 2 and abs(at[0] - 4) <= 1 and abs(at[1] - 7) <= 1
    ok = first and last and steps
    return _claim(
        "koltsidas-fig9a-mf-moves-to-flash-speed",
        "Read-only set: M/F runs at M's cost in executions 1-3, falls as pages migrate in the 4th and 7th "
        "executions, and runs at F's cost from the 8th on",
        "Koltsidas Fig. 9(a) and §6.1 (migrations in the 4th and 7th executions)",
        "executions 1-3 = M; falls at 4 and 7; 8-15 = F",
        "M/F " + ", ".join(f"{c:,.0f}" for c in mf) + f"; M {m[0]:,.0f}; F {f[-1]:,.0f}; largest falls at "
        + " and ".join(map(str, at)), ok,
        None if ok else "; ".join(([] if first else ["executions 1-3 at " + ", ".join(
                                      f"{mf[i] / m[i]:.2f}" for i in range(3)) + "x M's"])
                                  + ([] if last else ["executions 8-15 above F by more than 10%"])
                                  + ([] if steps else [f"falls at {' and '.join(map(str, at))}"])),
        None if ok else ("Figure koltsidas/fig9a: conservative moves a page once its physical reads pass the "
                         "threshold of §4, and each move writes the page to flash (Table 1's dearest operation); "
                         "M/F migrates " + ", ".join(f"{k:,}" for k in moved[:8]) + " pages in executions 1-8, so "
                         "the executions in which it leaves M's cost are set by how often the buffer misses each "
                         "page; ours falls at " + " and ".join(map(str, at)) + "."),
        tolerance=f"executions 1-3 within ±{EQUAL:.0%} of M's (\"initially equal\", either way), 8-15 within 10% "
                  "of F's, and M/F's two largest falls at the 4th and 7th executions ± one (ours)")


def _fig9b_claim(series: dict[str, list[float]], moved: list[int]) -> Claim:
    """Fig. 9(b) as §6.1 describes it: F one order of magnitude slower than
    M; M/F initially equal to M, improving slightly at the 4th execution
    when the internal nodes migrate."""
    mf, m, f = series["M/F"], series["M"], series["F"]
    slow = sum(f) / sum(m)
    first = _starts_at_m(mf, m)
    gain = 1 - mf[3] / m[3]
    magnitude = MAGNITUDE[0] <= slow <= MAGNITUDE[1]
    slight = 0 < gain <= SLIGHTLY
    ok = magnitude and first and slight
    return _claim(
        "koltsidas-fig9b-mf-starts-at-m-improves-slightly",
        "Insert/update set: F is one order of magnitude slower than M; M/F runs at M's cost at first and improves "
        "slightly at the 4th execution, as the B+-tree's internal nodes migrate to flash",
        "Koltsidas Fig. 9(b) and §6.1", "F/M about 10; M/F = M in executions 1-3; slightly below M at the 4th",
        f"F/M {slow:.1f}; M/F over M in executions 1-4: " + ", ".join(f"{mf[i] / m[i]:.3f}" for i in range(4))
        + "; pages migrated in executions 1-4: " + ", ".join(f"{k:,}" for k in moved[:4]), ok,
        None if ok else "; ".join(([] if magnitude else [f"F/M {slow:.1f}"])
                                  + ([] if first else ["M/F leaves M's cost in executions 1-3"])
                                  + ([] if slight else [f"M/F's 4th execution {gain:+.1%} below M's"])),
        None if ok else ("Figure koltsidas/fig9b: with " + (f"{sum(moved[:4]):,} pages migrated in executions 1-4"
                                                           if sum(moved[:4]) else "no page migrated by the 4th "
                                                           "execution")
                         + ", M/F serves the set from the magnetic disk as M does; conservative moves a page only "
                           "once its physical reads pass §4's threshold, and our buffer keeps the internal nodes, "
                           "whose reads are then hits (§6.1: a buffer too small for them gives a much greater "
                           "boost)."),
        tolerance=f"F/M between {MAGNITUDE[0]:.1f} and {MAGNITUDE[1]:.1f} (its decimal logarithm rounds to 1); "
                  f"executions 1-3 within ±{EQUAL:.0%} of M's; the 4th below M's by more than 0 and at most "
                  f"{SLIGHTLY:.0%}")


def _claim(cid: str, text: str, source: str, paper_value: str, ours: str, holds: bool, gap: str | None,
           why: str | None = None, *, tolerance: str, kind: Literal["paper", "ours"] = "paper") -> Claim:
    return {"paper": "koltsidas", "kind": kind, "id": cid, "text": text, "source": source,
            "paper_value": paper_value, "tolerance": tolerance, "ours": ours, "holds": holds, "gap": gap,
            "why": why}
