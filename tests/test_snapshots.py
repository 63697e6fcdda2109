"""Deterministic SVG snapshots of the Slice screen and the commit view on the demo world.

The demo world has fixed SHAs and dates, and the app shows only the
repository's folder name, so these pictures are the same on every machine.
Update them deliberately with ``pytest --snapshot-update`` and review the diff.
"""

from __future__ import annotations

from typing import Any

from services.demo import DemoFacts
from tests.worlds import demo_session
from tui.app import SyncDeskApp

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
