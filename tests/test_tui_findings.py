"""The Findings screen on the demo pull request: keys decide, the reply is posted exactly once."""

from __future__ import annotations

from typing import Any

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.note_screen import NoteScreen
from syncdesk.screens.reply_screen import ReplyPreviewScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.atomic import locked, make_directory
from syncdesk.services.git.runner import Git
from syncdesk.services.review.dispositions import book_path, load_book
from syncdesk.services.review.models import Disposition
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.widgets.findings_table import FindingsTable
from tests.prworld import pr_app
from tests.waiting import until, until_loaded, until_screen, until_toast

SIZE = (160, 45)


async def _findings(pilot: Any) -> FindingsScreen:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("f")
    screen = await until_loaded(pilot, FindingsScreen)
    assert screen.data is not None, str(screen.query_one("#findings-loading Label").render())
    return screen


def _detail(screen: FindingsScreen) -> str:
    return str(screen.query_one("#finding-detail").render())


async def _select(pilot: Any, screen: FindingsScreen, finding_id: str) -> None:
    """Put the cursor on ``finding_id``; wait until the detail pane shows it."""
    table = screen.query_one(FindingsTable)
    table.focus()
    table.move_cursor(row=table.get_row_index(finding_id))
    await until(
        pilot,
        lambda: _detail(screen).split("\n")[0].split(" · ")[0].strip() == finding_id,
        f"{finding_id} in the detail pane",
    )


async def _decided(
    pilot: Any,
    screen: FindingsScreen,
    finding_id: str,
    disposition: Disposition | None,
    note: str = "",
) -> None:
    """Wait until the screen shows ``finding_id`` decided so (shown once it is saved)."""

    def shown() -> bool:
        decision = screen.data.decision(finding_id) if screen.data is not None else None
        return decision is not None and (decision.disposition, decision.note) == (disposition, note)

    await until(pilot, shown, f"{finding_id} decided {disposition} {note!r}")


async def test_from_the_findings_list_to_a_reply_posted_exactly_once(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
        screen = await _findings(pilot)
        data = screen.data
        assert data is not None
        ids = [v.finding.id for v in data.views]
        assert {"F1", "F2", "F6", "F7", "F8", "F9"} <= set(ids)
        await _select(pilot, screen, "F8")
        detail = str(screen.query_one("#finding-detail").render())
        assert "repair" in detail  # the cited lines are annotated by origin
        await pilot.press("m")  # F8: the maintainer overrides the suggestion
        await _decided(pilot, screen, "F8", Disposition.FIX_ON_MAIN)
        await _select(pilot, screen, "F6")
        await pilot.press("X")
        # e edits the note of the disposition shown: press it once F6 shows Closed.
        await _decided(pilot, screen, "F6", Disposition.CLOSED)
        await pilot.press("e")
        await until_screen(pilot, NoteScreen)
        await pilot.press(*"moved upstream")
        await pilot.press("ctrl+s")
        await _decided(pilot, screen, "F6", Disposition.CLOSED, "moved upstream")
        await pilot.press("P")
        preview = await until_screen(pilot, ReplyPreviewScreen)
        text = str(preview.query_one("#reply-text").render())
        assert "| F8" in text and "moved upstream" in text
        await pilot.press("P")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await until_toast(pilot, "Posted the reply")
        await until_screen(pilot, FindingsScreen)
        # A second press finds the first post: nothing is sent again.
        await pilot.press("P")
        await until_screen(pilot, ReplyPreviewScreen)
        await pilot.press("P")
        await until_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        again = await until_toast(pilot, "nothing was sent again")
        await until_screen(pilot, FindingsScreen)
    posts = [w for w in sandbox.writes if w["method"] == "POST"]
    assert len(posts) == 1, posts
    body = posts[0]["body"]["body"]
    f8 = next(line for line in body.splitlines() if line.startswith("| F8"))
    assert "Fix on main" in f8
    f6 = next(line for line in body.splitlines() if line.startswith("| F6"))
    assert "Closed" in f6
    assert "- F6: moved upstream" in body
    assert "was already posted" in again, again
    assert not [r for r in sandbox.requests if r["status"] == 404]
    book = load_book(Git(world.repo), "lumen-ai/lumen", 4242)
    assert book.decisions["F8"].disposition is Disposition.FIX_ON_MAIN
    assert book.decisions["F6"].note == "moved upstream"


async def test_decisions_survive_a_restart(pr_world: DemoFacts, pr_sandbox: Sandbox) -> None:
    world, sandbox = pr_world, pr_sandbox
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
        screen = await _findings(pilot)
        await _select(pilot, screen, "F7")
        await pilot.press("H")
        await _decided(pilot, screen, "F7", Disposition.FIX_HERE)  # shown once saved
    async with pr_app(world, sandbox).run_test(size=SIZE, notifications=True) as pilot:
        screen = await _findings(pilot)
        assert screen.data is not None
        decided = screen.data.decision("F7")
        assert decided is not None and decided.disposition is Disposition.FIX_HERE


async def test_a_note_written_right_after_a_key_goes_with_that_key(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    # Another syncdesk holds the findings file's lock, so "X" is still waiting to be
    # saved when "e" is pressed: the note must go with "X", not with what the
    # screen showed before the saver reported "X" saved.
    path = book_path(Git(pr_world.repo), "lumen-ai/lumen", 4242)
    async with pr_app(pr_world, pr_sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        await _select(pilot, screen, "F6")
        make_directory(path.parent)
        with locked(path.with_name(path.name + ".lock")):
            await pilot.press("X", "e")
            await until_screen(pilot, NoteScreen)
            await pilot.press(*"gone", "ctrl+s")
            await until_screen(pilot, FindingsScreen)
        await _decided(pilot, screen, "F6", Disposition.CLOSED, "gone")
    book = load_book(Git(pr_world.repo), "lumen-ai/lumen", 4242)
    assert (book.decisions["F6"].disposition, book.decisions["F6"].note) == (
        Disposition.CLOSED,
        "gone",
    )


async def test_a_note_alone_keeps_the_suggestion_a_suggestion(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=SIZE) as pilot:
        screen = await _findings(pilot)
        await _select(pilot, screen, "F7")
        await pilot.press("e")
        await until_screen(pilot, NoteScreen)
        await pilot.press(*"ask bob", "ctrl+s")
        await until_screen(pilot, FindingsScreen)
        await _decided(pilot, screen, "F7", None, "ask bob")
        assert "Decided:   nothing yet" in _detail(screen)
        assert "Note:      ask bob" in _detail(screen)
        row = screen.query_one(FindingsTable).get_row("F7")
        assert any(str(cell).startswith("(") for cell in row)  # still shown as suggested
    book = load_book(Git(pr_world.repo), "lumen-ai/lumen", 4242)
    assert (book.decisions["F7"].disposition, book.decisions["F7"].note) == (None, "ask bob")


async def test_another_finding_opens_at_its_top(pr_world: DemoFacts, pr_sandbox: Sandbox) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=(100, 20)) as pilot:
        screen = await _findings(pilot)
        pane = screen.query_one("#finding-pane")
        views = screen.data.views if screen.data is not None else ()
        tall = max(views, key=lambda v: len(v.origins) + len(v.finding.body))
        await _select(pilot, screen, tall.finding.id)
        await until(pilot, lambda: pane.max_scroll_y > 0, "a finding taller than its pane")
        pane.scroll_end(animate=False)
        await until(pilot, lambda: pane.scroll_y > 0, "scrolled down")
        other = next(v for v in views if v is not tall)
        await _select(pilot, screen, other.finding.id)
        await until(pilot, lambda: pane.scroll_y == 0, "the next finding from its top")
