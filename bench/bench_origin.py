"""Benchmark: the blame origin of ~60 cited ranges over ~15 files, against raw git.

The floor, measured in this same run, is what no implementation can skip:
one ``git blame --porcelain`` per file with all of its ``-L`` ranges, and the
two ``rev-list`` calls that classify the blamed commits, run back to back
with :mod:`subprocess`. syncdesk's time is :func:`syncdesk.services.review.origin.classify_ranges`
on the same ranges (it also resolves the refs and reads three trees). The
ranges are spread over the files the sync merge changed (four per file, at
fixed fractions of its length). Not a test: nothing here asserts on time.

    .venv/bin/python bench/bench_origin.py              # on a demo world built in a temp dir
    .venv/bin/python bench/bench_origin.py --repo PATH --head REF --dev REF --main REF
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git
from syncdesk.services.review.blame import merge_spans
from syncdesk.services.review.models import CitedRange, Origin
from syncdesk.services.review.origin import classify_ranges
from syncdesk.services.sync.anatomy import find_sync_merge

FILES = 15
PER_FILE = 4
ROUNDS = 7


@dataclass(frozen=True, slots=True)
class Target:
    git_dir: Path
    head: str
    merge: str
    dev_base: str
    slice_tip: str
    main_tip: str
    dev_tip: str


def raw(target: Target, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={target.git_dir}", *args], capture_output=True, check=True
    ).stdout


def open_target(repo: Path, head: str, dev: str, main: str) -> Target:
    git = Git(repo)
    head_sha, main_sha, dev_sha = git.resolve(head), git.resolve(main), git.resolve(dev)
    if head_sha is None or main_sha is None or dev_sha is None:
        raise SystemExit("a ref names no commit")
    merge = find_sync_merge(git, head_sha, dev, main)
    if merge is None:
        raise SystemExit(f"{head} has no sync merge")
    return Target(
        git.git_dir, head_sha, merge.sha, merge.dev_base, merge.slice_tip, main_sha, dev_sha
    )


def pick_ranges(target: Target) -> list[CitedRange]:
    """Four ranges in each of the first ``FILES`` text files the merge changed (at the head)."""
    names = raw(target, "diff", "--name-only", "-z", "--no-renames", target.dev_base, target.merge)
    ranges = []
    for path in sorted(p for p in names.decode().split("\0") if p):
        found = subprocess.run(
            ["git", f"--git-dir={target.git_dir}", "cat-file", "blob", f"{target.head}:{path}"],
            capture_output=True,
            check=False,
        )
        lines = found.stdout.count(b"\n")
        if found.returncode != 0 or lines < 40 or b"\0" in found.stdout[:8000]:
            continue
        for fraction in (0.1, 0.35, 0.6, 0.85):
            start = max(1, int(lines * fraction))
            ranges.append(CitedRange(path, start, min(lines, start + 5 + start % 20)))
        if len(ranges) >= FILES * PER_FILE:
            break
    return ranges


def floor(target: Target, ranges: list[CitedRange]) -> None:
    """The raw-git floor: one blame per file with all its ranges, the two rev-lists that
    classify, and the three calls that sort what is above the merge (``sync_ours``)."""
    by_path: dict[str, list[tuple[int, int]]] = {}
    for cited in ranges:
        by_path.setdefault(cited.path, []).append((cited.start, cited.end))
    for path, spans in by_path.items():
        options = [f"-L{start},{end}" for start, end in merge_spans(spans)]
        raw(target, "blame", "--porcelain", "--root", "--ignore-revs-file=", *options,
            target.head, "--", path)  # fmt: skip
    raw(target, "rev-list", "--left-right", f"{target.dev_base}...{target.slice_tip}", "--")
    raw(target, "rev-list", target.head, "--not", target.dev_base, target.slice_tip, "--")
    raw(target, "merge-base", target.head, target.dev_tip)
    raw(target, "rev-list", "--topo-order", "--reverse", "--parents", target.head,
        f"^{target.merge}", "--")  # fmt: skip
    raw(target, "rev-list", target.head, f"^{target.merge}", f"^{target.dev_tip}", "--")


def ours(target: Target, ranges: list[CitedRange]) -> dict[Origin, int]:
    results = classify_ranges(
        Git(target.git_dir), ranges, head=target.head, merge=target.merge,
        dev_base=target.dev_base, slice_tip=target.slice_tip, main_tip=target.main_tip,
        dev_tip=target.dev_tip,
    )  # fmt: skip
    total: dict[Origin, int] = {}
    for result in results:
        for kind, count in result.counts.items():
            total[kind] = total.get(kind, 0) + count
    return total


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def run(target: Target) -> None:
    ranges = pick_ranges(target)
    files = len({r.path for r in ranges})
    counts = ours(target, ranges)  # warm the object caches for both sides
    floor(target, ranges)
    floors, mine = [], []
    for _ in range(ROUNDS):  # interleaved, so drift hits both alike
        floors.append(timed(lambda: floor(target, ranges)))
        mine.append(timed(lambda: ours(target, ranges)))
    git_floor, syncdesk = statistics.median(floors), statistics.median(mine)
    label = f"classify_ranges ({len(ranges)} ranges, {files} files)"
    print(f"{'operation':44} {'syncdesk':>10} {'git floor':>10} {'ratio':>7}")
    print(f"{label:44} {syncdesk * 1000:8.1f}ms {git_floor * 1000:8.1f}ms "
          f"{syncdesk / git_floor:6.2f}x")  # fmt: skip
    lines = " · ".join(f"{kind.value} {counts[kind]}" for kind in Origin if counts.get(kind))
    print(f"  median of {ROUNDS}; lines classified: {lines}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path)
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--dev", default="dev")
    parser.add_argument("--main", default="main")
    args = parser.parse_args()
    if args.repo is not None:
        run(open_target(args.repo, args.head, args.dev, args.main))
        return
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
                           "GIT_CONFIG_NOSYSTEM": "1"})  # fmt: skip
        facts = build_world(Path(tmp) / "world")
        run(open_target(facts.repo, facts.sync_branch, facts.dev_branch, facts.main_branch))


if __name__ == "__main__":
    main()
