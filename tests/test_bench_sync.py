"""bench/bench_sync.py's own logic: its floor replays each distinct git command once, and
``--write-docs`` replaces only its own run's block. No timing is asserted."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

from syncdesk.services.git.runner import Git
from tests.gitrepo import GitRepo

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))  # bench_sync imports bench_origin beside it
    return importlib.import_module("bench_sync")


def command(bench: ModuleType, *argv: str, stdin: bytes | None = None) -> object:
    return bench.Command(tuple(argv), {}, stdin, None, 0)


def test_distinct_keeps_the_first_of_each_command_and_stdin_in_order(bench):
    show = command(bench, "git", "show", "HEAD")
    again = command(bench, "git", "show", "HEAD")
    fed = command(bench, "git", "cat-file", "--batch", stdin=b"HEAD\n")
    other = command(bench, "git", "cat-file", "--batch", stdin=b"HEAD~1\n")
    assert bench.distinct([show, fed, again, other, fed]) == [show, fed, other]


def test_the_same_merge_in_two_merge_rooms_is_one_command(bench):
    one, two = "--git-dir=/tmp/syncdesk-merge-room-ab12", "--git-dir=/tmp/syncdesk-merge-room-cd34"
    first = command(bench, "git", one, "merge-tree", "a", "b")
    second = command(bench, "git", two, "merge-tree", "a", "b")
    different = command(bench, "git", two, "merge-tree", "a")
    assert bench.distinct([first, second, different]) == [first, different]


def test_recorded_commands_replay_with_the_status_they_had(bench, tmp_path):
    repo = GitRepo(tmp_path / "repo")
    repo.commit("one", {"a.txt": "a\n"})
    git = Git(repo.path)
    with bench.recording() as commands:
        git.run(["hash-object", "--stdin"], input=b"text\n")
        git.run(["rev-parse", "--verify", "no-such-ref"], check=False)
        git.run(["hash-object", "--stdin"], input=b"text\n")
    assert [c.status != 0 for c in commands] == [False, True, False]
    assert commands[0].stdin == b"text\n"
    unique = bench.distinct(commands)
    assert len(unique) == 2
    assert bench.replay(unique) == 0  # each exits as it did when recorded


def test_write_docs_replaces_only_its_own_labels_block(bench, tmp_path):
    docs = tmp_path / "benchmarks.md"
    docs.write_text("# Benchmarks\n\n## Earlier\n\ntext\n")
    bench.write_docs(docs, "large world", "facts one", "table one")
    bench.write_docs(docs, "main2dev/x", "facts two", "table two")
    text = docs.read_text()
    assert text.index("## Earlier") < text.index(bench.SECTION) < text.index("table one")
    assert text.index("table one") < text.index("table two")
    docs.write_text(text + "\n## Later\n\nmore\n")
    bench.write_docs(docs, "large world", "facts three", "table three")
    text = docs.read_text()
    assert "table one" not in text and "facts one" not in text
    assert text.count("<!-- bench_sync: large world -->") == 1
    assert text.index("table three") < text.index("table two") < text.index("## Later")
    bench.write_docs(docs, "main2dev/y", "facts four", "table four")
    text = docs.read_text()
    assert text.index("table two") < text.index("table four") < text.index("## Later")
    assert text.endswith("## Later\n\nmore\n")


def test_the_huge_world_conflicts_in_its_file_and_the_repair_changes_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """bench_huge.py's world, at 3,000 lines instead of 850,000: the shape its figures rely on."""
    monkeypatch.syspath_prepend(str(BENCH))
    huge = importlib.import_module("bench_huge")
    world = huge.build(tmp_path / "huge", rows=3_000)
    git = Git(world.repo)
    merge = git.text("rev-parse", f"{world.head}^").strip()
    assert git.lines("rev-parse", f"{merge}^1", f"{merge}^2") == [world.dev_base, world.slice_tip]
    listed = git.run(
        ["merge-tree", "--write-tree", "--name-only", world.dev_base, world.slice_tip], check=False
    )
    assert listed.status == 1 and huge.HUGE in listed.text.splitlines()[1:]
    assert git.lines("diff", "--name-only", merge, world.head) == ["README.md", huge.HUGE]
    size = int(git.text("cat-file", "-s", f"{world.dev_base}:{huge.HUGE}"))
    assert world.largest >= size and world.rows == 3_000
    assert huge.build(tmp_path / "huge", rows=3_000) == world  # reused, not rebuilt
