"""Keys that trapped a new user, and messages that misled one: each as the user meets it.

Driven by real key presses on the demo world (Pilot), or through the command
line for what the command line says.
"""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, TextArea

from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.edit_hunk_screen import EditHunkScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen, clipboard_message
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import Action
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.config import user_config_path
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.cli.run import main
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.slice_table import SliceTable
from syncdesk.tui.widgets.threeway import ThreeWayView
from tests.prworld import pr_app
from tests.test_tui_workspace import _open_file, _open_workspace
from tests.waiting import (
    toasts,
    until,
    until_loaded,
    until_palette_offers,
    until_screen,
    until_toast,
)
from tests.worlds import demo_session

SIZE = (160, 45)
TWO_HUNKS = "lumen/data/loader.py"


@asynccontextmanager
async def _workspace(tmp_path: Path, **run: Any) -> AsyncIterator[tuple[DemoFacts, Any, Any]]:
    """A fresh demo world's conflict workspace: ``(facts, pilot, workspace screen)``."""
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE, **run) as pilot:
        yield facts, pilot, await _open_workspace(pilot)


def _info(screen: Any) -> str:
    return str(screen.query_one("#ws-hunk-info").render())


# -- the hunk editor ----------------------------------------------------------------------------


async def test_escape_leaves_the_hunk_editor_and_later_keys_reach_the_workspace(
    tmp_path: Path,
) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        await _open_file(pilot, screen, TWO_HUNKS)
        await pilot.press("e")
        await until_screen(pilot, EditHunkScreen)
        await pilot.press("escape")  # nothing typed: leaves at once
        await until_screen(pilot, WorkspaceScreen)

        await pilot.press("e")
        editor = await until_screen(pilot, EditHunkScreen)
        area = editor.query_one(TextArea)
        before = area.text
        await pilot.press("z", "z")
        await until(pilot, lambda: area.text != before, "zz typed into the hunk")
        await pilot.press("escape")  # typed: asks before throwing the edit away
        question = await until_screen(pilot, ConfirmScreen)
        assert "Throw away your edit" in str(question.query_one("#confirm-question").render())
        await pilot.press("n")  # no: back in the editor, the edit kept
        await until_screen(pilot, EditHunkScreen)
        assert area.text.startswith("zz")
        await pilot.press("escape")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_screen(pilot, WorkspaceScreen)

        await pilot.press("m")  # a key after leaving is the workspace's, not the editor's
        await until(
            pilot,
            lambda: _action(screen, TWO_HUNKS, 0) is Action.MAIN,
            "hunk 1 taken from main",
        )
        assert "zz" not in "".join(screen._results(screen.conflict)[0])
        assert "you took main" in _info(screen)


def _action(screen: Any, path: str, hunk: int) -> Action | None:
    choice = screen.state.decisions(path).hunk(hunk)
    return choice.action if choice is not None else None


async def test_a_hand_edit_reads_you_edited_it_by_hand(tmp_path: Path) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        await _open_file(pilot, screen, TWO_HUNKS)
        await pilot.press("e")
        editor = await until_screen(pilot, EditHunkScreen)
        editor.query_one(TextArea).text = "by_hand = True\n"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: _action(screen, TWO_HUNKS, 0) is Action.EDITED, "edited")
        assert "you edited it by hand" in _info(screen)
        assert "you chose" not in _info(screen)


# -- the 3-way view and the modify/delete files ---------------------------------------------


async def test_a_modify_delete_file_shows_mains_version_before_choosing(tmp_path: Path) -> None:
    async with _workspace(tmp_path) as (facts, pilot, screen):
        gone = next(c for c in facts.conflicts if c.type == "modify/delete")
        await _open_file(pilot, screen, gone.path)
        conflict = screen.conflict
        assert conflict.whole_file_only
        view = screen.query_one(ThreeWayView)
        assert view.display
        git = Git(facts.repo)

        def lines(blob: str | None) -> list[str]:
            return git.text("cat-file", "blob", blob).splitlines() if blob else []

        def pane(side: str) -> list[str]:
            cells = (getattr(row, side) for row in view.rows)
            return [c.text.rstrip("\n") for c in cells if c.text is not None]

        assert pane("main") == lines(conflict.main_blob) != []
        assert pane("dev") == lines(conflict.dev_blob)
        assert pane("result") == lines(conflict.head_blob)
        assert "each side's whole file is shown" in _info(screen)
        await pilot.press("M")  # main's file: the result pane shows it
        await until(pilot, lambda: pane("result") == pane("main"), "the result as main's file")


async def test_after_n_passes_a_modify_delete_file_the_arrows_still_scroll(
    tmp_path: Path,
) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        files: list[Any] = list(screen.data.conflicts.files)
        first_gone = next(i for i, c in enumerate(files) if c.type == "modify/delete")
        await _open_file(pilot, screen, files[first_gone - 1].path)
        view = screen.query_one(ThreeWayView)
        view.focus()
        await pilot.press("N")  # onto the modify/delete file
        await until(pilot, lambda: screen.conflict.path == files[first_gone].path, "N: next")
        await pilot.press("N")  # and past it
        await until(pilot, lambda: screen.conflict.path == files[first_gone + 1].path, "N again")
        assert pilot.app.focused is view
        shifted = view.text_offset  # opening a hunk shifts to its first difference
        await pilot.press("right")
        await until(pilot, lambda: view.text_offset == shifted + 8, "the text scrolled sideways")


async def test_n_and_p_go_on_across_files_and_z_with_nothing_to_undo_says_so(
    tmp_path: Path,
) -> None:
    async with _workspace(tmp_path, notifications=True) as (_facts, pilot, screen):
        files: list[Any] = list(screen.data.conflicts.files)
        first = files[0]
        await _open_file(pilot, screen, first.path)
        await pilot.press("p")
        await until_toast(pilot, "This is the first hunk of the first file.")
        index = next(i for i, c in enumerate(files) if c.path == TWO_HUNKS)
        await _open_file(pilot, screen, TWO_HUNKS)
        await pilot.press("n", "n")  # past its last hunk: the next file's first
        following = files[index + 1]
        await until(pilot, lambda: screen.conflict.path == following.path, "n: on to the next file")
        assert screen.state.cursor.hunk == 0
        await pilot.press("p")  # and back: the previous file's last hunk
        await until(pilot, lambda: screen.conflict.path == TWO_HUNKS, "p: back a file")
        assert screen.state.cursor.hunk == 1
        await pilot.press("z")
        await until_toast(pilot, "Nothing to undo in this file.")
        await pilot.press("y")
        await until_toast(pilot, "Nothing to redo in this file.")
        last = files[-1]
        await _open_file(pilot, screen, last.path)
        for _ in range(max(1, len(last.hunks))):
            await pilot.press("n")
        await until_toast(pilot, "This is the last hunk of the last file.")


async def test_slash_finds_a_file_by_any_part_of_its_path(tmp_path: Path) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        files: list[Any] = list(screen.data.conflicts.files)
        target = files[-1]
        name = target.path.rsplit("/", 1)[-1].removesuffix(".py")
        await pilot.press("slash")
        await until_screen(pilot, CommandPalette)
        await pilot.press(*name)
        await until_palette_offers(pilot, target.path)
        await pilot.press("enter")
        await until(pilot, lambda: screen.conflict.path == target.path, "the file found is open")
        files_list = screen.query_one(ConflictList)
        assert files_list.selected_path == target.path


async def test_the_palette_finds_files_too(tmp_path: Path) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        target = list(screen.data.conflicts.files)[-1]
        await pilot.press("ctrl+p")
        await until_screen(pilot, CommandPalette)
        await pilot.press(*target.path.rsplit("/", 1)[-1])
        await until_palette_offers(pilot, f"Open {target.path}")
        await pilot.press("enter")
        await until(pilot, lambda: screen.conflict.path == target.path, "opened from the palette")


async def test_home_and_end_move_the_cursor_in_a_table(tmp_path: Path) -> None:
    async with _workspace(tmp_path) as (_facts, pilot, screen):
        files_list = screen.query_one(ConflictList)
        files_list.focus()
        await pilot.press("end")
        await until(pilot, lambda: files_list.cursor_row == files_list.row_count - 1, "End: last")
        await pilot.press("home")
        await until(pilot, lambda: files_list.cursor_row == 0, "Home: the first row")


# -- the Slice screen's writes --------------------------------------------------------------


async def test_w_with_nothing_approved_says_no_file_is_approved(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE, notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("W")
        said = await until_toast(pilot, "nothing to write")
        assert "no file is approved yet (0 of 11)" in said
        assert "already holds every change" not in said


def test_repair_preview_with_nothing_approved_says_so(tmp_path: Path, capsys: Any) -> None:
    facts = build_world(tmp_path / "world")
    code = main(["--repo", str(facts.repo), "repair", "--preview", "--branch", facts.sync_branch])
    err = capsys.readouterr().err
    assert code == 1
    assert "nothing to write: no file is approved yet (0 of 11)" in err
    assert "already holds" not in err


async def test_p_in_a_repository_with_no_remote_says_there_is_none(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    assert not Git(facts.repo).text("remote").strip()
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE, notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("P")
        said = await until_toast(pilot, "nothing to push to")
        assert "this repository has no remote" in said and "git remote add origin URL" in said
        assert not isinstance(pilot.app.screen, ConfirmScreen)  # nothing was asked


def test_push_to_a_remote_name_that_does_not_exist_names_the_ones_that_do(
    tmp_path: Path, capsys: Any
) -> None:
    facts = build_world(tmp_path / "world")
    bare = tmp_path / "upstream.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(bare)], check=True)
    Git(facts.repo).run(["remote", "add", "upstream", str(bare)])
    code = main(["--repo", str(facts.repo), "push", "--yes", "--branch", facts.sync_branch])
    err = capsys.readouterr().err
    assert code == 1
    assert "no remote named 'origin' to push to (this repository has: upstream" in err
    assert f'remote = "NAME" in {user_config_path()}' in err


def test_the_github_error_names_the_file_that_may_set_github_repo(
    tmp_path: Path, capsys: Any
) -> None:
    facts = build_world(tmp_path / "world")
    code = main(["--repo", str(facts.repo), "--head", facts.sync_branch, "report", "--with-pr"])
    err = capsys.readouterr().err
    assert code == 1
    assert f'set github_repo = "owner/name" in your user config file ({user_config_path()})' in (
        err
    )
    assert ".syncdesk.toml" not in err  # the repository's file may not set it


# -- words ----------------------------------------------------------------------------------


async def test_a_commit_of_one_file_says_1_file(demo_facts: DemoFacts) -> None:
    git = Git(demo_facts.repo)
    counts = [
        len(git.text("diff-tree", "--no-commit-id", "-r", "--name-only", sha).split())
        for sha in demo_facts.slice
    ]
    row = counts.index(1)
    async with SyncDeskApp(demo_session(demo_facts)).run_test(size=SIZE) as pilot:
        await until_loaded(pilot, SliceScreen)
        pilot.app.screen.query_one(SliceTable).move_cursor(row=row)
        await pilot.press("enter")
        commit = await until_loaded(pilot, CommitScreen)
        assert commit.query_one("#commit-files", DataTable).row_count == 1
        header = str(commit.query_one("#commit-header").render())
        assert "in 1 file" in header and "1 files" not in header


# -- the status screen ----------------------------------------------------------------------


async def test_codecov_patch_as_check_and_status_is_one_line_counted_once(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=(160, 60)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("s")
        screen = await until_loaded(pilot, StatusScreen)
        text = str(screen.query_one("#status-text").render())
        lines = [line for line in text.splitlines() if "codecov/patch " in line]
        assert len(lines) == 1 and "check and status, both must pass" in lines[0]
        assert screen.data is not None
        failing = sorted(item.name for item in screen.data.checks.failing)
        assert failing == ["CI / functional", "DCO", "codecov/patch"]
        assert f"({len(failing)} failing," in text


async def test_copy_says_honestly_that_nothing_reached_a_clipboard(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    async with app.run_test(size=(160, 60), notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("s")
        await until_loaded(pilot, StatusScreen)
        await pilot.press("v")
        preview = await until_screen(pilot, TextPreviewScreen)
        await pilot.press("C")
        said = await until_toast(pilot, "Clipboard")
        assert "Nothing was copied: there is no terminal" in said
        assert "Copied to the clipboard" not in " ".join(toasts(app))
        assert app.clipboard == preview._text  # what Textual would have sent (OSC 52)


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({}, "Sent the text to the terminal's clipboard (OSC 52). Most terminals accept it"),
        ({"TMUX": "/tmp/tmux-0/default,1,0"}, "through tmux: it reaches the clipboard only if"),
        ({"TERM_PROGRAM": "Apple_Terminal"}, "Nothing was copied: macOS Terminal ignores"),
    ],
)
def test_the_clipboard_message_says_what_is_known(environ: dict[str, str], said: str) -> None:
    message = clipboard_message(False, environ)
    assert said in message
    assert "Copied to the clipboard" not in message
