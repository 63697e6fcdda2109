"""The audit's fast paths give the answers their plain versions give.

Each shortcut the preservation audit takes for speed (set differences before
the multiset subtraction, an ASCII test before decoding, the common head and
tail before difflib, git reads started ahead on threads) is checked against the
straightforward computation on inputs built to hit its edges. (The statement
scanner's whole-file passes are checked against Python's own tokenizer in
test_statements.py.)
"""

from __future__ import annotations

import random
import re
import threading
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncdesk.services.audit import lines as lines_module
from syncdesk.services.audit.lines import (
    alignment,
    has_spare_copies,
    held_lines,
    is_trivial,
    loosen,
    loosen_all,
    lost_lines,
    place_lost,
    plan_restore,
)
from syncdesk.services.audit.names import (
    defined_names,
    defines,
    definitions,
    identifiers,
    lines_naming,
    outline_and_owners,
)
from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.runner import Git
from tests.gitrepo import GitRepo

_LINES = st.lists(st.sampled_from([b"a", b"b", b"c", b"  a", b"", b"d = 1"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES, _LINES)
def test_lost_lines_is_the_multiset_difference(
    dev: list[bytes], main: list[bytes], result: list[bytes]
) -> None:
    assert lost_lines(dev, main, result) == Counter(dev) - Counter(main) - Counter(result)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES)
def test_the_lines_a_result_holds_are_those_no_restore_is_planned_for(
    dev: list[bytes], result: list[bytes]
) -> None:
    # The workspace asks which accidents are back for a whole file at once (anchors
    # found once); a restore plan of each line answers the same, one by one.
    every = range(1, len(dev) + 1)
    planned = {line for line in every if plan_restore(dev, result, line) is None}
    assert held_lines(dev, result, every) == planned


@settings(max_examples=200, deadline=None)
@given(_LINES, _LINES)
def test_a_result_that_is_mains_file_is_counted_once_and_subtracted_twice(
    dev: list[bytes], main: list[bytes]
) -> None:
    # The same list object: the result took main's blob, and is counted once.
    assert lost_lines(dev, main, main) == Counter(dev) - Counter(main) - Counter(main)


@pytest.mark.parametrize(
    ("line", "trivial"),
    [
        (b"", True),
        (b"    ),", True),
        (b"# --", True),
        (b"x", False),
        (b"  return 0", False),
        ("# é".encode(), False),  # a letter outside ASCII is a letter
        ("# —".encode(), True),  # a dash outside ASCII is not
        (b"\xff\xfe", True),  # not UTF-8 at all
    ],
)
def test_a_trivial_line_has_no_letter_or_digit(line: bytes, trivial: bool) -> None:
    assert is_trivial(line) is trivial
    assert is_trivial(line.decode("utf-8", "surrogateescape")) is trivial


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES)
def test_alignment_is_an_increasing_matching_of_equal_lines(
    old: list[bytes], new: list[bytes]
) -> None:
    pairs = alignment(old, new)
    assert all(old[a] == new[b] for a, b in pairs.items())
    ordered = sorted(pairs.items())
    assert all(b1 < b2 for (_, b1), (_, b2) in pairwise(ordered))


def test_alignment_keeps_the_common_head_and_tail_in_place() -> None:
    old = [b"head", b"x", b"y", b"tail"]
    new = [b"head", b"y", b"z", b"x", b"tail"]
    pairs = alignment(old, new)
    assert pairs[0] == 0 and pairs[3] == 4


_WORDISH = st.lists(
    st.sampled_from(
        [b"a", b"_b", b"Z9", b"0", b"1e5", b"0x1f", b"12", b" ", b"\n", b".", b"\xe9", b"(", b"\t"]
    ),
    max_size=40,
).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(st.one_of(_WORDISH, st.binary(max_size=60)))
def test_identifiers_are_the_regex_tokens(data: bytes) -> None:
    assert identifiers(data) == set(re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", data))


_DEFINING = st.lists(
    st.sampled_from(
        [b"def f", b"async def g", b"class C", b"def", b"async", b" ", b"\t", b"\n", b"_1", b"@x"]
    ),
    max_size=30,
).map(b"".join)
_DEFINES = re.compile(rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)


@settings(max_examples=500, deadline=None)
@given(_DEFINING)
def test_definitions_are_the_anchored_regex_matches(data: bytes) -> None:
    assert definitions(data) == set(_DEFINES.findall(data))


def _outline_plain(lines: list[bytes]) -> tuple[list[bytes | None], list[bytes | None]]:
    """outline_and_owners as first written: the chain walked down for every line."""
    chain: list[tuple[int, bytes | None]] = []
    out: list[bytes | None] = []
    owners: list[bytes | None] = []

    def innermost(indent: int) -> bytes | None:
        for depth, name in reversed(chain):
            if depth >= indent:
                continue
            if name is not None:
                return name
            if depth == 0:
                return None
        return None

    for line in lines:
        stripped = line.lstrip()
        if not stripped.strip():
            out.append(None)
            owners.append(None)
            continue
        indent = len(line) - len(stripped)
        closer = stripped[:1] in (b")", b"]", b"}")
        if not closer:
            while chain and chain[-1][0] >= indent:
                chain.pop()
        holder = innermost(indent)
        out.append(holder)
        if closer:
            owners.append(holder)
            continue
        match = re.match(rb"^(\s*)(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", line)
        name = match.group(2) if match is not None else None
        owners.append(name or holder)
        chain.append((indent, name))
    return out, owners


# Indents and line starts that hit the outline's edges: every kind of closing bracket,
# form feeds and carriage returns, keywords alone or inside a longer word.
_INDENTS = [b"", b" ", b"  ", b"    ", b"\t", b"        ", b"\x0c", b" \r"]
_STARTS = [
    b"def f(", b"class C:", b"async def g():", b"async  def h(x):", b"x = 1", b"if a:",
    b"):", b"]", b"} + y", b"", b"\r", b"def", b"class\t", b"define = 2", b"classes = 3",
    b"async_x = 4", b"defx(", b"class D(C):",
]  # fmt: skip
_OUTLINED = st.lists(
    st.tuples(st.sampled_from(_INDENTS), st.sampled_from(_STARTS)).map(b"".join),
    max_size=40,
)


@settings(max_examples=500, deadline=None)
@given(_OUTLINED)
def test_the_outline_reads_the_chain_as_the_plain_walk_does(lines: list[bytes]) -> None:
    assert outline_and_owners(lines) == _outline_plain(lines)


# Lines that define names every way defined_names reads them, dashes in flags and keys.
_DEFINING_LINES = st.lists(
    st.lists(
        st.sampled_from(
            [b"def ", b"class ", b"import ", b"from m import ", b"self.", b" = 1", b": int",
             b"parser.add_argument('--", b"'", b"-", b"_", b"abc", b"abc_d", b"d", b"  ",
             b", ", b"(", b")", b"as ", b"'--abc-d'", b"'--abc_d'", b"'--d-abc'", b"abc-d:",
             b"- d-abc: "]
        ),
        max_size=8,
    ).map(b"".join),
    max_size=12,
)  # fmt: skip
_NAMES = st.sampled_from([b"abc", b"abc_d", b"d_abc", b"abc_abc", b"ddd", b"abcd"])


@settings(max_examples=500, deadline=None)
@given(_DEFINING_LINES, _NAMES, st.sampled_from(["m.py", "c.yaml"]))
def test_a_name_is_defined_as_the_union_of_the_lines_definitions_says(
    lines: list[bytes], name: bytes, path: str
) -> None:
    plain = name in set().union(*(defined_names(line, path) for line in lines))
    assert defines(lines, name, path) == plain


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda line: line.replace(b"\n", b"")), max_size=20))
def test_lines_loosened_at_once_are_each_line_loosened(lines: list[bytes]) -> None:
    assert loosen_all(lines) == [loosen(line) for line in lines]


def test_the_copies_gits_diff_leaves_unmatched_are_the_lost_ones() -> None:
    dev = [b"a = 1", b"x", b"b = 2", b"x", b"c = 3"]
    result = [b"a = 1", b"x", b"c = 3"]
    lost = Counter({b"x": 1, b"b = 2": 1})
    assert has_spare_copies(dev, lost) and not has_spare_copies(dev, Counter({b"b = 2": 1}))
    # git's diff (unmatched dev indices 2 and 3) and difflib's alignment agree here...
    assert place_lost(dev, result, lost, {2, 3}) == [(3, b"b = 2"), (4, b"x")]
    assert place_lost(dev, result, lost) == [(3, b"b = 2"), (4, b"x")]
    # ...and the diff given decides which copy it is when it says otherwise.
    assert place_lost(dev, result, lost, {1, 2}) == [(2, b"x"), (3, b"b = 2")]


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDISH.map(lambda line: line.replace(b"\n", b"")), max_size=12))
def test_the_lines_naming_a_name_are_all_found(lines: list[bytes]) -> None:
    names = {b"a", b"e5", b"x1f", b"_b"}
    found = lines_naming(lines, names)
    assert found == sorted(set(found))
    assert {at for at, line in enumerate(lines) if identifiers(line) & names} <= set(found)


def test_a_read_started_ahead_gives_its_answer_and_its_error(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write({"a.txt": "one\n"})
    sha = repo.commit("first")
    git = Git(repo.path)
    callers: list[str] = []

    def read(rev: str) -> str:
        callers.append(threading.current_thread().name)
        return git.run(["rev-parse", rev]).text.strip()

    with Ahead() as ahead:
        found = ahead.ask(read, "HEAD")
        missing = ahead.ask(read, "no-such-ref")
        assert found.result() == sha
        with pytest.raises(GitCommandError):
            missing.result()
    assert callers and all(name != threading.current_thread().name for name in callers)


def _plain_counterpart(changed: list[str], facing: list[str]) -> int | None:
    """lines._counterpart before its quick-ratio filter: ratio() of every pair."""
    import difflib

    for line in reversed(changed[-50:]):
        if is_trivial(line):
            continue
        scores = [
            (difflib.SequenceMatcher(None, line, other).ratio(), index)
            for index, other in enumerate(facing[:50])
            if not is_trivial(other)
        ]
        best = max(scores, default=(0.0, 0))
        if best[0] >= lines_module._SIMILAR:
            return best[1]
    return None


_CODE = st.lists(
    st.sampled_from(
        ["x = compute(a, b)", "x = compute(a, c)", "y = 1", "    return x", ")", "", "z = f(x)"]
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(_CODE, _CODE)
def test_the_quick_ratios_change_no_counterpart(changed: list[str], facing: list[str]) -> None:
    assert lines_module._counterpart(changed, facing) == _plain_counterpart(changed, facing)


@pytest.mark.parametrize("seed", range(4))
def test_plan_restore_is_the_same_with_its_anchors_kept(seed: int) -> None:
    rng = random.Random(seed)
    dev = [f"line_{rng.randrange(40)} = {k}" for k in range(200)]
    result = [line for line in dev if rng.random() > 0.1]
    lost = [n for n, line in enumerate(dev, start=1) if line not in result]
    first = [lines_module.plan_restore(dev, result, n, lost) for n in lost]
    lines_module._anchors.cache_clear()
    again = []
    for n in lost:  # each with the cache emptied: computed afresh every time
        again.append(lines_module.plan_restore(dev, result, n, lost))
        lines_module._anchors.cache_clear()
    assert first == again


def test_the_snapshot_holds_each_distinct_line_once(tmp_path: Path) -> None:
    """dev's, main's and the result's versions of a file share their lines in memory."""
    from syncdesk.services.audit.sources import read_snapshot

    repo = GitRepo(tmp_path / "r")
    body = "".join(f"value_{i} = compute({i})\n" for i in range(50))
    repo.commit("base", {"m.py": body})
    repo.checkout("dev", "main")
    dev = repo.commit("dev", {"m.py": body + "dev_only = 1\n"})
    repo.checkout("main")
    tip = repo.commit("main", {"m.py": "main_first = 1\n" + body})
    repo.checkout("sync", dev)
    head = repo.commit("result", {"m.py": "main_first = 1\n" + body})
    snapshot = read_snapshot(Git(repo.path), dev, tip, head)
    (touched,) = snapshot.touched
    versions = [snapshot.lines(sha) for sha in (touched.dev, touched.main, touched.result)]
    held: dict[bytes, int] = {}
    for line in (line for lines in versions for line in lines):
        assert held.setdefault(line, id(line)) == id(line), line
    assert sum(map(len, versions)) == 153 and len(held) == 52


def test_reads_asked_for_more_paths_answer_each_path_alike(tmp_path: Path) -> None:
    """The audit asks main's older removals for every file an accident may be found in,
    before it knows which (git reads them meanwhile): a file's answer must not depend on
    the other files asked, even when main renamed one into another (no rename pairing)."""
    from syncdesk.services.audit.sources import earlier_removals

    repo = GitRepo(tmp_path / "r")
    repo.commit("base", {"a.py": "keep = 1\nold_a = 2\n", "c.py": "other = 3\n"})
    repo.commit("main: drop old_a", {"a.py": "keep = 1\n"})
    repo.commit("main: move a.py to b.py", {"a.py": None, "b.py": "keep = 1\n"})
    tip = repo.commit("main: edit c.py", {"c.py": "other = 4\n"})
    git = Git(repo.path)
    alone = {path: earlier_removals(git, tip, [path]) for path in ("a.py", "b.py", "c.py")}
    together = earlier_removals(git, tip, ["a.py", "b.py", "c.py"])
    for path, found in alone.items():
        assert together.get(path) == found.get(path), path
    assert set(together["a.py"]) == {b"keep = 1", b"old_a = 2"}  # the move is a removal
