"""``syncdesk report --format json`` on the demo world states what the builder says it built.

The report runs as the real command in a subprocess; the expectations come
from the builder's own facts, never from the report's code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from syncdesk.services.demo.facts import DemoFacts


@pytest.fixture(scope="module")
def report(demo_facts: DemoFacts) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "report", "--repo", str(demo_facts.repo),
         "--head", demo_facts.sync_branch, "--format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_slice_is_the_one_built(report: dict[str, Any], demo_facts: DemoFacts) -> None:
    the_slice = report["slice"]
    assert [c["sha"] for c in the_slice["commits"]] == list(demo_facts.slice)
    assert the_slice["remaining"] == demo_facts.remaining
    assert the_slice["dev_base"] == demo_facts.dev_base
    assert the_slice["tip"] == demo_facts.slice_tip


def test_sign_offs_signatures_and_prs_are_the_ones_built(
    report: dict[str, Any], demo_facts: DemoFacts
) -> None:
    commits = report["slice"]["commits"]
    assert {c["sha"] for c in commits if not c["signed_off"]} == set(demo_facts.unsigned)
    mismatched = {c["sha"] for c in commits if c["signed_off"] and not c["signoff_matches_author"]}
    assert mismatched == set(demo_facts.mismatched_signoff)
    assert {c["sha"] for c in commits if c["signed"]} == set(demo_facts.signed)
    assert {c["sha"]: c["pr"] for c in commits} == demo_facts.prs


def test_the_anatomy_is_healthy(report: dict[str, Any], demo_facts: DemoFacts) -> None:
    anatomy = report["anatomy"]
    assert anatomy["ok"] is True
    assert anatomy["problems"] == []
    assert anatomy["merge"] == demo_facts.merge
    assert anatomy["repair"] == demo_facts.repair
    assert anatomy["dev_base"] == demo_facts.dev_base
    assert anatomy["slice_tip"] == demo_facts.slice_tip


def test_dev_moved_on_and_merges_cleanly(report: dict[str, Any], demo_facts: DemoFacts) -> None:
    advanced = report["dev_advanced"]
    assert [c["sha"] for c in advanced["commits"]] == list(demo_facts.dev_advanced)
    assert advanced["merges_cleanly"] is demo_facts.dev_merges_cleanly
    assert advanced["dev_tip"] == demo_facts.dev_tip


def test_protected_files_match_the_builder(report: dict[str, Any], demo_facts: DemoFacts) -> None:
    protected = {p["path"]: p["identical"] for p in report["protected_files"]}
    assert protected == demo_facts.protected_identical


def test_remerge_diff_names_every_conflict_and_evil_merge(
    report: dict[str, Any], demo_facts: DemoFacts
) -> None:
    remerge = set(report["stats"]["remerge_diff_files"])
    # A modify/delete conflict whose resolution keeps the modified file is what
    # git's automatic merge left in the tree: the remerge-diff has no change for it.
    changed_by_hand = {
        c.path
        for c in demo_facts.conflicts
        if not (c.type == "modify/delete" and c.resolution != "deleted")
    }
    assert changed_by_hand <= remerge
    assert set(demo_facts.evil_merge_files) <= remerge


def test_demo_report_includes_its_pull_request_with_every_origin_class(tmp_path: Any) -> None:
    from syncdesk.services.demo.world import build_world
    from syncdesk.services.review.models import Origin
    from syncdesk.services.sandbox.demo.scenario import demo_scenario

    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "demo", "--dir", str(tmp_path / "demo"), "--no-open",
         "--report", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)  # stdout holds the report alone
    facts = build_world(tmp_path / "demo")  # the same world, reused
    promised = demo_scenario(facts).notes
    assert data["pull_request"]["number"] == promised["pr_number"]
    assert data["pull_request"]["head_sha"] == facts.repair
    findings = {f["id"]: f for f in data["findings"]}
    assert set(promised["findings"]) <= set(findings)
    counted = {
        origin
        for f in data["findings"]
        for r in f["ranges"]
        for origin, n in r["origins"].items()
        if n
    }
    assert counted == {o.value for o in Origin}
    assert findings["F9"]["disposition"] == "closed"
    # The status sections (issue 6): what the sandbox was seeded with, found again.
    assert [f["sha"] for f in data["dco"]["failing"]] == promised["dco_failing"]
    assert all(f["imported"] for f in data["dco"]["failing"])
    assert data["dco"]["github"]["conclusion"] == "action_required"
    assert data["dco"]["precedent"] == promised["merged_sync_prs"]
    patch = data["coverage"]["patch"]
    assert patch["below_target"] is True and patch["coverage"] < patch["target"]
    assert patch["ours_uncovered"]
    assert data["checks"]["state"] == "failure"
    assert data["checks"]["gate"] == "pending"  # the demo's .syncdesk.toml names the gate
    assert {"name": "CI / functional", "state": "failure"}.items() <= next(
        i for i in data["checks"]["items"] if i["name"] == "CI / functional"
    ).items()
    body = data["pr_body_check"]
    assert body["ok"] is False and body["missing"] == promised["body_missing_shas"]
    for finding in data["findings"]:
        assert set(finding) >= {"id", "severity", "category", "title", "ranges", "disposition"}
        for cited in finding["ranges"]:
            assert set(cited) >= {"path", "start", "end", "origins", "file_identical_to"}
