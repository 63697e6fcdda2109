"""The Status screen on the demo pull request: what it shows, and each post made exactly once."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from typing import Any

from textual.widgets import Input, Label

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.label_screen import LabelScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.github.api import GitHubTarget
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.github.token import Token
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.loading_bar import LoadingBar
from tests.prworld import pr_app
from tests.waiting import until, until_loaded, until_screen, until_toast

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
        # The bots listed failing are not said to be skipped: only the merge is.
        assert re.search(r"Checked \d+ commits, skipped 1 merge; ", text), text
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


async def test_the_label_dialog_is_empty_and_says_what_enter_does(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    # Pre-filled with a label the pull request already had, Enter removed it.
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
        screen, _ = await _status(pilot)
        assert screen.data is not None
        current = screen.data.pr.labels
        await pilot.press("plus")
        dialog = await until_screen(pilot, LabelScreen)
        assert dialog.query_one(Input).value == ""
        await pilot.press("enter")  # nothing typed: nothing happens
        await pilot.pause()
        assert pilot.app.screen is dialog
        help_line = dialog.query_one("#label-help", Label)
        if current:
            await pilot.press(*current[0])
            await until(pilot, lambda: "enter removes" in str(help_line.render()), "removes")
            await pilot.press(*["backspace"] * len(current[0]))
        await pilot.press(*"needs-review")
        await until(pilot, lambda: "enter adds 'needs-review'" in str(help_line.render()), "adds")
        await pilot.press("escape")
        await until_screen(pilot, StatusScreen)
    assert not [w for w in sandbox.writes if "labels" in w["path"]]


async def test_offline_o_and_v_say_why_they_do_nothing(demo_facts: DemoFacts) -> None:
    # A port nothing listens on: GitHub cannot be reached.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = GitHubTarget(f"http://127.0.0.1:{port}", "https://github.com", "lumen-ai", "lumen")
    link = GitHubLink(target, Token("demo", "the demo sandbox"), 4242)
    session = open_sync(
        SyncOptions(repo=demo_facts.repo, head=demo_facts.sync_branch),
        user_config=Path("/nonexistent"),
    )
    app = SyncDeskApp(session, github=lambda: link)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("s")
        screen = await until_screen(pilot, StatusScreen)
        bar = screen.query_one(LoadingBar)
        await until(pilot, lambda: bar.query_one(Label).has_class("error"), "the read failed")
        for key in ("o", "v"):
            await pilot.press(key)
            await until_toast(pilot, "The pull request has not been read")
