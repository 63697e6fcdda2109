"""Deterministic SVG snapshots of syncdesk's screens on the demo world.

The demo world has fixed SHAs and dates, and the app shows only the
repository's folder name, so these pictures are the same on every machine.
Update them deliberately with ``pytest --snapshot-update`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.worlds import demo_session

SIZE = (150, 45)


async def _loaded(pilot: Any) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_slice_screen(snap_compare: Any, demo_facts: DemoFacts) -> None:
    assert snap_compare(
        SyncDeskApp(demo_session(demo_facts)), terminal_size=SIZE, run_before=_loaded
    )


def test_commit_view(snap_compare: Any, demo_facts: DemoFacts) -> None:
    async def open_fourth_commit(pilot: Any) -> None:
        await _loaded(pilot)
        await pilot.press("down", "down", "down", "enter")
        await _loaded(pilot)

    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SIZE, run_before=open_fourth_commit)


def test_help_screen(snap_compare: Any, demo_facts: DemoFacts) -> None:
    async def open_help(pilot: Any) -> None:
        await _loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    app = SyncDeskApp(demo_session(demo_facts))
    assert snap_compare(app, terminal_size=SIZE, run_before=open_help)


def _fresh_app(tmp_path: Path) -> SyncDeskApp:
    # The workspace writes its state into the repository: a world of its own.
    facts = build_world(tmp_path / "world")
    return SyncDeskApp(demo_session(facts))


async def _workspace_on(pilot: Any, path: str, *keys: str) -> None:
    await _loaded(pilot)
    await pilot.press("c")
    await _loaded(pilot)
    files = pilot.app.screen.query_one(ConflictList)
    files.focus()
    files.move_cursor(row=files.get_row_index(path))
    await pilot.press("enter", *keys)
    await _loaded(pilot)


def test_conflict_workspace(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _workspace_on(pilot, "lumen/training/optimizer.py")

    assert snap_compare(_fresh_app(tmp_path), terminal_size=(160, 45), run_before=run_before)


def test_conflict_workspace_with_base_and_a_decision(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        await _workspace_on(pilot, "lumen/data/loader.py", "n", "m", "v")

    assert snap_compare(_fresh_app(tmp_path), terminal_size=(160, 45), run_before=run_before)


def test_repair_preview(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        # Main for the first hunk, dev for the second (the demo recorded the
        # opposite), approved; then W shows the repair it would write.
        await _workspace_on(pilot, "lumen/data/loader.py", "m", "n", "d", "a")
        await pilot.press("escape")
        await _loaded(pilot)
        await pilot.press("W")
        for _ in range(400):
            if isinstance(pilot.app.screen, PreviewScreen):
                break
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(_fresh_app(tmp_path), terminal_size=(140, 40), run_before=run_before)


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
            for _ in range(400):
                screen = pilot.app.screen
                if isinstance(screen, FindingsScreen) and screen.data is not None:
                    break
                await pilot.pause(0.02)
            table = pilot.app.screen.query_one(FindingsTable)
            table.move_cursor(row=table.get_row_index("F8"))
            await pilot.pause()

        app = SyncDeskApp(demo_session(facts), github=lambda: link)
        assert snap_compare(app, terminal_size=(160, 45), run_before=run_before)
