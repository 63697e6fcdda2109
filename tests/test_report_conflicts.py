"""``syncdesk report`` states the conflicts: JSON (against the builder's facts), text, Markdown."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.progress import Steps
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync
from tests.conflictrepo import build_conflicts
from tests.syncrepo import build_sync_repo


def _report(repo: Path, *args: str, fmt: str = "json") -> str:
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "report", "--repo", str(repo), *args, "--format", fmt],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def demo_report(demo_facts: DemoFacts) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_report(demo_facts.repo, "--head", demo_facts.sync_branch))
    return data


def test_the_report_lists_every_conflict_the_demo_built(
    demo_report: dict[str, Any], demo_facts: DemoFacts
) -> None:
    conflicts = demo_report["conflicts"]
    assert (conflicts["dev_side"], conflicts["main_side"]) == (
        demo_facts.dev_base,
        demo_facts.slice_tip,
    )
    assert conflicts["head"] == demo_facts.repair
    assert conflicts["clean"] is False
    found = {f["path"]: (f["type"], f["resolution"]) for f in conflicts["files"]}
    assert found == {c.path: (c.type, c.resolution) for c in demo_facts.conflicts}
    for entry in conflicts["files"]:
        # The default config keeps the dependency triple and CODEOWNERS from dev.
        expected = "keep-dev" if entry["path"] in demo_facts.keep_dev else None
        assert entry["policy"] == expected
        assert len(entry["hunk_resolutions"]) == entry["hunks"] == len(entry["attribution"])
        if entry["type"] == "modify/delete":
            assert entry["hunks"] == 0


def test_the_audit_names_the_dev_line_the_resolution_dropped(
    demo_report: dict[str, Any], demo_facts: DemoFacts
) -> None:
    audit = demo_report["conflicts"]["audit"]
    classes = [finding["classification"] for finding in audit]
    # Accidents come first, and the demo's resolution of attention.py drops dev's log line.
    assert classes == sorted(classes, key=lambda c: c != "probable-accident")
    accidents = [f for f in audit if f["classification"] == "probable-accident"]
    assert any(
        f["path"] == "lumen/models/attention.py" and "logger.debug" in f["text"] for f in accidents
    )
    removed = [f for f in audit if f["classification"] == "removed-on-main"]
    assert all(f["commit"] in demo_facts.slice for f in removed)


def test_the_commits_named_are_slice_commits_and_dev_commits(
    demo_report: dict[str, Any], demo_facts: DemoFacts
) -> None:
    files = demo_report["conflicts"]["files"]
    main_named = {sha for f in files for hunk in f["attribution"] for sha in hunk["main"]}
    dev_named = {sha for f in files for hunk in f["attribution"] for sha in hunk["dev"]}
    assert main_named
    assert main_named <= set(demo_facts.slice)
    assert dev_named

    def reachable(sha: str, tip: str) -> bool:
        return (
            subprocess.run(
                ["git", "merge-base", "--is-ancestor", sha, tip], cwd=demo_facts.repo, check=False
            ).returncode
            == 0
        )

    assert all(reachable(sha, demo_facts.dev_base) for sha in dev_named)
    assert not any(reachable(sha, demo_facts.slice_tip) for sha in dev_named)


def test_text_and_markdown_show_the_conflicts(demo_facts: DemoFacts) -> None:
    text = _report(demo_facts.repo, "--head", demo_facts.sync_branch, fmt="text")
    assert f"Conflicts    {len(demo_facts.conflicts)} files" in text
    assert "union      content" in text
    markdown = _report(demo_facts.repo, "--head", demo_facts.sync_branch, fmt="markdown")
    assert "| Conflicted file | Type | Hunks | Resolution at head |" in markdown
    assert "| lumen/models/moe\\_router.py | add/add | 1 | custom |" in markdown


def test_loading_reports_a_step_for_the_conflicts(tmp_path: Path) -> None:
    built = build_sync_repo(tmp_path / "r")
    session = open_sync(SyncOptions(repo=built.path, slice_size=5))
    steps: list[str] = []
    report = load_report(session, steps=Steps(steps.append))
    assert "Reading the conflicts" in steps
    assert report.conflicts is not None
    assert {c.path for c in report.conflicts.files} == set(built.conflicted)
    assert report.conflicts.head == built.head
    assert report.attribution is not None


def test_a_sync_not_built_yet_reports_the_conflicts_to_come(tmp_path: Path) -> None:
    built = build_sync_repo(tmp_path / "r")
    data = json.loads(_report(built.path, "--head", "dev", "--slice-size", "5"))
    conflicts = data["conflicts"]
    assert conflicts["head"] is None
    assert conflicts["main_side"] == built.main_line[4]
    assert {f["path"] for f in conflicts["files"]} == set(built.conflicted)
    assert {f["resolution"] for f in conflicts["files"]} == {"unresolved"}


def test_a_hostile_path_is_shown_sanitized(tmp_path: Path) -> None:
    name = "evil\x1b[2J.txt"
    built = build_conflicts(
        tmp_path / "r", base={name: "a\n"}, dev={name: "dev\n"}, main={name: "main\n"}
    )
    built.repo.checkout("sync", built.dev)
    built.repo.merge("main", "Sync", resolve={name: "both\n"})
    data = json.loads(_report(built.repo.path, "--head", "sync"))
    (entry,) = data["conflicts"]["files"]
    assert entry["path"] == "evil^[[2J.txt"
    text = _report(built.repo.path, "--head", "sync", fmt="text")
    assert "\x1b" not in text
