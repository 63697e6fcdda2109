"""The Findings screen on the demo pull request: keys decide, the reply is posted exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from screens.confirm_screen import ConfirmScreen
from screens.findings_screen import FindingsScreen
from screens.reply_screen import ReplyPreviewScreen
from services.demo import DemoFacts, build_world
from services.dispositions import load_book
from services.finding_models import Disposition
from services.gh_token import Token
from services.git import Git
from services.github_api import GitHubTarget
from services.pr_findings import GitHubLink
from services.sandbox import Sandbox, demo_scenario
from services.sync import SyncOptions, open_sync
from tui.app import SyncDeskApp
from tui.widgets.findings_table import FindingsTable

SIZE = (160, 45)


@pytest.fixture
def world(tmp_path: Path) -> DemoFacts:
    return build_world(tmp_path / "world")


@pytest.fixture
def sandbox(world: DemoFacts) -> Iterator[Sandbox]:
    with Sandbox(demo_scenario(world)) as running:
        yield running


def _app(world: DemoFacts, sandbox: Sandbox) -> SyncDeskApp:
    target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
    link = GitHubLink(target, Token("demo", "the demo sandbox"))
    session = open_sync(
        SyncOptions(repo=world.repo, head=world.sync_branch), user_config=Path("/nonexistent")
    )
    return SyncDeskApp(session, github=lambda: link)


async def _until(pilot: Any, what: type) -> Any:
    for _ in range(400):
        if isinstance(pilot.app.screen, what):
            await pilot.pause()
            return pilot.app.screen
        await pilot.pause(0.02)
    raise AssertionError(f"no {what.__name__}: {[n.message for n in pilot.app._notifications]}")


async def _findings(pilot: Any) -> FindingsScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.press("f")
    screen: FindingsScreen = await _until(pilot, FindingsScreen)
    for _ in range(400):
        if screen.data is not None:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    assert screen.data is not None
    return screen


async def _select(pilot: Any, screen: FindingsScreen, finding_id: str) -> None:
    table = screen.query_one(FindingsTable)
    table.focus()
    table.move_cursor(row=table.get_row_index(finding_id))
    await pilot.pause()


async def test_from_the_findings_list_to_a_reply_posted_exactly_once(
    world: DemoFacts, sandbox: Sandbox
) -> None:
    async with _app(world, sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        data = screen.data
        assert data is not None
        ids = [v.finding.id for v in data.views]
        assert {"F1", "F2", "F6", "F7", "F8", "F9"} <= set(ids)
        await _select(pilot, screen, "F8")
        detail = str(screen.query_one("#finding-detail").render())
        assert "repair" in detail  # the cited lines are annotated by origin
        await pilot.press("m")  # F8: the maintainer overrides the suggestion
        await _select(pilot, screen, "F6")
        await pilot.press("x")
        await pilot.press("n")
        await pilot.pause(0.2)
        await pilot.press(*"moved upstream")
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)
        await pilot.press("R")
        preview = await _until(pilot, ReplyPreviewScreen)
        text = str(preview.query_one("#reply-text").render())
        assert "| F8" in text and "moved upstream" in text
        await pilot.press("p")
        await _until(pilot, ConfirmScreen)
        await pilot.press("y")
        await _until(pilot, FindingsScreen)
        for _ in range(200):
            if [w for w in sandbox.writes if w["method"] == "POST"]:
                break
            await pilot.pause(0.02)
        # A second press finds the first post: nothing is sent again.
        await pilot.press("R")
        await _until(pilot, ReplyPreviewScreen)
        await pilot.press("p")
        await _until(pilot, ConfirmScreen)
        await pilot.press("y")
        await _until(pilot, FindingsScreen)
        await pilot.pause(0.5)
        messages = [n.message for n in pilot.app._notifications]
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 1, posts
    body = posts[0]["body"]["body"]
    f8 = next(line for line in body.splitlines() if line.startswith("| F8"))
    assert "Fix on main" in f8
    f6 = next(line for line in body.splitlines() if line.startswith("| F6"))
    assert "Closed" in f6
    assert "- F6: moved upstream" in body
    assert any(m.startswith("Already posted") for m in messages), messages
    assert not [r for r in sandbox.requests if r["status"] == 404]
    book = load_book(Git(world.repo), "lumen-ai/lumen", 4242)
    assert book.decisions["F8"].disposition is Disposition.FIX_ON_MAIN
    assert book.decisions["F6"].note == "moved upstream"


async def test_decisions_survive_a_restart(world: DemoFacts, sandbox: Sandbox) -> None:
    async with _app(world, sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        await _select(pilot, screen, "F7")
        await pilot.press("h")
        await pilot.pause(0.3)
    async with _app(world, sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        assert screen.data is not None
        decided = screen.data.decision("F7")
        assert decided is not None and decided.disposition is Disposition.FIX_HERE
