"""The cycle collector's pause: it ends with the work, whatever overlaps it.

The audit holds the collector off while it builds its tables (the collector
is process-wide); a UI that went on without one afterwards would grow with
every reference cycle its widgets leave behind.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from syncdesk.services.audit.lost_lines import audit_sync
from syncdesk.services.collector import collector_paused
from syncdesk.services.git.runner import Git

from .gitrepo import GitRepo


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_runs_again_after_the_audit(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.commit("base", {"m.py": "keep = 1\n"})
    repo.checkout("dev", "main")
    dev = repo.commit("dev", {"m.py": "keep = 1\ndev_only = 2\n"})
    repo.checkout("main")
    tip = repo.commit("main", {"m.py": "keep = 1\nmain_only = 3\n"})
    repo.checkout("sync", dev)
    head = repo.commit("result", {"m.py": "keep = 1\nmain_only = 3\n"})
    gc.enable()
    audit = audit_sync(Git(repo.path), dev, tip, head)
    assert [f.raw for f in audit.findings] == [b"dev_only = 2"]
    assert gc.isenabled()


def test_the_collector_waits_for_the_last_of_overlapping_spans() -> None:
    gc.enable()
    first_in, second_out = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other() -> None:
        with collector_paused():
            first_in.wait()
        second_out.set()

    with collector_paused():
        thread = threading.Thread(target=other)
        thread.start()
        first_in.set()
        second_out.wait()
        seen.append(gc.isenabled())  # the other span ended first: still paused
    thread.join()
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_error_inside_still_resumes_the_collector() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the work failed")
    assert gc.isenabled()
