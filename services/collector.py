"""Python's cycle collector held off while a burst of work allocates and keeps objects.

CPython frees an object when its last reference goes; the cycle collector is
only for reference cycles, and it runs after every 700 container allocations
(tuples, lists, dicts) net of frees, walking whole generations of them. Work that
builds hundreds of thousands of long-lived containers (the audit's lines,
statements and tables on a real sync) pays for many such walks and frees
nothing by them: 0.3 s of the audit's 2 s on a Megatron-LM sync. Paused for
the span of that work, the collector runs again when it ends, and collects
then any cycle made meanwhile. End the span once the work's own state is
freed (around the call that holds it, not inside): the first walk after the
pause goes over every container made during it that is still alive (0.2 s
when the audit's tables were).

The collector is process-wide, so the pause is counted: two overlapping
spans (an audit in a worker while another one runs) resume it only when the
last one ends, and a collector someone else disabled stays disabled.

The desk defers the collector's *full* collections instead
(:func:`full_collections_deferred`): young ones stay cheap, but a full one
walks every container alive that was not frozen (the files opened, their
drawn lines), 35-47 ms inside a key press on a real sync, 9 to 16 times a
session of 440 hunk moves. It runs them when no key has come for a while
(:func:`collect_deferred`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# The third threshold, read as "never": CPython runs a full collection when the
# middle generation has been collected this many times since the last one.
_NEVER = 2**31 - 1
_due = gc.get_threshold()[2]  # the third threshold deferred (10 unless someone set it)

_lock = threading.Lock()
_spans = 0  # spans now inside collector_paused()
_resume = False  # whether the collector ran before the first of them


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold off the cycle collector for the block (see the module's docstring)."""
    global _spans, _resume
    with _lock:
        if _spans == 0:
            _resume = gc.isenabled()
            gc.disable()
        _spans += 1
    try:
        yield
    finally:
        with _lock:
            _spans -= 1
            if _spans == 0 and _resume:
                gc.enable()


@contextmanager
def full_collections_deferred() -> Iterator[None]:
    """Within the block, the collector never starts a full collection on its own (the
    young and middle generations are still collected as usual); see
    :func:`collect_deferred`. The thresholds are restored when the block ends."""
    global _due
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    _due = old
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)


def collect_deferred() -> bool:
    """Run the full collection deferred, if the collector would have run one by now (its
    own third threshold reached) and no work holds it off (:func:`collector_paused`: a
    walk now would go over that work's state). True if it ran."""
    with _lock:
        if _spans or not gc.isenabled() or gc.get_count()[2] < _due:
            return False
    gc.collect()
    return True
