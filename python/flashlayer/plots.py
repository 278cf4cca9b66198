"""Figures as PNG files, drawn with matplotlib: the report's figure dicts
(`render`) and rows of ``sim --json`` / ``reproduce`` results
(`render_results`)."""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from flashlayer._native import FlashlayerError
from flashlayer.files import check_writable, png_software

MARKERS = "osD^v<>ph*"
#: Line styles by series, so that series which coincide stay visible: a
#: dashed line over a solid one shows both colours.
DASHES = ("-", "--", "-.", ":")



def check_png_path(path: Path, force: bool) -> None:
    """Fails early, before a long run, if `path` cannot take a PNG: not a
    ``.png`` name, or not writable there by the rule of
    :mod:`flashlayer.files` (`check_writable`)."""
    if path.suffix.lower() != ".png":
        raise FlashlayerError(f"{path}: figures are written as PNG; use a name ending in .png")
    check_writable(path, force)


def _log_x(ax: Any, xs: Sequence[float]) -> None:
    pos = [x for x in xs if x > 0]
    if pos and max(pos) / min(pos) > 20:
        ax.set_xscale("log")


def _legend(ax: Any, n: int, tick_lines: int = 1) -> None:
    # Below the axes and their x label when there are many series, so lines
    # stay visible; as many columns as labels of that length fit across the
    # figure.
    if n > 4:
        longest = max(len(label) for label in ax.get_legend_handles_labels()[1])
        ncols = max(1, min(n, 4, 90 // max(longest, 1)))
        ax.legend(fontsize=8, ncols=ncols, loc="upper center", bbox_to_anchor=(0.5, -0.1 - 0.09 * tick_lines),
                  frameon=False)
    else:
        ax.legend(fontsize=9, framealpha=0.85)


def fit_title(f: Any, ax: Any, title: str, fontsize: float = 11) -> None:
    """Sets `title` on `ax`, wrapped onto more lines until it fits the width
    of the figure `f`."""
    renderer = f.canvas.get_renderer()
    margin = 0.02 * f.bbox.width
    for width in (None, 72, 64, 56, 48, 40, 30):
        ax.set_title(title if width is None else textwrap.fill(title, width), fontsize=fontsize)
        # Laid out as it will be saved: the title is centred on the axes, which the layout moves.
        f.tight_layout()
        box = ax.title.get_window_extent(renderer=renderer)
        if box.x0 >= margin and box.x1 <= f.bbox.width - margin:
            return


def render(fig: dict[str, Any], path: Path) -> None:
    """Line plot of every series against ``x``, grouped bars when the
    figure names its x positions (``categories``), or box plots when it
    gives ``boxes`` (name to values); x is log-scaled if the
    figure says ``log_x``, or by default when the sizes span more than a
    factor of 20; y if it says ``log_y``. Long series (time series) are
    drawn without markers."""
    f, _ = draw(fig)
    f.savefig(path, format="png", metadata=png_software())
    plt.close(f)


def render_all(figures: dict[str, dict[str, Any]], folder: Path) -> None:
    """Renders every figure to ``folder/<id>.png`` (an id "section/name" is
    a file in the section's folder), one process per core: a report's
    figures are independent, and drawing them is most of its writing."""
    pngs = [folder / f"{fid}.png" for fid in figures]
    for png in pngs:
        png.parent.mkdir(parents=True, exist_ok=True)
    workers = min(len(pngs), os.cpu_count() or 1)
    if workers <= 1:
        list(map(render, figures.values(), pngs))
        return
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(render, figures.values(), pngs, chunksize=max(1, len(pngs) // (4 * workers))))


def draw(fig: dict[str, Any]) -> tuple[Any, Any]:
    """The figure :func:`render` saves, laid out: (figure, axes)."""
    f, ax = plt.subplots(figsize=(6.4, 4.4), dpi=110)
    if "boxes" in fig:
        # One box per name over its values (a policy's reduction on each trace).
        names = list(fig["boxes"])
        ax.boxplot([fig["boxes"][n] for n in names], tick_labels=names, showmeans=True)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.tick_params(axis="x", labelrotation=45 if len(names) > 6 else 0)
        ax.set_xlabel(fig["x_label"])
        ax.set_ylabel(fig["y_label"])
        ax.grid(True, axis="y", alpha=0.3)
        fit_title(f, ax, fig["title"])
        return f, ax
    series = fig["series"]
    if "categories" in fig:
        width = 0.8 / max(1, len(series))
        for i, (name, ys) in enumerate(series.items()):
            xs = [x - 0.4 + width * (i + 0.5) for x in fig["x"]]
            ax.bar(xs, ys, width=width, label=name)
            if name in fig.get("paper", {}):
                # The paper's values: hollow markers on their bars.
                ax.plot(xs, [math.nan if y is None else y for y in fig["paper"][name]], linestyle="none",
                        marker="o", markersize=8, fillstyle="none", color="black", label=f"{name} (paper)")
        ax.set_xticks(fig["x"], fig["categories"])
    else:
        long = len(fig["x"]) > 50
        colours: dict[str, Any] = {}
        for i, (name, values) in enumerate(series.items()):
            ys = [math.nan if y is None else y for y in values]
            if name == "bound":
                # The lower bound is a reference, not a policy: one look everywhere.
                ax.plot(fig["x"], ys, color="black", linestyle="--", marker=None if long else "x", markersize=6,
                        linewidth=1.2, label=name)
                continue
            (line,) = ax.plot(fig["x"], ys, marker=None if long else MARKERS[i % len(MARKERS)], markersize=4,
                              linewidth=1.4, linestyle=DASHES[i % len(DASHES)], label=name)
            colours[name] = line.get_color()
        # The paper's values: hollow markers in their series' colour.
        for name, values in fig.get("paper", {}).items():
            ys = [math.nan if y is None else y for y in values]
            ax.plot(fig["x"], ys, linestyle=":", linewidth=0.9, marker="o", markersize=7, fillstyle="none",
                    color=colours.get(name, "grey"), label=f"{name} (paper)")
        # Where the paper's text puts a result on the x axis: lines, bands.
        for name, xs in fig.get("paper_x", {}).items():
            for i, x in enumerate(xs):
                ax.axvline(x, color="black", linestyle=":", linewidth=1.0, label=f"{name} (paper)" if i == 0 else None)
        for name, (lo, hi) in fig.get("paper_band", {}).items():
            ax.axvspan(lo, hi, color="black", alpha=0.1, label=f"{name} (paper)")
        if "log_x" not in fig:
            _log_x(ax, fig["x"])
        elif fig["log_x"]:
            ax.set_xscale("log")
    if fig.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(fig["x_label"])
    ax.set_ylabel(fig["y_label"])
    ax.grid(True, alpha=0.3)
    # As many entries as the axes hold labels: series, the paper's markers, lines and bands.
    _legend(ax, len(ax.get_legend_handles_labels()[1]),
            1 + max((c.count("\n") for c in fig.get("categories", [])), default=0))
    fit_title(f, ax, fig["title"])
    return f, ax


def _rows_of(results: Any) -> list[dict[str, Any]]:
    """Result rows from ``sim --json`` (a list) or ``reproduce --json`` (an
    object whose ``runs`` hold them)."""
    rows = results.get("runs") if isinstance(results, dict) else results
    if not isinstance(rows, list) or not rows:
        raise FlashlayerError("expected a non-empty list of result rows (from 'sim --json') or a results.json "
                              "with 'runs'")
    need = {"policy", "buffer_pages", "device", "miss_ratio", "virtual_time"}
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not need <= r.keys():
            missing = sorted(need - set(r)) if isinstance(r, dict) else sorted(need)
            raise FlashlayerError(f"result row {i + 1} lacks {', '.join(missing)}")
    return rows


def _same_run(r: dict[str, Any]) -> tuple[str, str, str, str, int]:
    return (str(r.get("trace", "")), r["policy"], str(r.get("store", "")), r["device"], r["buffer_pages"])


def _line_label(r: dict[str, Any], panel: list[dict[str, Any]]) -> str:
    """A row's line in its panel: its policy, and where the panel holds
    several stores, the store (its kind where the kinds differ, else its
    spec without the defaults)."""
    from flashlayer import _native

    stores = {str(x.get("store", "")) for x in panel}
    if len(stores) <= 1:
        return str(r["policy"])
    kinds = {str(x.get("store_name", "")) for x in panel}
    store = str(r.get("store", ""))
    if len(kinds) == len(stores) and r.get("store_name"):
        return f"{r['policy']} on {r['store_name']}"
    try:
        return f"{r['policy']} on {_native.short_spec('store', store)}"
    except FlashlayerError:
        return f"{r['policy']} on {store}"


def render_results(results: Any, path: Path, title: str = "") -> int:
    """Miss ratio and virtual time against buffer size: a row of two panels
    per (trace, device) and a line per (policy, store) in it, the store
    named in the legend where the panel has more than one. Rows of one run
    (trace, policy, store, device, buffer) that disagree are refused: they
    cannot be told apart on a line. Returns the number of panel rows."""
    rows = _rows_of(results)
    seen: dict[tuple[str, str, str, str, int], int] = {}
    for i, r in enumerate(rows):
        j = seen.setdefault(_same_run(r), i)
        if j != i and (rows[j]["miss_ratio"], rows[j]["virtual_time"]) != (r["miss_ratio"], r["virtual_time"]):
            raise FlashlayerError(f"result rows {j + 1} and {i + 1} are one run (trace, policy, store, device, "
                                  "buffer) with different results; draw them from separate files")
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((str(r.get("trace", "")), r["device"]), []).append(r)
    n = len(groups)
    f, axes = plt.subplots(n, 2, figsize=(11, 3.9 * n), dpi=110, squeeze=False)
    for row, ((trace, device), group) in enumerate(groups.items()):
        unit = group[0].get("cost_unit", "")
        scale, vt_label = (1e6, "virtual time (s)") if unit == "us" else (1.0, f"virtual time ({unit or 'cost'})")
        lines: dict[str, list[dict[str, Any]]] = {}
        for r in group:
            lines.setdefault(_line_label(r, group), []).append(r)
        for col, (key, label) in enumerate((("miss_ratio", "miss ratio"), ("virtual_time", vt_label))):
            ax = axes[row][col]
            for i, (name, rs) in enumerate(lines.items()):
                rs = sorted(rs, key=lambda r: r["buffer_pages"])
                xs = [r["buffer_pages"] for r in rs]
                ys = [r[key] / (scale if key == "virtual_time" else 1.0) for r in rs]
                ax.plot(xs, ys, marker=MARKERS[i % len(MARKERS)], markersize=4, linewidth=1.4, label=name)
            _log_x(ax, [r["buffer_pages"] for r in group])
            where = f"{Path(trace).name}, " if trace else ""
            ax.set_title(f"{title + ': ' if title else ''}{where}{device}", fontsize=10)
            ax.set_xlabel("buffer (pages)")
            ax.set_ylabel(label)
            ax.grid(True, alpha=0.3)
            _legend(ax, len(lines))
    f.tight_layout()
    f.savefig(path, format="png", metadata=png_software())
    plt.close(f)
    return n


def render_curve(curve: dict[str, Any], path: Path, title: str = "") -> int:
    """A cost curve (``flashlayer curve``, LRU's or a policy's): miss ratio,
    write-backs and the virtual time on each device or store against buffer
    size. Returns the panels."""
    xs = curve["sizes"]
    f, axes = plt.subplots(1, 3, figsize=(15, 4), dpi=110, squeeze=False)
    unit = curve.get("cost_unit", "")
    scale, vt_label = (1e6, "virtual time (s)") if unit == "us" else (1.0, f"virtual time ({unit or 'cost'})")
    who = curve.get("policy", "LRU")
    panels = [("miss ratio", {who: curve["miss_ratio"]}), ("dirty write-backs", {who: curve["writebacks"]}),
              (vt_label, {d: [v / scale for v in vs] for d, vs in curve["virtual_time"].items()})]
    how = "exact" if curve.get("exact") else ("sampled (MINISIM)" if "policy" in curve else "sampled (SHARDS)")
    for ax, (label, series) in zip(axes[0], panels, strict=True):
        for i, (name, ys) in enumerate(series.items()):
            ax.plot(xs, ys, marker=MARKERS[i % len(MARKERS)], markersize=3, linewidth=1.4, label=name)
        _log_x(ax, xs)
        ax.set_xlabel("buffer (pages)")
        ax.set_ylabel(label)
        ax.set_title(f"{title + ': ' if title else ''}{label}, {how}", fontsize=10)
        ax.grid(True, alpha=0.3)
        _legend(ax, len(series))
    f.tight_layout()
    f.savefig(path, format="png", metadata=png_software())
    plt.close(f)
    return 3
