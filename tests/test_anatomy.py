"""The anatomy of a sync branch: each rule, and a branch made to break each one."""

from __future__ import annotations

from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync
from tests.syncrepo import build_sync_repo, core


def anatomy_of(built, head=None):
    session = open_sync(SyncOptions(repo=built.path, head=head, slice_size=built.slice_size))
    return load_report(session).anatomy


def test_healthy_branch_with_repair(tmp_path):
    built = build_sync_repo(tmp_path / "r", merge_message="Update the README")
    anatomy = anatomy_of(built)
    assert anatomy.ok
    assert anatomy.problems == ()
    assert anatomy.head == built.repo.rev("sync")
    # Found by its parents, whatever its message says.
    assert anatomy.merge == built.merge
    parents = built.git("rev-list", "--parents", "-n1", built.sync_merge).split()[1:]
    assert [anatomy.dev_base, anatomy.slice_tip] == parents
    assert anatomy.dev_base == built.repo.rev("dev")
    assert anatomy.slice_tip == built.main_line[built.slice_size - 1]
    assert anatomy.slice_position == built.slice_size
    assert anatomy.repair == built.repo.rev("sync") != built.merge
    assert anatomy.on_top == (anatomy.repair,)


def test_healthy_branch_without_repair(tmp_path):
    built = build_sync_repo(tmp_path / "r", repair=False)
    anatomy = anatomy_of(built)
    assert anatomy.ok
    assert anatomy.merge == built.repo.rev("sync")
    assert anatomy.repair is None
    assert anatomy.on_top == ()


def test_dev_moving_on_does_not_break_the_anatomy(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    anatomy = anatomy_of(built)
    assert anatomy.ok
    assert anatomy.dev_base == built.dev_base != built.repo.rev("dev")


def test_no_sync_merge(tmp_path):
    # The branch has a commit *titled* like a sync merge, but no merge at all.
    built = build_sync_repo(tmp_path / "r", no_merge=True)
    assert "Merge branch 'main' into dev" in built.git("log", "--format=%s", "dev..sync")
    anatomy = anatomy_of(built)
    assert anatomy.codes == ("no-sync-merge",)
    assert (anatomy.merge, anatomy.dev_base, anatomy.slice_tip, anatomy.repair) == (None,) * 4
    assert not anatomy.ok
    assert "no merge on this branch" in anatomy.problems[0].message


def test_a_head_already_on_dev_says_so(tmp_path):
    # A sync that has landed: dev itself contains the head, so there is nothing to check.
    built = build_sync_repo(tmp_path / "r")
    anatomy = anatomy_of(built, head="dev")
    assert anatomy.codes == ("no-sync-merge",)
    assert "already on dev" in anatomy.problems[0].message


def test_slice_not_on_main(tmp_path):
    built = build_sync_repo(tmp_path / "r", rewrite_slice=True)
    # Parent 2 carries the same changes as main's slice, under other SHAs.
    assert built.git("diff", built.parent2, built.main_line[built.slice_size - 1]) == ""
    assert built.slice_tip not in built.main_line
    anatomy = anatomy_of(built)
    assert anatomy.codes == ("slice-not-on-main",)
    assert anatomy.merge == built.merge
    assert anatomy.slice_tip == built.slice_tip
    assert built.parent2[:8] in anatomy.problems[0].message


def report_of(built, head=None, slice_size=None):
    size = built.slice_size if slice_size is None else slice_size
    return load_report(open_sync(SyncOptions(repo=built.path, head=head, slice_size=size)))


def test_a_merge_that_imported_fewer_than_configured_reads_healthy(tmp_path):
    # Real syncs import 8 to 274 commits: the count is the merge's, not a rule.
    built = build_sync_repo(tmp_path / "r", tip_index=3)
    report = report_of(built)
    assert report.anatomy.ok
    assert report.anatomy.slice_position == 3
    the_slice = report.slice
    assert [c.sha for c in the_slice.commits] == built.main_line[:3]
    assert (the_slice.size, the_slice.usual, the_slice.imported) == (3, built.slice_size, True)
    assert the_slice.remaining == len(built.main_line) - 3


def test_a_merge_that_imported_more_than_configured_reads_healthy(tmp_path):
    built = build_sync_repo(tmp_path / "r", tip_index=7)
    report = report_of(built)
    assert report.anatomy.ok
    assert report.slice.tip == built.main_line[6] == report.anatomy.slice_tip
    assert len(report.slice.commits) == 7
    assert report.slice.remaining == len(built.main_line) - 7


def test_without_a_merge_the_configured_size_picks_the_next_slice(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    report = report_of(built, head="dev", slice_size=2)
    assert report.anatomy.codes == ("no-sync-merge",)
    assert [c.sha for c in report.slice.commits] == built.main_line[:2]
    assert (report.slice.size, report.slice.imported) == (2, False)


def test_slice_tip_off_mains_first_parent_line(tmp_path):
    built = build_sync_repo(tmp_path / "r", main_merge_at=3)
    side_tip = built.side_commits[-1]
    built.repo.checkout("offline", built.dev_base)
    built.repo.merge(side_tip, "Sync", resolve={"pkg/core.py": core("mixed")})
    anatomy = anatomy_of(built, head="offline")
    assert anatomy.codes == ("slice-tip-mismatch",)
    assert anatomy.slice_position is None
    assert "not on its first-parent line" in anatomy.problems[0].message
    assert "slice of" not in anatomy.problems[0].message


def test_dev_base_not_on_dev(tmp_path):
    built = build_sync_repo(tmp_path / "r", base_off_dev=True)
    assert built.git("branch", "--contains", built.dev_base, "--format=%(refname:short)") == "sync"
    anatomy = anatomy_of(built)
    assert anatomy.codes == ("dev-base-not-on-dev",)
    assert anatomy.dev_base == built.dev_base
    assert built.dev_base[:8] in anatomy.problems[0].message


def test_extra_commits_on_top(tmp_path):
    built = build_sync_repo(tmp_path / "r", extra_on_top=1)
    anatomy = anatomy_of(built)
    assert anatomy.codes == ("extra-commits-on-top",)
    assert anatomy.on_top == tuple(built.on_top)
    assert len(anatomy.on_top) == 2
    assert anatomy.repair is None
    assert "2 commits after the merge" in anatomy.problems[0].message


def test_dev_merge_on_top(tmp_path):
    built = build_sync_repo(tmp_path / "r", repair=False, dev_merge_on_top=True)
    dev_merge = built.repo.rev("sync")
    anatomy = anatomy_of(built)
    assert anatomy.codes == ("dev-merge-on-top",)
    assert anatomy.merge == built.merge != dev_merge
    assert anatomy.on_top == (dev_merge,)
    assert anatomy.repair is None  # a merge is never the repair commit
    assert dev_merge[:8] in anatomy.problems[0].message


def test_every_violation_is_reported_not_just_the_first(tmp_path):
    built = build_sync_repo(tmp_path / "r", tip_index=4, base_off_dev=True, dev_merge_on_top=True)
    anatomy = anatomy_of(built)
    assert set(anatomy.codes) == {  # importing 4 of the configured 5 is not among them
        "dev-base-not-on-dev",
        "extra-commits-on-top",
        "dev-merge-on-top",
    }
