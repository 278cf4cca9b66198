"""Figures as PNG files, drawn with matplotlib from figure dicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = "osD^v<>ph*"


def render(fig: dict[str, Any], path: Path) -> None:
    """Line plot of every series against ``x``, log-scaled x when the sizes
    span more than a factor of 20."""
    f, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
    for i, (name, ys) in enumerate(fig["series"].items()):
        ax.plot(fig["x"], ys, marker=MARKERS[i % len(MARKERS)], markersize=4, linewidth=1.4, label=name)
    xs = [x for x in fig["x"] if x > 0]
    if xs and max(xs) / min(xs) > 20:
        ax.set_xscale("log")
    ax.set_title(fig["title"], fontsize=11)
    ax.set_xlabel(fig["x_label"])
    ax.set_ylabel(fig["y_label"])
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(path)
    plt.close(f)
