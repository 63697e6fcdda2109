"""Benchmark: the preservation audit against the raw-git floor for the same reads.

The audit (``audit_sync``, as the report runs it: scope, policies, the
merge's conflicts, the real hook's set) is timed; every git command it issues
is recorded on the way (arguments and standard input), and the floor is those
same commands replayed back to back with ``subprocess``, measured in this same
run, interleaved, medians of ``--rounds``. The difference is syncdesk's own
work: splitting, indexing and triaging the lines. Not a test: nothing here
asserts on time.

    .venv/bin/python bench/bench_audit.py                  # the demo world
    .venv/bin/python bench/bench_audit.py --repo R --head main2dev/x [--dev dev --main main]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from syncdesk.services.audit.lost_lines import audit_sync
from syncdesk.services.audit.model import Audit
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.git import runner
from syncdesk.services.sync.anatomy import find_sync_merge
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.ours import audit_scope, sync_ours
from syncdesk.services.sync.policies import audit_policy
from syncdesk.services.sync.session import SyncSession, open_sync

Command = tuple[list[str], dict[str, str], bytes | None]


@contextmanager
def recording() -> Iterator[list[Command]]:
    """Every git command the runner executes inside the block: (argv, env, stdin)."""
    seen: list[Command] = []
    execute = runner._execute

    def record(executor: Any, command: list[str], env: dict[str, str], stdin: Any) -> Any:
        data = stdin.read() if stdin is not None else None
        if stdin is not None:
            stdin.seek(0)
        seen.append((list(command), dict(env), data))
        return execute(executor, command, env, stdin)

    runner._execute = record
    try:
        yield seen
    finally:
        runner._execute = execute


def replay(commands: list[Command], cwd: str) -> None:
    """The floor: the same git commands, their output read and dropped."""
    for argv, env, data in commands:
        subprocess.run(argv, input=data, env={**os.environ, **env}, cwd=cwd, capture_output=True)


def audit(session: SyncSession) -> Callable[[], Audit]:
    git, refs = session.git, session.refs
    merge = find_sync_merge(git, refs.head, refs.dev, refs.main)
    if merge is None:
        raise SystemExit("no sync merge on that head: nothing to audit")
    conflicts = read_conflicts(git, merge.dev_base, merge.slice_tip, refs.head)
    policy = audit_policy(session.config)

    def run() -> Audit:
        scope = audit_scope(sync_ours(git, refs.head, merge.sha, merge.dev_base, refs.dev))
        return audit_sync(
            git, merge.dev_base, merge.slice_tip, refs.head,
            scope=scope, policy=policy, conflicts=conflicts, hook=True,
        )  # fmt: skip

    return run


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def measure(options: SyncOptions, rounds: int, label: str) -> None:
    session = open_sync(options)
    run = audit(session)
    with recording() as commands:
        result = run()
    cwd = session.repo_path
    ours, floor = [], []
    for _ in range(rounds):  # interleaved, so a busy moment costs both alike
        ours.append(timed(run))
        floor.append(timed(lambda: replay(commands, cwd)))
    mine, raw = statistics.median(ours), statistics.median(floor)
    accidents = result.accidents
    print(f"\nThe preservation audit on {label} (median of {rounds}):")
    print(f"{'operation':<44}{'syncdesk':>10}{'git floor':>11}{'ratio':>8}")
    print(f"{'audit_sync (' + str(len(commands)) + ' git commands)':<44}", end="")
    print(f"{mine * 1000:>8.0f}ms{raw * 1000:>9.0f}ms{mine / raw:>7.1f}x")
    blocks = len({(f.path, f.block) for f in accidents})
    print(
        f"  raw lines {result.raw_count} in {result.raw_files} files; "
        f"accidents {len(accidents)} lines in {blocks} blocks"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--head")
    parser.add_argument("--dev")
    parser.add_argument("--main")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.repo is not None:
        options = SyncOptions(repo=args.repo, head=args.head, dev=args.dev, main=args.main)
        measure(options, args.rounds, f"{args.repo.name} {args.head}")
        return
    from syncdesk.services.demo.world import build_world

    with tempfile.TemporaryDirectory() as scratch:
        facts = build_world(Path(scratch) / "demo")
        measure(SyncOptions(repo=facts.repo, head=facts.sync_branch), args.rounds, "the demo")


if __name__ == "__main__":
    main()
