"""kill -9 the real desk the moment its screen confirms a burst of decision keys: nothing lost.

The desk runs in tmux on the demo world. Twenty keys are typed in one burst
(``m`` then ``n``, ten times, then ``b``); the screen is read every few
milliseconds until it shows the last decision with nothing marked pending
(``saving…`` above the panes, ``…`` in the file list), and the process is
killed with SIGKILL at that moment. Every decision the keys made must then be
on disk, exactly: the screen only says "you took" without a pending mark once
the save is durable (issue 31: before, 10 of 10 such kills lost decisions).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from syncdesk.services.decisions.models import (
    Action,
    HunkChoice,
    SyncState,
    choose_hunk,
)
from syncdesk.services.decisions.store import StateFile, save_state, states_dir
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_lines
from syncdesk.services.progress import QUIET
from syncdesk.services.workspace.load import load_workspace
from tests.killharness import kill_random, kill_runs
from tests.tmux import Tmux
from tests.worlds import demo_session

pytestmark = pytest.mark.e2e

ROUNDS = 10  # "m n" typed this many times, then "b": twenty keys and one more


def _expected(facts: DemoFacts) -> tuple[dict[tuple[str, int], Action], SyncState]:
    """What the burst decides: main on each hunk the cursor passes, base on the last one.

    ``n`` walks the hunks in the file list's order, on across files; a file
    resolved only whole is one stop where ``m`` and ``b`` decide nothing.
    """
    data = load_workspace(demo_session(facts), QUIET, audit=False)
    stops: list[tuple[str, int | None]] = []
    for conflict in data.conflicts.files:
        if conflict.whole_file_only or not conflict.hunks:
            stops.append((conflict.path, None))
        else:
            stops.extend((conflict.path, hunk.index) for hunk in conflict.hunks)
    expected: dict[tuple[str, int], Action] = {}
    for number, (path, index) in enumerate(stops[: ROUNDS + 1]):
        if index is not None:
            expected[path, index] = Action.BASE if number == ROUNDS else Action.MAIN
    return expected, data.loaded.state


def _pid_of_syncdesk(tmux: Tmux) -> int:
    """The desk's own process: the pane runs sh, which runs env, which runs python."""
    pending = [int(tmux.tmux("display-message", "-p", "#{pane_pid}").strip())]
    while pending:
        pid = pending.pop()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        if b"-m syncdesk" in command:
            return pid
        children = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        pending.extend(int(child) for child in children)
    raise AssertionError("no syncdesk process under the pane")


def _big_state(facts: DemoFacts, state: SyncState) -> None:
    """A saved state of some 5 MB (earlier files, with undo history) for the desk to resume."""
    git = Git(facts.repo)
    blobs = [write_lines(git, [f"earlier {n}\n"]) for n in range(8)]
    for number in range(2400):
        for step in range(6):
            choice = HunkChoice(step, Action.EDITED, blobs[(number + step) % 8], key=f"{step:040x}")
            state = choose_hunk(state, f"earlier/file_{number:04}.py", choice)
    save_state(git, state)


@pytest.mark.parametrize("resumed", ["fresh", "a 5 MB state"])
def test_kill_nine_the_desk_during_and_after_a_burst_of_keys(
    tmp_path: Path, hermetic: Path, resumed: str
) -> None:
    """Half the kills wait for the screen to confirm, then a random delay; half come at random
    during the burst. Confirmed: every decision is on disk. Not: the keys' decisions in the order
    typed, up to some key, never one without those before it."""
    world = tmp_path / "world"
    facts = build_world(world)
    expected, fresh = _expected(facts)
    assert len(expected) >= ROUNDS - 2  # the burst really decides things
    if resumed != "fresh":
        _big_state(facts, fresh)
        snapshot = sorted(states_dir(Git(facts.repo)).glob("*.json"))[0]
        assert snapshot.stat().st_size > 4_000_000
    rng, seed = kill_random()
    ordered = list(expected.items())
    for trial in range(max(4, kill_runs(4) // 5)):
        wait_for_the_screen = trial % 2 == 0
        delay = rng.uniform(0, 0.1) if wait_for_the_screen else rng.uniform(0, 0.5)
        confirmed = _burst_then_kill(
            tmux_home=hermetic, world=world, cwd=tmp_path, wait=wait_for_the_screen, delay=delay
        )
        state = StateFile(Git(facts.repo), fresh.sync).load(remember=False).state
        decided = {
            (item.path, choice.index): choice.action
            for item in state.files
            if not item.path.startswith("earlier/")
            for choice in item.current.hunks
        }
        where = f"{resumed}, seed {seed}, trial {trial}, killed {delay:.3f} s after " + (
            "the screen confirmed" if confirmed else "the burst was sent"
        )
        if confirmed:
            assert decided == expected, where
        else:
            assert decided == dict(ordered[: len(decided)]), where  # a prefix, in order
        StateFile(Git(facts.repo), fresh.sync).load()  # mend a torn tail, as the next desk would
        _forget_burst(facts, fresh, state)


def _burst_then_kill(*, tmux_home: Path, world: Path, cwd: Path, wait: bool, delay: float) -> bool:
    """Type the burst into a fresh desk and SIGKILL it; whether the screen had confirmed it all."""
    tmux = Tmux(tmux_home)
    try:
        tmux.start([sys.executable, "-m", "syncdesk", "demo", "--dir", str(world)], cwd)
        tmux.wait_for(lambda s: "healthy" in s, "the Slice screen")
        tmux.keys("c")
        tmux.wait_for(lambda s: "head resolved it as" in s, "the workspace")
        pid = _pid_of_syncdesk(tmux)
        tmux.keys(*(["m", "n"] * ROUNDS), "b")
        if not wait:
            time.sleep(delay)
            os.kill(pid, signal.SIGKILL)
            return False

        def settled(screen: str) -> bool:
            assert "not saved" not in screen, f"a save failed:\n{screen}"
            # Saves are acknowledged in order: the last one durable, all are.
            return "you took base" in screen and "saving…" not in screen

        tmux.wait_for(settled, "the burst confirmed on screen", every=0.005)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        return True
    finally:
        tmux.kill()


def _forget_burst(facts: DemoFacts, fresh: SyncState, state: SyncState) -> None:
    """Take the burst's decisions back out, so the next trial decides them again."""
    files = tuple(item for item in state.files if item.path.startswith("earlier/"))
    handle = StateFile(Git(facts.repo), fresh.sync)
    base = handle.load().state
    handle.save(SyncState(base.sync, base.branch, base.head, files, fresh.cursor, base.created_at))
