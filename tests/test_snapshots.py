"""Deterministic SVG snapshots of syncdesk's screens on the demo world.

The demo world has fixed SHAs and dates, and the app shows only the
repository's folder name, so these pictures are the same on every machine.
Update them deliberately with ``pytest --snapshot-update`` and review the diff.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.edit_hunk_screen import EditHunkScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.help_screen import HelpScreen
from syncdesk.screens.legend_screen import LegendScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.reply_screen import ReplyPreviewScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import Action, FileStatus
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.sandbox import server
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.threeway import ThreeWayView
from tests.prworld import pr_app
from tests.waiting import saved, until, until_loaded, until_screen
from tests.worlds import demo_session

SIZE = (150, 45)
SMALL = (80, 24)  # every screen must be usable on the smallest common terminal


async def _loaded(pilot: Any) -> None:
    await until_loaded(pilot, SliceScreen)


def test_slice_screen(snap_compare: Any, demo_facts: DemoFacts) -> None:
    assert snap_compare(
        SyncDeskApp(demo_session(demo_facts)), terminal_size=SIZE, run_before=_loaded
    )


def test_slice_screen_at_80x24(snap_compare: Any, demo_facts: DemoFacts) -> None:
    assert snap_compare(
        SyncDeskApp(demo_session(demo_facts)), terminal_size=SMALL, run_before=_loaded
    )


async def _open_fourth_commit(pilot: Any) -> None:
    await _loaded(pilot)
    await pilot.press("down", "down", "down", "enter")
    await until_loaded(pilot, CommitScreen)


def test_commit_view(snap_compare: Any, demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SIZE, run_before=_open_fourth_commit)


def test_commit_view_at_80x24(snap_compare: Any, demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SMALL, run_before=_open_fourth_commit)


async def _open_help(pilot: Any) -> None:
    await _loaded(pilot)
    await pilot.press("question_mark")
    await until_screen(pilot, HelpScreen)


def test_help_screen(snap_compare: Any, demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SIZE, run_before=_open_help)


def test_help_screen_at_80x24(snap_compare: Any, demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SMALL, run_before=_open_help)


def _fresh_app(tmp_path: Path) -> SyncDeskApp:
    # The workspace writes its state into the repository: a world of its own.
    facts = build_world(tmp_path / "world")
    return SyncDeskApp(demo_session(facts))


async def _workspace_on(pilot: Any, path: str, *keys: str) -> WorkspaceScreen:
    await _loaded(pilot)
    await pilot.press("c")
    screen = await until_loaded(pilot, WorkspaceScreen)
    files = screen.query_one(ConflictList)
    if not files.display:  # folded on a narrow terminal: F unfolds it to pick a file
        await pilot.press("F")
        await until(pilot, lambda: files.display, "the file list unfolded")
    files.focus()
    files.move_cursor(row=files.get_row_index(path))
    await pilot.press("enter")
    await until(
        pilot,
        lambda: screen.conflict is not None and screen.conflict.path == path,
        f"{path} open",
    )
    if keys:
        await pilot.press(*keys)
    return screen


def _hunk_action(screen: WorkspaceScreen, path: str, hunk: int) -> Action | None:
    assert screen.state is not None
    choice = screen.state.decisions(path).hunk(hunk)
    return choice.action if choice is not None else None


def test_conflict_workspace(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _workspace_on(pilot, "lumen/training/optimizer.py")

    assert snap_compare(_fresh_app(tmp_path), terminal_size=(160, 45), run_before=run_before)


def test_conflict_workspace_with_base_and_a_decision(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        path = "lumen/data/loader.py"
        screen = await _workspace_on(pilot, path, "n", "m", "v")
        view = screen.query_one(ThreeWayView)
        await until(
            pilot,
            lambda: _hunk_action(screen, path, 1) is Action.MAIN and view.show_base,
            "hunk 2 taken from main, the base shown",
        )

    assert snap_compare(_fresh_app(tmp_path), terminal_size=(160, 45), run_before=run_before)


def test_conflict_workspace_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _workspace_on(pilot, "lumen/training/optimizer.py")
        files = screen.query_one(ConflictList)
        await until(pilot, lambda: not files.display, "the list folded after the pick")

    assert snap_compare(_fresh_app(tmp_path), terminal_size=SMALL, run_before=run_before)


def test_conflict_workspace_zoomed_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _workspace_on(pilot, "lumen/data/loader.py", "Z", "Z")
        view = screen.query_one(ThreeWayView)
        await until(pilot, lambda: view.zoom == "result", "the result zoomed")

    assert snap_compare(_fresh_app(tmp_path), terminal_size=SMALL, run_before=run_before)


def test_hunk_editor_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _workspace_on(pilot, "lumen/data/loader.py", "e")
        await until_screen(pilot, EditHunkScreen)

    assert snap_compare(_fresh_app(tmp_path), terminal_size=SMALL, run_before=run_before)


def test_workspace_legend_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _workspace_on(pilot, "lumen/data/loader.py", "L")
        await until_screen(pilot, LegendScreen)

    assert snap_compare(_fresh_app(tmp_path), terminal_size=SMALL, run_before=run_before)


async def _preview_repair(pilot: Any) -> None:
    # Main for the first hunk, dev for the second (the demo recorded the
    # opposite), approved; then W shows the repair it would write.
    path = "lumen/data/loader.py"
    screen = await _workspace_on(pilot, path, "m", "n", "d", "a")
    await until(
        pilot,
        lambda: (
            screen.state is not None and screen.state.decisions(path).status is FileStatus.APPROVED
        ),
        f"{path} approved",
    )
    await saved(screen.persister)  # W reads the approval from disk
    slice_screen = pilot.app.screen_stack[-2]
    assert isinstance(slice_screen, SliceScreen)
    before = slice_screen.report
    await pilot.press("escape")  # the Slice screen reads the branch again
    await until(pilot, lambda: slice_screen.report is not before, "the slice read again")
    await _loaded(pilot)
    await pilot.press("W")
    await until_screen(pilot, PreviewScreen)


def test_repair_preview(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(_fresh_app(tmp_path), terminal_size=(140, 40), run_before=_preview_repair)


def test_repair_preview_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(_fresh_app(tmp_path), terminal_size=SMALL, run_before=_preview_repair)


def test_findings_screen(snap_compare: Any, tmp_path: Path) -> None:
    from syncdesk.screens.findings_screen import FindingsScreen
    from syncdesk.services.github.api import GitHubTarget
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.github.token import Token
    from syncdesk.services.sandbox.demo.scenario import demo_scenario
    from syncdesk.services.sandbox.server import Sandbox
    from syncdesk.tui.widgets.findings_table import FindingsTable

    facts = build_world(tmp_path / "world")
    with Sandbox(demo_scenario(facts)) as sandbox:
        # The sandbox's port changes per run; nothing on screen shows it.
        target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
        link = GitHubLink(target, Token("demo", "the demo sandbox"), 4242)

        async def run_before(pilot: Any) -> None:
            await _loaded(pilot)
            await pilot.press("f")
            screen = await until_loaded(pilot, FindingsScreen)
            table = screen.query_one(FindingsTable)
            table.move_cursor(row=table.get_row_index("F8"))
            detail = screen.query_one("#finding-detail")
            await until(pilot, lambda: str(detail.render()).startswith("F8 "), "F8 in the detail")

        app = SyncDeskApp(demo_session(facts), github=lambda: link)
        assert snap_compare(app, terminal_size=(160, 45), run_before=run_before)


# -- the pull request's screens: the demo's sandbox serves it ---------------------------


async def _findings_on_f8(pilot: Any) -> None:
    from syncdesk.tui.widgets.findings_table import FindingsTable

    await _loaded(pilot)
    await pilot.press("f")
    screen = await until_loaded(pilot, FindingsScreen)
    table = screen.query_one(FindingsTable)
    table.move_cursor(row=table.get_row_index("F8"))
    detail = screen.query_one("#finding-detail")
    await until(pilot, lambda: str(detail.render()).startswith("F8 "), "F8 in the detail")


def test_findings_screen_at_80x24(
    snap_compare: Any, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SMALL, run_before=_findings_on_f8)


async def _press_for(pilot: Any, action: str) -> None:
    """Press the key the screen binds to ``action``, whichever key that is."""
    bound = pilot.app.screen.active_bindings.values()
    await pilot.press(
        next(active.binding.key for active in bound if active.binding.action == action)
    )


async def _reply_preview(pilot: Any) -> None:
    await _findings_on_f8(pilot)
    await _press_for(pilot, "reply")
    await until_screen(pilot, ReplyPreviewScreen)


def test_reply_preview(snap_compare: Any, pr_world: DemoFacts, pr_sandbox: Sandbox) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SIZE, run_before=_reply_preview)


def test_reply_preview_at_80x24(
    snap_compare: Any, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SMALL, run_before=_reply_preview)


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's rate-limit reset (the Status screen shows it) at one fixed moment."""
    clock = SimpleNamespace(time=lambda: 1_700_000_000.0, time_ns=time.time_ns)
    monkeypatch.setattr(server, "time", clock)


async def _status(pilot: Any) -> None:
    await _loaded(pilot)
    await pilot.press("s")
    await until_loaded(pilot, StatusScreen)


def test_status_screen(
    snap_compare: Any, fixed_clock: None, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SIZE, run_before=_status)


def test_status_screen_at_80x24(
    snap_compare: Any, fixed_clock: None, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SMALL, run_before=_status)


async def _override_request(pilot: Any) -> None:
    await _status(pilot)
    await _press_for(pilot, "override")
    await until_screen(pilot, TextPreviewScreen)


def test_override_request_preview(
    snap_compare: Any, fixed_clock: None, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SIZE, run_before=_override_request)


def test_override_request_preview_at_80x24(
    snap_compare: Any, fixed_clock: None, pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    assert snap_compare(app, terminal_size=SMALL, run_before=_override_request)
