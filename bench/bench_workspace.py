"""Benchmark: open a 10,000-line and a 25,000-line conflicted file, and move between hunks.

Prints, for each file: the raw-git floor (``git merge-tree --write-tree`` of
the two sides, measured in this same run), syncdesk's time to read and parse
the conflicts, the time from pressing enter on the file to the workspace
showing it, and the time a hunk-to-hunk key press takes to answer (median
and worst of 50). Then the same key press in the file with the most probable
accidents (the audit's dev lines the result lost: hundreds, inside and
outside the hunks), beside its floor: that key press in the same file with
no audit loaded, measured in this same run. Not a test: nothing here asserts
on time.

    .venv/bin/python bench/bench_workspace.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.audit.model import Classification
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from syncdesk.tui.widgets.threeway import ThreeWayView
from tests.stepsworld import steps_file

ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "@1700000000 +0000",
    "GIT_COMMITTER_DATE": "@1700000000 +0000",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


def lock_file(lines: int, variant: str, every: int) -> str:
    out = []
    for i in range(lines):
        if i % every == every // 2 and variant:
            out.append(f'version = "{i}.{variant}"  # pinned for {variant}\n')
        else:
            out.append(f'name = "package-{i}"\n')
    return "".join(out)


def golden_json(lines: int, variant: str, every: int) -> str:
    out = ["{\n"]
    for i in range(lines - 2):
        value = (
            f"{i * 0.001:.6f}" if not (variant and i % every == 7) else f"{i * 0.002:.6f}{variant}"
        )
        out.append(f'  "step_{i}": {value},\n')
    out.append('  "end": 0\n}\n')
    return "".join(out)


def build(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    (repo / "uv.lock").write_text(lock_file(10_000, "", 100))
    (repo / "golden.json").write_text(golden_json(25_000, "", 250))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    git(repo, "branch", "dev")
    (repo / "uv.lock").write_text(lock_file(10_000, "main", 100))
    (repo / "golden.json").write_text(golden_json(25_000, "1", 250))
    git(repo, "commit", "-qam", "main side")
    git(repo, "checkout", "-q", "dev")
    (repo / "uv.lock").write_text(lock_file(10_000, "dev", 100))
    (repo / "golden.json").write_text(golden_json(25_000, "2", 250))
    git(repo, "commit", "-qam", "dev side")
    # The sync branch: the merge resolved as dev in every hunk (the recorded resolution).
    git(repo, "checkout", "-q", "-b", "sync", "dev")
    subprocess.run(["git", "merge", "-q", "--no-edit", "main"], cwd=repo, env=ENV, check=False,
                   capture_output=True)  # fmt: skip
    git(repo, "checkout", "-q", "dev", "--", "uv.lock", "golden.json")
    git(repo, "commit", "-qm", "sync")
    return repo


ACCIDENT_BLOCKS = 300  # 150 conflict hunks losing 2 dev lines each, 150 lines lost outside


def build_accidents(root: Path) -> Path:
    """A sync whose head took main's steps.py whole: every dev line there is lost by accident."""
    repo = root / "accidents"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    (repo / "steps.py").write_text(steps_file("base", ACCIDENT_BLOCKS))
    (repo / "small.py").write_text("def one():\n    return 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    git(repo, "branch", "dev")
    (repo / "steps.py").write_text(steps_file("main", ACCIDENT_BLOCKS))
    (repo / "small.py").write_text("def one():\n    return 2\n")
    git(repo, "commit", "-qam", "main side")
    git(repo, "checkout", "-q", "dev")
    (repo / "steps.py").write_text(steps_file("dev", ACCIDENT_BLOCKS))
    (repo / "small.py").write_text("def one():\n    return 3\n")
    git(repo, "commit", "-qam", "dev side")
    git(repo, "checkout", "-q", "-b", "sync", "dev")
    subprocess.run(["git", "merge", "-q", "--no-edit", "main"], cwd=repo, env=ENV, check=False,
                   capture_output=True)  # fmt: skip
    git(repo, "checkout", "-q", "main", "--", "steps.py", "small.py")
    git(repo, "commit", "-qm", "sync")
    return repo


def floor(repo: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["git", "merge-tree", "--write-tree", "dev", "main"], cwd=repo, env=ENV,
                   capture_output=True, check=False)  # fmt: skip
    return time.perf_counter() - start


def draw(view: ThreeWayView) -> None:
    """Render every visible row, as the compositor would after a key press."""
    for y in range(view.size.height):
        view.render_line(y)


async def open_workspace(app: SyncDeskApp, pilot: Any) -> WorkspaceScreen:
    """The conflict workspace, opened with ``c`` once the Slice screen has loaded."""
    await app.workers.wait_for_complete()
    await pilot.press("c")
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, WorkspaceScreen)
    return screen


async def ui_timings(repo: Path, path: str) -> tuple[float, list[float], list[float]]:
    """(open, key presses measured as work, key presses measured as Pilot round trips)."""
    session = open_sync(SyncOptions(repo=repo, head="sync", dev="dev", main="main"))
    app = SyncDeskApp(session)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_workspace(app, pilot)
        view = screen.query_one(ThreeWayView)
        # The work a key press costs: the action, then drawing the visible rows.
        start = time.perf_counter()
        screen._open(path)
        draw(view)
        opened = time.perf_counter() - start
        await pilot.pause()
        work = []
        for _ in range(50):
            start = time.perf_counter()
            screen.action_next_hunk()
            view.scroll_to(y=view.hunk_starts[view.current_hunk], animate=False, immediate=True)
            draw(view)
            work.append(time.perf_counter() - start)
        # The same through Pilot: includes its idle waits, so an upper bound.
        view.focus()
        trips = []
        for _ in range(20):
            start = time.perf_counter()
            await pilot.press("n")
            await pilot.pause()
            trips.append(time.perf_counter() - start)
        return opened, work, trips


async def accident_timings(
    repo: Path,
) -> tuple[str, int, int, int, float, list[float], list[float]]:
    """In the file with the most accidents: (path, lines, hunks, accidents, open, moves, floor).

    A move is ``n`` as the action and the drawing of the visible rows; the
    floor is the same with the audit taken away (no accident to tell).
    """
    session = open_sync(SyncOptions(repo=repo, head="sync", dev="dev", main="main"))
    app = SyncDeskApp(session)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_workspace(app, pilot)
        assert screen.data is not None
        view = screen.query_one(ThreeWayView)
        audit = screen.data.audit
        assert audit is not None
        files = [f for f in screen.data.conflicts.files if not f.whole_file_only]
        most = max(
            files,
            key=lambda f: sum(
                1 for x in audit.in_file(f.path) if x.classification is Classification.ACCIDENT
            ),
        )
        start = time.perf_counter()
        screen._open(most.path)
        draw(view)
        opened = time.perf_counter() - start
        count = len(screen._accidents(most))
        await pilot.pause()

        def moves() -> list[float]:
            spent = []
            for _ in range(50):
                start = time.perf_counter()
                screen.action_next_hunk()
                view.scroll_to(y=view.hunk_starts[view.current_hunk], animate=False, immediate=True)
                draw(view)
                spent.append(time.perf_counter() - start)
            return spent

        work = moves()
        screen.data = replace(screen.data, audit=None)
        bare = moves()
        lines = len(most.head_lines or ())
        return most.path, lines, len(most.hunks), count, opened, work, bare


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")})
        repo = build(Path(tmp))
        floors = [floor(repo) for _ in range(5)]
        git_floor = statistics.median(floors)
        parse = []
        for _ in range(5):
            start = time.perf_counter()
            conflicts = read_conflicts(Git(repo), git(repo, "rev-parse", "dev"),
                                       git(repo, "rev-parse", "main"), "sync")  # fmt: skip
            parse.append(time.perf_counter() - start)
        ours = statistics.median(parse)
        print(f"{'operation':44} {'syncdesk':>10} {'git floor':>10} {'ratio':>7}")
        print(f"{'read conflicts (merge-tree + parse, 2 files)':44} {ours * 1000:8.1f}ms "
              f"{git_floor * 1000:8.1f}ms {ours / git_floor:6.1f}x")  # fmt: skip
        print()
        print("In the workspace (targets: open < 300 ms, a key press answered < 50 ms):")
        for conflict in conflicts.files:
            lines = len(conflict.head_lines or ())
            opened, work, trips = asyncio.run(ui_timings(repo, conflict.path))
            print(f"  {conflict.path}: {lines} lines, {len(conflict.hunks)} hunks")
            print(f"    open and draw                {opened * 1000:7.1f} ms")
            median, worst = statistics.median(work) * 1000, max(work) * 1000
            trip = statistics.median(trips) * 1000
            print(f"    next hunk, action + draw     {median:7.1f} ms median, {worst:.1f} ms worst")
            print(f"    next hunk, Pilot round trip  {trip:7.1f} ms median (harness waits in)")
        print()
        print("In the file with the most probable accidents (a key press answered < 50 ms):")
        path, lines, hunks, count, opened, work, bare = asyncio.run(
            accident_timings(build_accidents(Path(tmp)))
        )
        print(f"  {path}: {lines} lines, {hunks} hunks, {count} probable accidents")
        print(f"    open and draw (works the accidents out) {opened * 1000:7.1f} ms")
        print(f"    {'operation':40} {'syncdesk':>10} {'floor':>10} {'ratio':>7}")
        ours, least = statistics.median(work), statistics.median(bare)
        print(f"    {'next hunk, action + draw (median of 50)':40} {ours * 1000:8.1f}ms "
              f"{least * 1000:8.1f}ms {ours / least:6.1f}x")  # fmt: skip
        print(f"    {'  worst of 50':40} {max(work) * 1000:8.1f}ms {max(bare) * 1000:8.1f}ms")
        print("    (floor: the same key press in the same file with no audit loaded)")


if __name__ == "__main__":
    main()
