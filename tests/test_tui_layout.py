"""At 80×24 every screen is usable: what a maintainer on a small terminal sees, pressed key by key.

Each test reads the screen as the terminal shows it (:func:`screen_lines`)
or the regions Textual laid the widgets out in, and waits for a layout
change with :func:`~tests.waiting.until`: a class set by a resize, a widget
shown or hidden, reaches the screen with the next refresh, not at once.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.widgets._footer import FooterKey  # the footer's key widget

from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.findings_table import FindingsTable
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.slice_table import SliceTable
from syncdesk.tui.widgets.threeway import SEPARATOR, ThreeWayView
from tests.prworld import pr_app
from tests.waiting import until, until_loaded
from tests.worlds import demo_session

SMALL = (80, 24)
WIDE = (160, 45)


def screen_lines(app: App[Any]) -> list[str]:
    """The terminal's lines as the user reads them: the screen's last frame, as plain text."""
    # The compositor renders the frame Textual writes to the terminal; there is
    # no public call for it (export_screenshot gives the same frame as SVG).
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def footer_line(app: App[Any]) -> str:
    """The footer's rows (one, or two when a screen's keys wrap), as one line of text."""
    footers = app.screen.query(KeyFooter)
    if not footers:
        return screen_lines(app)[-1]
    region = footers.first().region
    return " ".join(screen_lines(app)[region.y : region.bottom])


async def _footer_shows_help_and_quit(pilot: Any) -> None:
    await until(
        pilot,
        lambda: "? Help" in footer_line(pilot.app) and "q Quit" in footer_line(pilot.app),
        lambda: f"? and q in the footer, not {footer_line(pilot.app)!r}",
    )


# -- the slice -------------------------------------------------------------------------


async def test_the_slice_table_keeps_its_sign_off_columns_at_80_columns(
    demo_facts: DemoFacts,
) -> None:
    async with SyncDeskApp(demo_session(demo_facts)).run_test(size=SMALL) as pilot:
        screen = await until_loaded(pilot, SliceScreen)
        table = screen.query_one(SliceTable)
        await until(pilot, lambda: table.region.width == SMALL[0], "the table across the screen")
        lines = screen_lines(pilot.app)
        header = lines[table.region.y]
        assert "Subject" in header and "DCO" in header and "Signed" in header
        # The demo's commit 9 has no sign-off: its ✗ is on screen, in the DCO column.
        row = next(line for line in lines if "7ee181a5" in line)
        assert row[header.index("DCO") : header.index("Signed")].strip() == "✗"
        assert "…" in "".join(lines)  # the subjects gave way, ellipsised
        # The summary moved under the table, not off the screen.
        summary = screen.query_one("#summary-pane")
        assert summary.region.y > table.region.y and summary.region.width == SMALL[0]
        assert any("Dev base" in line for line in lines[summary.region.y :])
        await _footer_shows_help_and_quit(pilot)


async def test_the_slice_screen_rearranges_when_the_terminal_narrows(
    demo_facts: DemoFacts,
) -> None:
    async with SyncDeskApp(demo_session(demo_facts)).run_test(size=WIDE) as pilot:
        screen = await until_loaded(pilot, SliceScreen)
        table = screen.query_one(SliceTable)
        summary = screen.query_one("#summary-pane")
        assert summary.region.x > table.region.x  # beside the table
        wide_header = screen_lines(pilot.app)[table.region.y]
        assert "Author" in wide_header and "Date" in wide_header
        await pilot.resize_terminal(*SMALL)
        await until(pilot, lambda: summary.region.y > table.region.y, "the summary under the table")
        header = screen_lines(pilot.app)[table.region.y]
        assert "DCO" in header and "Signed" in header
        assert "Date" not in header  # the first column to give way


# -- the conflict workspace ------------------------------------------------------------


def _fresh_app(tmp_path: Path) -> SyncDeskApp:
    # The workspace writes its state into the repository: a world of its own.
    return SyncDeskApp(demo_session(build_world(tmp_path / "world")))


async def _workspace(pilot: Any) -> WorkspaceScreen:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen = await until_loaded(pilot, WorkspaceScreen)
    await until(pilot, lambda: screen.conflict is not None, "a conflicted file open")
    return screen


def _view_lines(app: App[Any], view: ThreeWayView) -> list[str]:
    region = view.region
    return [line[region.x : region.right] for line in screen_lines(app)[region.y : region.bottom]]


def _titles(app: App[Any], screen: WorkspaceScreen) -> str:
    return screen_lines(app)[screen.query_one("#ws-pane-titles").region.y]


def _zoomed_on(app: App[Any], screen: WorkspaceScreen, side: str) -> bool:
    """Whether the title line says ``side`` is zoomed."""
    titles = _titles(app, screen).strip()
    return "zoomed" in titles and titles.startswith(side)


def _not_zoomed_on(app: App[Any], screen: WorkspaceScreen, side: str) -> str:
    return f"{side} zoomed, not {_titles(app, screen).strip()!r}"


async def test_F_folds_the_file_list_and_the_panes_get_the_width(tmp_path: Path) -> None:
    async with _fresh_app(tmp_path).run_test(size=SMALL) as pilot:
        screen = await _workspace(pilot)
        files, view = screen.query_one(ConflictList), screen.query_one(ThreeWayView)
        # On 80 columns the list starts folded: the three panes have the screen.
        await until(pilot, lambda: view.region.width == SMALL[0], "the view across the screen")
        assert not files.display
        assert all(name in _titles(pilot.app, screen) for name in ("dev", "result", "main"))
        await pilot.press("F")
        await until(pilot, lambda: files.region.width > 0, "the file list unfolded")
        assert files.has_focus  # unfolded to pick a file: the cursor is in it
        assert any("lumen/data/loader.py" in line for line in screen_lines(pilot.app))
        # Picking a file opens it and folds the list away again.
        files.move_cursor(row=files.get_row_index("lumen/data/loader.py"))
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                screen.conflict is not None
                and screen.conflict.path == "lumen/data/loader.py"
                and view.region.width == SMALL[0]
            ),
            "loader.py open, the list folded",
        )
        assert view.has_focus
        await pilot.press("F", "F")  # unfolded, folded again without picking
        await until(pilot, lambda: not files.display and view.region.width == SMALL[0], "folded")
        await _footer_shows_help_and_quit(pilot)


async def test_F_hides_and_shows_the_file_list_on_a_wide_terminal(tmp_path: Path) -> None:
    async with _fresh_app(tmp_path).run_test(size=WIDE) as pilot:
        screen = await _workspace(pilot)
        files, view = screen.query_one(ConflictList), screen.query_one(ThreeWayView)
        assert files.display and files.region.width > 0  # there is room: the list shows
        beside = view.region.width
        await pilot.press("F")
        await until(pilot, lambda: view.region.width == WIDE[0], "the view across the screen")
        assert not files.display
        await pilot.press("F")
        await until(pilot, lambda: view.region.width == beside, "the list back beside the view")
        assert view.has_focus  # on a wide screen F leaves the cursor where it was


async def test_Z_cycles_the_zoomed_pane_across_the_whole_view(tmp_path: Path) -> None:
    async with _fresh_app(tmp_path).run_test(size=SMALL) as pilot:
        screen = await _workspace(pilot)
        view = screen.query_one(ThreeWayView)
        await until(pilot, lambda: view.region.width == SMALL[0], "the view across the screen")
        assert any(SEPARATOR in line for line in _view_lines(pilot.app, view))
        for side in ("dev", "result", "main", "base"):
            await pilot.press("Z")
            await until(
                pilot,
                partial(_zoomed_on, pilot.app, screen, side),
                partial(_not_zoomed_on, pilot.app, screen, side),
            )
            assert view.zoom == side
            titles = _titles(pilot.app, screen)
            others = {"dev", "result", "main", "base"} - {side}
            assert not any(f"{name} " in titles for name in others)
            # One pane, no separators: its text has the view's whole width.
            assert view.pane_width() == view.size.width >= SMALL[0] - 2
            assert not any(SEPARATOR in line for line in _view_lines(pilot.app, view))
        await pilot.press("Z")  # after base: every pane again
        await until(pilot, lambda: "zoomed" not in _titles(pilot.app, screen), "all panes again")
        assert view.zoom is None
        titles = _titles(pilot.app, screen)
        assert all(name in titles for name in ("dev", "result", "main"))


# -- the findings ----------------------------------------------------------------------


async def test_the_finding_in_full_is_under_the_table_at_80x24(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    async with pr_app(pr_world, pr_sandbox).run_test(size=SMALL) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("f")
        screen = await until_loaded(pilot, FindingsScreen)
        table = screen.query_one(FindingsTable)
        pane = screen.query_one("#finding-pane")
        await until(pilot, lambda: pane.region.y >= table.region.bottom, "the detail under")
        assert pane.region.width == SMALL[0] and pane.region.height >= 5
        table.move_cursor(row=table.get_row_index("F8"))
        await until(
            pilot,
            lambda: any(line.strip().startswith("F8 ·") for line in screen_lines(pilot.app)),
            "F8 in full on screen",
        )
        shown = screen_lines(pilot.app)
        header = shown[table.region.y]
        assert "Origin" in header and "Disposition" in header  # what the table is read for
        assert any("F8" in line and "repair 6" in line for line in shown[: table.region.bottom])
        await _footer_shows_help_and_quit(pilot)


def own_keys(screen: Any) -> set[str]:
    """The keys a screen's footer must show: its own bindings that say show=True."""
    keys = set()
    for cls in type(screen).__mro__:
        for binding in getattr(cls, "BINDINGS", ()):
            if (
                isinstance(binding, Binding)
                and binding.show
                and not cls.__module__.startswith("textual")
            ):
                keys.add(binding.key.split(",")[0])
    return keys


def shown_keys(app: App[Any]) -> set[str]:
    """The keys the footer shows, as Textual names them (its FooterKey widgets on screen)."""
    footer = app.screen.query_one(KeyFooter)
    # A key cut at the terminal's edge is laid out past it: only those wholly inside count.
    edge = footer.region.intersection(app.screen.region)
    return {key.key for key in footer.query(FooterKey) if edge.contains_region(key.region)}


def _all_shown(screen: Any, app: App[Any]) -> bool:
    return own_keys(screen) <= shown_keys(app)


def _missing_keys(screen: Any, app: App[Any]) -> str:
    missing = sorted(own_keys(screen) - shown_keys(app))
    return f"{type(screen).__name__}: missing {missing} in {footer_line(app)!r}"


async def test_at_80x24_every_screen_shows_all_its_own_keys(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    # The workspace dropped d m u a e z at 80 columns, Findings e P and escape, Status
    # v r and escape: a screen's own keys wrap onto a second row, in short labels.
    async with pr_app(pr_world, pr_sandbox).run_test(size=SMALL) as pilot:
        for opened, key in ((SliceScreen, None), (WorkspaceScreen, "c"), (FindingsScreen, "f"),
                            (StatusScreen, "s")):  # fmt: skip
            if key is not None:
                await pilot.press("escape")
                await until_loaded(pilot, SliceScreen)
                await pilot.press(key)
            screen = await until_loaded(pilot, opened)
            await until(
                pilot,
                partial(_all_shown, screen, pilot.app),
                partial(_missing_keys, screen, pilot.app),
            )
            assert "? Help" in footer_line(pilot.app)


async def test_the_commit_view_footer_keeps_help_and_quit(demo_facts: DemoFacts) -> None:
    async with SyncDeskApp(demo_session(demo_facts)).run_test(size=SMALL) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("enter")
        await until_loaded(pilot, CommitScreen)
        await _footer_shows_help_and_quit(pilot)
        assert "esc Back" in footer_line(pilot.app)
