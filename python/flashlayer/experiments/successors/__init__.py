"""Section ``successors``: the five papers' successors on the same engine.

ACE (Papon & Athanassoulis, ICDE 2023) wraps a policy: when its victim is
dirty it writes the next dirty pages with it, at once, on a device that
serves several I/Os together. WATT (Vöhringer & Leis, PVLDB 16(11), 2023)
evicts the page of least estimated access and write frequency among a
random sample. Both ship research simulators; their outputs
(``data/successors``, rebuilt by ``tools/ace-codebase/run.sh`` and
``tools/watt-simulate/run.sh``) stand beside ours on the same workloads:
ACE's four workloads (``flashlayer trace gen ace``, the authors' generator)
and WATT's traces. Then both, and the papers' policies, on the PostgreSQL
traces, on a device of concurrency 8 and on an SSD whose flash
translation layer pays for every write-back (``ftl`` store).

The section runs the same in ``--quick`` and ``--full``: every run is the
authors' full scale and takes seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flashlayer.experiments.parts import Parts, scratch
from flashlayer.experiments.successors import ace, pg, watt
from flashlayer.experiments.successors.common import FILES, authors_dir

if TYPE_CHECKING:
    from flashlayer.experiments import Inputs, Section

__all__ = ["FILES", "run"]


def run(mode: str, inputs: Inputs, quiet: bool) -> Section:
    traces_dir = inputs.traces
    authors = authors_dir(traces_dir)
    parts = Parts()
    figures, _, claims, _, notes, runs = parts.unpack()
    with scratch("successors") as work:
        ace_runs = ace.workloads(work, authors, figures, claims, runs, quiet)
        ace.second_device(ace_runs, figures, claims)
        ace.asymmetry(work, authors, figures, claims, quiet)
    ace.abstract(traces_dir, ace_runs, figures, claims, runs, quiet)
    watt.simulator(traces_dir, authors, figures, claims, runs)
    pg.postgres(traces_dir, figures, claims, notes, runs, quiet)
    parts.judged_on("the PostgreSQL traces (data/traces), on a device of concurrency 8 and an FTL SSD",
                    "generalizes", "successors-watt-fewest-misses", "successors-watt-write-tradeoff")
    parts.judged_on("ACE's own workloads, drawn by its generator (glibc's rand() in the authors' order)", "reproduces")
    return parts.section(
        "Successors: ACE and WATT beside their authors' simulators, on devices with concurrency and an FTL",
        "ACE (Papon & Athanassoulis, ICDE 2023) writes a dirty victim together with the next dirty pages its "
        "policy would evict, at once, on a device that serves k I/Os together; WATT (Vöhringer & Leis, PVLDB "
        "2023) evicts the page of least estimated access and write frequency among a random sample. Each is "
        "run beside its authors' simulator on their own workloads, then with the papers' policies on the "
        "PostgreSQL traces: on a device of concurrency 8, and on an SSD whose flash translation layer pays for "
        "every write-back.",
        [traces_dir / f for f in FILES],
    )
