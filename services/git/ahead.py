"""git reads started before their answers are needed, on threads of their own.

git runs in a process of its own, so while it reads (a ``log -p`` over a
slice, a ``diff`` of each side of a merge) the Python that asked can go on
with work that does not need the answer yet: on two cores the read costs
little more than the longer of the two. ``Git.run`` starts a new process per
call and shares no state between calls, so calls from several threads are safe.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Ahead:
    """A block in which git reads can be started early and their answers taken later.

    On leaving the block, reads not yet started are dropped and running ones
    are not waited for: a cancelled caller returns at once, and a git process
    still running finishes on its own.
    """

    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="git-ahead")

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def ask(self, read: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Start ``read(*args, **kwargs)``; ``.result()`` waits for it (and raises its error)."""
        return self._pool.submit(read, *args, **kwargs)
