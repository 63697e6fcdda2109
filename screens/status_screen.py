"""The Status screen: DCO, patch coverage, CI and the PR description, with one key per action."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Header, Static

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.desk import DeskScreen
from syncdesk.screens.label_screen import LabelScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.services.errors import error_line
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
from syncdesk.services.progress import Steps
from syncdesk.services.sync.session import SyncSession, reopen
from syncdesk.services.write.session import plan_signoff_for, write_confirmed
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.status_view import render_status

# While checks are pending the screen reads them again, waiting longer each
# time (and never faster than GitHub's rate limit allows: a few calls a minute).
REFRESH_DELAYS = (20.0, 40.0, 80.0, 160.0, 300.0)
LABEL_SUGGESTION = "Run functional tests"
# Below this many requests left, pending checks are no longer read by themselves
# (one refresh costs about ten requests).
RATE_RESERVE = 200


class StatusScreen(DeskScreen[tuple[SyncSession, StatusData]]):
    """Everything between a fixed branch and a merge: sign-offs, coverage, checks, description."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "override", "DCO override request", id="status.override"),
        Binding("W", "resign", "Re-sign repair", id="status.resign"),
        Binding("t", "trigger", "CI trigger", id="status.trigger"),
        Binding("plus", "label", "Label", id="status.label"),
        Binding("v", "description", "Description", id="status.description"),
        Binding("r", "reload", "Reload", id="status.reload"),
        Binding("escape", "back", "Back", id="status.back"),
    ]

    LOADING = "Reading the pull request…"
    LEGEND = "status"

    def __init__(self, session: SyncSession, link: Callable[[], GitHubLink]) -> None:
        super().__init__(session)
        self._link = link  # called in the worker: finding the token may run `gh`
        self.data: StatusData | None = None
        self._refresh: Timer | None = None
        self._round = 0  # pending refreshes in a row: the index into REFRESH_DELAYS

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar(self.LOADING, id="status-loading")
        with VerticalScroll(id="status-body"):
            yield Static(id="status-text")
        yield KeyFooter()

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
        super().action_reload()

    def load(self, steps: Steps) -> tuple[SyncSession, StatusData]:
        link = self.data.link if self.data is not None else self._link()
        # The refs are read again: a write, a re-sign or a push elsewhere moved them.
        session = reopen(self.session)
        return session, load_status(session, link, steps=steps)

    def loaded(self, result: tuple[SyncSession, StatusData]) -> None:
        self.session, data = result
        self._show(data)

    def _show(self, data: StatusData) -> None:
        self.data = data
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
        self.start_action(self._override_flow)

    async def _override_flow(self) -> None:
        data = self.data
        if data is None:
            self._unread()
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
            result = await self.in_thread(post_override, self.session, data, text)
            self.posted("DCO override request", result)
            self._mark_posted(data.pr.head_sha, override=result)

    def action_trigger(self) -> None:
        """Post the CI trigger (``/ok to test <sha>``) once for this head, after a yes."""
        self.start_action(self._trigger_flow)

    async def _trigger_flow(self) -> None:
        data = self.data
        if data is None:
            self._unread()
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
            result = await self.in_thread(post_trigger, self.session, data, template)
            self.posted("CI trigger", result)
            self._mark_posted(data.pr.head_sha, trigger=result)

    def _mark_posted(
        self, head: str, *, override: PostResult | None = None, trigger: PostResult | None = None
    ) -> None:
        """Show a post for ``head`` at once, with its link, without reading the PR again.

        Marked on the data shown now (a refresh may have come in while the post
        was under way), and only while that data is still about the same head.
        """
        data = self.data
        if data is None or data.pr.head_sha != head:
            return
        if override is not None:
            data = replace(data, override_posted=override)
        if trigger is not None:
            data = replace(data, trigger_posted=trigger)
        self.data = data
        self.query_one("#status-text", Static).update(render_status(data))

    def action_label(self) -> None:
        """Add or remove a label on the pull request."""
        self.start_action(self._label_flow)

    async def _label_flow(self) -> None:
        data = self.data
        if data is None:
            self._unread()
            return
        name = await self.app.push_screen_wait(LabelScreen(data.pr.labels, LABEL_SUGGESTION))
        if name is None:
            return
        labels = await self.in_thread(toggle, data, name)
        shown = ", ".join(labels) or "none"
        self.notify(f"Labels now: {shown}", title="Labels", markup=False)
        self.action_reload()

    def action_resign(self) -> None:
        """Re-sign our repair commit (the same tree), through the safe writer."""
        self.start_action(self._resign_flow)

    async def _resign_flow(self) -> None:
        if self.data is not None and not self.data.dco.fixable_failures:
            self.notify("No commit of ours fails DCO.", markup=False)
            return
        session = self.session
        plan = await self.busy("Re-signing the repair…", plan_signoff_for, session)
        if not await self.app.push_screen_wait(PreviewScreen(plan)):
            return
        result = await self.busy("Writing the repair…", write_confirmed, session, plan)
        self.notify(
            f"Re-signed: {result.old_head[:12]} → {result.new_head[:12]} ({result.patch_note}); "
            "push it (P on the Slice screen) for GitHub to see it",
            title="Repair re-signed",
            markup=False,
            timeout=12,
        )

    def action_description(self) -> None:
        """Show a description generated from this sync's verified facts (C copies it)."""
        data = self.data
        if data is None:
            self._unread()
            return
        summary = "A description from verified facts only (C copies it; nothing is posted)"
        self.app.push_screen(TextPreviewScreen(summary, description(data), action=None))

    def _unread(self) -> None:
        """Say why a key that needs the pull request does nothing (offline, say)."""
        self.notify(
            "The pull request has not been read (GitHub could not be reached, or it is still "
            "loading): r reads it again.",
            severity="warning",
            markup=False,
        )

    def action_back(self) -> None:
        """Back to the Slice screen."""
        if self._refresh is not None:
            self._refresh.stop()
        self.action_cancel()
        self.dismiss(None)
