"""The scaffold every working screen of the desk shares: load in a thread, act one at a time.

A screen reads its facts in one thread worker (``load``, with a
:class:`~syncdesk.services.progress.Steps` wired to its loading bar and to the
worker's cancellation flag) and gets the result back on the UI thread
(``loaded``): nothing is assigned to the screen from a worker thread.

Actions that ask and then write or post (a push, a reply, an override
request) are async workers in the ``action`` group, one at a time: a second
press while one runs is refused, never served by cancelling the first, whose
git or HTTP thread would go on writing with its result unseen. A flow awaits
its blocking calls through :meth:`DeskScreen.in_thread` and lets errors
propagate: every worker of the screen that ends in an error is reported once,
in :meth:`DeskScreen.on_worker_state_changed`, as one line.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Generic, ParamSpec, TypeVar, cast

from textual import work
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from syncdesk.services.errors import error_line
from syncdesk.services.progress import Steps
from syncdesk.services.sync.session import SyncSession
from syncdesk.tui.memory import release_freed_memory
from syncdesk.tui.widgets.loading_bar import LoadingBar

if TYPE_CHECKING:  # the GitHub client (PyGithub, httpx) loads when first used, not at start
    from syncdesk.services.github.api import PostResult

Loaded = TypeVar("Loaded")
Result = TypeVar("Result")
Params = ParamSpec("Params")

LOAD = "load"
ACTION = "action"


class DeskScreen(Screen[None], Generic[Loaded]):
    """A screen over one sync that loads in a worker and runs one action at a time."""

    LOADING = "Loading…"  # the loading bar's first line
    LEGEND = ""  # which symbols the legend (L) explains: see syncdesk.tui.legend

    def __init__(self, session: SyncSession) -> None:
        super().__init__()
        self.session = session
        self._acting = False

    # -- what a screen supplies -------------------------------------------------------

    def load(self, steps: Steps) -> Loaded:
        """Read the screen's facts (in a thread: no widget may be touched here)."""
        raise NotImplementedError

    def loaded(self, result: Loaded) -> None:
        """Show what :meth:`load` returned (on the UI thread)."""
        raise NotImplementedError

    # -- loading ----------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read everything again."""
        bar = self.query_one(LoadingBar)
        bar.start(self.LOADING)
        self._load(bar)

    def action_cancel(self) -> None:
        """Stop loading."""
        self.workers.cancel_group(self, LOAD)

    @work(thread=True, exclusive=True, exit_on_error=False, group=LOAD)
    def _load(self, bar: LoadingBar) -> Loaded:
        # LoadingBar.report only posts a message (thread-safe, never waits), and the
        # worker's cancellation flag is polled between the steps of the services.
        worker = get_current_worker()
        return self.load(Steps(bar.report, lambda: worker.is_cancelled))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Deliver a load's result, and report once every worker that ended in an error."""
        worker = event.worker
        if worker.group == LOAD:
            bar = self.query_one(LoadingBar)
            if event.state == WorkerState.SUCCESS:
                bar.done()
                self.loaded(cast(Loaded, worker.result))
                # A large sync's facts are millions of long-lived objects (lines,
                # hunks); each full collection would walk them all, inside a key
                # press (150-200 ms measured on a real one). Frozen, the collector
                # skips them; unfrozen when the screen goes (on_unmount), so what
                # it held can be collected then.
                gc.freeze()
                release_freed_memory()  # the read's buffers, freed but still resident
            elif event.state == WorkerState.ERROR and worker.error is not None:
                bar.fail(error_line(worker.error))
            elif event.state == WorkerState.CANCELLED:
                bar.fail("Loading cancelled: press r to load again")
        elif event.state == WorkerState.ERROR and worker.error is not None:
            self.notify(error_line(worker.error), severity="error", markup=False, timeout=12)

    def on_unmount(self) -> None:
        """Let the collector see again what was frozen while this screen was loaded."""
        gc.unfreeze()

    # -- actions ----------------------------------------------------------------------

    def start_action(self, flow: Callable[[], Awaitable[None]]) -> None:
        """Run ``flow`` as the screen's one action, unless another is still running."""
        if self._acting:
            self.notify("Another action is in progress: wait for it to finish.", markup=False)
            return
        self._acting = True
        self._act(flow)

    @work(group=ACTION, exit_on_error=False)
    async def _act(self, flow: Callable[[], Awaitable[None]]) -> None:
        try:
            await flow()
        finally:
            self._acting = False

    async def in_thread(
        self,
        call: Callable[Params, Result],
        /,
        *args: Params.args,
        **kwargs: Params.kwargs,
    ) -> Result:
        """Await ``call`` run in a thread; git and GitHub never block the event loop."""
        return await asyncio.to_thread(call, *args, **kwargs)

    async def busy(
        self,
        line: str,
        call: Callable[Params, Result],
        /,
        *args: Params.args,
        **kwargs: Params.kwargs,
    ) -> Result:
        """:meth:`in_thread`, with ``line`` on the loading bar while it runs."""
        bar = self.query_one(LoadingBar)
        bar.start(line)
        try:
            return await self.in_thread(call, *args, **kwargs)
        finally:
            bar.done()

    def posted(self, what: str, result: PostResult, more: str = "") -> None:
        """Say how a post ended, in the one wording every screen uses."""
        comment = f"comment {result.comment_id}"
        if result.already_posted:
            message = f"The {what} was already posted ({comment}): nothing was sent again."
        elif result.confirmed_after_error:
            message = f"GitHub answered with an error, but the {what} is there ({comment})."
        else:
            message = f"Posted the {what} ({comment})."
        self.notify(
            f"{message} {more}".strip(), title=what[:1].upper() + what[1:], markup=False, timeout=12
        )
