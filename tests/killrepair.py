"""A repair writer for the kill -9 tests: it writes repair after repair until it is killed.

``python -m tests.killrepair repair REPO`` resumes from the step the sync
branch holds (``pkg/step.txt``), prints ``ready <step>``, then forever plans
and writes a repair whose ``pkg/step.txt`` says the next step, and prints the
step once :func:`syncdesk.services.write.repair.write_repair` has returned (an *ack*). The
repository is a ``tests.syncrepo`` one (branches ``sync``, ``dev``, ``main``).

A third argument names a *phase* (:data:`PHASES`): the writer then SIGKILLs
itself at that point of its third write, for the windows random kills rarely hit.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

STEP_FILE = "pkg/step.txt"
BRANCH = "sync"

# phase -> (the git command it is about, die before it (else after), third write lands)
PHASES: dict[str, tuple[str, bool, bool]] = {
    "temp-index": ("update-index", False, False),  # a temporary index exists, no tree yet
    "commit-written": ("commit-tree", False, False),  # the commit exists, the ref not moved
    "before-move": ("update-ref", True, False),  # the transaction not started
    "after-move": ("update-ref", False, True),  # the branch moved, nothing verified
}
_writes = 0  # writes started in this life


def step_content(step: int) -> bytes:
    """What ``pkg/step.txt`` holds after write ``step``."""
    return b"step %d\n" % step


def step_of(blob: bytes | None) -> int:
    """The step a ``pkg/step.txt`` content says (0: no file yet)."""
    return int(blob.split()[1]) if blob else 0


def _die_at(phase: str) -> None:
    from syncdesk.services.git.runner import Git

    command, before, _ = PHASES[phase]
    real = Git.run

    def run(self: Git, args: Any, **kwargs: Any) -> Any:
        hit = _writes == 3 and command in args
        if hit and before:
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(self, args, **kwargs)
        if hit:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    Git.run = run  # type: ignore[method-assign]


def _ack(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    global _writes
    from syncdesk.services.git.runner import Git
    from syncdesk.services.write.models import FileChange
    from syncdesk.services.write.repair import plan_repair, write_repair

    repo, phase = Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None
    git = Git(repo)
    current = git.run(["cat-file", "blob", f"{BRANCH}:{STEP_FILE}"], check=False)
    step = step_of(current.stdout if current.status == 0 else None)
    if phase is not None:
        _die_at(phase)
    _ack(f"ready {step}")
    while True:
        step += 1
        _writes += 1
        change = FileChange(STEP_FILE, step_content(step))
        plan = plan_repair(git, BRANCH, [change], dev="dev", main="main")
        write_repair(git, plan)
        _ack(str(step))


if __name__ == "__main__":
    main()
