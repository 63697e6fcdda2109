"""The conflict workspace, driven by real key presses on a fresh demo world."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.widgets import TextArea

from syncdesk.screens.edit_hunk_screen import EditHunkScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.audit.model import Classification
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learn import learn_branch
from syncdesk.services.decisions.models import Action, FileStatus
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git import runner
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.threeway import ThreeWayView
from tests.waiting import saved, until, until_loaded, until_screen

SIZE = (160, 45)
FILE = "lumen/data/loader.py"  # two hunks in the demo world


def _app(facts: DemoFacts) -> SyncDeskApp:
    session = open_sync(
        SyncOptions(repo=facts.repo, head=facts.sync_branch), user_config=Path("/nonexistent")
    )
    return SyncDeskApp(session)


async def _open_workspace(pilot: Any) -> Any:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    return await until_loaded(pilot, WorkspaceScreen)


async def _open_file(pilot: Any, screen: Any, path: str) -> None:
    files = screen.query_one(ConflictList)
    files.focus()
    files.move_cursor(row=files.get_row_index(path))
    await pilot.press("enter")
    await until(
        pilot, lambda: _open_path(screen) == path, lambda: f"{path} open, not {_open_path(screen)}"
    )


def _open_path(screen: Any) -> str | None:
    return screen.conflict.path if screen.conflict is not None else None


def _result_lines(screen: Any, hunk: int) -> list[str]:
    view = screen.query_one(ThreeWayView)
    return [
        row.result.text for row in view.rows if row.hunk == hunk and row.result.text is not None
    ]


def _hunk_action(screen: Any, path: str, hunk: int) -> Action | None:
    choice = screen.state.decisions(path).hunk(hunk)
    return choice.action if choice is not None else None


async def _shows(pilot: Any, screen: Any, hunk: int, lines: Sequence[str]) -> None:
    """Wait until the result pane shows ``lines`` for ``hunk`` (a key's decision drawn)."""
    expected = list(lines)
    await until(
        pilot,
        lambda: _result_lines(screen, hunk) == expected,
        lambda: f"hunk {hunk} showing {expected}, not {_result_lines(screen, hunk)}",
    )


async def test_every_conflict_is_listed_with_its_type(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        conflicts: tuple[ConflictFile, ...] = screen.data.conflicts.files
        assert {(c.path, c.type) for c in conflicts} == {(c.path, c.type) for c in facts.conflicts}
        assert screen.query_one(ConflictList).row_count == len(facts.conflicts)


async def test_the_workspace_uses_the_conflicts_the_slice_read_and_r_reads_a_new_head(
    tmp_path: Path, monkeypatch: Any
) -> None:
    facts = build_world(tmp_path / "world")
    commands: list[list[str]] = []
    execute = runner._execute

    def watching(executor: Any, command: list[str], env: Any, stdin: Any) -> Any:
        commands.append(list(command))
        return execute(executor, command, env, stdin)

    monkeypatch.setattr(runner, "_execute", watching)
    async with _app(facts).run_test(size=SIZE) as pilot:
        slice_screen = await until_loaded(pilot, SliceScreen)
        assert slice_screen.report is not None and slice_screen.report.conflicts is not None
        read = slice_screen.report.conflicts

        def merges() -> int:  # of the sync merge's parents, as read_conflicts merges them
            return sum(
                "merge-tree" in c and read.dev_side in c and read.main_side in c
                for c in list(commands)
            )

        by_the_slice = merges()
        assert by_the_slice >= 1
        await pilot.press("c")
        screen = await until_loaded(pilot, WorkspaceScreen)
        assert merges() == by_the_slice  # the same refs: no second merge
        assert screen.query_one(ConflictList).row_count == len(facts.conflicts)
        # A reload reads the refs again. With nothing moved it is served the conflicts
        # kept by commit (no merge); once the branch moved, it merges for the new head.
        await pilot.press("r")
        screen = await until_loaded(pilot, WorkspaceScreen)
        assert merges() == by_the_slice
        git = Git(facts.repo)
        head = git.text("rev-parse", facts.sync_branch).strip()
        tree = git.text("rev-parse", f"{head}^{{tree}}").strip()
        moved = git.text("commit-tree", tree, "-p", head, "-m", "an empty fix on top").strip()
        git.run(["update-ref", f"refs/heads/{facts.sync_branch}", moved, head])
        await pilot.press("r")
        await until(pilot, lambda: merges() > by_the_slice, "r merged for the new head")
        await until_loaded(pilot, WorkspaceScreen)


async def test_resolve_hunk_by_hunk_undo_approve_and_resume(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await _open_file(pilot, screen, FILE)
        conflict = screen.conflict
        assert conflict.path == FILE
        first, second = conflict.hunks
        await pilot.press("d")
        await _shows(pilot, screen, 0, first.dev)
        await pilot.press("n", "m")
        await _shows(pilot, screen, 1, second.main)
        await pilot.press("u")
        await _shows(pilot, screen, 1, second.union)
        await pilot.press("U")
        await _shows(pilot, screen, 1, second.union_main_first)
        await pilot.press("b")
        await _shows(pilot, screen, 1, second.base)
        await pilot.press("z")  # undo: back to main-then-dev
        await _shows(pilot, screen, 1, second.union_main_first)
        await pilot.press("y")  # redo: base again
        await _shows(pilot, screen, 1, second.base)
        await pilot.press("e")
        editor = await until_screen(pilot, EditHunkScreen)
        editor.query_one(TextArea).text = "resolved_by_hand = True\n"
        await pilot.press("ctrl+s")
        await _shows(pilot, screen, 1, ["resolved_by_hand = True\n"])
        await pilot.press("a")  # approve, and go on to the next unresolved file
        await until(
            pilot,
            lambda: (
                screen.state.decisions(FILE).status is FileStatus.APPROVED
                and screen.state.cursor.path != FILE
            ),
            f"{FILE} approved and the next file open",
        )
        moved_to = screen.state.cursor.path
        await saved(screen.persister)  # every decision on disk before the restart
        await pilot.press("escape")
    # A new app on the same repository resumes exactly there, with every decision.
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        assert screen.state.cursor.path == moved_to
        decisions = screen.state.decisions(FILE)
        assert decisions.status is FileStatus.APPROVED
        assert [c.action for c in decisions.hunks] == [Action.DEV, Action.EDITED]
        await _open_file(pilot, screen, FILE)
        assert _result_lines(screen, 0) == list(first.dev)
        assert _result_lines(screen, 1) == ["resolved_by_hand = True\n"]


async def test_whole_file_choice_for_a_modify_delete(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    deleted_on_one_side = next(c for c in facts.conflicts if c.type == "modify/delete")
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await _open_file(pilot, screen, deleted_on_one_side.path)
        conflict = screen.conflict
        assert conflict.whole_file_only
        await pilot.press("D")
        await until(
            pilot,
            lambda: screen.state.decisions(conflict.path).whole_file is not None,
            "the whole file decided",
        )
        choice = screen.state.decisions(conflict.path).whole_file
        expected = Action.DELETED if conflict.dev_blob is None else Action.DEV
        assert choice is not None
        assert choice.action is expected
        await pilot.press("z")
        await until(
            pilot,
            lambda: screen.state.decisions(conflict.path).whole_file is None,
            "the whole-file decision undone",
        )


async def test_a_hunk_resolved_as_mains_rewrite_is_a_decision_not_an_accident(
    tmp_path: Path,
) -> None:
    # In the demo, loader.py's head took main's side of a hunk where main rewrote
    # the line dev also changed: the audit names that decision and raises no alarm
    # (an accident inside a hunk is restored with R: test_tui_workspace_accidents.py).
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await _open_file(pilot, screen, FILE)
        conflict = screen.conflict
        assert screen._accidents(conflict) == ()
        (decided,) = [f for f in screen.data.audit.in_file(FILE) if f.detail]
        assert decided.classification is Classification.TAKEN_AS_MAIN
        assert decided.evidence.startswith("the resolution took main's rewrite in conflict hunk")
        # Its hunk's info names what the head's resolution left out there.
        hunk = next(h.index for h in conflict.hunks if h.dev_start == decided.line)
        assert conflict.hunks[hunk].resolution == "main"
        for _ in conflict.hunks:
            if screen.state.cursor.hunk == hunk:
                break
            await pilot.press("n")
            await pilot.pause()
        assert screen.state.cursor.hunk == hunk
        await until(
            pilot,
            lambda: (
                "left out by taking main's side" in str(screen.query_one("#ws-hunk-info").render())
            ),
            "the hunk's info names the decision",
        )
        info = str(screen.query_one("#ws-hunk-info").render())
        assert "probable accident" not in info
        assert f"1 dev line(s) left out by taking main's side · line {decided.line}" in info
        assert decided.evidence in info
        # Decided by the maintainer (dev's side here), the hunk no longer shows the head's.
        await pilot.press("d")
        await until(
            pilot,
            lambda: "left out" not in str(screen.query_one("#ws-hunk-info").render()),
            "the decision line gone once the hunk is decided",
        )


async def test_an_accident_outside_the_hunks_is_restored_as_a_whole_file_edit(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    path = "lumen/models/attention.py"  # the head took main's file and lost dev's log line
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await _open_file(pilot, screen, path)
        conflict = screen.conflict
        outside = [
            f for f in screen._accidents(conflict) if screen._hunk_of(conflict, f.line) is None
        ]
        assert any("logger.debug" in f.text for f in outside)
        view = screen.query_one(ThreeWayView)
        shown_before = [row.result.text for row in view.rows if row.result.text is not None]
        assert not any("logger.debug" in line for line in shown_before)
        await pilot.press("R")  # the accident outside every hunk
        await until(
            pilot,
            lambda: screen.state.decisions(path).whole_file is not None,
            "the whole file edited to restore the accident outside the hunks",
        )
        decisions = screen.state.decisions(path)
        assert decisions.whole_file is not None
        assert decisions.whole_file.action is Action.EDITED
        shown = [row.result.text for row in view.rows if row.result.text is not None]
        assert any("logger.debug" in line for line in shown)
        assert not any("logger.debug" in f.text for f in screen._accidents(conflict))
        # A hunk decided afterwards keeps the restored line around it.
        await pilot.press("d")
        await _shows(pilot, screen, 0, conflict.hunks[0].dev)
        shown = [row.result.text for row in view.rows if row.result.text is not None]
        assert any("logger.debug" in line for line in shown)
        await saved(screen.persister)  # every decision on disk before the restart
    # After a restart the restored line is still known to be back: no accident listed.
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await _open_file(pilot, screen, path)
        assert not any("logger.debug" in f.text for f in screen._accidents(screen.conflict))


async def test_the_next_sync_is_offered_what_the_last_one_learned(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    git = Git(facts.repo)
    learn_branch(
        git, facts.sync_branch, facts.dev_branch, facts.main_branch, ResolutionStore.open(git)
    )
    # The next sync, not built yet: dev's new tip merged in memory with the slice tip.
    session = open_sync(
        SyncOptions(repo=facts.repo, head=facts.dev_branch), user_config=Path("/nonexistent")
    )
    async with SyncDeskApp(session).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        assert screen.data.conflicts.head is None
        await _open_file(pilot, screen, FILE)
        conflict = screen.conflict
        hunk = conflict.hunks[0]
        assert screen.data.suggestions.get(hunk.key)
        badge = screen.query_one(ConflictList).get_cell(FILE, "badges")
        assert "↺" in badge.plain
        await pilot.press("S")
        await until(
            pilot, lambda: _hunk_action(screen, FILE, 0) is not None, "the suggestion taken"
        )
        choice = screen.state.decisions(FILE).hunk(0)
        assert choice is not None
        assert choice.carried_from is not None
        assert facts.sync_branch in choice.carried_from
        learned = screen.data.suggestions[hunk.key][0]
        assert _result_lines(screen, 0) == list(screen.texts[learned.blob])


async def test_no_screen_spells_out_the_syncs_data_on_the_ui_thread(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # Textual describes a worker by repr() of its arguments unless told otherwise: a
    # ConflictSet's repr is every line of every conflicted file (0.2 s on a real sync,
    # a frozen screen each time a worker starts). None may be built.
    from syncdesk.services.conflicts.models import ConflictSet

    spelled: list[str] = []

    def counting(self: object) -> str:
        spelled.append(type(self).__name__)
        return f"<{type(self).__name__}>"

    monkeypatch.setattr(ConflictSet, "__repr__", counting)
    monkeypatch.setattr(ConflictFile, "__repr__", counting)
    facts = build_world(tmp_path / "world")
    async with _app(facts).run_test(size=SIZE) as pilot:
        screen = await _open_workspace(pilot)
        await until(pilot, lambda: not screen._auditing, "the accidents read")
        await _open_file(pilot, screen, FILE)
        await pilot.pause()
    assert spelled == []
