"""The conflict workspace's audit, read while the maintainer reads the slice.

The audit takes seconds on a real sync. The Slice screen reads it as soon as
its own read is shown, so that ``c`` opens a workspace whose accidents are
there at once, or that waits for that read if it is not done (never a second
audit beside it); if the branch moved in between, the workspace audits again
(what it shows is always the audit of the head it shows).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace import screen as workspace_screen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.workspace import load as workspace_load
from syncdesk.services.workspace.load import AuditAhead
from syncdesk.tui.app import SyncDeskApp

from .waiting import until, until_loaded, until_screen
from .worlds import demo_session

SIZE = (160, 45)


async def _read_ahead(pilot: Pilot[None]) -> AuditAhead:
    """Wait until the Slice screen is loaded and has read the workspace's audit."""
    slice_screen = await until_loaded(pilot, SliceScreen)
    ahead = slice_screen._audit_ahead
    assert ahead is not None
    await until(pilot, ahead.done, "the audit read ahead")
    return ahead.result()


async def test_c_opens_a_workspace_whose_accidents_are_already_read(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    app = SyncDeskApp(demo_session(facts))
    async with app.run_test(size=SIZE) as pilot:
        ahead = await _read_ahead(pilot)
        assert ahead.accidents[0] is not None
        await pilot.press("c")
        workspace = await until_loaded(pilot, WorkspaceScreen)
        # No audit of its own: the accidents are there as soon as the conflicts are,
        # and x (next accident) is not waiting for anything.
        assert workspace.data is not None and workspace.data.audit is ahead.accidents[0]
        assert workspace.data.audit.accidents
        assert workspace.check_action("next_accident", ()) is True


async def test_a_branch_moved_since_the_audit_was_read_is_audited_again(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    app = SyncDeskApp(demo_session(facts))
    async with app.run_test(size=SIZE) as pilot:
        ahead = await _read_ahead(pilot)
        # Another commit on the sync branch (from elsewhere: plumbing, no work tree).
        git = Git(facts.repo)
        branch = f"refs/heads/{facts.sync_branch}"
        head = git.run(["rev-parse", branch]).stdout.decode().strip()
        moved = (
            git.run(["commit-tree", f"{head}^{{tree}}", "-p", head, "-m", "fix: on top"])
            .stdout.decode()
            .strip()
        )
        git.run(["update-ref", branch, moved, head])
        await pilot.press("c")
        workspace = await until_loaded(pilot, WorkspaceScreen)

        def audited() -> bool:
            data = workspace.data
            return data is not None and data.audit is not None and not workspace._auditing

        await until(pilot, audited, "the workspace's own audit")
        assert workspace.data is not None and workspace.data.audit is not None
        assert workspace.data.audit is not ahead.accidents[0]
        assert workspace.data.audit.head == moved


async def test_c_before_the_audit_ahead_is_read_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    calls: list[int] = []
    real = workspace_load.load_accidents

    def held(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        release.wait(timeout=60)
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace_load, "load_accidents", held)
    monkeypatch.setattr(workspace_screen, "load_accidents", held)
    app = SyncDeskApp(demo_session(build_world(tmp_path / "world")))
    async with app.run_test(size=SIZE) as pilot:
        slice_screen = await until_loaded(pilot, SliceScreen)
        ahead = slice_screen._audit_ahead
        assert ahead is not None and not ahead.done()
        await pilot.press("c")
        workspace = await until_screen(pilot, WorkspaceScreen)
        await until(pilot, lambda: workspace.conflict is not None, "the conflicts, audit pending")
        assert workspace._auditing and workspace.check_action("next_accident", ()) is None
        release.set()
        await until(pilot, lambda: not workspace._auditing, "the audit read ahead, arrived")
        assert workspace.data is not None and workspace.data.audit is ahead.result().accidents[0]
        assert calls == [1]  # one audit: the workspace waited for it, read none of its own
