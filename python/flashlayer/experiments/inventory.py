"""What each paper states, result by result, and the claims of the report
that check it.

Every result a paper's abstract, introduction, evaluation (its figures,
tables and their text) and conclusion state is listed here once, with the
ids of the claims that check it, or with the reason it cannot be checked.
A result holds when every claim it names holds; one that cannot be checked
counts as not holding. The report's headline per paper is the number of
its stated results that hold.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict


class Stated(TypedDict):
    """A result as its paper states it."""

    #: Where the paper states it: its abstract, a section, a figure.
    where: str
    #: The result, in the paper's words where they are short.
    result: str
    #: Ids of the claims that check it (``*`` matches any run of
    #: characters: claims made per trace); empty when it cannot be checked.
    claims: list[str]
    #: Why it cannot be checked, when `claims` is empty.
    reason: NotRequired[str]


#: The papers, by the ``paper`` field of their claims.
PAPERS = {
    "casa": "Ou & Härder 2010, CASA",
    "fdbuffer": "On et al. 2010, FD-Buffer",
    "pdl": "Kim, Whang & Song 2010, page-differential logging",
    "koltsidas": "Koltsidas & Viglas 2008, flash and magnetic disks",
    "hypro": "Lv et al., HyPro",
    "ace": "Papon & Athanassoulis, ICDE 2023, ACE",
    "watt": "Vöhringer & Leis, PVLDB 2023, WATT",
}

INVENTORY: dict[str, list[Stated]] = {
    "casa": [
        {"where": "abstract", "result": "CASA outperforms previous proposals in a variety of cost settings and "
         "under changing workloads", "claims": ["casa-fig4-best-nearly-everywhere", "casa-fig2b-beats-best-cflru"]},
        {"where": "§5.1, Fig. 2a", "result": "at 1:1 LRU is best and CASA closely approaches it; CCF-LRU is two "
         "times LRU at 16,000 pages", "claims": ["casa-fig2a-close-to-lru"]},
        {"where": "§5.1, Fig. 2b", "result": "at 1:64 CASA outperforms CFLRU even at its best window",
         "claims": ["casa-fig2b-beats-best-cflru"]},
        {"where": "§5.1, Fig. 3", "result": "|C| fluctuates around 200 in the OLTP phases and stays at 1,000 in the "
         "DSS phases", "claims": ["casa-fig3-clean-list-follows-phases"]},
        {"where": "§5.2, Table 2", "result": "at 1:1 CASA does fewer physical reads and writes than LRU",
         "claims": ["casa-table2-1to1-against-lru"]},
        {"where": "§5.2, Table 2", "result": "CASA uses more physical reads and saves physical writes as the "
         "write cost grows", "claims": ["casa-table2-trade-reads-for-writes"]},
        {"where": "§5.2, Fig. 4", "result": "nearly all flash-aware policies below LRU; every curve as Table 2 "
         "gives it, CCF-LRU good at 1:64 and 1:128 and degraded at 1:1", "claims": ["casa-fig4-whole"]},
        {"where": "§5.2, Fig. 4", "result": "CASA had clearly the best performance for nearly all settings",
         "claims": ["casa-fig4-best-nearly-everywhere"]},
        {"where": "§5.2, Fig. 4b", "result": "at 1:128 and 10,000 pages CASA is about 30% faster than LRU",
         "claims": ["casa-fig4b-30pct-faster-at-1to128"]},
        {"where": "§5.3, Fig. 5", "result": "the detected cost ratio is about 1:1.5 on the HDD and 1:4.5 on the SSD",
         "claims": [], "reason": "measured on the paper's WD1500HLFS HDD and Intel SSDSA2MH160G1GN; figure "
         "casa/fig5 shows the costs CASA detects on this machine's storage, a different device"},
        {"where": "§5.3, Fig. 6", "result": "in real execution times CASA is best on the SSD and comparable to "
         "CFLRU's best window on the HDD", "claims": [], "reason": "real runs on the paper's two devices; no such "
         "devices here"},
        {"where": "§6", "result": "CASA adapts itself to various cost ratios and to changing workloads without "
         "any tuning parameter", "claims": ["casa-fig2b-beats-best-cflru", "casa-fig3-clean-list-follows-phases",
                                            "casa-table2-trade-reads-for-writes"]},
    ],
    "fdbuffer": [
        {"where": "abstract", "result": "up to 33% improvement over the state-of-the-art flash-aware policy",
         "claims": ["fdbuffer-clustered-beats-cfdc"]},
        {"where": "§1", "result": "FD-Buffer is 70% and 33% faster than LRU and CFDC",
         "claims": ["fdbuffer-clustered-70pct-over-lru", "fdbuffer-clustered-beats-cfdc"]},
        {"where": "§3, Table 1", "result": "Belady reads 6 pages and writes 2, FD-Buffer reads 8 and writes 1",
         "claims": ["fdbuffer-table1-exactly"]},
        {"where": "§5.2, Fig. 1d", "result": "on the hard disk FD-Buffer differs from LRU and CFLRU by less than 1%",
         "claims": ["fdbuffer-hdd-like-lru"]},
        {"where": "§5.2, Fig. 1a-c", "result": "up to 9% faster than LRU at R = 5.8, 13% at 39.6, 26% at 121.3",
         "claims": ["fdbuffer-gain-grows-with-asymmetry"]},
        {"where": "§5.2, Fig. 1a-c", "result": "FD-Buffer outperforms CFLRU by up to 17%",
         "claims": ["fdbuffer-beats-cflru"]},
        {"where": "§5.2, Fig. 1a-c", "result": "write clustering improves FD-Buffer by 5% to 67%",
         "claims": ["fdbuffer-clustering-range", "fdbuffer-clustering-adds-*"]},
        {"where": "§5.2", "result": "the grouping optimization significantly reduces the computation overhead",
         "claims": [], "reason": "CPU time of the authors' buffer manager on Windows; the paper gives no figure "
         "of it to hold ours against"},
        {"where": "§6", "result": "FD-Buffer outperforms two recent flash-aware algorithms",
         "claims": ["fdbuffer-beats-cflru", "fdbuffer-clustered-beats-cfdc"]},
    ],
    "pdl": [
        {"where": "abstract, §5.2 Fig. 11", "result": "0.5-3.4x over the page-based method (OPU)",
         "claims": ["pdl-vs-opu-update-ops"]},
        {"where": "abstract, §5.2 Fig. 11", "result": "1.6-3.1x over the log-based method (IPL 18KB); 2.0-9.7x over "
         "IPL(64KB)", "claims": ["pdl-vs-ipl18-update-ops", "pdl-vs-ipl64-update-ops"]},
        {"where": "abstract, §5.2 Fig. 14", "result": "TPC-C: 1.2-6.1x over the existing methods",
         "claims": ["pdl-tpcc"]},
        {"where": "§5.2, Fig. 8a", "result": "reading step: IPL(64KB) > IPL(18KB) > PDL(2KB) / PDL(256B) > OPU / IPU",
         "claims": ["pdl-read-order"]},
        {"where": "§5.2, Fig. 8b", "result": "writing step: IPU > OPU > PDL(2KB) > IPL(18KB) > IPL(64KB) > PDL(256B)",
         "claims": ["pdl-write-order"]},
        {"where": "§5.2, Fig. 8c", "result": "PDL(256B) has the best overall time per update operation",
         "claims": ["pdl-256b-best-overall"]},
        {"where": "§5.2, Fig. 9", "result": "PDL(2KB) rises only very slightly with N_updates_till_write",
         "claims": ["pdl-fig9-2k-flat"]},
        {"where": "§5.2, Fig. 9", "result": "PDL(256B) rises approximately linearly and approaches OPU",
         "claims": ["pdl-fig9-256b-towards-opu"]},
        {"where": "§5.2, Fig. 10", "result": "PDL(256B) outperforms OPU, IPU and IPL at every share changed",
         "claims": ["pdl-fig10-256b-below-others"]},
        {"where": "§5.2, Fig. 10", "result": "at about 100% changed PDL(2KB) is slightly slower than OPU",
         "claims": ["pdl-fig10-2k-slightly-above-opu-at-100"]},
        {"where": "§5.2, Fig. 11", "result": "PDL always outperforms IPL", "claims": ["pdl-fig11-pdl-beats-ipl"]},
        {"where": "§5.2, Fig. 12", "result": "PDL(256B) always outperforms OPU and IPL, whatever T_read and T_write",
         "claims": ["pdl-256b-best-any-timing"]},
        {"where": "§5.2, Fig. 12", "result": "as T_read grows, OPU becomes superior to PDL(2KB)",
         "claims": ["pdl-fig12-opu-beats-2k-at-slow-reads"]},
        {"where": "§5.2, Fig. 13", "result": "erases per update: OPU > PDL(2KB) > IPL(18KB) > PDL(256B) > IPL(64KB)",
         "claims": ["pdl-erase-order"]},
        {"where": "§5.2, Fig. 14", "result": "TPC-C: IPL(64KB) > IPL(18KB) > OPU > PDL(2KB) > PDL(256B)",
         "claims": ["pdl-tpcc-order"]},
        {"where": "§6, footnote 19", "result": "obsolete bits kept in memory make PDL up to two times faster",
         "claims": ["pdl-obsolete-bits-in-memory-up-to-2x"]},
    ],
    "koltsidas": [
        {"where": "abstract, §6.1", "result": "remarkable I/O improvement over both flash-only and magnetic-only "
         "systems", "claims": ["koltsidas-fig10a-both-disks-beat-either", "koltsidas-fig10b-both-disks-beat-either"]},
        {"where": "§4, Appendix", "result": "conservative is 3-competitive against the optimal off-line placement",
         "claims": ["koltsidas-conservative-3-competitive"]},
        {"where": "§6.1, Fig. 9a", "result": "M/F starts at M, pages migrate in the 4th and 7th executions, then "
         "it runs at F", "claims": ["koltsidas-fig9a-mf-moves-to-flash-speed"]},
        {"where": "§6.1, Fig. 9b", "result": "F is an order of magnitude slower than M; M/F starts at M and "
         "improves slightly", "claims": ["koltsidas-fig9b-mf-no-worse-than-m"]},
        {"where": "§6.1, Fig. 10", "result": "as the share of read pages grows F and M/F improve while M stays "
         "almost constant", "claims": ["koltsidas-fig10-read-share-helps-flash"]},
        {"where": "§6.2, Fig. 11", "result": "optimistic nearly optimal, hybrid between, conservative slowest; "
         "6,366 / 7,003 / 8,338 / 9,784 s", "claims": ["koltsidas-seq1-order", "koltsidas-seq1-distance-to-optimum"]},
        {"where": "§6.2, Fig. 12", "result": "conservative nearly optimal, hybrid close, optimistic worst; "
         "3,920 / 3,932 / 4,060 / 4,560 s", "claims": ["koltsidas-seq2-order", "koltsidas-seq2-distance-to-optimum"]},
        {"where": "§6.3, Fig. 13", "result": "performance improves as the interesting set becomes more read-intensive",
         "claims": ["koltsidas-fig13-reads-help"]},
        {"where": "§6.3, Fig. 13", "result": "a larger interesting set helps when it is more than 70% read, not when "
         "it is updated more than 30% of the time", "claims": ["koltsidas-fig13-size-helps-only-when-read-mostly"]},
        {"where": "§6.3, Fig. 13", "result": "magnetic-only is comparable to the 60/40 mix; flash-only is much "
         "slower", "claims": ["koltsidas-fig13-single-disks"]},
        {"where": "§6.4, Fig. 14a", "result": "query set A: best at λ = 0.9, 21% below LRU",
         "claims": ["koltsidas-fig14-a-best-lambda-gain"]},
        {"where": "§6.4, Fig. 14b", "result": "query set B: best at λ = 0.5, 15% below LRU",
         "claims": ["koltsidas-fig14-b-best-lambda-gain"]},
        {"where": "§6.4, Fig. 14", "result": "at λ = 1 set A stays below LRU and set B rises above it",
         "claims": ["koltsidas-fig14-a-lambda-1", "koltsidas-fig14-b-lambda-1"]},
    ],
    "hypro": [
        {"where": "abstract, §5.3", "result": "up to 50% improvement against the competitors",
         "claims": ["hypro-up-to-half"]},
        {"where": "abstract, §5.3, §6", "result": "HyPro shows similar or better performance than FaCE and TAC; "
         "it outperforms the competitors", "claims": ["hypro-most-settings"]},
        {"where": "§5.2, Fig. 5a", "result": "best at p_sink around 0.15", "claims": ["hypro-best-p-sink"]},
        {"where": "§5.2, Fig. 5b", "result": "the time varies significantly with p_elevate and is least between "
         "0.01 and 0.02", "claims": ["hypro-best-p-elevate"]},
        {"where": "§5.2", "result": "other testings put the best parameters around 0.02 and 0.2", "claims": [],
         "reason": "the paper names neither those tests' traces nor their sizes"},
        {"where": "§5.3, Fig. 6a", "result": "on MLK FaCE performs the worst", "claims": ["hypro-face-worst-mlk"]},
        {"where": "§5.3, Fig. 6b", "result": "on TATP HyPro and FaCE perform alike and better than TAC",
         "claims": ["hypro-tatp-hypro-face"]},
        {"where": "§5.3, Fig. 6c", "result": "on TPC-B TAC is best when the flash is small",
         "claims": ["hypro-tac-small-ssd-tpcb"]},
        {"where": "§5.3, Fig. 6c", "result": "on TPC-B TAC degrades when the flash is large",
         "claims": ["hypro-tac-degrades-with-ssd-size-tpcb"]},
        {"where": "§5.3, Fig. 6c", "result": "HyPro adapts to a larger flash and performs well in all cases",
         "claims": ["hypro-good-at-every-size-tpcb"]},
        {"where": "§6", "result": "HyPro achieves lower hard-disk access with a little more flash writing",
         "claims": [], "reason": "the paper names no scheme or setting it is compared with"},
    ],
    "ace": [
        {"where": "abstract", "result": "ACE cuts the runtime of its counterparts in PostgreSQL by up to 32.1% on "
         "mixed workloads and 33.8% on TPC-C", "claims": ["successors-ace-abstract-runtime"]},
        {"where": "abstract", "result": "with a negligible increase in total disk writes and buffer misses",
         "claims": ["successors-ace-negligible-increase"]},
        {"where": "Fig. 8a (the authors' plot data)", "result": "runtimes of LRU, CFLRU and LRU-WSR with and "
         "without ACE on their SSD, four workloads", "claims": ["successors-ace-runtime"]},
        {"where": "Fig. 7 (the authors' plot data)", "result": "runtimes with COW-a and COW-Xa on a second device",
         "claims": ["successors-ace-runtime-second-device"]},
        {"where": "Fig. 8h (the authors' plot data)", "result": "the model's normalized I/O of COW-X(α) and COW(α) "
         "for α = 1, 2, 4, 8", "claims": ["successors-ace-normalized-io"]},
    ],
    "watt": [
        {"where": "§6 (the talk)", "result": "WATT overall generates fewer misses than any other strategy",
         "claims": ["successors-watt-fewest-misses"]},
        {"where": "§6 (the talk)", "result": "with its write weights WATT is better than any other strategy in "
         "writes and misses together", "claims": ["successors-watt-write-tradeoff"]},
        {"where": "§7 (the talk)", "result": "in LeanStore every other strategy does more reads and writes per "
         "transaction; WATT is as CPU-efficient and scalable as Random", "claims": [],
         "reason": "measurements of LeanStore on many-core hardware, not of a trace replay"},
    ],
}


def matching(pattern: str, ids: Sequence[str]) -> list[str]:
    """The claim ids `pattern` names (``*`` matching any characters)."""
    return [i for i in ids if fnmatch.fnmatchcase(i, pattern)]


def status(stated: Stated, claims: Mapping[str, Mapping[str, Any]]) -> tuple[str, list[str]]:
    """Whether a stated result holds in a report whose claims by id are
    `claims`: ``holds``, ``fails``, ``not checked`` (no claim can check it)
    or ``not run`` (its claims are not in this report); and the ids it
    resolved to."""
    if not stated["claims"]:
        return "not checked", []
    found = [matching(p, list(claims)) for p in stated["claims"]]
    ids = [i for f in found for i in f]
    if not all(found):
        return "not run", ids
    return ("holds" if all(claims[i]["holds"] for i in ids) else "fails"), ids


def count(states: Sequence[str]) -> tuple[int, int]:
    """Of a paper's results' statuses, how many hold and how many the
    report states; (0, 0) when it ran none of the paper's claims."""
    if not any(s in ("holds", "fails") for s in states):
        return 0, 0
    return states.count("holds"), sum(1 for s in states if s != "not run")


def tally(paper: str, claims: Mapping[str, Mapping[str, Any]]) -> tuple[int, int]:
    """A paper's stated results that hold in a report whose claims by id
    are `claims`, and how many it states (:func:`count`)."""
    return count([status(s, claims)[0] for s in INVENTORY[paper]])
