"""The conflict workspace's audit, read while the maintainer reads the slice.

The audit takes seconds on a real sync. The Slice screen reads it as soon as
its own read is shown, so that ``c`` opens a workspace whose accidents are
there at once; if the branch moved in between, the workspace audits again
(what it shows is always the audit of the head it shows).
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.workspace.load import AuditAhead
from syncdesk.tui.app import SyncDeskApp

from .waiting import until, until_loaded
from .worlds import demo_session

SIZE = (160, 45)


async def _read_ahead(pilot: Pilot[None]) -> AuditAhead:
    """Wait until the Slice screen is loaded and has read the workspace's audit."""
    slice_screen = await until_loaded(pilot, SliceScreen)
    await until(pilot, lambda: slice_screen._audit_ahead is not None, "the audit read ahead")
    assert slice_screen._audit_ahead is not None
    return slice_screen._audit_ahead


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
