"""Each paper's stated results (``flashlayer.experiments.inventory``) against
the committed full report: every result names claims the report makes or
says why it cannot be checked, and every claim of a paper is one of its
stated results'."""

from __future__ import annotations

import json

from flashlayer.experiments.inventory import INVENTORY, PAPERS, SETTINGS, UNTESTABLE, matching, status, tally
from flashlayer.report.account import account
from tests.conftest import FULL_REPORT


def _full() -> dict[str, dict[str, object]]:
    return {c["id"]: c for c in json.loads(FULL_REPORT.read_text())["claims"]}


def test_every_stated_result_names_claims_of_the_full_report_or_a_reason() -> None:
    claims = _full()
    for paper, stated in INVENTORY.items():
        assert paper in PAPERS
        for s in stated:
            if not s["claims"]:
                assert len(s.get("reason", "")) > 30, (paper, s["result"])
                continue
            for pattern in s["claims"]:
                ids = matching(pattern, list(claims))
                assert ids, f"{paper}: {pattern} is in no claim of {FULL_REPORT}"
                assert all(claims[i]["paper"] == paper for i in ids), (paper, pattern)


def test_every_claim_of_a_paper_checks_one_of_its_stated_results() -> None:
    claims = _full()
    for cid, c in claims.items():
        if c["kind"] != "paper":
            continue
        named = [p for s in INVENTORY[str(c["paper"])] for p in s["claims"]]
        assert any(matching(p, [cid]) for p in named), f"{cid} checks no stated result of {c['paper']}"


def test_a_result_holds_only_when_every_claim_it_names_holds() -> None:
    claims = {"a-1": {"holds": True}, "a-2": {"holds": False}, "b-x": {"holds": True}, "b-y": {"holds": True}}
    assert status({"where": "", "result": "", "claims": ["a-1"]}, claims) == ("holds", ["a-1"])
    assert status({"where": "", "result": "", "claims": ["a-1", "a-2"]}, claims)[0] == "fails"
    assert status({"where": "", "result": "", "claims": ["b-*"]}, claims) == ("holds", ["b-x", "b-y"])
    assert status({"where": "", "result": "", "claims": [], "reason": "r"}, claims) == ("not checked", [])
    assert status({"where": "", "result": "", "claims": ["c-1"]}, claims)[0] == "not run"


def test_each_setting_is_judged_by_its_own_claims_and_untestable_never_holds() -> None:
    claims = {
        "x": {"holds": True, "setting": "reproduces"},
        "x-pg": {"holds": False, "setting": "generalizes"},
        "y": {"holds": True, "setting": "reproduces", "untestable": "below the bound by 0.02 (table t)"},
        "z": {"holds": False, "setting": "reproduces", "untestable": "a baseline misses by 0.1 (table t)"},
        "z-pg": {"holds": True, "setting": "generalizes"},
    }
    x = {"where": "", "result": "", "claims": ["x*"]}
    assert status(x, claims, "reproduces") == ("holds", ["x"])
    assert status(x, claims, "generalizes") == ("fails", ["x-pg"])
    # A claim its workload cannot test is neither a pass nor a failure ...
    assert status({"where": "", "result": "", "claims": ["y"]}, claims, "reproduces")[0] == UNTESTABLE
    assert status({"where": "", "result": "", "claims": ["z*"]}, claims, "reproduces")[0] == UNTESTABLE
    # ... and a failure beside it still fails the result.
    assert status({"where": "", "result": "", "claims": ["x-pg", "y"]}, claims)[0] == "fails"
    assert status({"where": "", "result": "", "claims": ["y"]}, claims, "generalizes")[0] == "not run"


def test_the_headline_counts_each_setting_and_untestable_results_apart() -> None:
    claims = _full()
    papers = account(list(claims.values()))
    for paper, a in papers.items():
        for setting in SETTINGS:
            holding, judged, untestable = tally(paper, claims, setting)
            states = [r[setting] for r in a["stated"]]
            assert (a[setting]["holding"], a[setting]["judged"], a[setting]["untestable"]) == (
                holding, judged, untestable), (paper, setting)
            if judged or untestable:
                assert holding == states.count("holds") and untestable == states.count(UNTESTABLE), paper
                assert judged == sum(1 for s in states if s in ("holds", "fails", "not checked")), paper
