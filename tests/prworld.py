"""A demo world with its GitHub sandbox running, and an app wired to it (for Pilot tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.github.api import GitHubTarget
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.github.token import Token
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.waiting import until_screen as until_screen  # re-exported: Pilot tests import it here

PR_NUMBER = 4242


@pytest.fixture
def pr_world(tmp_path: Path) -> DemoFacts:
    """A fresh demo world (tests write decisions and comments into it)."""
    return build_world(tmp_path / "world")


@pytest.fixture
def pr_sandbox(pr_world: DemoFacts) -> Iterator[Sandbox]:
    """The demo's GitHub, on 127.0.0.1, for one test."""
    with Sandbox(demo_scenario(pr_world)) as running:
        yield running


def sandbox_link(sandbox: Sandbox, number: int | None = PR_NUMBER) -> GitHubLink:
    """How the app reaches the sandbox: as github.com, only the base URL differs."""
    target = GitHubTarget(sandbox.base_url, "https://github.com", "lumen-ai", "lumen")
    return GitHubLink(target, Token("demo", "the demo sandbox"), number, sandbox.codecov_url)


def pr_app(world: DemoFacts, sandbox: Sandbox, number: int | None = PR_NUMBER) -> SyncDeskApp:
    """The app on the demo's sync branch, its pull request served by ``sandbox``."""
    link = sandbox_link(sandbox, number)
    options = SyncOptions(repo=world.repo, head=world.sync_branch)
    return SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")), github=lambda: link)
