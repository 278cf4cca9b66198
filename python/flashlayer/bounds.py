"""How good can a policy be? The cost-optimal bound of a trace
(`flashlayer.bounds.cost_bounds`, ``flashlayer bound``).

For a trace, a buffer size and a device, ``lower`` (costopt-lb) is a cost
no policy can beat: a Lagrangian relaxation of writeback-aware caching
(Beckmann et al., APOCS 2020), sound for every iteration of its solver (the
proof is the module doc of the Rust ``bound`` module). ``upper``
(costopt-ub) is the cost of the best schedule its planner found, a real
replay (``--policy costopt-ub`` replays it in ``flashlayer sim``), and never
above ``belady``, Belady's MIN. The optimum lies between ``lower`` and
``upper``; a policy's cost is reported as a percentage above ``lower``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from flashlayer import _native
from flashlayer.checks import items, whole
from flashlayer.replay import BufferSpec, TraceLike, open_trace, resolve_buffer

#: Planner iterations by default: the engine's, from its table of policies
#: (``costopt-ub``'s ``iterations``).
DEFAULT_ITERATIONS = int(next(default for name, _, params in _native.table("policy") if name == "costopt-ub"
                              for key, default, _, _ in params if key == "iterations"))


def above(cost: float, lower: float) -> float:
    """How far `cost` lies above the lower bound `lower`, in percent."""
    return 100.0 * (cost - lower) / lower if lower > 0 else 0.0


def cost_bounds(
    trace: TraceLike,
    buffers: Sequence[BufferSpec],
    devices: Sequence[str | None] = (None,),
    *,
    policies: Sequence[str] = (),
    flush_at_end: bool = False,
    iterations: int = DEFAULT_ITERATIONS,
    format: str | None = None,
    page_size: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> list[dict[str, Any]]:
    """One row per buffer size (pages or ``"P%"`` of the distinct pages) and
    device: ``buffer_pages``, ``device``, ``lower``, ``upper``, ``belady``,
    ``compulsory``, ``gap`` (upper above lower, %), ``iterations``,
    ``seconds``, and ``policies``: for each of `policies` (replayed in the
    simulator with the same buffer, device and `flush_at_end`) its
    ``virtual_time`` and ``above_bound`` (%). `progress` is called once per
    planner iteration. A device of `devices` is a device spec, or None for
    the engine's default (``ratio:1:1``)."""
    buffers = items("buffers", buffers, (int, str))
    devices = items("devices", devices, (str, type(None)))
    # No policies is a run of the bound alone.
    policies = [] if isinstance(policies, (list, tuple)) and not policies else items("policies", policies)
    iterations = whole("iterations", iterations)
    t = open_trace(trace, format, page_size)
    rows: list[dict[str, Any]] = []
    for spec in buffers:
        pages = resolve_buffer(spec, t.pages)
        for device in devices:
            b = _native.bound(t, pages, device, flush_at_end, iterations, True, progress)
            b["buffer"] = spec
            b["gap"] = above(b["upper"], b["lower"])
            b["policies"] = {}
            for p in policies:
                r = _native.replay(t, p, pages, None if device is None else f"cost:device={device}", None, flush_at_end)
                b["policies"][r["policy"]] = {"virtual_time": r["virtual_time"],
                                              "above_bound": above(r["virtual_time"], b["lower"])}
            rows.append(b)
    return rows
