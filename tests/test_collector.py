"""The cycle collector's pause: it ends with the work, whatever overlaps it.

The audit holds the collector off while it builds its tables (the collector
is process-wide); a UI that went on without one afterwards would grow with
every reference cycle its widgets leave behind. The desk defers full
collections to the moments no key is pressed: none inside a key press, and
the cycles made meanwhile are collected once the typing pauses.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.audit.lost_lines import audit_sync
from syncdesk.services.collector import (
    collect_deferred,
    collector_paused,
    full_collections_deferred,
)
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.tui.app import SyncDeskApp

from .gitrepo import GitRepo
from .waiting import until_loaded
from .worlds import demo_session


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was, thresholds = gc.isenabled(), gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    if was:
        gc.enable()
    else:
        gc.disable()


class _Node:
    """A reference cycle (with itself) that only a full collection frees once it is
    old: made, kept through a collection of the middle generation, then dropped."""

    def __init__(self) -> None:
        self.me = self


def _old_cycle() -> weakref.ref[_Node]:
    node = _Node()
    gc.collect(1)  # survived: now in the oldest generation
    return weakref.ref(node)


def _full_collections() -> list[int]:
    """A list that grows by one for every full collection started from now on (until
    the test's end)."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    gc.callbacks.append(note)
    return seen


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


@pytest.fixture
def _no_callbacks_left() -> Iterator[None]:
    before = list(gc.callbacks)
    yield
    gc.callbacks[:] = before


@pytest.mark.usefixtures("_no_callbacks_left")
async def test_the_desk_runs_no_full_collection_inside_key_presses(tmp_path: Path) -> None:
    app = SyncDeskApp(demo_session(build_world(tmp_path / "world")))
    app.IDLE_BEFORE_COLLECTING = 3600.0  # never idle long enough here
    kept: list[list[int]] = []
    thresholds = gc.get_threshold()
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        full = _full_collections()
        for _ in range(20):
            # Work that keeps many containers: the collector's own rules would run
            # several full collections here (hundreds of young, dozens of middle ones).
            kept += [[n] for n in range(20_000)]
            await pilot.press("down")
        assert gc.get_count()[2] > 10  # the middle generation was collected often enough
        assert full == []
    assert gc.get_threshold() == thresholds  # the collector's own rule again after the desk


@pytest.mark.usefixtures("_no_callbacks_left")
async def test_the_desk_collects_the_cycles_left_once_the_keys_pause(tmp_path: Path) -> None:
    app = SyncDeskApp(demo_session(build_world(tmp_path / "world")))
    app.IDLE_BEFORE_COLLECTING, app.IDLE_CHECK_EVERY = 0.3, 0.05
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("down")
        cycle = _old_cycle()
        for _ in range(12):
            gc.collect(1)  # a full collection is due by the collector's own rule
        # (None runs inside key presses: the test above.)
        for _ in range(100):
            if cycle() is None:
                break
            await pilot.pause(0.05)
        assert cycle() is None


def test_a_deferred_collection_waits_for_the_audits_pause_to_end() -> None:
    with full_collections_deferred():
        cycle = _old_cycle()
        for _ in range(12):
            gc.collect(1)
        with collector_paused():
            assert not collect_deferred()  # the audit's tables would be walked
        assert cycle() is not None
        assert collect_deferred()
        assert cycle() is None
        assert not collect_deferred()  # not due again yet
