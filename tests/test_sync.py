"""Loading a report step by step: progress is reported and the user can cancel."""

from __future__ import annotations

import pytest

from syncdesk.services.errors import Cancelled, MissingRefError
from syncdesk.services.progress import Steps
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync
from tests.syncrepo import build_sync_repo


def test_progress_is_reported_between_steps(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    session = open_sync(SyncOptions(repo=built.path, slice_size=5))
    steps: list[str] = []
    report = load_report(session, steps=Steps(steps.append))
    assert len(steps) >= 4
    assert len(set(steps)) == len(steps)
    assert report.anatomy.ok


def test_cancelling_stops_before_the_next_step(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    session = open_sync(SyncOptions(repo=built.path, slice_size=5))
    steps: list[str] = []
    with pytest.raises(Cancelled):
        load_report(session, steps=Steps(steps.append, lambda: len(steps) >= 2))
    assert len(steps) == 2


def test_refs_resolve_by_the_names_given(tmp_path):
    built = build_sync_repo(tmp_path / "r")
    built.git("branch", "-m", "main", "trunk")
    with pytest.raises(MissingRefError, match="'main'"):
        open_sync(SyncOptions(repo=built.path))
    session = open_sync(SyncOptions(repo=built.path, main="trunk", head="sync~1"))
    assert session.refs.main == built.repo.rev("trunk")
    assert session.refs.head == built.sync_merge
    assert (session.refs.main_name, session.refs.head_name) == ("trunk", "sync~1")
