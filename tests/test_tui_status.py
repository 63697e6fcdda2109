"""The Status screen on the demo pull request: what it shows, and each post made exactly once."""

from __future__ import annotations

from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from tests.prworld import pr_app
from tests.waiting import until_loaded, until_screen, until_toast

SIZE = (160, 60)


async def _status(pilot: Any) -> tuple[StatusScreen, str]:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("s")
    screen = await until_loaded(pilot, StatusScreen)
    assert screen.data is not None, str(screen.query_one("#status-loading Label").render())
    return screen, str(screen.query_one("#status-text").render())


async def test_status_shows_dco_coverage_checks_and_the_description_check(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    notes = demo_scenario(world).notes
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
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
        await pilot.press("v")
        preview = await until_screen(pilot, TextPreviewScreen)
        generated = str(preview.query_one("#text-preview-text").render())
        assert all(sha[:7] in generated for sha in world.slice)
        await pilot.press("escape")
    assert not [r for r in sandbox.requests if r["status"] == 404]


async def test_the_override_request_and_the_ci_trigger_are_each_posted_once(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
        await _status(pilot)
        previewed = []
        said = []
        # Each is pressed twice: the second time finds the first post.
        for outcome in ("Posted the DCO override request", "override request was already posted"):
            await pilot.press("o")
            preview = await until_screen(pilot, TextPreviewScreen)
            previewed.append(preview._text)
            await pilot.press("P")
            await until_screen(pilot, ConfirmScreen)
            await pilot.press("y")
            said.append(await until_toast(pilot, outcome))
            await until_screen(pilot, StatusScreen)
        for outcome in ("Posted the CI trigger", "CI trigger was already posted"):
            await pilot.press("t")
            await until_screen(pilot, ConfirmScreen)
            await pilot.press("y")
            said.append(await until_toast(pilot, outcome))
            await until_screen(pilot, StatusScreen)
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
    assert sum("already posted" in m for m in said) == 2, said
