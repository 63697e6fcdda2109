"""Start a writer (``tests/killwriter.py``, ``tests/killrepair.py``), SIGKILL it, report its acks.

The count of runs comes from ``SYNCDESK_KILL_RUNS`` (``make crash`` sets 1000);
the random seed from ``SYNCDESK_KILL_SEED``, and every failure message names
the seed and the run so that it can be replayed.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def kill_runs(default: int) -> int:
    """How many kills a harness test makes."""
    return int(os.environ.get("SYNCDESK_KILL_RUNS") or default)


def kill_random() -> tuple[random.Random, int]:
    """A seeded random source, and its seed."""
    seed = int(os.environ.get("SYNCDESK_KILL_SEED") or random.randrange(2**32))
    return random.Random(seed), seed


@dataclass(frozen=True)
class Killed:
    """What a killed writer had acknowledged."""

    ready: int  # the step it resumed from
    last_ack: int  # the last step whose save returned (``ready`` if none did)
    acks: int  # how many saves returned in this life


def run_and_kill(
    mode: str, path: Path, delay: float, module: str = "tests.killwriter", acks_first: int = 0
) -> Killed:
    """Run the writer in ``mode`` on ``path``; after ``acks_first`` acks and ``delay`` s, kill it.

    The delay counts from the writer's ``ready`` line (or from its
    ``acks_first``-th ack), so kills land in the save loop, not during Python's
    start-up. Waiting for acks gives a test acknowledged saves however slow the
    machine is, where a delay alone would need a save to fit in it.

    Only the writer is killed, as the OOM killer or ``kill -9 <pid>`` would: a
    git command it was running finishes on its own, and the next run starts
    once it has (else the next writer would find that command's ref lock).
    Deterministic kills inside the save are :func:`run_until_death`'s.
    """
    # Unbuffered (bufsize=0), and read a byte at a time up to each newline: what
    # follows the lines read here stays in the pipe for ``communicate``, which
    # reads the file descriptor itself. A buffered ``readline`` would pull acks
    # written right after ``ready`` into a buffer ``communicate`` never looks
    # at: acks lost, and a last ack older than the truth.
    writer = subprocess.Popen(
        [sys.executable, "-m", module, mode, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        bufsize=0,
    )
    first = _line(writer, "ready line").decode()
    if not first.startswith("ready "):
        writer.kill()
        _, err = writer.communicate()
        raise AssertionError(f"the writer did not start: {err.decode()}")
    acked = b"".join(_line(writer, f"ack {n + 1}") for n in range(acks_first))
    if acked.count(b"\n") < acks_first:  # the pipe closed: the writer died on its own
        writer.kill()
        _, err = writer.communicate()
        raise AssertionError(f"the writer died before {acks_first} acks: {err.decode()}")
    time.sleep(delay)  # the kill must land at an arbitrary moment of the save loop
    os.kill(writer.pid, signal.SIGKILL)
    out, err = writer.communicate()
    assert writer.returncode == -signal.SIGKILL, f"the writer died on its own: {err.decode()}"
    _wait_for_group(writer.pid)
    return _killed(first, acked + out)


# Only ends a wait for a writer that hangs; no write is expected to take that long.
LINE_DEADLINE = 60.0


def _line(writer: subprocess.Popen[bytes], what: str) -> bytes:
    """The writer's next stdout line, read byte by byte (``b""`` at end of file)."""
    assert writer.stdout is not None
    fd = writer.stdout.fileno()
    end = time.monotonic() + LINE_DEADLINE
    line = b""
    while not line.endswith(b"\n"):
        if not select.select([fd], [], [], max(0.0, end - time.monotonic()))[0]:
            writer.kill()
            _, err = writer.communicate()
            raise AssertionError(f"no {what} from the writer in {LINE_DEADLINE:.0f} s: {err!r}")
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return line


def run_until_death(mode: str, path: Path, phase: str, module: str = "tests.killwriter") -> Killed:
    """Run the writer armed to SIGKILL itself at ``phase`` of its third save."""
    writer = subprocess.run(
        [sys.executable, "-m", module, mode, str(path), phase],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert writer.returncode == -signal.SIGKILL, f"not killed at {phase}: {writer.stderr.decode()}"
    first, _, rest = writer.stdout.partition(b"\n")
    return _killed(first.decode(), rest)


def _killed(first: str, rest: bytes) -> Killed:
    ready = int(first.split()[1])
    acks = [int(line) for line in rest.decode().split()]
    return Killed(ready, acks[-1] if acks else ready, len(acks))


def _wait_for_group(group: int) -> None:
    deadline = time.monotonic() + 10
    while _group_is_running(group):
        if time.monotonic() > deadline:
            raise AssertionError("the killed writer's git command did not finish")
        time.sleep(0.002)


def _group_is_running(group: int) -> bool:
    """Whether a process of ``group`` still runs; zombies do not count.

    An orphaned git child is reparented to pid 1, which in a container may
    reap it only seconds later: it has finished (its locks are released),
    but ``killpg(group, 0)`` would still find it.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (comm)"
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False
