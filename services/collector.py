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
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
