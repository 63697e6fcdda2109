"""Session-wide demo worlds: built once per test process, shared read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, open_sync


@pytest.fixture(scope="session")
def demo_facts(tmp_path_factory: pytest.TempPathFactory) -> DemoFacts:
    """The default demo world. Tests must not write to it."""
    return build_world(tmp_path_factory.mktemp("demo-world"))


def demo_session(facts: DemoFacts) -> SyncSession:
    """A session on the demo world's sync branch, with the user config isolated."""
    return open_sync(
        SyncOptions(repo=facts.repo, head=facts.sync_branch), user_config=Path("/nonexistent")
    )
