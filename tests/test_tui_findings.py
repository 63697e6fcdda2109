"""The Findings screen on the demo pull request: keys decide, the reply is posted exactly once."""

from __future__ import annotations

from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.reply_screen import ReplyPreviewScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.review.dispositions import load_book
from syncdesk.services.review.models import Disposition
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.widgets.findings_table import FindingsTable
from tests.prworld import pr_app, until_screen

SIZE = (160, 45)


async def _findings(pilot: Any) -> FindingsScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.press("f")
    screen: FindingsScreen = await until_screen(pilot, FindingsScreen)
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
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE) as pilot:
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
        preview = await until_screen(pilot, ReplyPreviewScreen)
        text = str(preview.query_one("#reply-text").render())
        assert "| F8" in text and "moved upstream" in text
        await pilot.press("p")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_screen(pilot, FindingsScreen)
        for _ in range(200):
            if [w for w in sandbox.writes if w["method"] == "POST"]:
                break
            await pilot.pause(0.02)
        # A second press finds the first post: nothing is sent again.
        await pilot.press("R")
        await until_screen(pilot, ReplyPreviewScreen)
        await pilot.press("p")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_screen(pilot, FindingsScreen)
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


async def test_decisions_survive_a_restart(pr_world: DemoFacts, pr_sandbox: Sandbox) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        await _select(pilot, screen, "F7")
        await pilot.press("h")
        await pilot.pause(0.3)
    async with pr_app(world, sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        assert screen.data is not None
        decided = screen.data.decision("F7")
        assert decided is not None and decided.disposition is Disposition.FIX_HERE
