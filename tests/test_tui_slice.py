"""The Slice screen and the commit view, driven by real key presses (Pilot)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import DataTable, Label

from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.help_screen import HelpScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.models import SyncRefs
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import SyncSession, open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.slice_table import SliceTable
from syncdesk.tui.widgets.sync_summary import SyncSummary
from tests.gitrepo import GitRepo
from tests.oursrepo import SLICE_SIZE, build_dev_merged
from tests.syncrepo import build_sync_repo
from tests.waiting import until, until_loaded, until_palette_offers, until_screen
from tests.worlds import demo_session

SIZE = (150, 45)


async def _loaded(pilot: Any) -> SliceScreen:
    return await until_loaded(pilot, SliceScreen)


def _summary_text(app: SyncDeskApp) -> str:
    return str(app.screen.query_one(SyncSummary).render())


async def test_slice_screen_lists_the_slice_and_the_verdict(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        table = app.screen.query_one(SliceTable)
        keys = [row.value for row in table.rows]
        assert keys == list(demo_facts.slice)
        summary = _summary_text(app)
        assert "healthy" in summary
        assert demo_facts.dev_base[:8] in summary
        assert f"{demo_facts.remaining} more on main" in summary
        assert f"{len(demo_facts.dev_advanced)} new commits" in summary
        assert "merges cleanly" in summary
        for path in demo_facts.keep_dev:
            assert path in summary
        assert not app.screen.query_one("#loading-bar").display


async def test_the_desk_paints_then_opens_the_sync_its_options_name(
    demo_facts: DemoFacts,
) -> None:
    # As the syncdesk command runs it: the first frame is the opening screen, the sync is
    # opened in its worker, and the Slice screen of that sync takes its place.
    from syncdesk.screens.opening_screen import OpeningScreen

    options = SyncOptions(repo=demo_facts.repo, head=demo_facts.sync_branch)
    app = SyncDeskApp(options=options, user_config=Path("/nonexistent"))
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, (OpeningScreen, SliceScreen))
        screen = await until_loaded(pilot, SliceScreen)
        assert screen.query_one(SliceTable).row_count == len(demo_facts.slice)
        assert demo_facts.sync_branch in app.sub_title
        assert len(app.screen_stack) == 2  # the opening screen was replaced, not stacked


async def test_a_sync_that_cannot_be_opened_ends_the_desk_with_its_reason(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    app = SyncDeskApp(options=SyncOptions(repo=plain))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.return_code is not None, "the desk to end")
    assert app.return_code == 1


async def test_enter_opens_the_commit_and_escape_returns(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        await pilot.press("down", "down", "enter")
        commit = await until_loaded(pilot, CommitScreen)
        assert commit.sha == demo_facts.slice[2]
        details = commit.details
        assert details is not None
        message = str(commit.query_one("#commit-message").render())
        subject = details.message.splitlines()[0]
        assert subject in message
        files = commit.query_one("#commit-files", DataTable)
        assert files.row_count == len(details.files) > 0
        await pilot.press("escape")
        back = await until_screen(pilot, SliceScreen)
        assert back.query_one(SliceTable).cursor_row == 2


async def test_help_lists_every_binding_of_the_screen(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        await pilot.press("question_mark")
        help_screen = await until_screen(pilot, HelpScreen)
        table = help_screen.query_one(DataTable)
        actions = {str(table.get_row_at(i)[1]) for i in range(table.row_count)}
        assert {"Open commit", "Reload", "Help", "Quit"} <= actions
        await pilot.press("escape")
        await until_screen(pilot, SliceScreen)


async def test_reload_reads_the_branch_again(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(pilot)
        first = screen.report
        assert first is not None
        await pilot.press("r")
        # Read again: a new report is shown, and the spinner is gone.
        await until(pilot, lambda: screen.report is not first, "the slice read again")
        await _loaded(pilot)
        assert screen.query_one(SliceTable).row_count == len(demo_facts.slice)


def _says_what_is_ours(summary: str, shas: dict[str, str]) -> bool:
    repairs = " ".join(shas[n][:8] for n in ("repair_one", "repair_two", "repair_three"))
    merges = " ".join(shas[n][:8] for n in ("dev_merge_one", "dev_merge_two"))
    return (
        f"merge {shas['merge'][:8]} + 5 on top: repairs {repairs}" in summary
        and f"merges of dev {merges}; 3 commits those merges brought are dev's" in summary
        and "it brought 2 dev commits (dev's); its own resolution is ours" in summary
    )


async def test_dev_merged_on_top_the_summary_names_the_commits_counted_as_ours(
    tmp_path: Path,
) -> None:
    built = build_dev_merged(tmp_path / "r")
    session = open_sync(
        SyncOptions(repo=built.path, head="sync", slice_size=SLICE_SIZE),
        user_config=Path("/nonexistent"),
    )
    app = SyncDeskApp(session)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _loaded(pilot)
        assert _says_what_is_ours(_summary_text(app), built.shas), _summary_text(app)
        first = screen.report
        await pilot.press("r")
        await until(pilot, lambda: screen.report is not first, "the slice read again")
        await _loaded(pilot)
        assert _says_what_is_ours(_summary_text(app), built.shas), _summary_text(app)


async def test_a_plain_sync_has_no_ours_row(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        summary = _summary_text(app)
        assert f"Repair       {demo_facts.repair[:8]}" in summary
        assert "Ours" not in summary


HOSTILE_SUBJECT = (
    "[@click=app.quit]boom[/] [bold]x \x1b]52;c;ZXZpbA==\x07 \x1b[2J \x9b31m \u202eevil"
)
HOSTILE_SHOWN = "[@click=app.quit]boom[/] [bold]x ^[]52;c;ZXZpbA==^G ^[[2J <U+009B>31m <U+202E>evil"


def _hostile_repo(path: Path) -> GitRepo:
    repo = GitRepo(path)
    repo.commit("root", {"a.py": "a = 1\n"})
    repo.branch("dev", "HEAD")
    repo.commit(
        HOSTILE_SUBJECT, {"b.py": "b = 1\n"}, author=("[red]Mallory\x1b[0m", "m@example.com")
    )
    repo.checkout("dev")
    return repo


async def test_untrusted_subjects_and_names_are_shown_literally(tmp_path: Path) -> None:
    repo = _hostile_repo(tmp_path / "hostile")
    session = open_sync(SyncOptions(repo=repo.path, head="dev"), user_config=Path("/nonexistent"))
    app = SyncDeskApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        table = app.screen.query_one(SliceTable)
        subject_cell = table.get_row_at(0)[2]
        author_cell = table.get_row_at(0)[3]
        assert isinstance(subject_cell, Text)
        # The table truncates long subjects: what it shows is a prefix of the literal form.
        assert subject_cell.plain.rstrip("…") in HOSTILE_SHOWN
        assert subject_cell.plain.startswith("[@click=app.quit]boom[/] [bold]x")
        assert author_cell.plain.startswith("[red]Mallory^[[")
        await pilot.click(SliceTable, offset=(30, 1))
        await pilot.press("enter")
        commit = await until_loaded(pilot, CommitScreen)
        assert app.is_running
        message = str(commit.query_one("#commit-message").render())
        assert HOSTILE_SHOWN in message
        screenshot = app.export_screenshot()
        assert "\x1b" not in screenshot
        assert "\x9b" not in screenshot


async def test_a_failing_load_is_one_line_and_keeps_the_app_alive(demo_facts: DemoFacts) -> None:
    good = demo_session(demo_facts)
    broken_refs = SyncRefs(**{**_refs_dict(good.refs), "main": "0" * 40})
    app = SyncDeskApp(SyncSession(good.git, good.config, broken_refs))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        progress = app.screen.query_one("#loading-bar Label", Label)
        line = str(progress.render())
        assert progress.has_class("error")
        assert "\n" not in line
        assert "Traceback" not in line
        assert "git" in line
        assert app.is_running


def _refs_dict(refs: SyncRefs) -> dict[str, str]:
    return {field.name: getattr(refs, field.name) for field in fields(refs)}


async def test_the_command_palette_runs_the_screen_actions(demo_facts: DemoFacts) -> None:
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        await pilot.press("down")
        await pilot.press("ctrl+p")
        await pilot.press(*"open commit")
        await until_palette_offers(pilot, "Open commit")
        await pilot.press("enter")
        commit = await until_loaded(pilot, CommitScreen)
        assert commit.sha == demo_facts.slice[1]


async def test_the_slice_is_shown_while_the_conflicts_are_still_read(
    demo_facts: DemoFacts, monkeypatch: Any
) -> None:
    """The slice and its verdict paint first; the merges (seconds on a real sync) come after."""
    import threading

    from syncdesk.services.conflicts.read import read_conflicts as reading

    release = threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(timeout=60)
        return reading(*args, **kwargs)

    monkeypatch.setattr("syncdesk.services.sync.results.read_conflicts", held)
    app = SyncDeskApp(demo_session(demo_facts))
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(SliceTable)
        try:
            await until(pilot, lambda: table.row_count == len(demo_facts.slice), "the slice shown")
            summary = _summary_text(app)
            assert "healthy" in summary and "conflicts: reading…" in summary
            assert "Conflicts" not in summary
            await pilot.press("down")  # the table answers meanwhile
            assert table.cursor_row == 1
        finally:
            release.set()  # never leave the load's thread waiting
        await _loaded(pilot)
        summary = _summary_text(app)
        assert "reading…" not in summary and "Conflicts" in summary
        assert table.cursor_row == 1  # the final paint keeps the row the maintainer is on


async def test_a_sync_that_imported_more_than_the_usual_reads_healthy(tmp_path: Path) -> None:
    # Real syncs import 8 to 274 commits: the screen lists what the merge imported,
    # shows the configured size beside it, and the anatomy stays healthy.
    built = build_sync_repo(tmp_path / "r", tip_index=7)
    session = open_sync(SyncOptions(repo=built.path, head="sync", slice_size=built.slice_size))
    app = SyncDeskApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        keys = [row.value for row in app.screen.query_one(SliceTable).rows]
        assert keys == built.main_line[:7]
        summary = _summary_text(app)
        assert "7 imported" in summary
        assert f"the bot's usual {built.slice_size}" in summary
        assert f"{len(built.main_line) - 7} more on main" in summary
        assert "healthy" in summary


async def test_the_title_names_the_checked_out_branch_not_head(demo_facts: DemoFacts) -> None:
    # Opened with no --head on a checkout of the sync branch.
    assert Git(demo_facts.repo).text("symbolic-ref", "--short", "HEAD").strip() == (
        demo_facts.sync_branch
    )
    session = open_sync(SyncOptions(repo=demo_facts.repo), user_config=Path("/nonexistent"))
    app = SyncDeskApp(session)
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot)
        assert app.sub_title.endswith(f"· {demo_facts.sync_branch}")
