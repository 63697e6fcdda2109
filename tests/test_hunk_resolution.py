"""Per-hunk readings of the head: dev, main, union (both orders), base, custom, unresolved.

One crafted file with six conflicts, resolved differently in each; then heads
that also change common lines (near a hunk and far from it), and the line
numbers of each side when the sides also made one-sided changes. Last, heads
that took dev's file where a diff could misplace a hunk: its lines also sit in
the common lines (a block main moved), or its side and the common lines next
to it share lines while main alone changed a line nearby, or main moved a common
line from one side of the hunk to the other.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.services.conflicts.models import Common, ConflictFile, rebuild
from syncdesk.services.conflicts.read import read_conflicts
from tests.conflictrepo import ConflictRepo, build_conflicts, numbered, replace_lines

BASE = numbered(60)
CONFLICTED = (5, 15, 25, 35, 45, 55)


def _side(name: str) -> str:
    return replace_lines(BASE, {n: f"line {n} on {name}\n" for n in CONFLICTED})


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory) -> ConflictRepo:
    return build_conflicts(
        tmp_path_factory.mktemp("six") / "r",
        base={"f.txt": BASE},
        dev={"f.txt": _side("dev")},
        main={"f.txt": _side("main")},
    )


def _read(built: ConflictRepo, text: str, name: str, path: str = "f.txt") -> ConflictFile:
    head = built.head({path: text}, name=name)
    (conflict,) = read_conflicts(built.git, "dev", "main", head).files
    return conflict


def _resolved(choices: dict[int, str]) -> str:
    return replace_lines(BASE, choices)


def dev(n: int) -> str:
    return f"line {n} on dev\n"


def main(n: int) -> str:
    return f"line {n} on main\n"


MIXED = {
    5: dev(5),
    15: main(15),
    25: dev(25) + main(25),
    35: main(35) + dev(35),
    45: "line 45\n",  # the base
    55: "line 55, written by hand\n",
}


def test_each_hunk_is_read_as_the_choice_made(six: ConflictRepo) -> None:
    conflict = _read(six, _resolved(MIXED), "mixed")
    assert [h.resolution for h in conflict.hunks] == [
        "dev", "main", "union", "union", "base", "custom",
    ]  # fmt: skip
    assert [h.head for h in conflict.hunks] == [(v,) if v.count("\n") == 1 else tuple(
        v.splitlines(keepends=True)) for v in MIXED.values()]  # fmt: skip
    # Each union before a hunk holds one line more than the conflict it replaced.
    assert [h.head_start for h in conflict.hunks] == [5, 15, 25, 36, 47, 57]
    assert not any(h.context_changed for h in conflict.hunks)
    assert conflict.resolution == "custom"


def test_markers_left_in_a_hunk_read_as_unresolved(six: ConflictRepo) -> None:
    marked = _read(six, _resolved({5: dev(5)}), "first-only")
    conflicts = read_conflicts(six.git, "dev", "main", None).files[0]
    # Write merge-tree's own markers back for every hunk but the first.
    text = rebuild(conflicts.segments or (), [marked.hunks[0].dev] + [None] * (len(CONFLICTED) - 1))
    conflict = _read(six, text, "markers")
    assert [h.resolution for h in conflict.hunks] == ["dev"] + ["unresolved"] * 5
    assert conflict.resolution == "unresolved"


def test_markers_of_another_style_still_read_as_unresolved(six: ConflictRepo) -> None:
    by_hand = "<<<<<<< HEAD\n" + dev(15) + "=======\n" + main(15) + ">>>>>>> main\n"
    conflict = _read(six, _resolved({**MIXED, 15: by_hand}), "other-markers")
    assert conflict.hunks[1].resolution == "unresolved"
    assert conflict.resolution == "unresolved"


def test_one_choice_everywhere_names_the_file(six: ConflictRepo) -> None:
    everywhere = {n: main(n) for n in CONFLICTED}
    conflict = _read(six, _resolved(everywhere), "all-main")
    assert conflict.head_blob == six.blob("main", "f.txt")
    assert conflict.resolution == "main"
    both = {n: dev(n) + main(n) for n in CONFLICTED}
    assert _read(six, _resolved(both), "all-union").resolution == "union"


def test_an_evil_change_far_from_the_hunks_leaves_them_readable(six: ConflictRepo) -> None:
    everywhere = {n: dev(n) for n in CONFLICTED}
    conflict = _read(six, _resolved({**everywhere, 30: "line 30, changed by the merge\n"}), "evil")
    assert {h.resolution for h in conflict.hunks} == {"dev"}
    assert not any(h.context_changed for h in conflict.hunks)
    # Every hunk took dev, but the head changed more: not dev's blob, not "dev".
    assert conflict.resolution == "custom"


def test_an_evil_change_next_to_a_hunk_is_flagged_and_reading_goes_on(six: ConflictRepo) -> None:
    everywhere = {n: dev(n) for n in CONFLICTED}
    conflict = _read(six, _resolved({**everywhere, 14: "line 14, changed\n"}), "evil-near")
    flagged = [h.index for h in conflict.hunks if h.context_changed]
    assert flagged == [1]
    assert conflict.hunks[1].resolution == "custom"
    assert conflict.hunks[1].head is not None and dev(15) in conflict.hunks[1].head
    assert [h.resolution for i, h in enumerate(conflict.hunks) if i != 1] == ["dev"] * 5


def test_lines_sliding_across_a_hunk_do_not_confuse_the_reading(tmp_path: Path) -> None:
    # dev's side ends with a blank line, and so does the context after the hunk:
    # a plain diff could attach the blank line to either.
    base = "def a():\n    return 1\n\n\ndef z():\n    return 26\n"
    built = build_conflicts(
        tmp_path / "r",
        base={"m.py": base},
        dev={"m.py": base.replace("return 1\n", "return 1\n\n\ndef b():\n    return 2\n")},
        main={"m.py": base.replace("return 1\n", "return 1\n\n\ndef c():\n    return 3\n")},
    )
    union = base.replace(
        "return 1\n", "return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    )
    conflict = _read(built, union, "both", "m.py")
    assert [h.resolution for h in conflict.hunks] == ["union"]
    assert conflict.resolution == "union"
    dev_only = _read(built, built.show("dev", "m.py").decode(), "dev-only", "m.py")
    assert (dev_only.hunks[0].resolution, dev_only.resolution) == ("dev", "dev")


def test_each_side_has_its_own_line_numbers(tmp_path: Path) -> None:
    main_text = "main header 1\nmain header 2\nmain header 3\n" + replace_lines(
        BASE, {30: "thirty on main\n"}
    )
    dev_text = replace_lines(BASE, {10: None, 11: None, 30: "thirty on dev\n"})
    built = build_conflicts(
        tmp_path / "r",
        base={"f.txt": BASE},
        dev={"f.txt": dev_text},
        main={"f.txt": main_text},
    )
    (conflict,) = read_conflicts(built.git, "dev", "main", None).files
    (hunk,) = conflict.hunks
    assert (hunk.base_start, hunk.dev_start, hunk.main_start) == (30, 28, 33)
    assert dev_text.splitlines(keepends=True)[hunk.dev_start - 1] == "thirty on dev\n"
    assert main_text.splitlines(keepends=True)[hunk.main_start - 1] == "thirty on main\n"


# main moved a block up past a few short functions, while dev edited the block
# in place: merge-tree keeps main's moved copy in the common lines and shows
# dev's edited block against main's deletion as the conflict. The moved copy
# has more unique lines than the functions it jumped over.
_FUNCTIONS = "def one():\n    pass\n\ndef two():\n    pass\n\ndef three():\n    pass\n\n"
_NOTES = "".join(f"note {letter}\n" for letter in "abcdef")


def test_a_hunk_whose_lines_main_moved_elsewhere_is_read_where_the_head_holds_it(
    tmp_path: Path,
) -> None:
    edited = _NOTES.replace("note c\n", "note c, edited on dev\n")
    built = build_conflicts(
        tmp_path / "r",
        base={"f.txt": f"top\n\n{_FUNCTIONS}{_NOTES}\ntail\n"},
        dev={"f.txt": f"top\n\n{_FUNCTIONS}{edited}\ntail\n"},
        main={"f.txt": f"top\n\n{_NOTES}\n{_FUNCTIONS}tail\n"},
    )
    dev_text = built.show("dev", "f.txt").decode()
    conflict = _read(built, dev_text, "took-dev")
    (hunk,) = conflict.hunks
    # The shape measured: main's moved copy among the common lines, the hunk
    # dev's edited block against nothing, and the head exactly dev's file.
    common = "".join(
        line for s in conflict.segments or () if isinstance(s, Common) for line in s.lines
    )
    assert _NOTES in common
    assert (hunk.main, conflict.head_blob) == ((), conflict.dev_blob)
    # The head is dev's file: the hunk holds dev's lines, where dev's file has them.
    assert (hunk.resolution, hunk.head, hunk.context_changed) == ("dev", hunk.dev, False)
    assert hunk.head_start == hunk.dev_start
    lines = dev_text.splitlines(keepends=True)
    assert tuple(lines[hunk.dev_start - 1 : hunk.dev_start - 1 + len(hunk.dev)]) == hunk.dev
    assert conflict.resolution == "dev"
    # Taking main's file leaves the hole empty, between the functions and the tail.
    took_main = _read(built, built.show("main", "f.txt").decode(), "took-main")
    assert [(h.resolution, h.head) for h in took_main.hunks] == [("main", ())]


def _package(name: str, *lines: str) -> str:
    return "".join(["[[p]]\n", f"name = {name}\n", *lines])


def test_hunks_near_a_change_of_main_alone_are_read_whole(tmp_path: Path) -> None:
    # dev added package b after a (git folds it into the conflict over a's
    # urls), so dev's side holds "]", "", "[[p]]" just like the common lines
    # before the next hunk: nothing tells a diff which "[[p]]" is the common
    # one. main alone changed the last line, so a head that took dev's file
    # (without main's change) does not read the stretch exactly. Each hunk
    # must still read as dev, not as dev cut where the diff paired "[[p]]".
    def lockfile(a: str, b: str | None, c: tuple[str, str], end: str) -> str:
        added = _package("b", "urls = [\n", f"  {b}\n", "]\n", "\n") if b else ""
        first = _package("a", "urls = [\n", f"  {a}\n", "]\n", "\n")
        last = _package(c[0], f"version = {c[1]}\n", "urls = [\n", "  c1\n", "]\n", "\n")
        return f"{first}{added}{last}end = {end}\n"

    dev = lockfile("a2", "b1", ("c", "2"), "1")
    built = build_conflicts(
        tmp_path / "r",
        base={"f.lock": lockfile("a1", None, ("c", "1"), "1")},
        dev={"f.lock": dev},
        main={"f.lock": lockfile("a3", None, ("c3", "1"), "2")},
    )
    conflict = _read(built, dev, "took-dev", "f.lock")
    assert conflict.head_blob == conflict.dev_blob and len(conflict.hunks) == 2
    assert [(h.resolution, h.head) for h in conflict.hunks] == [
        ("dev", h.dev) for h in conflict.hunks
    ]
    assert [h.head_start for h in conflict.hunks] == [h.dev_start for h in conflict.hunks]
    assert not any(h.context_changed for h in conflict.hunks)


def test_a_common_line_main_moved_across_a_hunk_leaves_each_side_in_place(
    tmp_path: Path,
) -> None:
    # Measured on a real sync (a training module): main moved "import argparse"
    # from above the conflicted lines to below them, so the merge's common lines
    # hold it after the hunk while dev's file holds it before. The diff anchored
    # on it and put dev's side three lines early, and a head that is exactly
    # dev's file read as custom there.
    base = '# header\n\n"""doc"""\nimport argparse\nimport time\n\nVALUE = 1\n\nrest = 3\n'
    dev = (
        '# header\n\n"""doc"""\nimport argparse\nimport time\n\n'
        "from x import y\nVALUE = compute()\nEXTRA = 2\n\nrest = 3\n"
    )
    main = (
        '# header\n\n"""doc"""\n\n# must come first\nimport time\n\n'
        "VALUE = 1  # changed\n\n# Standard library.\nimport argparse\nrest = 3\n"
    )
    built = build_conflicts(
        tmp_path / "r", base={"m.py": base}, dev={"m.py": dev}, main={"m.py": main}
    )
    conflict = _read(built, dev, "took-dev", "m.py")
    (hunk,) = conflict.hunks
    for text, lines, start in ((dev, hunk.dev, hunk.dev_start), (base, hunk.base, hunk.base_start)):
        held = text.splitlines(keepends=True)[start - 1 : start - 1 + len(lines)]
        assert tuple(held) == lines
    assert hunk.dev == ("from x import y\n", "VALUE = compute()\n", "EXTRA = 2\n")
    assert (hunk.dev_start, hunk.base_start) == (7, 7)
    # The head is dev's file: the hunk reads as dev, where dev's file holds it.
    assert (hunk.resolution, hunk.head, hunk.head_start) == ("dev", hunk.dev, 7)
    assert conflict.resolution == "dev"
