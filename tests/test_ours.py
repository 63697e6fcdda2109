"""The one definition of "ours", on a sync branch with dev merged in on top (tests/oursrepo.py).

Ours: descends from the sync merge and dev's tip does not hold it (the repairs, and the merges of
dev with their own resolutions). Dev's: what a merge of dev brought in. Each judgment that says
"ours" is checked here against it: the sorting itself, the anatomy and the report, the coverage
of our lines, and the audit's scope, which must agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from syncdesk.services.git.runner import Git
from syncdesk.services.github.coverage import ours_lines
from syncdesk.services.report.facts import to_json, to_markdown, to_text
from syncdesk.services.report.serialize import to_json_text
from syncdesk.services.sync.branch_state import dev_advanced
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.ours import Ours, ours_summary, sync_ours
from syncdesk.services.sync.session import load_report, open_sync
from tests.oursrepo import SLICE_SIZE, DevMerged, build_dev_merged
from tests.syncrepo import build_sync_repo


@pytest.fixture
def built(tmp_path: Path) -> DevMerged:
    return build_dev_merged(tmp_path / "r")


def ours_of(built: DevMerged, dev_tip: str = "dev") -> Ours:
    shas = built.shas
    return sync_ours(Git(built.path), "sync", shas["merge"], shas["dev_base"], dev_tip)


def names(built: DevMerged, shas: tuple[str, ...]) -> list[str]:
    by_sha = {sha: name for name, sha in built.shas.items() if name != "head"}
    return [by_sha[sha] for sha in shas]


def test_repairs_and_merges_of_dev_are_ours_what_they_brought_is_devs(built: DevMerged) -> None:
    ours = ours_of(built)
    assert ours.merge == built.shas["merge"]
    assert names(built, ours.commits) == [
        "repair_one", "repair_two", "dev_merge_one", "dev_merge_two", "repair_three",
    ]  # fmt: skip
    assert names(built, ours.repairs) == ["repair_one", "repair_two", "repair_three"]
    assert names(built, ours.merges) == ["dev_merge_one", "dev_merge_two"]
    assert names(built, ours.from_dev) == ["pr_one", "pr_two", "pr_three"]
    assert ours.strays == ()
    # The newest dev commit the head holds, not dev's tip (pr_later is not merged in yet).
    assert ours.dev == built.shas["pr_three"] != built.repo.rev("dev")
    assert names(built, ours.brought_by(built.shas["dev_merge_one"])) == ["pr_one", "pr_two"]
    assert names(built, ours.brought_by(built.shas["dev_merge_two"])) == ["pr_three"]
    assert ours.judged[-1] == ours.merge and ours.judged[0] == built.shas["repair_three"]
    assert not ours.plain
    assert ours_summary(ours) == (
        f"merge {built.shas['merge'][:8]} + 5 on top: repairs "
        + " ".join(built.shas[n][:8] for n in ("repair_one", "repair_two", "repair_three"))
        + ", merges of dev "
        + " ".join(built.shas[n][:8] for n in ("dev_merge_one", "dev_merge_two"))
        + "; 3 commits those merges brought are dev's"
    )


def test_a_dev_ref_older_than_what_was_merged_leaves_strays(built: DevMerged) -> None:
    # A stale local dev: the PR commits the merges brought are on neither side, and
    # still not ours (they do not descend from the sync merge).
    ours = ours_of(built, dev_tip=built.shas["dev_base"])
    assert names(built, ours.merges) == ["dev_merge_one", "dev_merge_two"]
    assert len(ours.commits) == 5
    assert ours.from_dev == ()
    assert names(built, ours.strays) == ["pr_one", "pr_two", "pr_three"]
    assert ours.dev == built.shas["dev_base"]
    assert "3 commits they brought are on neither side" in (ours_summary(ours) or "")


def test_a_plain_sync_is_plain_and_says_nothing_more(tmp_path: Path) -> None:
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    ours = sync_ours(git, "sync", sync.sync_merge, sync.dev_base, "dev")
    assert ours.commits == (sync.repo.rev("sync"),) == ours.repairs
    assert ours.plain and ours_summary(ours) is None
    report = load_report(open_sync(SyncOptions(repo=sync.path, slice_size=sync.slice_size)))
    assert report.anatomy.ours == ours
    assert "Ours" not in to_text(report) and "- ours:" not in to_markdown(report)


def test_the_report_says_which_commits_were_counted_as_ours(built: DevMerged) -> None:
    session = open_sync(
        SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE),
        user_config=Path("/nonexistent"),
    )
    report = load_report(session)
    anatomy = report.anatomy
    assert anatomy.ours == ours_of(built)
    assert set(anatomy.codes) == {"extra-commits-on-top", "dev-merge-on-top"}
    merges = [p.message for p in anatomy.problems if p.code == "dev-merge-on-top"]
    assert merges == [
        f"merge {built.shas['dev_merge_one'][:8]} sits on top of the sync merge: "
        "it brought 2 dev commits (dev's); its own resolution is ours",
        f"merge {built.shas['dev_merge_two'][:8]} sits on top of the sync merge: "
        "it brought 1 dev commit (dev's); its own resolution is ours",
    ]
    text = to_text(report)
    assert f"Ours         {ours_summary(anatomy.ours)}\n" in text
    assert f"- ours: merge {built.shas['merge'][:8]} + 5 on top" in to_markdown(report)
    data = json.loads(to_json_text(to_json(report, session.config)))["anatomy"]["ours"]
    assert data["dev"] == built.shas["pr_three"]
    assert [names(built, tuple(data[key])) for key in ("repairs", "merges", "from_dev")] == [
        ["repair_one", "repair_two", "repair_three"],
        ["dev_merge_one", "dev_merge_two"],
        ["pr_one", "pr_two", "pr_three"],
    ]
    assert data["strays"] == [] and len(data["commits"]) == 5


def test_the_audit_judges_exactly_the_merge_and_ours(built: DevMerged) -> None:
    session = open_sync(
        SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE),
        user_config=Path("/nonexistent"),
    )
    report = load_report(session)
    assert report.audit is not None and report.anatomy.ours is not None
    assert report.audit.judged == report.anatomy.ours.judged
    assert report.audit.dev == report.anatomy.ours.dev


def test_coverage_counts_our_lines_and_a_dev_merges_own_not_dev_prs(built: DevMerged) -> None:
    written = ours_lines(Git(built.path), built.shas["head"], ours_of(built))
    line = built.line
    assert written == {
        "core.py": {line("core.py", "merge ten"), line("core.py", "repair three added")},
        "train.py": {line("train.py", "repair one five"), line("train.py", "dev merge eight")},
    }
    # The old rule (added relative to both parents of the sync merge) took dev's PR lines too.
    assert line("train.py", "dev pr two fifteen") not in written["train.py"]
    assert "dispatch.py" not in written


def test_findings_without_a_sync_merge_trace_and_say_so(tmp_path: Path) -> None:
    sync = build_sync_repo(tmp_path / "r", no_merge=True)
    review = tmp_path / "review.md"
    review.write_text("F1 — Look here\n[LOW Docs] core.py:1\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", "--text-file", str(review),
         "--repo", str(sync.path), "--head", "sync", "--format", "json"],
        capture_output=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    data = json.loads(result.stdout)
    assert data["ours"] is None
    assert data["notes"] == ["the head has no sync merge: no line is the merge's or ours"]
    origins = data["findings"][0]["ranges"][0]["origins"]
    assert origins["merge"] == origins["repair"] == 0 and sum(origins.values()) == 1


def test_dev_moved_on_counts_only_what_the_merges_of_dev_did_not_bring(built: DevMerged) -> None:
    git, shas = Git(built.path), built.shas
    advanced = dev_advanced(git, shas["dev_base"], "dev", "sync")
    # pr_one..pr_three came in through the merges of dev on top: only pr_later is new.
    assert [commit.sha for commit in advanced.commits] == [shas["pr_later"]]
