"""Benchmark: a sync with one huge conflicted file (50 MB, 850,000 lines), syncdesk beside git.

The world (built once with one ``git fast-import`` into ``.bench/huge``, and
reused): a generated Python module of 850,000 lines that dev and main both
changed at every 1,000th line; dev also added a line every 7,000. The sync
merge took main's file whole (dev's lines lost), and a repair commit put 20
of dev's lines back. ``large_file_limit`` is the default (8 MiB): the file is
compared by blob id, never read (see ``services/conflicts/read.py``).

Measured, each as a child process from its start to its exit (medians):

1. ``syncdesk report --format json``: wall time, the peak RSS of syncdesk's
   own process, and the peak of any process in its tree (git's merges);
2. its floor, in the same round: the git commands that yield the same facts
   of that file, run one after the other: ``merge-tree`` of the merge's
   parents, ``show --remerge-diff`` of the merge, ``diff --numstat``;
3. ``syncdesk repair --preview`` with the file approved as dev's whole file;
4. the desk, headless (``bench_sync_tui.py``): the Slice screen loaded, the
   workspace loaded, the huge file opened, and the desk's own peak RSS.

The target (issue 14): peak memory under 4x the largest blob. Not a test:
nothing here asserts on time or memory.

    .venv/bin/python bench/bench_huge.py [--rounds 3] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_sync import (
    DOCS,
    MARKER,
    ROOT,
    TUI_CHILD,
    fmt,
    git_version,
    revision,
    run_child,
    start_spawner,
)

from syncdesk.services.decisions.models import (
    Action,
    FileChoice,
    FileStatus,
    SyncKey,
    choose_file,
    new_state,
)
from syncdesk.services.decisions.store import save_state
from syncdesk.services.demo.built import sealed_environment
from syncdesk.services.demo.large.stream import FastImportStream, PlannedCommit
from syncdesk.services.demo.objects import Signature
from syncdesk.services.git.atomic import locked
from syncdesk.services.git.runner import LARGE_FILE_LIMIT, Git, init_repository

SECTION = "## A huge conflicted file: `bench/bench_huge.py`"
BUILDER_VERSION = 1
HUGE = "generated/tables.py"
BRANCH = "main2dev/huge"
ROWS = 850_000
EVERY = 1_000
WHO = Signature("Bench Builder", "bench@example.com", 1_767_225_600, "+0000")


@dataclass(frozen=True, slots=True)
class World:
    repo: Path
    dev_base: str
    slice_tip: str
    head: str
    largest: int  # bytes
    rows: int


def _row(i: int, value: str) -> str:
    return f"value_{i:07d} = compute({i}, {value}, scale=1.0)  # row\n"


def _version(rows: int, dev: int = 0, main: int = 0, extra: bool = False, repaired: int = 0) -> str:
    """The file with the first ``dev`` (or ``main``) rows of every thousand changed by that side."""
    lines = []
    for i in range(rows):
        value = "'alpha'"
        if i % EVERY < main:
            value = f"'main{i % EVERY}'"
        elif i % EVERY < dev:
            value = f"'dev{i % EVERY}'"
        if repaired and i % EVERY == 1 and i < repaired * EVERY:
            value = "'dev1_restored'"
        lines.append(_row(i, value))
        if extra and i % (EVERY * 7) == 500:
            lines.append(f"dev_extra_{i} = {i}\n")
    return "".join(lines)


def build(directory: Path, rows: int = ROWS) -> World:
    """Build (or reuse) the world of a ``rows``-line file in ``directory``/repo."""
    facts_file = directory / "facts.json"
    directory.parent.mkdir(parents=True, exist_ok=True)
    with locked(directory.parent / ".lock"):  # not directory itself: a rebuild removes it
        if facts_file.exists():
            facts = json.loads(facts_file.read_text())
            if facts.get("version") == BUILDER_VERSION and facts.get("rows") == rows:
                dev_base, slice_tip, head = facts["shas"]
                return World(Path(facts["repo"]), dev_base, slice_tip, head, facts["largest"], rows)
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        repo = directory / "repo"
        started = time.perf_counter()
        git = init_repository(repo, "main", env=sealed_environment(directory, repo))
        stream = FastImportStream()

        def commit(key: str, ref: str, message: str, parents: tuple[str, ...], text: str) -> None:
            changes = {HUGE: text, "README.md": f"{message}\n"}
            stream.add(PlannedCommit(key, ref, WHO, WHO, message + "\n", parents, changes))

        commit("base", "refs/heads/main", "base", (), _version(rows))
        commit("m1", "refs/heads/main", "main: rename the first row of each thousand", ("base",),
               _version(rows, main=1))  # fmt: skip
        commit("m2", "refs/heads/main", "main: and the second", ("m1",), _version(rows, main=2))
        commit(
            "d1",
            "refs/heads/dev",
            "dev: tune the rows",
            ("base",),
            _version(rows, dev=3, extra=True),
        )
        merged = _version(rows, main=2)
        commit("merge", f"refs/heads/{BRANCH}", "Merge main into dev: the oldest 2 commits",
               ("d1", "m2"), merged)  # fmt: skip
        commit("repair", f"refs/heads/{BRANCH}", "Repair: restore 20 dev rows", ("merge",),
               _version(rows, main=2, repaired=20))  # fmt: skip
        shas = stream.run(git, directory / "marks")
        names = "".join(f"{shas[key]}:{HUGE}\n" for key in ("base", "d1", "m2", "repair"))
        sizes = git.run(["cat-file", "--batch-check=%(objectsize)"], input=names.encode())
        largest = max(int(size) for size in sizes.text.split())
        world = World(repo, shas["d1"], shas["m2"], shas["repair"], largest, rows)
        facts = {
            "version": BUILDER_VERSION,
            "rows": rows,
            "repo": str(repo),
            "shas": [world.dev_base, world.slice_tip, world.head],
            "largest": largest,
        }
        facts_file.write_text(json.dumps(facts))
        print(f"built the huge world in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        return world


# -- measuring --------------------------------------------------------------------------------

# Run as ``python -c``: syncdesk's CLI, then this process's own peak RSS on stderr (wait4 gives
# the peak of the whole tree, git included).
_OWN = (
    "import resource, sys\n"
    "from syncdesk.tui.cli.run import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "    print(f'OWN-RSS-KB {own}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@dataclass
class Sample:
    seconds: float
    own_mb: float
    tree_mb: float


def syncdesk_child(argv: list[str]) -> Sample:
    """``syncdesk argv`` as a child: wall time, its own peak RSS, the tree's peak RSS."""
    _, child = run_child([sys.executable, "-c", _OWN, *argv], keep_stdout=False)
    if child.status != 0:
        raise SystemExit(f"syncdesk {' '.join(argv)} failed: {child.stderr.strip()[-400:]}")
    own = next(
        int(line.split()[1]) for line in child.stderr.splitlines() if line.startswith("OWN-RSS-KB")
    )
    return Sample(child.seconds, own / 1024, child.maxrss_mb)


def floor(world: World) -> Sample:
    """The git commands that yield the report's facts of that file, one after the other."""
    with tempfile.TemporaryDirectory(prefix="bench-huge-objects-") as scratch:
        env = ["env", f"GIT_OBJECT_DIRECTORY={scratch}",
               f"GIT_ALTERNATE_OBJECT_DIRECTORIES={world.repo / '.git' / 'objects'}"]  # fmt: skip
        git = [*env, "git", "-C", str(world.repo)]
        total, peak = 0.0, 0.0
        merge = f"{world.head}^"
        for args in (
            ["merge-tree", "--write-tree", "-z", "--messages", world.dev_base, world.slice_tip],
            ["show", "--remerge-diff", "--format=", "--name-only", "-z", merge],
            ["diff", "--numstat", "-z", world.dev_base, world.head, "--", "*.py"],
        ):
            _, child = run_child([*git, *args], keep_stdout=False)
            total += child.seconds
            peak = max(peak, child.maxrss_mb)
    return Sample(total, peak, peak)


def approve_dev(world: World) -> None:
    """The huge file approved as dev's whole file, as the workspace's D then a records it."""
    git = Git(world.repo)
    state = new_state(SyncKey(world.dev_base, world.slice_tip), branch=BRANCH, head=world.head)
    blob = git.text("rev-parse", f"{world.dev_base}:{HUGE}").strip()
    choice = FileChoice(Action.DEV, blob)
    save_state(git, choose_file(state, HUGE, choice, status=FileStatus.APPROVED))


def desk(world: World) -> dict[str, float]:
    """The headless desk's times (from its start) and its own peak RSS."""
    began, child = run_child(
        [sys.executable, str(TUI_CHILD), "--repo", str(world.repo), "--head", BRANCH]
    )
    line = next((x for x in child.stdout.decode().splitlines() if x.startswith(MARKER)), None)
    if child.status != 0 or line is None:
        raise SystemExit(f"the desk failed: {child.stderr.strip()[-400:]}")
    found = json.loads(line[len(MARKER) :])
    stamps = found["stamps"]
    opened = next(o["seconds"] for o in found["opens"] if o["path"] == HUGE)
    return {
        "slice": stamps["slice_loaded"] - began,
        "workspace": stamps["workspace_loaded"] - began,
        "open": opened,
        "own_mb": found["self_maxrss_kb"] / 1024,
        "tree_mb": child.maxrss_mb,
    }


def medians(samples: list[Sample]) -> Sample:
    """Each measure's median over the rounds."""
    return Sample(
        statistics.median(s.seconds for s in samples),
        statistics.median(s.own_mb for s in samples),
        statistics.median(s.tree_mb for s in samples),
    )


def measure(world: World, rounds: int) -> str:
    report = ["report", "--repo", str(world.repo), "--head", BRANCH, "--format", "json"]
    preview = ["--repo", str(world.repo), "--head", BRANCH, "repair", "--preview"]
    reports, floors, previews, desks = [], [], [], []
    approve_dev(world)  # the saved state lives in the repository's git dir
    for number in range(rounds):
        print(f"round {number + 1}/{rounds}", file=sys.stderr)
        reports.append(syncdesk_child(report))
        floors.append(floor(world))
        previews.append(syncdesk_child(preview))
        desks.append(desk(world))
    mb = world.largest / 1e6
    budget = 4 * world.largest / 1e6
    rep, pre, lowest = medians(reports), medians(previews), medians(floors)
    flo, flo_mb = lowest.seconds, lowest.tree_mb
    dk = {key: statistics.median(d[key] for d in desks) for key in desks[0]}

    def ok(value: float) -> str:
        return "yes" if value < budget else "**no**"

    rows = [
        ("`report --format json`", fmt(rep.seconds), fmt(flo), f"{rep.seconds / flo:.2f}x"),
        ("`repair --preview` (the file approved as dev's)", fmt(pre.seconds), "", ""),
        ("desk: Slice screen loaded, from start", fmt(dk["slice"]), "", ""),
        ("desk: workspace loaded, from start", fmt(dk["workspace"]), "", ""),
        ("desk: the huge file opened", fmt(dk["open"]), "", ""),
    ]
    memory = [
        ("`report`", rep.own_mb, rep.tree_mb),
        ("`repair --preview`", pre.own_mb, pre.tree_mb),
        ("the desk", dk["own_mb"], dk["tree_mb"]),
        ("git alone (the floor's commands)", None, flo_mb),
    ]
    lines = [
        "| operation | syncdesk | floor | ratio |",
        "|---|---:|---:|---:|",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        f"| peak RSS | syncdesk's process | any process of its tree (git's) | under 4x the blob "
        f"({budget:.0f} MB)? |",
        "|---|---:|---:|---|",
        *(
            f"| {name} | {'' if own is None else f'{own:.0f} MB'} | {tree:.0f} MB | "
            f"{'' if own is None else ok(own)} |"
            for name, own, tree in memory
        ),
        "",
        f"- The file: {mb:.1f} MB, {world.rows:,} lines; large_file_limit "
        f"{LARGE_FILE_LIMIT:,} bytes (the default): compared by blob id, never read.",
        "- The floor is git's: merge-tree and remerge-diff each merge the huge file (xdiff), "
        "which syncdesk cannot avoid and does not repeat.",
    ]
    return "\n".join(lines)


def write_docs(facts: str, body: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    start, end = "<!-- bench_huge -->", "<!-- /bench_huge -->"
    block = f"{start}\n{facts}.\n\n{body}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{block}\n"
    DOCS.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, default=ROOT / ".bench" / "huge",
                        help="where the world is kept (default: .bench/huge)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=ROWS, help="the file's lines (50 MB: 850,000)")
    parser.add_argument("--write-docs", action="store_true",
                        help=f"write the table into {DOCS.relative_to(ROOT)}")  # fmt: skip
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build(args.dir.resolve(), args.rows)
        return
    # Built in a process of its own: a child inherits its parent's peak RSS through exec
    # (Linux keeps ru_maxrss across it), and the builder holds every version of the file.
    built = [
        sys.executable,
        __file__,
        "--build-only",
        "--dir",
        str(args.dir),
        "--rows",
        str(args.rows),
    ]
    subprocess.run(built, check=True)
    world = build(args.dir.resolve(), args.rows)  # reused: facts.json names it
    start_spawner()
    body = measure(world, args.rounds)
    facts = (
        f"Run of {time.strftime('%Y-%m-%d')} at {revision()}, {git_version()}, "
        f"medians of {args.rounds}"
    )
    print(f"\n{facts}\n\n{body}")
    if args.write_docs:
        write_docs(facts, body)
        print(f"\nwritten to {DOCS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
