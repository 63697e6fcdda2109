"""The Status screen: DCO, patch coverage, CI and the PR description, with one key per action."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import ClassVar

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Static
from textual.worker import Worker, WorkerState, get_current_worker

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.label_screen import LabelScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.services.github.api import PostResult
from syncdesk.services.github.checks import trigger_text
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.github.status import (
    StatusData,
    description,
    load_status,
    override_text,
    post_override,
    post_trigger,
    toggle,
)
from syncdesk.services.sync.session import SyncSession, reopen
from syncdesk.services.write.repair import write_repair
from syncdesk.services.write.session import plan_signoff_for
from syncdesk.tui.text import error_line
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.status_view import render_status

# While checks are pending the screen reads them again, waiting longer each
# time (and never faster than GitHub's rate limit allows: a few calls a minute).
REFRESH_DELAYS = (20.0, 40.0, 80.0, 160.0, 300.0)
LABEL_SUGGESTION = "Run functional tests"
# Below this many requests left, pending checks are no longer read by themselves
# (one refresh costs about ten requests).
RATE_RESERVE = 200


class StatusScreen(Screen[None]):
    """Everything between a fixed branch and a merge: sign-offs, coverage, checks, description."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "override", "DCO override request", id="status.override"),
        Binding("s", "resign", "Re-sign repair", id="status.resign"),
        Binding("t", "trigger", "CI trigger", id="status.trigger"),
        Binding("l", "label", "Label", id="status.label"),
        Binding("d", "description", "Description", id="status.description"),
        Binding("r", "reload", "Reload", id="status.reload"),
        Binding("escape", "back", "Back", id="status.back"),
    ]

    def __init__(self, session: SyncSession, link: Callable[[], GitHubLink]) -> None:
        super().__init__()
        self.session = session
        self._link = link
        self.data: StatusData | None = None
        self._refresh: Timer | None = None
        self._round = 0  # pending refreshes in a row: the index into REFRESH_DELAYS
        self._acting = False

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        self._bar = LoadingBar("Reading the pull request…", id="status-loading")
        yield self._bar
        with VerticalScroll(id="status-body"):
            yield Static(id="status-text")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    # -- loading ----------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read everything again (and restart the refresh backoff)."""
        self._round = 0
        self._start_load()

    def _start_load(self) -> None:
        if self._refresh is not None:
            self._refresh.stop()
            self._refresh = None
        self.query_one(LoadingBar).start("Reading the pull request…")
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="status-load")
    def _load(self) -> StatusData:
        worker = get_current_worker()
        link = self.data.link if self.data is not None else self._link()

        # The refs are read again: a write, a re-sign or a push elsewhere moved them.
        self.session = session = reopen(self.session)
        return load_status(
            session, link, progress=self._bar.report, cancelled=lambda: worker.is_cancelled
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "status-load":
            return
        if event.state == WorkerState.SUCCESS:
            data = event.worker.result
            assert isinstance(data, StatusData)
            self._show(data)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self.query_one(LoadingBar).fail(error_line(event.worker.error))

    def _show(self, data: StatusData) -> None:
        self.data = data
        self.query_one(LoadingBar).done()
        self.query_one("#status-text", Static).update(render_status(data))
        low = data.rate is not None and data.rate.remaining < RATE_RESERVE
        if (data.checks.pending or data.checks.missing) and low:
            # Leave the budget to the maintainer's own presses: no automatic reads.
            self.sub_title = f"{self.app.sub_title} · GitHub's rate limit is low: r reads again"
        elif data.checks.pending or data.checks.missing:
            delay = REFRESH_DELAYS[min(self._round, len(REFRESH_DELAYS) - 1)]
            self._round += 1
            self._refresh = self.set_timer(delay, self._start_load)
            self.sub_title = f"{self.app.sub_title} · checks pending: again in {delay:.0f} s"
        else:
            self.sub_title = self.app.sub_title

    # -- actions ----------------------------------------------------------------------

    def action_override(self) -> None:
        """Draft the DCO override request; post it once for this head, after a yes."""
        self._one_at_a_time(self._override_flow)

    async def _override_flow(self) -> None:
        data = self.data
        if data is None:
            return
        if not data.dco.needs_override:
            self.notify("No imported commit fails DCO: there is nothing to ask for.", markup=False)
            return
        text = override_text(data, self.session.config.dco_maintainers)
        summary = f"The DCO override request for #{data.pr.number}, exactly as it will be posted"
        if not await self.app.push_screen_wait(TextPreviewScreen(summary, text)):
            return
        question = (
            f"Post the DCO override request on #{data.pr.number} of "
            f"{data.link.target.full_name}? It is posted at most once for head "
            f"{data.pr.head_sha[:12]}."
        )
        if await self.app.push_screen_wait(ConfirmScreen(question, "Post")):
            await self._post(partial(post_override, data, text), "DCO override request")

    def action_trigger(self) -> None:
        """Post the CI trigger (``/ok to test <sha>``) once for this head, after a yes."""
        self._one_at_a_time(self._trigger_flow)

    async def _trigger_flow(self) -> None:
        data = self.data
        if data is None:
            return
        template = self.session.config.ci_trigger
        try:
            line = trigger_text(template, data.pr.head_sha)
        except ValueError as error:
            self.notify(error_line(error), severity="error", markup=False)
            return
        where = f"#{data.pr.number} of {data.link.target.full_name}"
        question = f"Post {line!r} on {where}? It is posted at most once per head."
        if await self.app.push_screen_wait(ConfirmScreen(question, "Post")):
            await self._post(partial(post_trigger, data, template), "CI trigger")

    def _one_at_a_time(self, flow: Callable[[], Awaitable[None]]) -> None:
        # One action at a time, never by cancelling: cancelling a worker that
        # awaits a thread leaves the thread posting, and a second press could
        # then post again before the first post is visible.
        if self._acting:
            self.notify("Another action is in progress.", markup=False)
            return
        self._acting = True
        self._act(flow)

    @work(group="status-action", exit_on_error=False)
    async def _act(self, flow: Callable[[], Awaitable[None]]) -> None:
        try:
            await flow()
        finally:
            self._acting = False

    async def _post(self, job: Callable[[], PostResult], what: str) -> None:
        try:
            result = await asyncio.to_thread(job)
        except Exception as error:
            self.notify(error_line(error), severity="error", markup=False, timeout=12)
            return
        if result.already_posted:
            message = f"The {what} was already posted (comment {result.comment_id})."
        elif result.confirmed_after_error:
            message = f"GitHub errored, but the {what} is there (comment {result.comment_id})."
        else:
            message = f"Posted the {what} (comment {result.comment_id})."
        self.notify(message, title=what, markup=False, timeout=12)

    def action_label(self) -> None:
        """Add or remove a label on the pull request."""
        self._one_at_a_time(self._label_flow)

    async def _label_flow(self) -> None:
        data = self.data
        if data is None:
            return
        name = await self.app.push_screen_wait(LabelScreen(data.pr.labels, LABEL_SUGGESTION))
        if name is None:
            return
        try:
            labels = await asyncio.to_thread(toggle, data, name)
        except Exception as error:
            self.notify(error_line(error), severity="error", markup=False)
            return
        shown = ", ".join(labels) or "none"
        self.notify(f"Labels now: {shown}", title="Labels", markup=False)
        self.action_reload()

    def action_resign(self) -> None:
        """Re-sign our repair commit (the same tree), through the safe writer."""
        self._one_at_a_time(self._resign_flow)

    async def _resign_flow(self) -> None:
        if self.data is not None and not self.data.dco.fixable_failures:
            self.notify("No commit of ours fails DCO.", markup=False)
            return
        session = self.session
        try:
            plan = await asyncio.to_thread(plan_signoff_for, session)
        except Exception as error:
            self.notify(error_line(error), severity="error", markup=False)
            return
        if not await self.app.push_screen_wait(PreviewScreen(plan)):
            return
        try:
            result = await asyncio.to_thread(write_repair, session.git, plan)
        except Exception as error:
            self.notify(error_line(error), severity="error", markup=False)
            return
        self.notify(
            f"Re-signed: {result.old_head[:12]} → {result.new_head[:12]} ({result.patch_note}); "
            "push it (P on the Slice screen) for GitHub to see it",
            title="Repair re-signed",
            markup=False,
            timeout=12,
        )

    def action_description(self) -> None:
        """Show a description generated from this sync's verified facts (c copies it)."""
        data = self.data
        if data is None:
            return
        summary = "A description from verified facts only (c copies it; nothing is posted)"
        self.app.push_screen(TextPreviewScreen(summary, description(data), action=None))

    def action_back(self) -> None:
        """Back to the Slice screen."""
        if self._refresh is not None:
            self._refresh.stop()
        self.workers.cancel_group(self, "status-load")
        self.dismiss(None)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """This screen's actions, for the command palette."""
        yield SystemCommand(
            "DCO override request", "Ask maintainers to pass DCO", self.action_override
        )
        yield SystemCommand("CI trigger", "Post /ok to test for the head", self.action_trigger)
        yield SystemCommand("Re-sign repair", "Add your sign-off to the repair", self.action_resign)
        yield SystemCommand("Description", "A PR description from facts", self.action_description)
        yield SystemCommand("Reload status", "Read the pull request again", self.action_reload)
