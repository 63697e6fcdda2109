"""The large world (``syncdesk demo --scale large``) has the shape its benchmarks rely on.

Most tests build it at a tenth of its size (same commits, same conflicts, smaller files) and
read it with syncdesk's own services and raw git; one builds it at full size through the real
command, its pull request included. Nothing here asserts on time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.demo.built import FACTS_FILE
from syncdesk.services.demo.large.spec import LargeFacts, LargeSpec
from syncdesk.services.demo.large.world import build_large_world, reusable
from syncdesk.services.git.runner import Git
from syncdesk.services.report.facts import to_json
from syncdesk.services.review.parse import review_findings
from syncdesk.services.sandbox.large import large_scenario
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync

SMALL = LargeSpec(scale=0.1)
LOCK_PREFIX = '    { url = "https://files.pythonhosted.org/packages/'


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    assert result.returncode in (0, 1), f"git {' '.join(args)}: {result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> LargeFacts:
    return build_large_world(tmp_path_factory.mktemp("large") / "world", SMALL)


@pytest.fixture(scope="module")
def report(small: LargeFacts) -> dict[str, Any]:
    session = open_sync(
        SyncOptions(repo=small.repo, head=small.sync_branch), user_config=Path("/nonexistent")
    )
    data: dict[str, Any] = to_json(load_report(session), session.config)
    return data


# -- the world as git sees it ----------------------------------------------------------------


def test_the_slice_is_100_of_a_400_commit_backlog(
    small: LargeFacts, report: dict[str, Any]
) -> None:
    assert git(small.repo, "rev-list", "--count", "dev..main").strip() == "400"
    assert small.backlog == 400 and small.slice_size == 100
    the_slice = report["slice"]
    assert [c["sha"] for c in the_slice["commits"]] == list(small.slice)
    assert (the_slice["size"], the_slice["remaining"]) == (100, 300)
    assert the_slice["dev_base"] == small.dev_base and the_slice["tip"] == small.slice_tip
    parents = git(small.repo, "rev-parse", f"{small.merge}^1", f"{small.merge}^2").split()
    assert parents == [small.dev_base, small.slice_tip]


def test_merge_tree_conflicts_on_exactly_the_scripted_files(small: LargeFacts) -> None:
    out = git(small.repo, "merge-tree", "--write-tree", "--name-only", small.dev_base,
              small.slice_tip)  # fmt: skip
    names = out.split("\n\n")[0].splitlines()[1:]  # the tree, then the conflicted files
    assert sorted(set(names)) == list(small.conflicts)
    assert len(small.conflicts) >= 80


def test_syncdesk_reads_every_conflict_and_its_resolution(
    small: LargeFacts, report: dict[str, Any]
) -> None:
    files = {f["path"]: f for f in report["conflicts"]["files"]}
    assert {path: f["type"] for path, f in files.items()} == small.conflict_types
    assert all(f["resolution"] != "unresolved" for f in files.values())
    assert files[small.lock_file]["resolution"] == "dev"  # keep-dev
    assert files[small.lock_file]["policy"] == "keep-dev"
    assert files[small.golden_file]["hunks"] >= 9
    assert files[small.arguments_file]["resolution"] == "custom"


def test_the_lock_file_and_the_golden_values_are_big_and_conflict_hugely(
    small: LargeFacts,
) -> None:
    lock = git(small.repo, "show", f"{small.head}:{small.lock_file}").splitlines()
    assert len(lock) == small.lock_lines >= SMALL.lock_lines
    assert sum(line.startswith(LOCK_PREFIX) for line in lock) > len(lock) // 2
    golden = git(small.repo, "show", f"{small.head}:{small.golden_file}")
    assert golden.count("\n") == small.golden_lines >= SMALL.golden_lines
    assert len(json.loads(golden)["lm loss"]["values"]) > 400
    conflicts = read_conflicts(Git(small.repo), small.dev_base, small.slice_tip, small.head)
    sides = {c.path: max(max(len(h.dev), len(h.main)) for h in c.hunks) for c in conflicts.files
             if c.hunks}  # fmt: skip
    assert sides[small.golden_file] == small.largest_hunk == SMALL.largest_hunk
    assert len(conflicts.file(small.lock_file).hunks) >= 10  # type: ignore[union-attr]


def test_the_merge_changes_many_files(small: LargeFacts) -> None:
    numstat = git(small.repo, "diff", "--numstat", f"{small.merge}^1", small.merge).splitlines()
    assert len(numstat) == small.merge_changed_files >= 100
    assert int(git(small.repo, "ls-tree", "-r", "--name-only", small.head).count("\n")) == (
        small.files
    )


def test_dev_merged_on_top_is_recognised(small: LargeFacts, report: dict[str, Any]) -> None:
    anatomy = report["anatomy"]
    assert [p["code"] for p in anatomy["problems"]] == ["extra-commits-on-top", "dev-merge-on-top"]
    assert anatomy["merge"] == small.merge
    assert anatomy["on_top"] == [small.repair, small.dev_merge, small.head]
    ours = anatomy["ours"]
    assert ours["merges"] == [small.dev_merge]
    assert ours["repairs"] == [small.repair, small.head]
    assert ours["from_dev"] == list(small.dev_brought) and len(small.dev_brought) == 4
    assert ours["dev"] == small.dev_merged
    advanced = report["dev_advanced"]
    assert [c["sha"] for c in advanced["commits"]] == list(small.dev_advanced)
    assert advanced["merges_cleanly"] is True


def test_the_audit_finds_the_lost_dev_lines_as_accidents(
    small: LargeFacts, report: dict[str, Any]
) -> None:
    summary = report["conflicts"]["audit_summary"]
    assert summary["dev"] == small.dev_merged  # judged against the dev the head holds
    accidents = [
        line
        for line in report["conflicts"]["audit"]
        if line["path"] == small.arguments_file
        and line["classification"] in ("probable-accident", "still-referenced")
    ]
    assert len(accidents) >= small.lost_dev_lines >= 27
    assert any("dev_feature_enabled" in line["text"] for line in accidents)


def test_the_review_cites_64_ranges_over_16_files_at_the_head(small: LargeFacts) -> None:
    scenario = large_scenario(small)
    (pull,) = scenario.pulls
    assert (pull.number, pull.head_sha, pull.head_ref) == (
        small.pr_number,
        small.head,
        small.sync_branch,
    )
    assert len(pull.commits) == 104  # the slice, the merge, the repair, the dev merge, the fix
    (review,) = pull.reviews
    found = review_findings(review.body, review_id=review.id, head=small.head)
    ranges = [cited for finding in found for cited in finding.ranges]
    assert len(found) == 16 and len(ranges) == len(small.cited) >= 60
    assert len({cited.path for cited in ranges}) == len(small.cited_files) >= 15
    for cited in ranges:
        length = git(small.repo, "show", f"{small.head}:{cited.path}").count("\n")
        assert cited.commit == small.head and 1 <= cited.start <= cited.end <= length


# -- building ---------------------------------------------------------------------------------


def test_the_build_is_deterministic_and_reused(small: LargeFacts, tmp_path: Path) -> None:
    calls: list[str] = []
    again = build_large_world(tmp_path / "again", SMALL, on_build=lambda: calls.append("built"))
    assert again == LargeFacts.from_json({**small.to_json(), "repo": str(again.repo)})
    assert reusable(tmp_path / "again", SMALL) == again
    assert build_large_world(tmp_path / "again", SMALL, on_build=lambda: calls.append("x")) == again
    assert calls == ["built"]
    (tmp_path / "again" / FACTS_FILE).write_text("{")
    assert reusable(tmp_path / "again", SMALL) is None


def test_a_bad_spec_is_refused() -> None:
    with pytest.raises(ValueError, match="scale"):
        LargeSpec(scale=0).validate()


# -- full size, through the real command -------------------------------------------------------


def test_the_full_size_world_through_syncdesk_demo(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "demo", "--scale", "large", "--dir", str(tmp_path),
         "--no-open", "--report", "json"],
        capture_output=True, text=True, check=False, env=os.environ.copy(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Building the large demo world" in result.stderr
    data = json.loads(result.stdout)
    facts = reusable(tmp_path.resolve())
    assert facts is not None
    assert facts.files >= 3000 and facts.merge_changed_files >= 300
    assert facts.lock_lines >= 10_000 and facts.golden_lines >= 25_000
    assert 2_900 <= facts.arguments_lines <= 3_300 and facts.largest_hunk == 2_000
    assert (data["slice"]["size"], data["slice"]["remaining"]) == (100, 300)
    assert len(data["conflicts"]["files"]) >= 80
    accidents = [
        line
        for line in data["conflicts"]["audit"]
        if line["path"] == facts.arguments_file and line["classification"] == "probable-accident"
    ]
    assert len(accidents) >= facts.lost_dev_lines >= 200
    assert "dev-merge-on-top" in {p["code"] for p in data["anatomy"]["problems"]}
    ranges = [r for finding in data["findings"] for r in finding["ranges"]]
    assert len(ranges) >= 60 and len({r["path"] for r in ranges}) >= 15
    assert data["pull_request"]["number"] == facts.pr_number
