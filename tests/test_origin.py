"""Blame origin of cited ranges: each line's class is the one git's history gives it.

The expected classes are found with git in the test setup, independently of
the code under test: a line the repair diff added, a line of the merge's tree
that neither parent has, a line only the dev base's file has, a line only the
slice tip's file has, an old line every version shares. Small repositories
built commit by commit cover the hard cases (older commits, unknown commits,
deleted files, ranges past the end, the base side, awkward paths).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.errors import Cancelled, MissingRefError
from syncdesk.services.git.runner import Git, GitResult
from syncdesk.services.progress import Steps
from syncdesk.services.review.advice import evidence_line, origin_summary, suggest_disposition
from syncdesk.services.review.blame import map_range, merge_spans
from syncdesk.services.review.models import (
    CitedRange,
    Disposition,
    Finding,
    Origin,
    OriginRun,
    RangeOrigin,
)
from syncdesk.services.review.origin import classify_ranges
from syncdesk.services.review.parse import review_findings
from syncdesk.services.review.trace import trace_findings
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from tests.conflictrepo import numbered, replace_lines
from tests.gitrepo import GitRepo
from tests.oursrepo import LINES, SLICE_SIZE, DevMerged, build_dev_merged


class RecordingGit(Git):
    """A real Git that remembers the arguments of every command it ran."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.calls: list[list[str]] = []

    def run(self, args: Sequence[str], **kwargs: Any) -> GitResult:
        self.calls.append(list(args))
        return super().run(args, **kwargs)

    def count(self, command: str) -> int:
        return sum(1 for call in self.calls if call[0] == command)


def raw(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, check=True, text=True
    ).stdout


# --- the demo world: every class, found with git ------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> DemoFacts:
    return build_world(tmp_path_factory.mktemp("origin-demo"))


def classify(git: Git, facts: DemoFacts, ranges: Sequence[CitedRange], **kw: Any):
    return classify_ranges(
        git,
        ranges,
        head=kw.pop("head", facts.sync_branch),
        merge=kw.pop("merge", facts.merge),
        dev_base=facts.dev_base,
        slice_tip=facts.slice_tip,
        main_tip=facts.main_tip,
        **kw,
    )


def added_lines(repo: Path, old: str, new: str, path: str) -> set[int]:
    """New-side line numbers that ``git diff -U0 old new`` adds to ``path``."""
    out = raw(repo, "diff", "-U0", old, new, "--", path)
    lines: set[int] = set()
    for match in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", out, re.M):
        start, count = int(match.group(1)), int(match.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


def file_lines(repo: Path, rev: str, path: str) -> list[str]:
    return raw(repo, "show", f"{rev}:{path}").splitlines()


def unique_line(
    facts: DemoFacts, path: str, *, present: Sequence[str], absent: Sequence[str]
) -> int:
    """A head line whose text is once in each ``present`` rev's file and not in ``absent``."""
    repo = facts.repo
    head = file_lines(repo, facts.sync_branch, path)
    here = [file_lines(repo, rev, path) for rev in present]
    gone = [set(file_lines(repo, rev, path)) for rev in absent]
    for number, text in enumerate(head, start=1):
        if len(text.strip()) < 8 or head.count(text) != 1:
            continue
        if all(lines.count(text) == 1 for lines in here) and not any(text in g for g in gone):
            return number
    raise AssertionError(f"no such line in {path}")


def origin_at(result: RangeOrigin, line: int) -> OriginRun:
    return next(run for run in result.runs if run.start <= line <= run.end)


def test_every_class_in_the_demo(world: DemoFacts) -> None:
    repo, git = world.repo, Git(world.repo)
    fork = raw(repo, "merge-base", world.dev_base, world.slice_tip).strip()
    repair_path = "lumen/inference/engine.py"
    repair_line = min(added_lines(repo, world.merge, world.repair, repair_path))
    evil = world.evil_merge_files[-1]
    merge_line = min(
        added_lines(repo, world.dev_base, world.merge, evil)
        & added_lines(repo, world.slice_tip, world.merge, evil)
        - added_lines(repo, world.merge, world.repair, evil)
    )
    loader = "lumen/data/loader.py"
    dev_line = unique_line(world, loader, present=[world.dev_base], absent=[world.slice_tip, fork])
    slice_line = unique_line(
        world, loader, present=[world.slice_tip], absent=[world.dev_base, fork]
    )
    shared_line = unique_line(
        world, loader, present=[fork, world.dev_base, world.slice_tip], absent=[]
    )
    cited = [
        CitedRange(repair_path, repair_line, repair_line),
        CitedRange(evil, merge_line, merge_line),
        CitedRange(loader, dev_line, dev_line),
        CitedRange(loader, slice_line, slice_line),
        CitedRange(loader, shared_line, shared_line),
    ]
    results = classify(git, world, cited)
    expected = [Origin.REPAIR, Origin.MERGE, Origin.DEV, Origin.SLICE, Origin.SHARED]
    assert [r.runs[0].origin for r in results] == expected
    assert [r.counts for r in results] == [{kind: 1} for kind in expected]
    assert results[0].runs[0].commit == world.repair
    assert results[1].runs[0].commit == world.merge
    dev_only = set(raw(repo, "rev-list", f"{world.slice_tip}..{world.dev_base}").split())
    assert results[2].runs[0].commit in dev_only
    assert results[3].runs[0].commit in world.slice
    assert (
        results[3].runs[0].subject
        == raw(repo, "log", "-1", "--format=%s", results[3].runs[0].commit).strip()
    )
    assert all(r.note == "" for r in results)


def test_one_blame_per_file_and_few_processes(world: DemoFacts) -> None:
    git = RecordingGit(world.repo)
    paths = ["lumen/data/loader.py", "lumen/inference/engine.py", "lumen/inference/server.py"]
    cited = [CitedRange(path, start, start + 6) for path in paths for start in (1, 5, 20, 40)]
    results = classify(git, world, cited)
    blames = [call for call in git.calls if call[0] == "blame"]
    assert sorted(call[-1] for call in blames) == sorted(paths)
    # Overlapping ranges are joined: 1-7 and 5-11 become one -L.
    assert all(sum(arg.startswith("-L") for arg in call) == 3 for call in blames)
    # Besides the blames, whatever the size: one cat-file (refs, commits, blobs), two
    # rev-lists (the sides), and sync_ours's merge-base and two rev-lists (what is ours).
    assert [call[0] for call in git.calls if call[0] != "blame"] == [
        "cat-file",
        "rev-list",
        "rev-list",
        "merge-base",
        "rev-list",
        "rev-list",
    ]
    assert [r.range for r in results] == cited
    assert all(r.end - r.start == 6 and sum(r.counts.values()) == 7 for r in results)


def test_file_identical_to(world: DemoFacts) -> None:
    repo = world.repo

    def blobs(rev: str) -> dict[str, str]:
        out = raw(repo, "ls-tree", "-r", rev)
        return {line.split("\t")[1]: line.split()[2] for line in out.splitlines()}

    head, main, dev = blobs(world.sync_branch), blobs(world.main_tip), blobs(world.dev_base)
    kinds = {
        "main": next(p for p in head if head[p] == main.get(p) and head[p] != dev.get(p)),
        "dev": next(p for p in head if head[p] == dev.get(p) and head[p] != main.get(p)),
        "both": next(p for p in head if head[p] == dev.get(p) == main.get(p)),
        "": next(p for p in head if head[p] not in (dev.get(p), main.get(p))),
    }
    results = classify(Git(repo), world, [CitedRange(p, 1, 1) for p in kinds.values()])
    assert [r.file_identical_to for r in results] == list(kinds)


def test_without_a_merge_there_is_no_merge_or_repair_class(world: DemoFacts) -> None:
    cited = [CitedRange("lumen/inference/server.py", 1, 200)]
    [result] = classify(Git(world.repo), world, cited, head=world.dev_base, merge=None)
    assert set(result.counts) <= {Origin.DEV, Origin.SHARED}
    assert result.counts
    [at_head] = classify(Git(world.repo), world, cited, merge=None)
    # The merge and the repair are on neither side: left out, and said so.
    assert Origin.MERGE not in at_head.counts and Origin.REPAIR not in at_head.counts
    assert "on neither side" in at_head.note


def test_a_missing_ref_and_cancellation(world: DemoFacts) -> None:
    cited = [CitedRange("lumen/data/loader.py", 1, 2)]
    with pytest.raises(MissingRefError):
        classify(Git(world.repo), world, cited, head="no-such-branch")
    with pytest.raises(Cancelled):
        classify(Git(world.repo), world, cited, steps=Steps(cancelled=lambda: True))


# --- small repositories: the hard cases -------------------------------------------------

A = numbered(20, "a line")
ODD = "dir with space/ünïcödé name.py"


@dataclass
class Sync:
    repo: GitRepo
    shas: dict[str, str]

    @property
    def git(self) -> RecordingGit:
        return RecordingGit(self.repo.path)

    def classify(self, ranges: Sequence[CitedRange], **kw: Any) -> list[RangeOrigin]:
        return classify_ranges(
            kw.pop("git", self.git),
            ranges,
            head=kw.pop("head", "sync"),
            merge=kw.pop("merge", self.shas["merge"]),
            dev_base=self.shas["dev"],
            slice_tip=self.shas["slice"],
            main_tip=self.shas["main"],
            **kw,
        )


@pytest.fixture
def sync(tmp_path: Path) -> Sync:
    """Built per test, inside the hermetic seal (a module-scoped fixture would be built outside)."""
    repo = GitRepo(tmp_path / "r")
    shas = {"root": repo.commit("Base", {"a.py": A, "gone.py": "x\n", ODD: numbered(5, "odd")})}
    repo.checkout("dev", shas["root"])
    a_dev = replace_lines(A, {3: "dev three\n"})
    shas["dev"] = repo.commit("dev: three", {"a.py": a_dev, "dev.py": "dev only\n"})
    repo.checkout("main")
    a_main = replace_lines(A, {15: "main fifteen\n"})
    shas["slice"] = repo.commit("main: fifteen (#7)", {"a.py": a_main, ODD: numbered(6, "odd")})
    shas["main"] = repo.commit("main: later", {"later.py": "later\n"})
    repo.checkout("sync", shas["dev"])
    a_merged = replace_lines(A, {3: "dev three\n", 15: "main fifteen\n", 10: "merge ten\n"})
    shas["merge"] = repo.merge(shas["slice"], "Merge main into dev", resolve={"a.py": a_merged})
    a_head = "# header one\n# header two\n" + replace_lines(a_merged, {12: "repair twelve\n"})
    shas["repair"] = repo.commit("Repair the sync", {"a.py": a_head, "gone.py": None})
    return Sync(repo, shas)


def test_each_class_in_a_small_sync(sync: Sync) -> None:
    [result] = sync.classify([CitedRange("a.py", 1, 22)])
    by_line = {n: origin_at(result, n).origin for n in range(1, 23)}
    assert by_line[1] == by_line[2] == by_line[14] == Origin.REPAIR
    assert by_line[5] == Origin.DEV  # dev's line 3, two header lines down
    assert by_line[12] == Origin.MERGE
    assert by_line[17] == Origin.SLICE
    assert by_line[4] == Origin.SHARED
    assert result.counts == {Origin.SLICE: 1, Origin.DEV: 1, Origin.SHARED: 16, Origin.MERGE: 1,
                             Origin.REPAIR: 3}  # fmt: skip
    assert origin_summary([result]) == "slice 1 · dev 1 · shared 16 · merge 1 · repair 3"
    slice_run = origin_at(result, 17)
    assert (slice_run.commit, slice_run.subject, slice_run.author) == (
        sync.shas["slice"],
        "main: fifteen (#7)",
        "Ada Maintainer",
    )
    # Runs are maximal: the shared lines 6-11 are one run.
    assert any(run.start == 6 and run.end == 11 for run in result.runs)


def test_a_range_on_an_older_commit_is_mapped_to_the_head(sync: Sync) -> None:
    git = sync.git
    merge = sync.shas["merge"]
    shifted, changed = sync.classify(
        [CitedRange("a.py", 3, 4, commit=merge), CitedRange("a.py", 11, 12, commit=merge)], git=git
    )
    assert (shifted.start, shifted.end) == (5, 6)
    assert shifted.runs[0].origin == Origin.DEV and shifted.runs[-1].origin == Origin.SHARED
    assert f"at {merge[:8]} are 5-6" in shifted.note
    assert f"lines changed since {merge[:8]}" in changed.note
    assert (changed.start, changed.end) == (13, 14)
    assert Origin.REPAIR in changed.counts
    assert git.count("diff") == 1  # one diff for the (commit, path) both ranges share


def test_an_outdated_comment_and_a_file_the_cited_commit_lacks(sync: Sync) -> None:
    outdated, new_file = sync.classify(
        [
            CitedRange("a.py", 3, 3, commit=sync.shas["merge"], outdated=True, source="inline"),
            CitedRange("dev.py", 1, 1, commit=sync.shas["root"]),
        ]
    )
    assert (outdated.start, outdated.runs[0].origin) == (5, Origin.DEV)
    assert (
        new_file.note
        == f"the file is not at {sync.shas['root'][:8]}; the lines are taken as the head's"
    )
    assert new_file.runs[0].origin == Origin.DEV


def test_a_short_sha_and_an_unknown_commit(sync: Sync) -> None:
    short, unknown, head = sync.classify(
        [
            CitedRange("a.py", 3, 3, commit=sync.shas["merge"][:7]),
            CitedRange("a.py", 3, 3, commit="0123456789abcdef"),
            CitedRange("a.py", 3, 3, commit=sync.shas["repair"][:10]),
        ]
    )
    assert (short.start, short.runs[0].origin) == (5, Origin.DEV)
    assert unknown.note == "commit 0123456789abcdef is not in this repository; taken as the head"
    assert (unknown.start, unknown.runs[0].origin) == (3, Origin.SHARED)
    assert (head.start, head.note) == (3, "")


def test_a_deleted_file_and_ranges_past_the_end(sync: Sync) -> None:
    gone, clipped, beyond = sync.classify(
        [CitedRange("gone.py", 1, 1), CitedRange("a.py", 20, 30), CitedRange("a.py", 40, 45)]
    )
    assert gone.note == "the file is not at the head"
    assert (gone.runs, gone.counts, gone.start, gone.end) == ((), {}, 0, 0)
    assert clipped.note == "lines 23-30 are past the end of the file (22 lines)"
    assert (clipped.start, clipped.end, sum(clipped.counts.values())) == (20, 22, 3)
    assert beyond.note == "lines 40-45 are past the end of the file (22 lines)"
    assert beyond.runs == ()


def test_a_range_running_past_the_end_is_clipped_by_the_one_blame(sync: Sync) -> None:
    git = sync.git
    [clipped] = sync.classify([CitedRange("a.py", 21, 25)], git=git)
    assert clipped.note == "lines 23-25 are past the end of the file (22 lines)"
    assert (clipped.start, clipped.end) == (21, 22)
    assert [call[0] for call in git.calls].count("blame") == 1
    assert ["cat-file", "blob"] not in [call[:2] for call in git.calls]


def test_only_a_range_past_the_end_reads_the_file_length(sync: Sync) -> None:
    [beyond] = sync.classify([CitedRange("dev.py", 5, 9)])
    assert beyond.note == "lines 5-9 are past the end of the file (1 lines)"
    assert beyond.runs == ()


def test_the_left_side_is_blamed_at_the_dev_base(sync: Sync) -> None:
    git = sync.git
    [left] = sync.classify([CitedRange("a.py", 3, 3, side="LEFT")], git=git)
    assert left.runs[0].origin == Origin.DEV and (left.start, left.end) == (3, 3)
    assert "base side" in left.note
    assert any(call[0] == "blame" and sync.shas["dev"] in call for call in git.calls)


def test_paths_with_spaces_and_unicode(sync: Sync) -> None:
    [odd] = sync.classify([CitedRange(ODD, 5, 6)])
    assert [run.origin for run in odd.runs] == [Origin.SHARED, Origin.SLICE]
    assert odd.file_identical_to == "main"


def test_a_path_with_a_newline(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    name = "new\nline.py"
    root = repo.commit("Base", {name: "one\n", "x.py": "x\n"})
    repo.checkout("dev", root)
    dev = repo.commit("dev: two", {name: "one\ntwo\n"})
    [result] = classify_ranges(
        Git(repo.path), [CitedRange(name, 1, 2)], head=dev, merge=None, dev_base=dev,
        slice_tip=root, main_tip=root,
    )  # fmt: skip
    assert [run.origin for run in result.runs] == [Origin.SHARED, Origin.DEV]
    assert result.file_identical_to == "dev"


# --- dev merged in on top of the sync (tests/oursrepo.py, docs/ours.md) -------------------

ORIGIN_OF = {
    "root": Origin.SHARED,
    "dev_base": Origin.DEV,
    "main_one": Origin.SLICE,
    "merge": Origin.MERGE,
    "repair_one": Origin.REPAIR,
    "repair_three": Origin.REPAIR,
    "dev_merge_two": Origin.REPAIR,  # the merge of dev's own resolution is ours
    "pr_one": Origin.DEV,  # dev's pull requests, brought in by the merges of dev
    "pr_two": Origin.DEV,
    "pr_three": Origin.DEV,
}


def classify_dev_merged(built: DevMerged, cited: Sequence[CitedRange], **kw: Any):
    return classify_ranges(
        Git(built.path), cited, head="sync", merge=built.shas["merge"],
        dev_base=built.shas["dev_base"], slice_tip=built.shas["main_two"],
        main_tip=built.shas["main_three"], **kw,
    )  # fmt: skip


def test_dev_merged_on_top_every_line_has_its_class(tmp_path: Path) -> None:
    built = build_dev_merged(tmp_path / "r")
    cited = [
        CitedRange(path, built.line(path, text), built.line(path, text)) for path, text in LINES
    ]
    results = classify_dev_merged(built, cited, dev_tip="dev")
    for (path, text), result in zip(LINES, results, strict=True):
        [run] = result.runs
        writer = LINES[(path, text)]
        assert run.commit == built.shas[writer] == built.blamed(path, result.start), text
        assert (run.origin, result.note) == (ORIGIN_OF[writer], ""), text
        assert run.by_merge == (writer == "dev_merge_two"), text


def test_dev_merged_on_top_without_dev_tip_dev_prs_are_never_repair(tmp_path: Path) -> None:
    # Without dev's tip the PR commits cannot be called dev's; they are still not ours.
    built = build_dev_merged(tmp_path / "r")
    line = built.line("dispatch.py", "dev pr one two")
    [result] = classify_dev_merged(built, [CitedRange("dispatch.py", line, line)])
    assert result.counts == {} and "on neither side" in result.note
    line = built.line("train.py", "dev merge eight")
    [result] = classify_dev_merged(built, [CitedRange("train.py", line, line)])
    assert result.counts == {Origin.REPAIR: 1}


DEV_MERGED_REVIEW = """\
F1 — Dispatcher [IMPORTANT Correctness]
dispatch.py:1-3 and dispatch.py:11 drop a case.

F2 — Training [MINOR Testing]
The fix at {link} is wrong.

F3 — Resolution of train.py [IMPORTANT Correctness]
train.py:8 keeps neither side.

F4 — Core [NIT Style]
core.py:15 and core.py:10.

F5 — Slice only [LOW Docs]
core.py:15

F6 — Both [LOW Docs]
dispatch.py:7 and core.py:29
"""


def test_dev_merged_on_top_dispositions(tmp_path: Path) -> None:
    built = build_dev_merged(tmp_path / "r")
    repair_one = built.shas["repair_one"]
    # A link at the first repair: train.py line 5 is the same line at the head.
    link = f"https://github.com/o/r/blob/{repair_one}/train.py#L5"
    session = open_sync(
        SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE),
        user_config=Path("/nonexistent"),
    )
    findings = review_findings(DEV_MERGED_REVIEW.format(link=link))
    traced = trace_findings(session, findings)
    got = {view.finding.id: (view.suggested, view.reason) for view in traced.views}
    shas = built.shas
    assert got == {
        "F1": (Disposition.FIX_ON_DEV, f"2 cited lines from dev {shas['pr_one'][:7]} "
               "([dev] dispatch thd (#11))"),
        "F2": (Disposition.FIX_HERE, f"1 cited line from the repair commit {repair_one[:8]}"),
        "F3": (Disposition.FIX_HERE, f"1 cited line from our merge of dev "
               f"{shas['dev_merge_two'][:8]} (its own resolution)"),
        "F4": (Disposition.FIX_HERE, f"1 cited line from the merge {shas['merge'][:8]}"),
        "F5": (Disposition.FIX_ON_MAIN, f"1 cited line from main {shas['main_one'][:7]} "
               "(main: fifteen (#1))"),
        "F6": (Disposition.FIX_HERE, f"1 cited line from the repair commit "
               f"{shas['repair_three'][:8]}"),
    }  # fmt: skip
    [f2_range] = traced.views[1].origins
    assert (f2_range.range.commit, f2_range.start) == (repair_one, 5)
    f1 = traced.views[0]
    assert f1.origins[0].counts == {Origin.SHARED: 2, Origin.DEV: 1}
    assert f1.evidence.endswith(f"the cited lines come from dev {shas['pr_one'][:7]} "
                                "([dev] dispatch thd (#11)) and code older than both "
                                f"branches, {shas['root'][:7]} (Base)")  # fmt: skip
    f3 = traced.views[2]
    assert f3.evidence == (
        f"F3: the cited lines come from our merge of dev {shas['dev_merge_two'][:7]} "
        "(Merge dev again) (its own resolution)"
    )
    assert traced.ours is not None and traced.ours.dev == shas["pr_three"]


# --- pure parts -------------------------------------------------------------------------


def test_map_range() -> None:
    # Insert 2 lines after line 2; lines 5-6 become one; line 10 is deleted.
    hunks = [(2, 0, 3, 2), (5, 2, 7, 1), (10, 1, 10, 0)]
    assert map_range(hunks, 1, 2) == (1, 2, False)
    assert map_range(hunks, 3, 4) == (5, 6, False)
    assert map_range(hunks, 2, 3)[2] is True  # an insertion inside the range
    assert map_range(hunks, 5, 6) == (7, 7, True)
    assert map_range(hunks, 8, 9) == (9, 10, False)
    assert map_range(hunks, 10, 10) == (10, 11, True)  # deleted: the lines around the gap
    assert map_range(hunks, 11, 12) == (11, 12, False)


def test_merge_spans() -> None:
    assert merge_spans([(5, 9), (1, 3), (4, 4), (20, 22), (21, 30)]) == [(1, 9), (20, 30)]


# --- dispositions -----------------------------------------------------------------------

CITED = CitedRange("lumen/x.py", 1, 3)


def ranged(*runs: tuple[Origin, int], identical: str = "") -> RangeOrigin:
    counts: dict[Origin, int] = {}
    made = []
    line = 1
    for kind, size in runs:
        counts[kind] = counts.get(kind, 0) + size
        made.append(OriginRun(line, line + size - 1, kind, f"{kind.value[0]}" * 40, "Subj", "Ann"))
        line += size
    return RangeOrigin(CITED, 1, line - 1, counts, tuple(made), identical)


def finding(status: str = "") -> Finding:
    return Finding("F2", "IMPORTANT", "Correctness", "t", "b", (CITED,), status)


@pytest.mark.parametrize(
    ("origins", "status", "expected"),
    [
        ([ranged((Origin.SLICE, 3))], "closed", Disposition.CLOSED),
        ([], "", Disposition.UNDECIDED),
        ([ranged((Origin.SLICE, 5), (Origin.REPAIR, 1))], "", Disposition.FIX_HERE),
        ([ranged((Origin.SHARED, 5), (Origin.MERGE, 2))], "", Disposition.FIX_HERE),
        ([ranged((Origin.SLICE, 1), (Origin.DEV, 4))], "", Disposition.FIX_ON_MAIN),
        ([ranged((Origin.DEV, 4))], "", Disposition.FIX_ON_DEV),
        ([ranged((Origin.SHARED, 4), identical="main")], "", Disposition.FIX_ON_MAIN),
        ([ranged((Origin.SHARED, 4), identical="both")], "", Disposition.FIX_ON_MAIN),
        ([ranged((Origin.SHARED, 4), identical="dev")], "", Disposition.UNDECIDED),
    ],
)
def test_suggest_disposition(
    origins: list[RangeOrigin], status: str, expected: Disposition
) -> None:
    assert suggest_disposition(finding(status), origins)[0] == expected


def test_reasons_and_evidence() -> None:
    assert suggest_disposition(finding(), []) == (Disposition.UNDECIDED, "no cited lines")
    here = [ranged((Origin.SLICE, 5), (Origin.REPAIR, 1))]
    assert suggest_disposition(finding(), here)[1] == "1 cited line from the repair commit rrrrrrrr"
    on_main = [ranged((Origin.SLICE, 3), identical="main")]
    assert suggest_disposition(finding(), on_main)[1] == "3 cited lines from main sssssss (Subj)"
    assert evidence_line(finding(), on_main) == (
        "F2: x.py is identical to main; the cited lines come from main sssssss (Subj)"
    )
    gone = replace(ranged(), note="the file is not at the head", start=0, end=0)
    assert suggest_disposition(finding(), [gone]) == (
        Disposition.UNDECIDED,
        "the file is not at the head",
    )
    assert evidence_line(finding(), [gone]) == "F2: x.py: the file is not at the head"
    assert origin_summary([gone]) == "no lines"


def test_display_fields_are_sanitized(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    root = repo.commit(
        "Tune \x1b]52;c;ZXZpbA==\x07 it", {"f.py": "one\n"}, author=("E\x1bvil", "e@x")
    )
    [result] = classify_ranges(
        Git(repo.path), [CitedRange("f.py", 1, 1)], head=root, merge=None, dev_base=root,
        slice_tip=root, main_tip=root,
    )  # fmt: skip
    run = result.runs[0]
    assert "\x1b" not in run.subject + run.author and "^[" in run.subject + run.author


def test_a_nul_in_a_cited_path_or_commit_is_noted_not_fatal(demo_facts) -> None:
    from syncdesk.services.review.models import CitedRange

    git = Git(demo_facts.repo)
    good = CitedRange("lumen/inference/engine.py", 1, 2)
    ranges = [CitedRange("a\0b.py", 1, 2), good, CitedRange("x.py", 1, 1, commit="ab\0cd")]
    found = classify_ranges(
        git, ranges, head=demo_facts.repair, merge=demo_facts.merge,
        dev_base=demo_facts.dev_base, slice_tip=demo_facts.slice_tip,
        main_tip=demo_facts.main_tip,
    )  # fmt: skip
    assert [o.range for o in found] == ranges
    assert "not a name git has" in found[0].note and "not a name git has" in found[2].note
    assert found[1].runs and not found[0].runs
