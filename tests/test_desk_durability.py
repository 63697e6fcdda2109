"""The workspace shows a decision as made only once it is on disk; keys keep the order typed;
another desk's decisions are shown and told. Real key presses on a fresh demo world."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import Action, FileStatus, HunkChoice, choose_hunk
from syncdesk.services.decisions.store import StateFile
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_lines
from syncdesk.services.workspace.load import side_file
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import STATUS_MARKS, ConflictList
from tests.waiting import saved, until, until_loaded, until_toast
from tests.worlds import demo_session

SIZE = (160, 45)
FILE = "lumen/data/loader.py"  # two hunks in the demo world


async def _workspace_on(pilot: Any, path: str) -> Any:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen: Any = await until_loaded(pilot, WorkspaceScreen)
    files = screen.query_one(ConflictList)
    files.focus()
    files.move_cursor(row=files.get_row_index(path))
    await pilot.press("enter")
    await until(pilot, lambda: screen.conflict.path == path, f"{path} open")
    return screen


def _info(screen: Any) -> str:
    return str(screen.query_one("#ws-hunk-info").render())


def _on_disk(facts: Any, screen: Any) -> Any:
    """The state as another process would read it now."""
    return StateFile(Git(facts.repo), screen.state.sync).load(remember=False).state


async def test_a_decision_is_shown_pending_until_it_is_on_disk(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        screen = await _workspace_on(pilot, FILE)
        await saved(screen.persister)
        disk_busy = threading.Event()
        screen.persister.run(disk_busy.wait)  # the writer thread held, as by a slow disk
        await pilot.press("m")
        await until(pilot, lambda: "you took main" in _info(screen), "main taken")
        files = screen.query_one(ConflictList)
        assert "saving…" in _info(screen)
        assert files.get_cell(FILE, "badges").plain.startswith("…")
        assert _on_disk(facts, screen).decisions(FILE).hunk(0) is None
        disk_busy.set()
        await until(pilot, lambda: "saving…" not in _info(screen), "the save acknowledged")
        choice = _on_disk(facts, screen).decisions(FILE).hunk(0)
        assert choice is not None and choice.action is Action.MAIN  # shown saved: it is
        assert not files.get_cell(FILE, "badges").plain.startswith("…")


async def test_keys_typed_while_a_whole_file_is_read_apply_in_the_order_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D reads dev's file in a worker; an a typed before it lands approves what D took."""
    facts = build_world(tmp_path / "world")
    read_may_finish = threading.Event()
    real_side_file = side_file

    def slow_side_file(*args: Any) -> Any:
        read_may_finish.wait(timeout=30)  # a large file, a slow disk
        return real_side_file(*args)

    # The workspace's decisions module calls side_file by the name it imported.
    monkeypatch.setattr("syncdesk.screens.workspace.decisions.side_file", slow_side_file)
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        screen = await _workspace_on(pilot, FILE)
        await pilot.press("D", "a")
        await pilot.pause()
        assert screen.state.decisions(FILE).status is not FileStatus.APPROVED  # a waits for D
        read_may_finish.set()
        await until(
            pilot,
            lambda: screen.state.decisions(FILE).status is FileStatus.APPROVED,
            "D, then a, applied",
        )
        await saved(screen.persister)
        decided = _on_disk(facts, screen).decisions(FILE)
        assert decided.whole_file is not None and decided.whole_file.action is Action.DEV
        assert decided.status is FileStatus.APPROVED  # the status shown is the status saved
        mark, _ = STATUS_MARKS[FileStatus.APPROVED]
        assert screen.query_one(ConflictList).get_cell(FILE, "status").plain == mark


async def test_another_desks_decisions_appear_and_a_replaced_one_is_told(tmp_path: Path) -> None:
    """Desk B (another process's handle) takes dev on both hunks; desk A had main on hunk 1."""
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE, notifications=True) as pilot:
        screen = await _workspace_on(pilot, FILE)
        await pilot.press("m")
        await until(pilot, lambda: "you took main" in _info(screen), "main taken")
        await saved(screen.persister)
        git = Git(facts.repo)
        other = StateFile(git, screen.state.sync)
        theirs = other.load().state
        for hunk in screen.data.conflicts.file(FILE).hunks:
            blob = write_lines(git, [f"from the other desk, hunk {hunk.index}\n"])
            choice = HunkChoice(hunk.index, Action.DEV, blob, key=hunk.key)
            theirs = choose_hunk(theirs, FILE, choice)
        other.save(theirs)
        # The workspace looks every two seconds on its own.
        await until_toast(pilot, f"{FILE} hunk 1")
        await until_toast(pilot, f"{FILE} hunk 2")
        assert screen.state.decisions(FILE).hunk(0).action is Action.DEV
        assert screen.state.decisions(FILE).hunk(1).action is Action.DEV
        await until(pilot, lambda: "you took dev" in _info(screen), "hunk 1 shown as dev")
        # What this desk decides next is merged with theirs, hunk by hunk.
        await pilot.press("n", "u")
        await saved(screen.persister)
        on_disk = _on_disk(facts, screen).decisions(FILE)
        assert [c.action for c in on_disk.hunks] == [Action.DEV, Action.UNION]
