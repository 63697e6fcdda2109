"""What comes next is on screen: approvals on the Slice screen, posts on the Status screen,
suggestions in the reply preview. Driven by key presses on the demo world."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.reply_screen import SUGGESTED_MARK, ReplyPreviewScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.decisions.models import FileStatus
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.review.models import Disposition
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.findings_table import FindingsTable
from syncdesk.tui.widgets.sync_summary import SyncSummary
from tests.prworld import pr_app
from tests.waiting import saved, until, until_loaded, until_screen, until_toast
from tests.worlds import demo_session

SIZE = (160, 60)


def _summary(screen: SliceScreen) -> str:
    # The panel wraps: read it as one line.
    return " ".join(str(screen.query_one(SyncSummary).render()).split())


async def test_the_slice_screen_says_how_many_files_are_approved_and_what_is_next(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    async with SyncDeskApp(demo_session(facts)).run_test(size=SIZE) as pilot:
        slice_screen = await until_loaded(pilot, SliceScreen)
        assert "0 of 11 files approved · c opens the conflict workspace" in _summary(slice_screen)
        await pilot.press("c")
        workspace: Any = await until_loaded(pilot, WorkspaceScreen)
        first = workspace.conflict.path
        await pilot.press("a")
        await until(
            pilot,
            lambda: workspace.state.decisions(first).status is FileStatus.APPROVED,
            f"{first} approved",
        )
        await saved(workspace.persister)
        before = slice_screen.report
        await pilot.press("escape")
        await until(pilot, lambda: slice_screen.report is not before, "the slice read again")
        await until_loaded(pilot, SliceScreen)
        assert "1 of 11 files approved · W previews the repair" in _summary(slice_screen)


async def test_the_status_screen_marks_the_override_request_and_the_trigger_posted(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=SIZE, notifications=True) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("s")
        screen = await until_loaded(pilot, StatusScreen)

        def text() -> str:
            return str(screen.query_one("#status-text").render())

        assert "is posted for this head" not in text()
        assert "t posts the CI trigger" in text()
        await pilot.press("o")
        await until_screen(pilot, TextPreviewScreen)
        await pilot.press("P")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_toast(pilot, "Posted the DCO override request")
        await pilot.press("t")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_toast(pilot, "Posted the CI trigger")
        await until_screen(pilot, StatusScreen)
        posted = [w for w in pr_sandbox.writes if w["method"] == "POST"]
        assert len(posted) == 2
        await until(pilot, lambda: "The CI trigger is posted for this head" in text(), "marks")
        for what in ("The override request", "The CI trigger"):
            line = next(line for line in text().splitlines() if line.startswith(f"✓ {what}"))
            assert "/pull/4242#issuecomment-" in line, line  # its link
        assert "t posts the CI trigger" not in text()

        # Read again from GitHub (another window, a restart): still marked.
        before = screen.data
        await pilot.press("r")
        await until(pilot, lambda: screen.data is not before, "the status read again")
        await until_loaded(pilot, StatusScreen)
        assert "The override request is posted for this head" in text()
        assert "The CI trigger is posted for this head" in text()


async def test_the_reply_preview_marks_the_dispositions_that_are_only_suggestions(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=SIZE) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("f")
        screen = await until_loaded(pilot, FindingsScreen)
        assert screen.data is not None
        ids = [view.finding.id for view in screen.data.views]
        table = screen.query_one(FindingsTable)
        table.focus()
        table.move_cursor(row=table.get_row_index("F8"))
        await until(
            pilot, lambda: str(screen.query_one("#finding-detail").render()).startswith("F8 "), "F8"
        )
        await pilot.press("m")
        await until(
            pilot,
            lambda: (
                screen.data is not None
                and (decided := screen.data.decision("F8")) is not None
                and decided.disposition is Disposition.FIX_ON_MAIN
            ),
            "F8 decided",
        )
        await pilot.press("P")
        preview = await until_screen(pilot, ReplyPreviewScreen)
        warning = str(preview.query_one("#reply-suggested").render())
        suggested = [fid for fid in ids if fid != "F8"]
        assert f"{len(suggested)} disposition(s) are only syncdesk's suggestion" in warning
        assert "F8" not in warning.split(":", 1)[1].split(".")[0].split(", ")
        shown = str(preview.query_one("#reply-text").render()).splitlines()
        marked = {line.split()[1] for line in shown if line.endswith(SUGGESTED_MARK.strip())}
        assert marked == set(suggested)
        # The mark is the preview's: the text that would be posted carries none.
        assert SUGGESTED_MARK.strip() not in preview._text
