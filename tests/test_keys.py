"""One key grammar across the app, the help and the legend, and the README's tables of both.

The grammar (``syncdesk.tui.keys``) is checked against every ``BINDINGS`` of every
screen and widget; the help, the legend and ``r`` in the workspace are driven by key
presses; the README's "Keys" and "Symbols" tables are read back and compared with the code.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable

import syncdesk.screens
import syncdesk.tui
from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.help_screen import GENERIC, HelpScreen
from syncdesk.screens.legend_screen import LegendScreen
from syncdesk.screens.note_screen import NoteScreen
from syncdesk.screens.preview_screen import CHECK_MARKS
from syncdesk.screens.reply_screen import SUGGESTED_MARK
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.core import PENDING_MARKS
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import Action, FileStatus
from syncdesk.services.decisions.store import save_state
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.workspace.layout import approve_file
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.keys import GRAMMAR, Kind
from syncdesk.tui.legend import SYMBOLS, symbols_of
from syncdesk.tui.widgets.conflict_list import STATUS_MARKS, ConflictList
from syncdesk.tui.widgets.slice_table import SIGNOFF_STYLES
from syncdesk.tui.widgets.status_view import STATE_MARKS
from tests.waiting import saved, until, until_loaded, until_screen
from tests.worlds import demo_session

README = Path(__file__).resolve().parent.parent / "README.md"
SIZE = (160, 45)
FILE = "lumen/data/loader.py"  # two hunks in the demo world


# -- the grammar against every binding ------------------------------------------------


def bound_classes() -> Iterator[type[Any]]:
    """Every class of the screens and the TUI that declares key bindings."""
    for package in (syncdesk.screens, syncdesk.tui):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if (
                    inspect.isclass(value)
                    and value.__module__ == module.__name__
                    and "BINDINGS" in vars(value)
                ):
                    yield value


def bindings_of(cls: type[Any]) -> list[Binding]:
    found = vars(cls)["BINDINGS"]
    assert all(isinstance(b, Binding) for b in found), f"{cls.__name__}: a binding without an id"
    return list(found)


def test_every_binding_is_in_the_grammar_under_each_of_its_keys() -> None:
    classes = list(bound_classes())
    names = {cls.__name__ for cls in classes}
    assert {"SyncDeskApp", "SliceScreen", "WorkspaceScreen", "FindingsScreen"} <= names
    assert {"StatusScreen", "ThreeWayView", "ConfirmScreen", "LegendScreen"} <= names
    wrong = []
    for cls in classes:
        for binding in bindings_of(cls):
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"
            for key in binding.key.split(","):
                uses = [u for kind in GRAMMAR for u in kind.uses if binding.id in u.ids]
                if not any(key in use.keys for use in uses):
                    wrong.append(f"{cls.__name__} {binding.id!r} on {key!r}")
    assert not wrong, "bound but not in syncdesk/tui/keys.py under that key: " + ", ".join(wrong)


def test_no_key_has_two_kinds_and_every_listed_binding_exists() -> None:
    kinds_of: dict[str, list[str]] = {}
    for kind in GRAMMAR:
        if kind.question:
            continue
        for use in kind.uses:
            for key in use.keys:
                kinds_of.setdefault(key, []).append(kind.name)
    twice = {key: names for key, names in kinds_of.items() if len(names) > 1}
    assert not twice, twice
    assert {"r", "z", "y", "L", "P", "W", "m", "d", "escape"} <= set(kinds_of)
    bound = {b.id for cls in bound_classes() for b in bindings_of(cls)}
    listed = {binding_id for kind in GRAMMAR for use in kind.uses for binding_id in use.ids}
    assert listed - bound == set(), "listed in the grammar, bound nowhere"


def test_a_question_takes_only_its_answers_and_escape() -> None:
    # Its y and n may mean redo and next hunk elsewhere only because a question
    # takes no other key: nothing of the screen beneath can be pressed through it.
    question: Kind = next(kind for kind in GRAMMAR if kind.question)
    answers = {binding_id for use in question.uses for binding_id in use.ids}
    asking = [cls for cls in bound_classes() if {b.id for b in bindings_of(cls)} & answers]
    assert asking == [ConfirmScreen]
    assert {key for b in bindings_of(ConfirmScreen) for key in b.key.split(",")} == {
        "y",
        "n",
        "escape",
    }


def test_the_keys_that_meant_two_things_mean_one() -> None:
    # The list, key by key: each of these meant two unrelated things.
    keys = {b.id: b.key for cls in bound_classes() for b in bindings_of(cls)}
    assert keys["slice.undo"] == keys["ws.undo"] == "z"  # undo is z; U is a union
    assert keys["ws.union_main"] == "U"
    assert keys["slice.status"] == "s" and keys["status.resign"] == "W"  # W previews a write
    assert keys["ws.restore"] == "R" and keys["findings.reply"] == "P"  # P posts
    assert keys["ws.prev"] == "p" and keys["reply.post"] == keys["preview_text.post"] == "P"
    assert keys["view.left"] == "left,h" and keys["view.right"] == "right,l"
    assert keys["findings.here"] == "H" and keys["status.label"] == "plus"
    assert keys["ws.show_base"] == keys["status.description"] == "v"  # v shows
    assert keys["findings.dev"] == keys["ws.dev"] == "d"  # d chooses dev
    reloads = {keys[f"{screen}.reload"] for screen in ("slice", "ws", "findings", "status")}
    assert reloads == {"r"}


# -- the README's tables ----------------------------------------------------------------


def _table_after(marker: str) -> list[list[str]]:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(marker))
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if not line.strip() and rows:
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[1:]  # without the header


def test_the_readme_keys_table_is_the_grammar() -> None:
    readme = []
    kind = ""
    for name, keys, does in _table_after("Keys, kind by kind"):
        kind = name or kind
        readme.append((kind, tuple(re.findall(r"`([^`]+)`", keys)), does))
    code = [(kind.name, use.shown, use.does) for kind in GRAMMAR for use in kind.uses]
    assert readme == code


def test_the_readme_symbols_table_is_the_legend() -> None:
    readme = [tuple(row) for row in _table_after("Symbols, screen by screen")]
    code = [(s.where, " / ".join(f"`{m}`" for m in s.marks), s.means) for s in SYMBOLS]
    assert readme == code


def test_the_legend_names_every_mark_the_screens_draw() -> None:
    def marks(screen: str) -> set[str]:
        return {mark for symbol in symbols_of(screen) for mark in symbol.marks}

    assert set(SIGNOFF_STYLES) <= marks("slice")
    assert {mark for mark, _ in STATUS_MARKS.values()} <= marks("workspace")
    assert set(PENDING_MARKS) <= marks("workspace")
    assert {mark for mark, _ in STATE_MARKS.values()} <= marks("status")
    assert set(CHECK_MARKS.values()) <= marks("preview")
    assert SUGGESTED_MARK.strip() in marks("reply")


# -- the help, the legend and reload, by key presses --------------------------------------


def _help_rows(screen: HelpScreen) -> list[tuple[str, str]]:
    """(group, action) for every row of the help, in order."""
    table: DataTable[Text] = screen.query_one(DataTable)
    rows: list[tuple[str, str]] = []
    group = ""
    for index in range(table.row_count):
        key = str(table.coordinate_to_cell_key(Coordinate(index, 0)).row_key.value)
        if key.startswith("group:"):
            group = key.removeprefix("group:")
        else:
            rows.append((group, str(table.get_row_at(index)[1])))
    return rows


async def test_help_lists_the_screens_own_actions_by_kind_and_the_generic_ones_last(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        await until_loaded(pilot, WorkspaceScreen)
        await pilot.press("question_mark")
        rows = _help_rows(await until_screen(pilot, HelpScreen))
    groups = [group for group, _ in rows]
    first_generic = groups.index(GENERIC)
    assert set(groups[first_generic:]) == {GENERIC}  # the generic ones, all of them last
    own = dict((action, group) for group, action in rows[:first_generic])
    assert own["Next hunk"] == "Move" and own["Take dev"] == "Choose"
    assert own["Undo"] == own["Redo"] == "Undo" and own["Reload"] == "Reload"
    assert own["Legend"] == "Show" and own["Back"] == "Go"
    generic = [action for _, action in rows[first_generic:]]
    assert {"Help", "Quit"} <= set(generic) and len(generic) >= 5  # Textual's scroll keys too
    order = [kind.name for kind in GRAMMAR]
    seen = list(dict.fromkeys(groups))
    assert seen == sorted(seen, key=order.index)  # in the grammar's order, each group once


async def test_L_shows_and_hides_the_symbols_of_the_screen(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        slice_screen = await until_loaded(pilot, SliceScreen)
        await pilot.press("L")
        legend = await until_screen(pilot, LegendScreen)
        shown = str(legend.query_one("#legend-text").render())
        assert "✓ / ≠ / ✗" in shown and "no sign-off" in shown
        assert "●" not in shown  # the workspace's, not this screen's
        await pilot.press("L")
        assert await until_screen(pilot, SliceScreen) is slice_screen
        await pilot.press("c")
        await until_loaded(pilot, WorkspaceScreen)
        await pilot.press("L")
        legend = await until_screen(pilot, LegendScreen)
        shown = str(legend.query_one("#legend-text").render())
        for marks in ("● / ◐ / ✓", "K / M", "↺", "⚠", "◆", "╱"):
            assert marks in shown
        assert "≠" not in shown
        await pilot.press("escape")
        await until_screen(pilot, WorkspaceScreen)


async def test_the_legend_scrolls_at_80x24(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=(80, 24)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        await until_loaded(pilot, WorkspaceScreen)
        await pilot.press("L")
        legend = await until_screen(pilot, LegendScreen)
        body = legend.query_one("#legend-body")
        await until(pilot, lambda: body.max_scroll_y > 0, "the legend taller than its box")
        assert body.region.bottom <= 24  # the body fits on screen: what is cut scrolls
        await pilot.press("end")
        await until(pilot, lambda: body.scroll_y == body.max_scroll_y, "End: the last symbol")


async def test_r_reloads_the_workspace_and_keeps_every_decision(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        screen: Any = await until_loaded(pilot, WorkspaceScreen)
        files = screen.query_one(ConflictList)
        files.focus()
        files.move_cursor(row=files.get_row_index(FILE))
        await pilot.press("enter")
        await until(pilot, lambda: screen.conflict.path == FILE, f"{FILE} open")
        await pilot.press("m", "n")  # main for the first hunk; the cursor on the second
        await until(
            pilot,
            lambda: _action(screen, FILE, 0) is Action.MAIN and screen.state.cursor.hunk == 1,
            "main taken, then the next hunk",
        )
        # Meanwhile another syncdesk approves another file: straight into the saved state.
        await saved(screen.persister)
        other = next(
            approved
            for conflict in screen.data.conflicts.files
            if conflict.path != FILE
            and (approved := approve_file(screen.state, conflict, screen.policies[conflict.path]))
        )
        approved_path = next(
            path
            for path in {f.path for f in screen.data.conflicts.files}
            if other.state.decisions(path).status is FileStatus.APPROVED
        )
        save_state(Git(facts.repo), other.state)
        assert files.get_cell(approved_path, "status").plain != "✓"
        before = screen.data
        await pilot.press("r")
        await until(pilot, lambda: screen.data is not before, "the conflicts read again")
        await until_loaded(pilot, WorkspaceScreen)
        assert files.get_cell(approved_path, "status").plain == "✓"  # the other window's
        assert _action(screen, FILE, 0) is Action.MAIN  # this window's, kept
        assert (screen.state.cursor.path, screen.state.cursor.hunk) == (FILE, 1)
        assert screen.conflict.path == FILE  # the same file and hunk on screen


def _action(screen: Any, path: str, hunk: int) -> Action | None:
    choice = screen.state.decisions(path).hunk(hunk)
    return choice.action if choice is not None else None


def test_the_palette_offers_the_legend_where_the_screen_has_symbols(demo_facts: DemoFacts) -> None:
    session = demo_session(demo_facts)
    app = SyncDeskApp(session)

    def titles(screen: Screen[Any]) -> set[str]:
        return {command.title for command in app.get_system_commands(screen)}

    assert {"Legend", "Reload"} <= titles(WorkspaceScreen(session))
    assert "Legend" in titles(SliceScreen(session))
    assert "Legend" in titles(CommitScreen(session, session.refs.head))  # its +N / -N counts
    assert "Legend" not in titles(NoteScreen("A note", ""))
