"""``syncdesk findings --repo``: any review text, its cited lines traced with git only.

Run as a user runs it (a subprocess of ``python -m syncdesk``), on a sync branch with dev merged
in on top (tests/oursrepo.py): each range gets the report's origins, each finding the suggested
disposition, and without ``--repo`` the command stays the offline parser it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oursrepo import SLICE_SIZE, DevMerged, build_dev_merged

REVIEW = """\
F1 — Dispatcher [IMPORTANT Correctness]
dispatch.py:2 drops a case.

F2 — Repair [MINOR Testing]
The fix at https://github.com/o/r/blob/{repair_one}/train.py#L4-L5 is wrong.

F3 — The merge of dev's own line [IMPORTANT Correctness]
train.py:8 keeps neither side.

F4 — Gone [LOW Docs]
missing.py:3
"""

RANGE_KEYS = [
    "path", "start", "end", "commit", "source", "outdated", "head_start", "head_end",
    "origins", "file_identical_to", "note",
]  # fmt: skip


@pytest.fixture
def built(tmp_path: Path) -> DevMerged:
    return build_dev_merged(tmp_path / "r")


def findings_cli(
    review: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", "--text-file", "-", *args],
        input=review, capture_output=True, text=True, env=os.environ, cwd=cwd, check=False,
        timeout=60,
    )  # fmt: skip


def traced(built: DevMerged, fmt: str, review: str = "") -> subprocess.CompletedProcess[str]:
    text = review or REVIEW.format(repair_one=built.shas["repair_one"])
    return findings_cli(
        text, "--repo", str(built.path), "--head", "sync", "--slice-size", str(SLICE_SIZE),
        "--format", fmt,
    )  # fmt: skip


def test_json_adds_origins_per_range_and_the_suggestion_per_finding(built: DevMerged) -> None:
    result = traced(built, "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    shas = built.shas
    assert list(data) == ["head", "ours", "notes", "findings"]
    assert data["head"] == shas["head"] and data["notes"] == []
    assert data["ours"]["from_dev"] == [shas[n] for n in ("pr_one", "pr_two", "pr_three")]
    f1, f2, f3, f4 = data["findings"]
    assert list(f1) == [
        "id", "label", "severity", "level", "category", "title", "ranges", "status",
        "suggested", "suggested_reason",
    ]  # fmt: skip
    assert all(list(r) == RANGE_KEYS for f in data["findings"] for r in f["ranges"])
    # A dev pull request's line, brought in by a merge of dev: dev's, fixed on dev.
    assert f1["ranges"][0]["origins"] == {
        "slice": 0, "dev": 1, "shared": 0, "merge": 0, "repair": 0,
    }  # fmt: skip
    assert (f1["suggested"], f1["suggested_reason"]) == (
        "fix-on-dev",
        f"1 cited line from dev {shas['pr_one'][:7]} ([dev] dispatch thd (#11))",
    )
    # Cited on the first repair: mapped to the head's lines, as the report maps them.
    [cited] = f2["ranges"]
    assert (cited["commit"], cited["head_start"], cited["head_end"]) == (shas["repair_one"], 4, 5)
    assert cited["origins"]["shared"] == cited["origins"]["repair"] == 1
    assert f2["suggested"] == "fix-here"
    assert f3["ranges"][0]["origins"]["repair"] == 1
    assert f3["suggested_reason"] == (
        f"1 cited line from our merge of dev {shas['dev_merge_two'][:8]} (its own resolution)"
    )
    assert f4["ranges"][0]["note"] == "the file is not at the head"
    assert f4["suggested"] == "undecided"


def test_text_names_ours_each_suggestion_and_each_ranges_origins(built: DevMerged) -> None:
    result = traced(built, "text")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    shas = built.shas
    assert lines[0] == f"Traced on {shas['head'][:12]}"
    assert lines[1].startswith(f"Ours: merge {shas['merge'][:8]} + 5 on top: repairs ")
    assert lines[2:5] == [
        "F1 [IMPORTANT Correctness] Dispatcher",
        f"    suggested: Fix on dev: 1 cited line from dev {shas['pr_one'][:7]} "
        "([dev] dispatch thd (#11))",
        "    dispatch.py:2-2: lines 2-2: dev 1",
    ]
    assert f"    train.py:4-5 at {shas['repair_one'][:12]}: lines 4-5: shared 1 · repair 1" in lines
    assert "    missing.py:3-3: the file is not at the head" in lines


def test_hostile_text_is_shown_not_obeyed(built: DevMerged) -> None:
    review = "F1 — Evil \x1b[2J\u202eexe [@click=app.quit]q[/]\n[HIGH X] dispatch.py:2\n"
    for fmt in ("text", "json"):
        result = traced(built, fmt, review)
        assert result.returncode == 0, result.stderr
        for raw in ("\x1b", "\u202e"):
            assert raw not in result.stdout
        assert "^[[2J<U+202E>exe [@click=app.quit]q[/]" in result.stdout


def test_without_repo_it_stays_the_offline_parser(built: DevMerged) -> None:
    # Even run inside the repository: only --repo given to `findings` traces.
    result = findings_cli(
        "F1 — Look\n[LOW Docs] dispatch.py:2\n", "--format", "json", cwd=built.path
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == ["findings"]
    assert data["findings"][0]["ranges"] == [
        {"path": "dispatch.py", "start": 2, "end": 2, "commit": None}
    ]


@pytest.mark.parametrize("args", [["--repo", "/nonexistent/repo"], ["--head", "no-such-branch"]])
def test_a_bad_repository_or_ref_is_one_line(built: DevMerged, args: list[str]) -> None:
    options = ["--repo", str(built.path), *args] if args[0] == "--head" else args
    result = findings_cli("F1 — Look\n[LOW Docs] dispatch.py:2\n", *options)
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
