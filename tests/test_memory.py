"""What a finished read freed goes back to the system (tui/memory.py), not only to the heap."""

from __future__ import annotations

import sys

import pytest

from syncdesk.tui.memory import release_freed_memory


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; glibc's heap")
def test_freed_buffers_leave_the_resident_set() -> None:
    # Blocks of 2 kB (the C heap's, not CPython's small-object arenas), one in ten kept:
    # the heap cannot shrink from its top, so freeing alone leaves the pages resident.
    blocks = [bytes([i % 251]) * 2048 for i in range(60_000)]
    kept = blocks[::10]
    before = _resident_mb()
    del blocks
    freed = _resident_mb()
    assert release_freed_memory()
    after = _resident_mb()
    assert before - freed < 30  # freeing alone gave little back
    assert freed - after > 50  # of ~105 MB freed
    assert len(kept) == 6_000
