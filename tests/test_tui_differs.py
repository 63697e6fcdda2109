"""What differs, as the maintainer sees it in the conflict workspace.

The changed words of a line stand out against its version on the other side
(wherever that version sits in the hunk); moving to a hunk whose difference is
beyond the pane's width scrolls the text sideways to it; a modify/delete file
shows the side that kept it, and says which side deleted it; an add/add file
shows both added versions. On a small sync built with real git.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.style import Style

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.threeway import GUTTER, SEPARATOR, ThreeWayView, offset_showing
from tests.gitrepo import GitRepo
from tests.test_tui_workspace import _open_file
from tests.waiting import until, until_loaded

SIZE = (160, 45)  # the panes are 32 columns wide: 26 of text after the line numbers
BRANCH = "main2dev/differs"
MODEL = (
    "model = ModelConfig(hidden_size=4096, num_layers=32, num_heads=32, "
    "ffn_hidden=11008, seq_length={})\n"
)
FILLER = "".join(f"STEP_{n} = {n}\n" for n in range(1, 6))


def config(timeout: str, seq: int) -> str:
    return f'"""Settings."""\n\n{timeout}{FILLER}{MODEL.format(seq)}end = True\n'


BASE_CONFIG = config("TIMEOUT = 10\n", 1024)
DEV_CONFIG = config("RETRIES = 3\nTIMEOUT = 20\n", 512)  # one line more before the change
MAIN_CONFIG = config("TIMEOUT = 30\n", 256)
LEGACY = '"""The old loader."""\n\n\ndef load(path):\n    return open(path).read()\n'
DEV_LEGACY = LEGACY + "\n\nDEV_KEEPS_IT = True\n"
DEV_ROUTER = "class Router:\n    top_k = 2\n    kind = 'dev'\n"
MAIN_ROUTER = "class Router:\n    top_k = 4\n    kind = 'main'\n"


@dataclass
class Built:
    repo: GitRepo
    dev: str
    main: str


def build(path: Path) -> Built:
    """dev and main change config.py apart, main deletes legacy.py, both add router.py."""
    repo = GitRepo(path)
    root = repo.commit("Base", {"config.py": BASE_CONFIG, "legacy.py": LEGACY})
    repo.checkout("dev", root)
    dev_files = {"config.py": DEV_CONFIG, "legacy.py": DEV_LEGACY, "router.py": DEV_ROUTER}
    dev = repo.commit("dev: its changes", dev_files)
    repo.checkout("main")
    main_files = {"config.py": MAIN_CONFIG, "legacy.py": None, "router.py": MAIN_ROUTER}
    main = repo.commit("main: its changes", main_files)
    repo.checkout(BRANCH, dev)
    repo.merge("main", "Merge main into dev", resolve=dev_files)  # the head keeps dev's
    return Built(repo, dev, main)


def _app(built: Built) -> SyncDeskApp:
    options = SyncOptions(repo=built.repo.path, head=BRANCH, slice_size=1)
    return SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))


async def _workspace(pilot: Any) -> Any:
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    return await until_loaded(pilot, WorkspaceScreen)


def _row_of(view: ThreeWayView, side: str, text: str) -> int:
    return next(i for i, row in enumerate(view.rows) if getattr(row, side).text == text)


def _marked(view: ThreeWayView, index: int) -> dict[str, list[str]]:
    """The text each pane marks as changed on row ``index`` of the view, as drawn now."""
    y = index - view.scroll_offset.y
    assert 0 <= y < view.size.height, f"row {index} is not on screen"
    change = view.get_component_rich_style("threeway--change").bgcolor
    pane = view.pane_width()
    sides = ("dev", "result", "main")
    runs: dict[str, list[str]] = {side: [] for side in sides}
    x, last = 0, -1
    for segment in view.render_line(y):
        style = segment.style or Style()
        if style.bgcolor == change and segment.text != SEPARATOR:
            side = sides[x // (pane + 1)]
            if x == last:  # continues the run before it
                runs[side][-1] += segment.text
            else:
                runs[side].append(segment.text)
            last = x + len(segment.text)
        x += len(segment.text)
    return runs


def _pane(view: ThreeWayView, side: str) -> list[str]:
    cells = (getattr(row, side) for row in view.rows)
    return [cell.text for cell in cells if cell.text is not None]


def _titles(screen: Any) -> str:
    return str(screen.query_one("#ws-pane-titles").render())


def _info(screen: Any) -> str:
    return str(screen.query_one("#ws-hunk-info").render())


async def test_the_changed_words_stand_out_against_their_version_on_another_row(
    tmp_path: Path,
) -> None:
    async with _app(build(tmp_path / "repo")).run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await _open_file(pilot, screen, "config.py")
        view = screen.query_one(ThreeWayView)
        await until(pilot, lambda: screen.state.cursor.hunk == 0, "the first hunk current")
        # dev added RETRIES above its TIMEOUT: main's TIMEOUT sits one row higher.
        dev_row = _row_of(view, "dev", "TIMEOUT = 20\n")
        main_row = _row_of(view, "main", "TIMEOUT = 30\n")
        assert main_row == dev_row - 1
        await until(pilot, lambda: view.text_offset == 0, "no sideways shift")
        assert _marked(view, dev_row)["dev"] == ["20"]
        assert _marked(view, main_row) == {"dev": [], "result": [], "main": ["30"]}
        # dev's added line has no version on main's side: nothing to compare, nothing marked.
        assert _marked(view, main_row)["dev"] == []
        assert view.rows[main_row].dev.text == "RETRIES = 3\n"


async def test_a_hunk_whose_difference_is_beyond_the_pane_scrolls_sideways_to_it(
    tmp_path: Path,
) -> None:
    async with _app(build(tmp_path / "repo")).run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await _open_file(pilot, screen, "config.py")
        view = screen.query_one(ThreeWayView)
        text_width = view.pane_width() - GUTTER
        column = MODEL.index("{")
        assert column > text_width  # beyond the pane: invisible without a shift
        await pilot.press("n")
        await until(pilot, lambda: view.text_offset > 0, "the text shifted to the difference")
        assert view.text_offset <= column and column + 3 <= view.text_offset + text_width
        row = _row_of(view, "dev", MODEL.format(512))
        assert _row_of(view, "main", MODEL.format(256)) == row
        await until(pilot, lambda: 0 <= row - view.scroll_offset.y < view.size.height, "in view")
        marked = _marked(view, row)
        assert marked["dev"] == ["512"] and marked["main"] == ["256"]
        assert marked["result"] == []  # the head kept dev's line
        await pilot.press("p")  # back to a hunk whose difference starts near the left
        await until(pilot, lambda: view.text_offset == 0, "the shift back to 0")


def test_the_shift_shows_a_change_a_few_columns_into_the_pane() -> None:
    assert offset_showing(None, 26) == 0
    assert offset_showing((10, 12), 26) == 0
    assert offset_showing((18, 40), 26) == 0  # its first 8 columns show: no shift
    assert offset_showing((20, 40), 26) == 8
    assert offset_showing((85, 88), 26) == 72  # a multiple of 8, the change 13 columns in
    assert offset_showing((100, 103), 26) == 88


async def test_a_modify_delete_file_shows_the_side_that_kept_it_and_who_deleted_it(
    tmp_path: Path,
) -> None:
    async with _app(build(tmp_path / "repo")).run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await _open_file(pilot, screen, "legacy.py")
        assert screen.conflict.type == "modify/delete"
        view = screen.query_one(ThreeWayView)
        assert view.display
        assert "".join(_pane(view, "dev")) == DEV_LEGACY
        assert _pane(view, "main") == []
        assert "".join(_pane(view, "result")) == DEV_LEGACY  # the head kept dev's file
        await until(pilot, lambda: "main (slice tip) · deleted" in _titles(screen), "the title")
        assert "dev (parent 1) ·" not in _titles(screen)
        assert "main deleted this file, dev changed it" in _info(screen)
        view.show_base = True  # the base's file, beside dev's change of it
        await until(pilot, lambda: "".join(_pane(view, "base")) == LEGACY, "the base shown")


async def test_an_add_add_file_shows_both_added_versions_and_their_differences(
    tmp_path: Path,
) -> None:
    async with _app(build(tmp_path / "repo")).run_test(size=SIZE) as pilot:
        screen = await _workspace(pilot)
        await _open_file(pilot, screen, "router.py")
        assert screen.conflict.type == "add/add"
        view = screen.query_one(ThreeWayView)
        assert "".join(_pane(view, "dev")) == DEV_ROUTER
        assert "".join(_pane(view, "main")) == MAIN_ROUTER
        row = _row_of(view, "dev", "    top_k = 2\n")
        assert _marked(view, row) == {"dev": ["2"], "result": [], "main": ["4"]}
        view.show_base = True
        await until(pilot, lambda: "base · none: both added" in _titles(screen), "the title")
        assert "· deleted" not in _titles(screen)
