"""The TUI half of ``bench/bench_sync.py``: the desk, headless, timed from this process's start.

Run as a child process by ``bench_sync.py`` (never on its own, though it can
be): it opens the sync as ``syncdesk`` does (``open_sync``, then the app),
runs :class:`~syncdesk.tui.app.SyncDeskApp` headless at 200x50 and records
``time.time()`` when the Slice screen is first painted (its loading bar), when
its panels are loaded and painted, when the conflict workspace (``c``) is
loaded and painted, the time each conflicted file takes to open and draw, and
every hunk-to-hunk key press (the action, then drawing the visible rows, as
``bench_workspace.py`` measures it). It prints one line,
``BENCH-JSON {...}``, last on stdout. The parent compares the times with the
moment it started this process, and reads this process's peak memory with
``os.wait4``. Nothing here asserts on time.

    .venv/bin/python bench/bench_sync_tui.py --repo R --head H [--dev D --main M]
"""

from __future__ import annotations

import time

STARTED = time.time()  # before the imports: they are part of the start-up

import sys  # noqa: E402


def paint_only() -> None:
    """``--paint-only``: the desk's first frame, importing only what ``syncdesk`` imports
    before it (the command line, the options, the app), and exit. The full run below
    imports the screens it stamps first, which the product does only after that frame."""
    import json as encode

    from syncdesk.tui.app import SyncDeskApp as App
    from syncdesk.tui.cli import desk, parser  # noqa: F401 (the command's own imports)

    where = sys.argv[sys.argv.index("--repo") + 1]
    head = sys.argv[sys.argv.index("--head") + 1] if "--head" in sys.argv else None
    painted: list[float] = []

    class FirstFrame(App):
        def on_ready(self) -> None:
            painted.append(time.time())
            self.exit()

    from syncdesk.services.sync.options import SyncOptions as Options

    FirstFrame(options=Options(repo=Path(where), head=head)).run(headless=True, size=(200, 50))
    print("BENCH-JSON " + encode.dumps({"started": STARTED, "first_paint": painted[0]}), flush=True)


if "--paint-only" in sys.argv:
    from pathlib import Path

    paint_only()
    raise SystemExit(0)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from textual.pilot import Pilot  # noqa: E402

from syncdesk.screens.slice_screen import SliceScreen  # noqa: E402
from syncdesk.services.sync.options import SyncOptions  # noqa: E402
from syncdesk.tui.app import SyncDeskApp  # noqa: E402
from syncdesk.tui.widgets.loading_bar import LoadingBar  # noqa: E402

# The workspace's modules are imported (and stamped) only before `c` is pressed, as the
# desk itself imports them after its first paint: importing them here would put their
# cost into the first paint measured.
if TYPE_CHECKING:
    from syncdesk.tui.widgets.threeway import ThreeWayView

MARKER = "BENCH-JSON "
SIZE = (200, 50)
DEADLINE = 900.0  # seconds: only ends a wait that would hang (a load that never ends)

stamps: dict[str, float] = {}
errors: list[str] = []
collections: list[tuple[float, float, int]] = []  # Python's GC: (start, end, generation)
_collecting: list[float] = [0.0]


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _collecting[0] = time.perf_counter()
    else:
        collections.append((_collecting[0], time.perf_counter(), info["generation"]))


gc.callbacks.append(_on_gc)


# Set on the UI thread whenever a stamp or an error is recorded: the autopilot waits on it
# instead of polling, so the reads in the worker threads share the GIL with nothing of ours.
changed = asyncio.Event()


def stamp(name: str) -> None:
    stamps.setdefault(name, time.time())
    changed.set()


def _stamp_loaded(screen_class: type[Any], name: str) -> None:
    """Record when ``screen_class`` shows its load, and when that is painted."""
    original = screen_class.loaded

    def loaded(self: Any, result: Any) -> None:
        original(self, result)
        stamp(f"{name}_loaded")
        self.call_after_refresh(stamp, f"{name}_painted")

    setattr(screen_class, "loaded", loaded)  # noqa: B010 (a method replaced on the class)


def _stamp_worker(screen_class: type[Any], name: str) -> None:
    """Record when ``screen_class``'s read (its ``load``, in a worker thread) starts and ends."""
    original = screen_class.load

    def load(self: Any, steps: Any) -> Any:
        stamps[f"{name}_read_started"] = time.time()
        try:
            return original(self, steps)
        finally:
            stamps[f"{name}_read_ended"] = time.time()

    setattr(screen_class, "load", load)  # noqa: B010


def _stamp_audit() -> None:
    """Record when the workspace's audit (read after the conflicts are shown) is shown."""
    from syncdesk.screens.workspace.screen import WorkspaceScreen

    original = getattr(WorkspaceScreen, "_audited", None)
    if original is None:  # a workspace that reads the audit with the conflicts
        return

    def audited(self: Any, found: Any) -> None:
        original(self, found)
        stamp("workspace_audited")
        self.call_after_refresh(stamp, "workspace_audit_painted")

    setattr(WorkspaceScreen, "_audited", audited)  # noqa: B010
    handler = WorkspaceScreen.on_worker_state_changed

    def on_worker_state_changed(self: Any, event: Any) -> None:
        handler(self, event)
        changed.set()  # an audit that failed or was cancelled ends the wait too

    setattr(WorkspaceScreen, "on_worker_state_changed", on_worker_state_changed)  # noqa: B010


def _stamp_early() -> None:
    """Record when the Slice screen shows the slice and its verdict (before the merges)."""
    original = getattr(SliceScreen, "_early", None)
    if original is None:  # a Slice screen that paints everything at once
        return

    def early(self: Any, *args: Any) -> None:
        original(self, *args)
        stamp("slice_early")
        self.call_after_refresh(stamp, "slice_early_painted")

    setattr(SliceScreen, "_early", early)  # noqa: B010


def _stamp_mounted(screen_class: type[Any], name: str) -> None:
    """Record when ``screen_class`` is first painted (its loading bar, before any facts)."""
    original = screen_class.on_mount

    def on_mount(self: Any) -> None:
        original(self)
        self.call_after_refresh(stamp, f"{name}_first_paint")

    setattr(screen_class, "on_mount", on_mount)  # noqa: B010


def _record_failures() -> None:
    original = LoadingBar.fail

    def fail(self: LoadingBar, line: str) -> None:
        errors.append(line)
        changed.set()
        original(self, line)

    setattr(LoadingBar, "fail", fail)  # noqa: B010


def _stamp_workspace() -> None:
    """Stamp the conflict workspace (called once the Slice screen is loaded, before `c`)."""
    from syncdesk.screens.workspace.screen import WorkspaceScreen

    _stamp_loaded(WorkspaceScreen, "workspace")
    _stamp_worker(WorkspaceScreen, "workspace")
    _stamp_audit()


_stamp_loaded(SliceScreen, "slice")
_stamp_early()
_stamp_mounted(SliceScreen, "slice")
_stamp_worker(SliceScreen, "slice")
_record_failures()
stamp("imported")


class TimedApp(SyncDeskApp):
    """The app, with Textual's Ready (the first frame displayed) recorded."""

    def on_ready(self) -> None:
        stamp("ready")


def draw(view: ThreeWayView) -> None:
    """Render every visible row, as the compositor would after a key press."""
    for y in range(view.size.height):
        view.render_line(y)


def plural(presses: int) -> str:
    return f"{presses} press{'' if presses == 1 else 'es'}"


def show_current(view: ThreeWayView) -> None:
    """Scroll to the current hunk now (the app does it after the next refresh)."""
    if view.hunk_starts and 0 <= view.current_hunk < len(view.hunk_starts):
        y = max(0, view.hunk_starts[view.current_hunk] - 3)
        view.scroll_to(y=y, animate=False, immediate=True)


async def until(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not condition():
        if errors:
            raise RuntimeError(f"{what}: {errors[-1]}")
        changed.clear()
        try:
            await asyncio.wait_for(changed.wait(), max(0.0, end - time.monotonic()))
        except TimeoutError:
            raise RuntimeError(f"waited {DEADLINE:.0f} s for {what}") from None


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


async def drive(pilot: Pilot[object], out: dict[str, Any], largest: int) -> None:
    """Slice loaded, then c, then every conflicted file opened and every hunk visited."""
    app = pilot.app
    await until(lambda: "slice_painted" in stamps, "the Slice screen")
    _stamp_workspace()
    from syncdesk.screens.workspace.screen import WorkspaceScreen
    from syncdesk.tui.widgets.threeway import ThreeWayView

    stamp("workspace_pressed")
    await pilot.press("c")
    await until(lambda: "workspace_painted" in stamps, "the conflict workspace")
    screen = app.screen
    if not isinstance(screen, WorkspaceScreen) or screen.data is None:
        raise RuntimeError("the conflict workspace did not open")
    # The files are opened with the audit's accidents in: wait for them if they come later.
    await until(lambda: not getattr(screen, "_auditing", False), "the workspace's audit")
    if "workspace_audited" in stamps:
        await until(lambda: "workspace_audit_painted" in stamps, "the audit on screen")
    view = screen.query_one(ThreeWayView)
    files = sorted(screen.data.conflicts.files, key=lambda f: (-len(f.head_lines or ()), f.path))
    opens: list[dict[str, Any]] = []
    for conflict in files:

        def open_file(path: str = conflict.path) -> None:
            screen._open(path)
            show_current(view)
            draw(view)

        spent = timed(open_file)
        opens.append(
            {
                "path": conflict.path,
                "lines": len(conflict.head_lines or ()),
                "hunks": len(conflict.hunks),
                "seconds": spent,
            }
        )
        await pilot.pause()
    moves: list[dict[str, Any]] = []
    spans: list[tuple[float, float]] = []
    for conflict in files:
        if conflict.whole_file_only or len(conflict.hunks) < 2:
            continue
        screen._open(conflict.path)
        await pilot.pause()
        presses = []
        for _ in range(len(conflict.hunks) - 1):
            start = time.perf_counter()
            screen.action_next_hunk()
            show_current(view)
            draw(view)
            end = time.perf_counter()
            presses.append(end - start)
            spans.append((start, end))
        moves.append({"path": conflict.path, "hunks": len(conflict.hunks), "seconds": presses})
        await pilot.pause()
    screen.persister.flush()
    # How much of the key presses was Python's garbage collector (a pause no code of ours makes).
    during = [
        (end - start, generation)
        for start, end, generation in collections
        if any(a <= start and end <= b for a, b in spans)
    ]
    out["gc_in_presses"] = {
        "collections": len(during),
        "full": sum(1 for _, generation in during if generation == 2),
        "longest": max((spent for spent, _ in during), default=0.0),
        "total": sum(spent for spent, _ in during),
    }
    out["files"] = len(files)
    out["hunks"] = sum(len(f.hunks) for f in files)
    out["opens"] = opens
    out["largest"] = [o["path"] for o in opens[:largest]]
    out["moves"] = moves
    out["worst_file_median"] = max(
        (
            (statistics.median(m["seconds"]), f"{m['path']}, {plural(len(m['seconds']))}")
            for m in moves
        ),
        default=(0.0, ""),
    )
    out["worst_press"] = max(((max(m["seconds"]), m["path"]) for m in moves), default=(0.0, ""))
    app.exit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--head")
    parser.add_argument("--dev")
    parser.add_argument("--main")
    parser.add_argument("--largest", type=int, default=3)
    args = parser.parse_args()
    out: dict[str, Any] = {"started": STARTED}
    try:
        # As the syncdesk command does: the app opens the sync after its first frame.
        options = SyncOptions(repo=args.repo, head=args.head, dev=args.dev, main=args.main)
        app = TimedApp(options=options)

        async def autopilot(pilot: Pilot[object]) -> None:
            try:
                await drive(pilot, out, args.largest)
            except Exception as error:
                errors.append(f"{type(error).__name__}: {error}")
                pilot.app.exit()

        app.run(headless=True, size=SIZE, auto_pilot=autopilot)
    except Exception as error:  # said in the JSON: the parent prints one line
        errors.append(f"{type(error).__name__}: {error}")
    out["stamps"] = stamps
    out["errors"] = errors
    out["self_maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(MARKER + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
