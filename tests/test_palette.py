"""The command palette holds every action a screen binds to a key, and runs it."""

from __future__ import annotations

import pytest
from textual.binding import Binding
from textual.screen import Screen

from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.session import SyncSession
from syncdesk.tui.app import SyncDeskApp
from tests.prworld import pr_app, sandbox_link, until_screen
from tests.waiting import until_palette_offers
from tests.worlds import demo_session


def screens(session: SyncSession, sandbox: Sandbox) -> list[Screen[None]]:
    def link():
        return sandbox_link(sandbox)

    return [
        SliceScreen(session),
        WorkspaceScreen(session),
        FindingsScreen(session, link),
        StatusScreen(session, link),
        CommitScreen(session, session.refs.head),
    ]


def declared(screen: Screen[None]) -> set[tuple[str, str]]:
    """Every (description, action) a screen's classes bind to a key: what a user can press."""
    return {
        (binding.description, binding.action)
        for cls in type(screen).__mro__
        for binding in vars(cls).get("BINDINGS", [])
        if isinstance(binding, Binding) and binding.description
    }


def test_every_binding_of_every_screen_is_in_the_palette(pr_world: DemoFacts, pr_sandbox):
    session = demo_session(pr_world)
    app = SyncDeskApp(session)
    for screen in screens(session, pr_sandbox):
        commands = list(app.get_system_commands(screen))
        titles = {command.title for command in commands}
        missing = {title for title, _ in declared(screen)} - titles
        assert not missing, f"{type(screen).__name__} lacks {sorted(missing)} in its palette"
        assert len(declared(screen)) >= 3  # the screen really declares its keys


@pytest.mark.parametrize(
    ("typed", "opens"),
    [("Status", StatusScreen), ("Findings", FindingsScreen), ("Conflicts", WorkspaceScreen)],
)
async def test_the_palette_opens_each_screen_from_the_slice(
    pr_world: DemoFacts, pr_sandbox: Sandbox, typed: str, opens: type[Screen[None]]
) -> None:
    app = pr_app(pr_world, pr_sandbox)
    async with app.run_test(size=(160, 48)) as pilot:
        await until_screen(pilot, SliceScreen)
        await pilot.press("ctrl+p", *typed)
        await until_palette_offers(pilot, typed)
        await pilot.press("enter")
        await until_screen(pilot, opens)
        assert isinstance(app.screen, opens)
