"""The Status screen on the demo pull request: what it shows, and each post made exactly once."""

from __future__ import annotations

from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from tests.prworld import pr_app, until_screen

SIZE = (160, 60)


async def _status(pilot: Any) -> tuple[StatusScreen, str]:
    await pilot.app.workers.wait_for_complete()
    await pilot.press("s")
    screen: StatusScreen = await until_screen(pilot, StatusScreen)
    for _ in range(400):
        if screen.data is not None:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    return screen, str(screen.query_one("#status-text").render())


async def _posted(pilot: Any, sandbox: Sandbox, count: int) -> list[dict[str, Any]]:
    for _ in range(200):
        posts = [w for w in sandbox.writes if w["method"] == "POST"]
        if len(posts) >= count:
            break
        await pilot.pause(0.02)
    await pilot.pause(0.2)
    return [w for w in sandbox.writes if w["method"] == "POST"]


async def test_status_shows_dco_coverage_checks_and_the_description_check(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    notes = demo_scenario(world).notes
    async with pr_app(world, sandbox).run_test(size=SIZE) as pilot:
        _, text = await _status(pilot)
        for sha in notes["dco_failing"]:
            assert str(sha)[:10] in text
        assert "action_required" in text
        assert "70.13%" in text and "target 80.00%" in text
        assert "written by the merge resolution or the repair" in text
        assert "CI / functional" in text and "failure" in text
        assert "Verdict: failure" in text
        for sha in notes["body_missing_shas"]:
            assert str(sha)[:7] in text  # the description's missing SHAs are named
        assert "GitHub rate limit" in text
        await pilot.press("d")
        preview = await until_screen(pilot, TextPreviewScreen)
        generated = str(preview.query_one("#text-preview-text").render())
        assert all(sha[:7] in generated for sha in world.slice)
        await pilot.press("escape")
    assert not [r for r in sandbox.requests if r["status"] == 404]


async def test_the_override_request_and_the_ci_trigger_are_each_posted_once(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE) as pilot:
        await _status(pilot)
        previewed = []
        for _ in range(2):  # the second time finds the first post
            await pilot.press("o")
            preview = await until_screen(pilot, TextPreviewScreen)
            previewed.append(preview._text)
            await pilot.press("p")
            await until_screen(pilot, ConfirmScreen)
            await pilot.press("y")
            await until_screen(pilot, StatusScreen)
            await _posted(pilot, sandbox, 1)
        for _ in range(2):
            await pilot.press("t")
            await until_screen(pilot, ConfirmScreen)
            await pilot.press("y")
            await until_screen(pilot, StatusScreen)
            await _posted(pilot, sandbox, 2)
        messages = [n.message for n in pilot.app._notifications]
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 2, posts
    override, trigger = (p["body"]["body"] for p in posts)
    # Exactly the previewed text was posted (then the hidden marker line).
    marker = f"<!-- syncdesk:dco-override:{world.repair} -->"
    assert override == f"{previewed[0].rstrip()}\n\n{marker}\n"
    assert "Set DCO to pass" in override and "#4101" in override and "#3990" in override
    assert "@lumen-ai" not in override  # no maintainers configured in this test: no mention
    for sha in demo_scenario(world).notes["dco_failing"]:
        assert str(sha)[:7] in override
    assert trigger.splitlines()[0] == f"/ok to test {world.repair}"
    assert sum("already posted" in m for m in messages) == 2, messages
