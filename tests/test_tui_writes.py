"""From an approved resolution to a written, undone and pushed repair, by real key presses."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.models import FileStatus
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.waiting import saved, until, until_loaded, until_screen, until_toast

SIZE = (160, 45)
FILE = "lumen/data/loader.py"  # two hunks in the demo world


def _app(facts: DemoFacts, head: str | None = None) -> SyncDeskApp:
    options = SyncOptions(repo=facts.repo, head=head or facts.sync_branch)
    return SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))


async def _write_through_preview(pilot: Any, answer: str = "y") -> None:
    """W, then w on the preview, then ``answer`` to the confirmation."""
    await pilot.press("W")
    await until_screen(pilot, PreviewScreen)
    await pilot.press("w")
    await until_screen(pilot, ConfirmScreen)
    await pilot.press(answer)


async def _written(pilot: Any) -> SliceScreen:
    """Wait for the write's notification, then for the Slice screen to read the branch again."""
    await until_toast(pilot, "Repair written")
    return await until_loaded(pilot, SliceScreen)


def _head(facts: DemoFacts) -> str:
    return Git(facts.repo).text("rev-parse", f"refs/heads/{facts.sync_branch}").strip()


def _snapshot_of_work_tree(repo: Path) -> tuple[str, str, str]:
    """HEAD, the status and the index's entries (a two-way merge rewrites its stat data)."""
    git = Git(repo)
    return (
        git.text("rev-parse", "HEAD"),
        git.text("status", "--porcelain=v2", "--untracked-files=all"),
        git.text("ls-files", "--stage"),
    )


async def _approve_main_then_dev(pilot: Any) -> ConflictFile:
    """In the workspace: main for the first hunk of FILE, dev for the second, approve.

    (The demo's recorded resolution is the other way round, so this changes the repair.)
    """
    slice_screen = await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen = await until_loaded(pilot, WorkspaceScreen)
    files = screen.query_one(ConflictList)
    files.focus()
    files.move_cursor(row=files.get_row_index(FILE))
    await pilot.press("enter", "m", "n", "d", "a")
    await until(
        pilot,
        lambda: (
            screen.state is not None and screen.state.decisions(FILE).status is FileStatus.APPROVED
        ),
        f"{FILE} approved",
    )
    await saved(screen.persister)  # the Slice screen's W reads the approval from disk
    assert screen.data is not None
    conflict = screen.data.conflicts.file(FILE)
    assert conflict is not None
    before = slice_screen.report
    await pilot.press("escape")  # back on the Slice screen, which reads the branch again
    await until(pilot, lambda: slice_screen.report is not before, "the slice read again")
    await until_loaded(pilot, SliceScreen)
    return conflict


async def test_an_approved_resolution_becomes_the_new_repair(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    before = _snapshot_of_work_tree(facts.repo)
    git = Git(facts.repo)
    async with _app(facts).run_test(size=SIZE, notifications=True) as pilot:
        conflict = await _approve_main_then_dev(pilot)
        slice_screen = pilot.app.screen
        assert isinstance(slice_screen, SliceScreen)
        assert slice_screen.report is not None
        assert slice_screen.report.anatomy.repair == facts.repair

        await pilot.press("W")
        preview = await until_screen(pilot, PreviewScreen)
        assert preview.plan.old_repair == facts.repair
        assert [c.path for c in preview.plan.changes] == [FILE]
        assert _head(facts) == facts.repair  # nothing written by the preview

        await pilot.press("w")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        assert await _written(pilot) is slice_screen

        new_head = _head(facts)
        assert new_head != facts.repair
        assert git.text("rev-parse", f"{new_head}^").strip() == facts.merge
        report = slice_screen.report
        assert report is not None
        assert report.refs.head == new_head
        assert report.anatomy.repair == new_head
        assert report.anatomy.ok, report.anatomy.problems
        written = git.run(["show", f"{new_head}:{FILE}"]).stdout
        assert written != git.run(["show", f"{facts.repair}:{FILE}"]).stdout
        text = written.decode()
        first, second = conflict.hunks
        assert "".join(first.main) in text
        assert "".join(second.dev) in text
        message = git.text("log", "-1", "--format=%B", new_head)
        assert FILE in message
        assert "Signed-off-by:" in message
        # The sync branch is checked out and was clean: its files followed the write.
        assert (facts.repo / FILE).read_bytes() == written
        assert git.text("status", "--porcelain", "--untracked-files=no") == ""

        # Undo, also behind a confirmation, puts the old repair back.
        await pilot.press("z")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_toast(pilot, "Undone")
        await until_loaded(pilot, SliceScreen)
        assert _head(facts) == facts.repair
        assert slice_screen.report is not None
        assert slice_screen.report.anatomy.repair == facts.repair
    assert _snapshot_of_work_tree(facts.repo) == before


async def test_saying_no_writes_nothing(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE, notifications=True) as pilot:
        await _approve_main_then_dev(pilot)
        await _write_through_preview(pilot, "n")  # no: back on the preview
        await until_screen(pilot, PreviewScreen)
        await pilot.press("escape")
        await until_toast(pilot, "Nothing was written")
        await until_loaded(pilot, SliceScreen)
        assert _head(facts) == facts.repair
        assert not Git(facts.repo).text("for-each-ref", "refs/syncdesk/backup/")


async def test_nothing_approved_means_nothing_to_write(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE, notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("W")
        await until_toast(pilot, "nothing to write")
        await until_loaded(pilot, SliceScreen)  # no preview: still on the Slice screen
        await pilot.press("z")
        await until_toast(pilot, "nothing to undo")
        await until_loaded(pilot, SliceScreen)  # no question: still on the Slice screen
    assert _head(facts) == facts.repair


async def test_a_branch_moved_while_the_preview_was_open_is_not_overwritten(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    git = Git(facts.repo)
    async with _app(facts).run_test(size=SIZE, notifications=True) as pilot:
        await _approve_main_then_dev(pilot)
        await pilot.press("W")
        await until_screen(pilot, PreviewScreen)
        # Someone else amends the branch while the maintainer reads the preview.
        moved = git.text("commit-tree", f"{facts.repair}^{{tree}}", "-p", facts.merge,
                         "-m", "someone else's repair").strip()  # fmt: skip
        git.run(["update-ref", f"refs/heads/{facts.sync_branch}", moved, facts.repair])
        await pilot.press("w")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_toast(pilot, "nothing was changed")
        await until_loaded(pilot, SliceScreen)
    assert _head(facts) == moved


async def test_push_sends_the_branch_with_a_lease_after_asking(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    git = Git(facts.repo)
    git.run(["remote", "add", "origin", str(remote)])
    git.run(["push", "--quiet", "origin", f"refs/heads/{facts.sync_branch}"])
    async with _app(facts).run_test(size=SIZE, notifications=True) as pilot:
        await _approve_main_then_dev(pilot)
        await _write_through_preview(pilot)
        await _written(pilot)
        new_head = _head(facts)
        assert new_head != facts.repair
        await pilot.press("P")
        confirm = await until_screen(pilot, ConfirmScreen)
        assert facts.repair[:12] in confirm._question  # names what it replaces
        await pilot.press("y")
        await until_toast(pilot, "Pushed", "Push refused")
        await until_loaded(pilot, SliceScreen)
    on_remote = Git(remote).text("rev-parse", f"refs/heads/{facts.sync_branch}").strip()
    assert on_remote == new_head
