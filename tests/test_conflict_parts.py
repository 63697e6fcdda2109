"""The pure parts under the conflict services: lines, keys, markers, line matching, placement."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from syncdesk.services.conflicts.linediff import match_lines
from syncdesk.services.conflicts.markers import StageLines, parse_markers
from syncdesk.services.conflicts.models import Common, Hunk, hunk_key, joined, rebuild
from syncdesk.services.conflicts.placement import place_hunks
from syncdesk.services.lines import split_lines
from syncdesk.services.sanitize import visible

DEV, MAIN = "d" * 40, "e" * 40


@given(st.text(alphabet="ab\r\n\x0c\x1c\u2028\x85"))
def test_split_lines_cuts_after_lf_only_and_round_trips(text: str) -> None:
    lines = split_lines(text)
    assert "".join(lines) == text
    assert all(line.endswith("\n") for line in lines[:-1])
    assert all("\n" not in line[:-1] for line in lines)
    assert len(lines) == text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def test_hunk_keys_ignore_endings_and_trailing_space_but_keep_side_order() -> None:
    assert hunk_key(["a\n", "b\n"], ["c\n"]) == hunk_key(["a\r\n", "b  \n"], ["c"])
    assert hunk_key(["a\n"], ["c\n"]) != hunk_key(["c\n"], ["a\n"])
    assert hunk_key(["a\n"], ["b\n", "c\n"]) != hunk_key(["a\n", "b\n"], ["c\n"])


def test_joined_never_glues_a_last_line_to_the_next() -> None:
    assert joined(("x",), ("y",)) == ("x\n", "y")
    assert joined(("w\r\n", "x"), ("y",)) == ("w\r\n", "x\r\n", "y")
    assert joined((), ("y",)) == ("y",)


def test_rebuild_wants_one_choice_per_hunk() -> None:
    hunk = Hunk(0, ("d\n",), (), ("m\n",), 1, 1, 1, ("<\n", "d\n", "|\n", "=\n", "m\n", ">\n"),
                "k", None, None, "unresolved", False)  # fmt: skip
    segments = (Common(("a\n",)), hunk, Common(("z",)))
    assert rebuild(segments, [None]) == "a\n<\nd\n|\n=\nm\n>\nz"
    assert rebuild(segments, [("both\n", "sides\n")]) == "a\nboth\nsides\nz"
    with pytest.raises(ValueError, match="0 choices for 1 hunks"):
        rebuild(segments, [])


def test_shown_makes_raw_text_printable() -> None:
    raw = b"caf\xe9 \x1b[2J\n".decode("utf-8", "surrogateescape")
    assert visible(raw) == "caf\ufffd ^[[2J\n"
    assert visible(raw).encode("utf-8")  # no lone surrogate left


def _conflict(dev: list[str], base: list[str], main: list[str]) -> list[str]:
    return [f"<<<<<<< {DEV}\n", *dev, "||||||| 1234567\n", *base, "=======\n", *main,
            f">>>>>>> {MAIN}\n"]  # fmt: skip


def test_markers_with_foreign_labels_are_content() -> None:
    text = "".join(["<<<<<<< HEAD\n", "x\n", "=======\n", ">>>>>>> other\n"])
    parsed = parse_markers(text, DEV, MAIN, StageLines())
    assert parsed.hunks == ()
    assert parsed.commons == (tuple(split_lines(text)),)


def test_a_separator_inside_the_base_is_told_apart_by_the_stage_files() -> None:
    base = ["x\n", "=======\n", "y\n"]
    text = "".join(["top\n", *_conflict(["d\n"], base, ["m\n"]), "end\n"])
    stages = StageLines(dev=["top\n", "d\n", "end\n"], base=["top\n", *base, "end\n"],
                        main=["top\n", "m\n", "end\n"])  # fmt: skip
    (hunk,) = parse_markers(text, DEV, MAIN, stages).hunks
    assert (list(hunk.dev), list(hunk.base), list(hunk.main)) == (["d\n"], base, ["m\n"])


def test_longer_markers_from_conflict_marker_size() -> None:
    text = f"<<<<<<<<<< {DEV}:a.txt\nd\n|||||||||| b\n=======\n==========\nm\n>>>>>>>>>> {MAIN}\n"
    parsed = parse_markers(text, DEV, MAIN, StageLines())
    (hunk,) = parsed.hunks
    assert (hunk.dev, hunk.base, hunk.main) == (("d\n",), ("=======\n",), ("m\n",))
    assert parsed.dev_path == "a.txt"


@given(
    st.lists(st.sampled_from("abcde"), max_size=30),
    st.lists(st.sampled_from("abcdexy"), max_size=30),
)
def test_matched_lines_are_equal_and_in_order(a: list[str], b: list[str]) -> None:
    pairs = match_lines(a, b)
    assert all(a[i] == b[j] for i, j in pairs)
    assert all(p[0] < q[0] and p[1] < q[1] for p, q in pairwise(pairs))
    assert len(match_lines(a, a)) == len(a)


def test_a_hole_filled_with_lines_that_repeat_the_context_is_read_whole() -> None:
    # frame: A B [hole] B C; dev filled the hole with "X B", which a diff may split.
    commons = [["A", "B"], ["B", "C"]]
    candidates = [[["X", "B"], ["Y"]]]
    (placed,) = place_hunks(commons, ["A", "B", "X", "B", "B", "C"], candidates)
    assert (placed.start, placed.end, placed.choice, placed.exact) == (2, 4, 0, True)
    first, second = place_hunks(
        [["A"], ["B"], ["C"]], ["A", "X", "B", "B", "Y", "C"], [[["X", "B"]], [["Y"]]]
    )
    assert (first.start, first.end, first.choice) == (1, 3, 0)
    assert (second.start, second.end, second.choice) == (4, 5, 0)


def test_changes_around_a_hole_are_honest() -> None:
    commons = [["A", "B", "C", "D", "E", "F"], ["G", "H", "I", "J"]]
    candidates = [[["X"], ["Y"]]]
    far = place_hunks(commons, ["A", "B", "C2", "D", "E", "F", "Y", "G", "H", "I", "J"], candidates)
    assert (far[0].start, far[0].choice, far[0].exact) == (6, 1, True)
    near = place_hunks(
        commons, ["A", "B", "C", "D", "E", "F2", "Y", "G", "H", "I", "J"], candidates
    )
    assert (near[0].start, near[0].end, near[0].choice, near[0].exact) == (5, 7, None, False)


def test_holes_whose_common_run_was_rewritten_are_not_guessed_as_exact() -> None:
    commons = [["A", "B"], ["M"], ["Y", "Z"]]
    placements = place_hunks(commons, ["A", "B", "p", "q", "r", "Y", "Z"], [[["x"]], [["y"]]])
    assert [p.located for p in placements] == [False, False]


def test_a_window_with_too_many_readings_to_refute_gives_up_honestly() -> None:
    # 34 hunks with a lone "x" between each, against 32 "x": no reading exists,
    # and refuting every one would take 2**32 steps. The search stops at its
    # budget; what it cannot read is placed gap by gap, never claimed exact.
    holes, xs = 34, 32
    commons = [["a"], *[["x"]] * (holes - 1), ["b"]]
    target = ["a", *["x"] * xs, "b"]
    placements = place_hunks(commons, target, [[["q"]]] * holes)
    assert len(placements) == holes
    located = [p for p in placements if p.exact]
    # Each of the first 32 gaps reads exactly on its own: an empty hole before its "x".
    assert [(p.start, p.end) for p in located] == [(i, i) for i in range(1, xs + 1)]
    assert all(p.choice is None for p in placements)
    rest = placements[len(located) :]
    assert len(rest) == holes - xs and all(not p.exact and not p.located for p in rest)
