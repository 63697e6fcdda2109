"""The repair preview's checks: keep-dev files, Python that does not compile, adjacent duplicates.

The checks are read from real repositories (the sync builder, the demo world);
the CLI and the Slice screen's ``W`` show them, and a syntax error holds the
write back until the maintainer says "write anyway".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from textual.widgets import TextArea

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.edit_hunk_screen import EditHunkScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import FileStatus
from syncdesk.services.demo.world import build_world
from syncdesk.services.write.checks import adjacent_duplicates, python_checks, syntax_error
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.cli.run import main
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.syncrepo import build_sync_repo
from tests.waiting import saved, until, until_loaded, until_screen
from tests.worlds import demo_session
from tests.writing import approve_whole_file, branch_at, raw_git

CORE = "pkg/core.py"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
OWNERS = ".github/CODEOWNERS"  # a keep-dev file in the default configuration

BROKEN = b'''"""Core."""


def answer() -> str:
    return "main"
def answer() -> str:
    return "dev"


def total(:
    return 1
'''


# -- the checks on one file -----------------------------------------------------------------


def test_a_syntax_error_is_found_with_its_line_and_nothing_is_run(tmp_path: Path) -> None:
    witness = tmp_path / "ran"
    source = f'open({str(witness)!r}, "w").close()\nraise SystemExit(3)\ndef f(:\n    pass\n'
    assert syntax_error(source.encode()) == (3, "invalid syntax")
    runnable = f'open({str(witness)!r}, "w").close()\nraise SystemExit(3)\n'
    assert syntax_error(runnable.encode()) is None
    assert not witness.exists()  # compiled, never executed


def test_what_python_accepts_is_no_error() -> None:
    assert syntax_error(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n") is None
    assert syntax_error(b'\xef\xbb\xbfpath = "C:\\d"\n') is None  # a BOM; an invalid escape warns
    assert syntax_error(b"x = 1\0\n") is not None  # NUL bytes: Python refuses the file
    indented = syntax_error(b"def f():\nreturn 1\n")
    assert indented == (2, "expected an indented block after function definition on line 1")


def test_adjacent_definitions_of_one_name_are_found() -> None:
    lines = BROKEN.decode().split("\n")
    assert list(adjacent_duplicates(lines)) == [("answer", 4, 6)]
    methods = ["class A:", "    def run(self):", "        def run():", "            pass",
               "        return run", "    def run(self, x):", "        pass"]  # fmt: skip
    assert list(adjacent_duplicates(methods)) == [("run", 2, 6)]


def test_overloads_setters_and_other_scopes_are_not_duplicates() -> None:
    legitimate = [
        "@overload", "def f(x: int) -> int: ...", "@overload", "def f(x: str) -> str: ...",
        "def f(x):", "    return x",
        "class A:", "    @property", "    def size(self):", "        return 1",
        "    @size.setter", "    def size(self, value):", "        pass",
        "def g():", "    pass", "def h():", "    pass", "def g():", "    pass",
        "class B:", "    def size(self):", "        pass",
    ]  # fmt: skip
    assert list(adjacent_duplicates(legitimate)) == []


def test_a_hostile_path_is_shown_with_its_controls_visible() -> None:
    found = python_checks("pkg/\x1b]0;owned\x07x.py", BROKEN)
    assert [c.kind for c in found] == ["syntax", "duplicate-def"]
    assert found[0].blocking and not found[1].blocking
    assert all("\x1b" not in c.message and "\x07" not in c.message for c in found)


# -- the command line ---------------------------------------------------------------------------


def _run(capsys: Any, *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["--slice-size", "5", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def test_repair_preview_lists_the_checks_and_a_syntax_error_blocks_the_write(
    tmp_path: Path, capsys: Any
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    approve_whole_file(sync, CORE, BROKEN)
    approve_whole_file(sync, OWNERS)
    repo = str(sync.path)
    code, out, _ = _run(capsys, "--repo", repo, "repair", "--preview")
    assert code == 0
    start = out.index("--- look before writing ---") + 1
    checks = out[start : out.index("Nothing was written: syncdesk repair --write writes it.")]
    assert checks == [
        f"warning: {OWNERS} is a keep-dev file (it stays as dev has it): this write makes it "
        f"differ from dev's (dev base {sync.dev_base[:12]})",
        f"error: {CORE}:10: invalid syntax (does not compile with Python {PYTHON}) "
        "[blocks --write; --despite-syntax-errors]",
        f"warning: {CORE}:6: def answer again, right after the one at line 4: the second "
        "replaces the first",
    ]

    code, out, err = _run(capsys, "--repo", repo, "repair", "--write")
    assert code == 1 and branch_at(sync.path) == sync.head
    assert err[0].startswith(f"syncdesk: the repair was not written: {CORE}:10: invalid syntax")

    code, out, _ = _run(capsys, "--repo", repo, "repair", "--write", "--despite-syntax-errors")
    assert code == 0 and branch_at(sync.path) == out[-1] != sync.head
    assert raw_git(sync.path, "show", f"{out[-1]}:{CORE}") == BROKEN


def test_a_keep_dev_file_left_as_dev_has_it_is_not_flagged(tmp_path: Path, capsys: Any) -> None:
    sync = build_sync_repo(tmp_path / "r")
    approve_whole_file(sync, OWNERS, raw_git(sync.path, "show", f"{sync.dev_base}:{OWNERS}"))
    approve_whole_file(sync, CORE)  # main's core.py: compiles, one definition
    code, out, _ = _run(capsys, "--repo", str(sync.path), "repair", "--preview")
    assert code == 0
    assert f"- {CORE} (updated)" in out
    assert "--- look before writing ---" not in out


# -- the preview screen ---------------------------------------------------------------------


async def test_w_flags_a_keep_dev_file_and_a_syntax_error_needs_its_own_yes(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    app = SyncDeskApp(demo_session(facts))
    loader = "lumen/data/loader.py"
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        workspace: Any = await until_loaded(pilot, WorkspaceScreen)
        await pilot.press("M", "a")  # CODEOWNERS (the first file) as main's, approved
        await until(
            pilot,
            lambda: workspace.state.decisions(OWNERS).status is FileStatus.APPROVED,
            "CODEOWNERS approved",
        )
        files = workspace.query_one(ConflictList)
        files.focus()
        files.move_cursor(row=files.get_row_index(loader))
        await pilot.press("enter")
        await until(pilot, lambda: workspace.conflict.path == loader, f"{loader} open")
        await pilot.press("e")
        editor = await until_screen(pilot, EditHunkScreen)
        editor.query_one("#edit-area", TextArea).text = "def broken(:\n"
        await pilot.press("ctrl+s", "a")
        await until(
            pilot,
            lambda: workspace.state.decisions(loader).status is FileStatus.APPROVED,
            f"{loader} approved",
        )
        await saved(workspace.persister)
        slice_screen = app.screen_stack[-2]
        assert isinstance(slice_screen, SliceScreen)
        before = slice_screen.report
        await pilot.press("escape")
        await until(pilot, lambda: slice_screen.report is not before, "the slice read again")
        await until_loaded(pilot, SliceScreen)
        await pilot.press("W")
        preview = await until_screen(pilot, PreviewScreen)
        shown = str(preview.query_one("#preview-checks").render())
        assert f"{OWNERS} is a keep-dev file" in shown
        assert f"{loader}:" in shown and "invalid syntax" in shown
        head = branch_at(facts.repo, facts.sync_branch)

        await pilot.press("w")
        doubt = await until_screen(pilot, ConfirmScreen)
        assert "invalid syntax" in doubt._question and "anyway" in doubt._question
        await pilot.press("n")  # not this time: back on the preview, nothing written
        await until_screen(pilot, PreviewScreen)
        assert branch_at(facts.repo, facts.sync_branch) == head

        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "write anyway?")
        await pilot.press("y")  # write anyway, then the usual question
        await until(
            pilot,
            lambda: isinstance(app.screen, ConfirmScreen) and "Write the new repair" in
            app.screen._question,
            "the write's own question",
        )  # fmt: skip
        await pilot.press("y")
        await until(
            pilot, lambda: branch_at(facts.repo, facts.sync_branch) != head, "the repair written"
        )
