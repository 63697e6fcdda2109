"""The workspace speaks in dev changes: the list of lost changes, a whole change restored.

A crafted sync (real git): two dev commits changed ``steps.py`` (one added offsets
to every block, one added a helper and its call in the conflicted blocks, citing
its pull request), and the head took main's file, so both changes lost lines,
inside the conflict hunks and between them. A third dev commit's lines in another
file the merge took cleanly from dev are kept: it is no lost change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from syncdesk.screens.lost_changes_screen import LostChangesScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.restores import RestorePreviewScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import Action
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.gitrepo import GitRepo
from tests.stepsworld import steps_file
from tests.test_audit_verdicts import build
from tests.waiting import until, until_loaded, until_screen

SIZE = (160, 45)
PATH = "steps.py"
BLOCKS = 6


def _offsets_only(text: str) -> str:
    """Dev's file without the helpers and their calls: what the first dev commit wrote."""
    kept = []
    lines = text.splitlines(keepends=True)
    skip = 0
    for line in lines:
        if skip:
            skip -= 1
            continue
        if line.strip().startswith("def bias_"):
            skip = 1  # its body
            continue
        kept.append(line.split(" + bias_")[0] + "\n" if " + bias_" in line else line)
    return "".join(kept)


def _world(path: Path) -> tuple[Path, dict[str, str]]:
    repo = GitRepo(path)
    root = repo.commit("Base", {PATH: steps_file("base", BLOCKS), "notes.py": "A = 1\n"})
    repo.commit("main: scales", {PATH: steps_file("main", BLOCKS)})
    repo.checkout("dev", root)
    dev = steps_file("dev", BLOCKS)
    offsets = repo.commit("dev: offsets for every step", {PATH: _offsets_only(dev)})
    biases = repo.commit("dev: biases per step (#4318)", {PATH: dev})
    repo.commit("dev: a note", {"notes.py": "A = 1\nB = 2\n"})
    repo.checkout("sync", "dev")
    repo.merge("main", "Sync main into dev", resolve={PATH: steps_file("main", BLOCKS)})
    return path, {"offsets": offsets, "biases": biases}


def _app(repo: Path) -> SyncDeskApp:
    options = SyncOptions(repo=repo, head="sync", dev="dev", main="main")
    return SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))


async def _workspace(pilot: Any) -> WorkspaceScreen:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen = await until_loaded(pilot, WorkspaceScreen)
    await until(pilot, lambda: screen.data is not None and screen.data.audit is not None, "audit")
    return screen


def _badge(screen: WorkspaceScreen) -> str:
    files = screen.query_one(ConflictList)
    return str(files.get_cell(PATH, "badges"))


async def test_the_list_ranks_lost_changes_and_restores_a_whole_change(tmp_path: Path) -> None:
    repo, shas = _world(tmp_path / "repo")
    app = _app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        assert "⚠" in _badge(screen)  # the file list marks the file with accidents

        await pilot.press("A")
        listing = await until_screen(pilot, LostChangesScreen)
        table = listing.query_one("#lost-table", DataTable)
        rows = [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]
        # Both of dev's changes to steps.py lost lines; the note's change lost none.
        subjects = [row for row in rows if row.startswith("dev:")]
        assert sorted(subjects) == ["dev: biases per step (#4318)", "dev: offsets for every step"]
        assert not any("a note" in row for row in rows)
        biases_row = table.get_row_index(shas["biases"])
        assert str(table.get_row_at(biases_row)[1]) == "#4318"

        # R on the biases change's file row: a preview first, escape restores nothing.
        table.move_cursor(row=table.get_row_index(f"{shas['biases']}:{PATH}"))
        await pilot.press("R")
        preview = await until_screen(pilot, RestorePreviewScreen)
        diff = str(preview.query_one("#text-preview-text").render())
        assert "+    def bias_1():" in diff
        assert "offset_" not in diff.replace("-", "")  # the other change is not touched
        await pilot.press("escape")
        await until_screen(pilot, WorkspaceScreen)
        assert screen.state is not None
        assert screen.state.decisions(PATH).whole_file is None  # nothing decided

        # Again, and P: the whole change is back; the offsets change still lacks its lines.
        await pilot.press("A")
        listing = await until_screen(pilot, LostChangesScreen)
        table = listing.query_one("#lost-table", DataTable)
        table.move_cursor(row=table.get_row_index(f"{shas['biases']}:{PATH}"))
        await pilot.press("R")
        await until_screen(pilot, RestorePreviewScreen)
        await pilot.press("R")
        await until_screen(pilot, WorkspaceScreen)
        await until(
            pilot,
            lambda: screen.state is not None and screen.state.decisions(PATH).whole_file,
            "the restore decided",
        )
        file_choice = screen.state.decisions(PATH).whole_file
        assert file_choice is not None and file_choice.action is Action.EDITED
        conflict = screen.conflict
        assert conflict is not None
        result = "".join(screen._layout(conflict).lines)
        for i in range(1, BLOCKS, 2):
            assert f"def bias_{i}():" in result and f" + bias_{i}()" in result
        left = {f.judgment.change for f in screen._accidents(conflict) if f.judgment}
        assert left == {shas["offsets"]}
        assert "⚠" in _badge(screen)  # the offsets are still lost

        # The list now holds only the offsets change; restoring it clears the mark.
        await pilot.press("A")
        listing = await until_screen(pilot, LostChangesScreen)
        table = listing.query_one("#lost-table", DataTable)
        rows = [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]
        assert rows == ["dev: offsets for every step", f"  {PATH}"]
        table.move_cursor(row=table.get_row_index(f"{shas['offsets']}:{PATH}"))
        await pilot.press("R")
        await until_screen(pilot, RestorePreviewScreen)
        await pilot.press("R")
        await until_screen(pilot, WorkspaceScreen)
        await until(pilot, lambda: not screen._accidents(conflict), "every accident restored")
        assert "⚠" not in _badge(screen)


async def test_enter_goes_to_the_change_in_its_file(tmp_path: Path) -> None:
    repo, shas = _world(tmp_path / "repo")
    app = _app(repo)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await pilot.press("A")
        listing = await until_screen(pilot, LostChangesScreen)
        table = listing.query_one("#lost-table", DataTable)
        table.move_cursor(row=table.get_row_index(shas["biases"]))
        await pilot.press("enter")
        await until_screen(pilot, WorkspaceScreen)
        assert screen.state is not None and screen.state.cursor.path == PATH
        conflict = screen.conflict
        assert conflict is not None
        hunk = conflict.hunks[screen.state.cursor.hunk]
        dev_text = "".join(hunk.dev)
        assert "def bias_1():" in dev_text  # the hunk holding the change's first lost line


async def test_breakage_found_from_the_list_ranks_its_change_first(tmp_path: Path) -> None:
    # Two dev changes lost lines: a larger one that breaks nothing, and dev's import of a
    # helper whose use the result kept (a NameError waiting). By size the larger comes
    # first; once B has looked for breakage, the one that breaks the result does.
    big_base = "def g(a):\n    return a\n"
    big_dev = (
        "def g(a):\n    a = a + 1\n    a = a * 2\n    a = a - 3\n    a = a // 4\n    return a\n"
    )
    big_main = "def g(a):\n    return a + 0\n"
    base = {"use.py": "import os\n\nX = 1\n", "helpers.py": "def one():\n    return 1\n",
            "big.py": big_base}  # fmt: skip
    scaled = {
        "use.py": "import os\nfrom helpers import scaled\n\nX = 1\nY = scaled(2)\n",
        "helpers.py": "def one():\n    return 1\n\n\ndef scaled(x):\n    return 3 * x\n",
    }
    main = {"use.py": "import os\nimport sys\n\nX = 1\n", "big.py": big_main}
    result = {"use.py": "import os\nimport sys\n\nX = 1\nY = scaled(2)\n", "big.py": big_main}
    sync = build(
        tmp_path / "r",
        base,
        [("[dev] Bigger g", {"big.py": big_dev}), ("[dev] Scaled values (#12)", scaled)],
        [("main: sys and g", main)],
        result,
    )
    app = _app(sync.repo.path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await pilot.press("A")
        listing = await until_screen(pilot, LostChangesScreen)
        table = listing.query_one("#lost-table", DataTable)

        def change_rows() -> list[tuple[str, str]]:
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            return [(str(r[-1]), str(r[3])) for r in rows if str(r[-1]).startswith("[dev]")]

        assert change_rows() == [("[dev] Bigger g", ""), ("[dev] Scaled values (#12)", "")]
        await pilot.press("B")
        await until(pilot, lambda: listing.check_action("breakage", ()) is False, "breakage read")
        assert change_rows() == [("[dev] Scaled values (#12)", "1"), ("[dev] Bigger g", "")]
        summary = str(listing.query_one("#lost-summary").render())
        assert "1 breakage(s)" in summary
        await pilot.press("escape")
        await until_screen(pilot, WorkspaceScreen)
        # The workspace keeps what was found: the list opens ranked by breakage next time.
        assert screen.data is not None and screen.data.audit is not None
        assert screen.data.audit.breakage_checked
