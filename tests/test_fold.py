"""Dev merged on top: folded into one merge on the newest dev plus one repair, the same files.

8 of 36 real syncs had dev merged into the sync branch during review. No
repair can be written over a merge; folding rebuilds the shape without
changing a byte of the result, and the desk offers it before any decision.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.errors import NothingToDoError, ServiceError
from syncdesk.services.git.refs import undo_last
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync
from syncdesk.services.write.fold import fold_merges, plan_fold
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.cli.run import main
from syncdesk.tui.widgets.sync_summary import SyncSummary
from tests.oursrepo import SLICE_SIZE, DevMerged, build_dev_merged
from tests.syncrepo import build_sync_repo
from tests.waiting import until, until_loaded, until_screen, until_toast
from tests.writing import raw_git


def _tree(path: Path, rev: str) -> str:
    return raw_git(path, "rev-parse", f"{rev}^{{tree}}").decode().strip()


def _parents(path: Path, rev: str) -> list[str]:
    return raw_git(path, "rev-list", "--parents", "-n1", rev).decode().split()[1:]


def _fold(built: DevMerged) -> tuple[Git, str]:
    git = Git(built.path)
    plan = plan_fold(git, "sync", dev="dev", main="main")
    result = fold_merges(git, plan)
    assert (result.anatomy_ok, result.tree_verified) == (True, True), result.problems
    return git, result.new_head


def test_fold_keeps_every_file_and_leaves_one_merge_on_the_newest_dev_plus_one_repair(
    tmp_path: Path,
) -> None:
    built = build_dev_merged(tmp_path / "r")
    shas = built.shas
    _, new_head = _fold(built)
    assert _tree(built.path, new_head) == _tree(built.path, shas["head"])  # byte for byte
    [new_merge] = _parents(built.path, new_head)
    # Parent 1: the newest dev the head held (pr_three, brought by the second merge of
    # dev), not dev's tip (pr_later was never merged in); parent 2: the same slice tip.
    assert _parents(built.path, new_merge) == [shas["pr_three"], shas["main_two"]]
    merged_core = raw_git(built.path, "show", f"{new_merge}:core.py").decode()
    assert "merge ten" in merged_core and "<<<<<<<" not in merged_core  # resolution carried
    message = raw_git(built.path, "log", "-1", "--format=%B", new_head).decode()
    assert f"{shas['dev_merge_one'][:12]} Merge branch 'dev' into sync (merge of dev, dropped)" in (
        message
    )
    assert f"{shas['repair_three'][:12]} add dropped code (squashed)" in message
    report = load_report(
        open_sync(SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE))
    )
    assert report.anatomy.ok, report.anatomy.problems
    assert report.anatomy.repair == new_head
    assert report.slice.tip == shas["main_two"]


def test_fold_is_undone_by_undo(tmp_path: Path) -> None:
    built = build_dev_merged(tmp_path / "r")
    git, new_head = _fold(built)
    undone = undo_last(git, "sync")
    assert (undone.old_head, undone.new_head) == (new_head, built.shas["head"])


def test_a_merge_that_brought_a_commit_dev_lacks_is_not_folded(tmp_path: Path) -> None:
    built = build_dev_merged(tmp_path / "r")
    built.repo.checkout("feature", built.shas["dev_base"])
    stray = built.repo.commit("a feature branch dev never took", {"feature.py": "x\n"})
    built.repo.checkout("sync")
    built.repo.merge(stray, "Merge a feature branch")
    head = built.repo.rev("sync")
    with pytest.raises(ServiceError, match="dev does not hold"):
        plan_fold(Git(built.path), "sync", dev="dev", main="main")
    assert built.repo.rev("sync") == head


def test_a_plain_sync_has_nothing_to_fold(tmp_path: Path) -> None:
    sync = build_sync_repo(tmp_path / "r")
    with pytest.raises(NothingToDoError, match="nothing to fold"):
        plan_fold(Git(sync.path), "sync", dev="dev", main="main")


def test_repair_on_a_dev_merged_branch_names_the_way_out_and_fold_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = build_dev_merged(tmp_path / "r")
    repo = str(built.path)
    code = main(["--slice-size", "2", "--repo", repo, "repair", "--preview", "--branch", "sync"])
    err = capsys.readouterr().err
    assert code == 1 and "rebuild it first" in err and "syncdesk fold" in err
    code = main(["--slice-size", "2", "--repo", repo, "fold", "--branch", "sync"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("Folded sync onto dev ")
    assert "Anatomy: ok" in out and "Tree: verified" in out
    assert out[-1] == built.repo.rev("sync") != built.shas["head"]


async def test_the_slice_screen_offers_the_rebuild_first_and_o_folds(tmp_path: Path) -> None:
    built = build_dev_merged(tmp_path / "r")
    session = open_sync(
        SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE),
        user_config=Path("/nonexistent"),
    )
    app = SyncDeskApp(session)
    async with app.run_test(size=(150, 45), notifications=True) as pilot:
        screen = await until_loaded(pilot, SliceScreen)
        summary = str(screen.query_one(SyncSummary).render())
        assert "dev is merged on top: O first rebuilds it" in summary
        first = screen.report
        await pilot.press("O")
        confirm = await until_screen(pilot, ConfirmScreen)
        assert "the files stay exactly as they are" in confirm._question
        await pilot.press("y")
        await until_toast(pilot, "Rebuilt")
        await until(pilot, lambda: screen.report is not first, "the sync read again")
        await until_loaded(pilot, SliceScreen)
        assert screen.report is not None and screen.report.anatomy.ok
        assert _tree(built.path, "sync") == _tree(built.path, built.shas["head"])
