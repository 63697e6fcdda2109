"""The workspace's accidents in a file that holds many: worked out once per result, kept right.

A crafted sync (real git): in every other block of ``steps.py`` dev changed
the lines around the one main changed and added a helper function there, and
the head took main's file, so each conflict hunk lost four dev lines (dev's
work dropped with its helper: accidents); in the other blocks dev changed one
line that main left alone, lost outside every hunk. The workspace keeps the
missing accidents per result (services/workspace/accidents.py's
AccidentCache): hunk moves must not change them, a decision that changes the
result must.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace import screen as workspace_screen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.audit.model import Classification
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.models import Action
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.anatomy import find_sync_merge
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.services.workspace.accidents import (
    AccidentCache,
    hunk_index_of,
    missing_accidents,
    next_outside,
)
from syncdesk.services.workspace.layout import decide_hunk, hunk_holding_dev_line, layout
from syncdesk.services.workspace.load import load_accidents, load_workspace
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.gitrepo import GitRepo
from tests.stepsworld import LOST_PER_HUNK, steps_file
from tests.waiting import until, until_loaded, until_screen, until_toast

SIZE = (160, 45)
PATH = "steps.py"
BLOCKS = 12  # 6 conflict hunks with 4 accidents each, 6 accidents outside the hunks
ACCIDENTS = BLOCKS // 2 * LOST_PER_HUNK + BLOCKS // 2


def _steps(side: str) -> str:
    return steps_file(side, BLOCKS)


def _world(path: Path) -> Path:
    repo = GitRepo(path)
    root = repo.commit("Base", {PATH: _steps("base")})
    repo.commit("main: scales", {PATH: _steps("main")})
    repo.checkout("dev", root)
    repo.commit("dev: offsets and biases", {PATH: _steps("dev")})
    repo.checkout("sync", "dev")
    repo.merge("main", "Sync main into dev", resolve={PATH: _steps("main")})  # main's file
    return path


def _app(repo: Path) -> SyncDeskApp:
    options = SyncOptions(repo=repo, head="sync", dev="dev", main="main")
    return SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))


async def _open_steps(pilot: Any) -> Any:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen = await until_loaded(pilot, WorkspaceScreen)
    files = screen.query_one(ConflictList)
    files.focus()
    files.move_cursor(row=files.get_row_index(PATH))
    await pilot.press("enter")
    await until(pilot, lambda: screen.conflict is not None, f"{PATH} open")
    screen.query_one("#ws-view").focus()
    return screen


def _info(screen: Any) -> str:
    return str(screen.query_one("#ws-hunk-info").render())


async def _cursor_on(pilot: Any, screen: Any, hunk: int, why: str) -> None:
    await until(
        pilot, lambda: screen.state.cursor.hunk == hunk, f"{why}: the cursor on hunk {hunk}"
    )


async def _counting(pilot: Any, screen: Any, count: int, why: str) -> None:
    await until(
        pilot,
        lambda: len(screen._accidents(screen.conflict)) == count,
        lambda: f"{why}: {count} accidents, not {len(screen._accidents(screen.conflict))}",
    )


def _holding(screen: Any) -> set[int]:
    conflict = screen.conflict
    found = {hunk_index_of(conflict, f.line) for f in screen._accidents(conflict)}
    return {index for index in found if index is not None}


async def test_hunk_moves_keep_the_accidents_and_a_restore_drops_them(tmp_path: Path) -> None:
    async with _app(_world(tmp_path / "repo")).run_test(size=SIZE, notifications=True) as pilot:
        screen = await _open_steps(pilot)
        conflict = screen.conflict
        accidents = screen._accidents(conflict)
        assert len(conflict.hunks) == BLOCKS // 2
        assert len(accidents) == ACCIDENTS
        assert _holding(screen) == set(range(len(conflict.hunks)))
        assert f"{len(accidents)} probable accident(s) in this file" in _info(screen)

        # Moving between hunks changes neither the list nor the count shown.
        for key, hunk_index in (("n", 1), ("n", 2), ("p", 1), ("n", 2), ("n", 3), ("n", 4)):
            await pilot.press(key)
            await _cursor_on(pilot, screen, hunk_index, key)
            assert screen._accidents(conflict) == accidents
            assert f"{len(accidents)} probable accident(s) in this file" in _info(screen)
            assert f"({LOST_PER_HUNK} in this hunk)" in _info(screen)

        # R puts the current hunk's lines back: the count drops by as many, at once.
        index = screen.state.cursor.hunk
        hunk = conflict.hunks[index]
        lost = [f for f in accidents if hunk_index_of(conflict, f.line) == index]
        await pilot.press("R")
        await until(
            pilot,
            lambda: screen.state.decisions(PATH).hunk(index) is not None,
            f"hunk {index} edited to restore its accidents",
        )
        choice = screen.state.decisions(PATH).hunk(index)
        assert choice is not None
        assert choice.action is Action.EDITED
        left = screen._accidents(conflict)
        assert left == tuple(f for f in accidents if f not in lost)
        assert f"{len(left)} probable accident(s) in this file" in _info(screen)
        assert "(0 in this hunk)" in _info(screen)
        restored = screen._results(conflict)[index]
        assert all(hunk.dev[f.line - hunk.dev_start] in restored for f in lost)

        # x skips the restored hunk: the next one holding an accident, wrapping.
        await pilot.press("x")
        following = (index + 1) % len(conflict.hunks)
        await _cursor_on(pilot, screen, following, "x")
        assert screen._accidents(conflict) == left

        # Taking dev's side puts that hunk's lines back too; undo brings them back.
        await pilot.press("d")
        await _counting(pilot, screen, len(left) - LOST_PER_HUNK, "dev's side taken")
        assert _holding(screen) == set(range(len(conflict.hunks))) - {index, following}
        await pilot.press("z")
        await until(
            pilot,
            lambda: screen._accidents(conflict) == left,
            "the undo brought the hunk's accidents back",
        )
        assert f"{len(left)} probable accident(s) in this file" in _info(screen)

        # With every hunk restored, x has nowhere to go; the ones outside stay listed.
        for hunk_index in sorted(_holding(screen)):
            await pilot.press("x")
            await _cursor_on(pilot, screen, hunk_index, "x")
            count = len(screen._accidents(conflict))
            await pilot.press("R")
            await _counting(pilot, screen, count - LOST_PER_HUNK, f"hunk {hunk_index} restored")
        outside = screen._accidents(conflict)
        assert len(outside) == BLOCKS // 2
        assert all(screen._hunk_of(conflict, f.line) is None for f in outside)
        # x still reaches them: the hunk nearest the next one, with the line named;
        # R then puts every one back.
        expected = next_outside(conflict, outside, screen.state.cursor.hunk)
        assert expected is not None
        await pilot.press("x")
        said = await until_toast(pilot, "lie between the hunks")
        assert f"{len(outside)} probable accident line(s)" in said
        assert f"the next is dev line {expected[1].line}:" in said
        await _cursor_on(pilot, screen, expected[0], "x to the hunk nearest it")
        await pilot.press("R")
        await _counting(pilot, screen, 0, "the accidents between the hunks restored")


def test_the_cache_answers_per_result_not_per_path(tmp_path: Path) -> None:
    repo = _world(tmp_path / "repo")
    session = open_sync(
        SyncOptions(repo=repo, head="sync", dev="dev", main="main"),
        user_config=Path("/nonexistent"),
    )
    data = load_workspace(session)
    assert data.audit is not None
    conflict = data.conflicts.files[0]
    findings = data.audit.in_file(PATH)
    dev_file = data.dev_files[PATH]
    state = data.loaded.state
    head = layout(conflict, state.decisions(PATH), {})
    cache = AccidentCache()
    first = cache.missing(data.audit, conflict, head, dev_file)
    assert first == missing_accidents(findings, conflict, head, dev_file)
    assert all(f.classification is Classification.ACCIDENT for f in first)
    assert len(first) == ACCIDENTS
    # The same result again (rebuilt, equal): the same answer.
    rebuilt = layout(conflict, state.decisions(PATH), {})
    assert rebuilt is not head
    assert cache.missing(data.audit, conflict, rebuilt, dev_file) == first
    # Another result for the same path: worked out afresh, never the stale answer.
    decided = decide_hunk(state, conflict, 0, Action.DEV)
    texts = {b: tuple(d.decode().splitlines(keepends=True)) for b, d in decided.blobs.items()}
    dev_in_first = layout(conflict, decided.state.decisions(PATH), texts)
    second = cache.missing(data.audit, conflict, dev_in_first, dev_file)
    assert second == missing_accidents(findings, conflict, dev_in_first, dev_file)
    assert len(second) == len(first) - LOST_PER_HUNK
    # Without the dev base's file the accidents outside the hunks count as missing.
    assert cache.missing(data.audit, conflict, dev_in_first, None) == missing_accidents(
        findings, conflict, dev_in_first, None
    )
    # And back to the first result: the first answer.
    assert cache.missing(data.audit, conflict, head, dev_file) == first


def test_the_hunk_table_agrees_with_the_scan_on_every_line(tmp_path: Path) -> None:
    repo = _world(tmp_path / "repo")
    git = Git(repo)
    merge = find_sync_merge(git, "sync", "dev", "main")
    assert merge is not None
    conflicts = read_conflicts(git, merge.dev_base, merge.slice_tip, "sync")
    conflict = conflicts.files[0]
    assert len(conflict.hunks) == BLOCKS // 2
    lines = _steps("dev").count("\n")
    for line in range(-1, lines + 3):
        hunk = hunk_holding_dev_line(conflict, line)
        assert hunk_index_of(conflict, line) == (None if hunk is None else hunk.index)


async def test_the_conflicts_are_usable_while_the_audit_still_reads(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # The audit is held back until the test lets it go: what the maintainer can
    # do before it arrives is the point (on a large sync it takes seconds).
    release = threading.Event()
    real = load_accidents  # what the screen calls, by its name in the screen's module

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace_screen, "load_accidents", held)
    async with _app(_world(tmp_path / "repo")).run_test(size=SIZE) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        screen = await until_screen(pilot, WorkspaceScreen)
        await until(pilot, lambda: screen.conflict is not None, "a file open before the audit")
        screen.query_one("#ws-view").focus()
        bar = str(screen.query_one("#ws-loading Label").render())
        assert "Auditing dev's lines" in bar
        assert screen.conflict is not None and screen._accidents(screen.conflict) == ()
        assert screen.check_action("next_accident", ()) is None  # dimmed until it arrives
        await pilot.press("n")  # the conflicts answer meanwhile
        await _cursor_on(pilot, screen, 1, "n while the audit reads")

        release.set()
        await until_loaded(pilot, WorkspaceScreen)
        await _counting(pilot, screen, ACCIDENTS, "once the audit arrived")
        assert screen.check_action("next_accident", ()) is True
        assert "probable accident(s) in this file" in _info(screen)
