"""Awkward file contents survive: CRLF, no final newline, marker-like lines, invalid UTF-8.

"Survive" means: the hunks hold exactly each side's bytes, rebuilding the file
from its segments gives merge-tree's bytes back, and choosing a side in every
hunk gives that side's file back when nothing else changed.
"""

from __future__ import annotations

from pathlib import Path

from syncdesk.services.conflicts.models import ConflictFile, rebuild
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.lines import encode_text
from tests.conflictrepo import ConflictRepo, build_conflicts


def _one(built: ConflictRepo, head: str | None = None) -> ConflictFile:
    (conflict,) = read_conflicts(built.git, "dev", "main", head).files
    return conflict


def _hash(built: ConflictRepo, data: bytes) -> str:
    return built.repo.git("hash-object", "--stdin", input=data)


def test_crlf_round_trips_byte_exact(tmp_path: Path) -> None:
    base = b"a\r\nb\r\nc\r\nd\r\n"
    built = build_conflicts(
        tmp_path / "r",
        base={"w.txt": base},
        dev={"w.txt": b"a\r\nb-dev\r\nc\r\nd\r\n"},
        main={"w.txt": b"a\r\nb-main\r\nc\r\nd-main\r\n"},
    )
    conflict = _one(built, built.head({"w.txt": b"a\r\nb-dev\r\nc\r\nd-main\r\n"}))
    assert conflict.segments is not None
    (hunk,) = conflict.hunks
    assert (hunk.dev, hunk.base, hunk.main) == (("b-dev\r\n",), ("b\r\n",), ("b-main\r\n",))
    assert all(line.endswith("\r\n") for line in hunk.conflict)
    # merge-tree's own file comes back byte for byte (its blob id is the one merge-tree wrote).
    assert _hash(built, encode_text(rebuild(conflict.segments, [None]))) == conflict.result_blob
    assert encode_text(rebuild(conflict.segments, [hunk.dev])) == b"a\r\nb-dev\r\nc\r\nd-main\r\n"
    assert (hunk.resolution, conflict.resolution) == ("dev", "dev")


def test_a_head_that_changed_line_endings_reads_as_custom(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "r",
        base={"w.txt": b"a\r\nb\r\nc\r\n"},
        dev={"w.txt": b"a\r\nb-dev\r\nc\r\n"},
        main={"w.txt": b"a\r\nb-main\r\nc\r\n"},
    )
    conflict = _one(built, built.head({"w.txt": b"a\nb-dev\nc\n"}))
    (hunk,) = conflict.hunks
    # Found despite the new endings, but not taken for dev's lines: they differ in bytes.
    assert hunk.head == ("b-dev\n",)
    assert hunk.resolution == "custom"
    assert conflict.resolution == "custom"


def test_a_missing_final_newline_is_kept_exactly(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "r",
        base={"n.txt": "a\nb\nc"},
        dev={"n.txt": "a\nb\nc-dev"},
        main={"n.txt": "a\nb\nc-main"},
    )
    conflict = _one(built, built.head({"n.txt": "a\nb\nc-dev"}))
    assert conflict.segments is not None
    (hunk,) = conflict.hunks
    # git adds a newline inside the conflict; the side's own line has none.
    assert hunk.conflict[1] == "c-dev\n"
    assert (hunk.dev, hunk.base, hunk.main) == (("c-dev",), ("c",), ("c-main",))
    assert (hunk.dev_start, hunk.base_start, hunk.main_start) == (3, 3, 3)
    assert _hash(built, encode_text(rebuild(conflict.segments, [None]))) == conflict.result_blob
    assert encode_text(rebuild(conflict.segments, [hunk.dev])) == built.show("dev", "n.txt")
    assert encode_text(rebuild(conflict.segments, [hunk.union])) == b"a\nb\nc-dev\nc-main"
    assert (hunk.resolution, conflict.resolution) == ("dev", "dev")


MARKERISH = (
    "cat <<EOF\n<<<<<<< ours\n=======\n>>>>>>> theirs\nEOF\n|||||||\nvalue = 1\n=======\ntail\n"
)


def test_content_that_looks_like_markers_is_not_taken_for_them(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "r",
        base={"fixture.sh": MARKERISH},
        dev={"fixture.sh": MARKERISH.replace("value = 1\n", "value = 2\n=======\n")},
        main={"fixture.sh": MARKERISH.replace("value = 1\n", "=======\nvalue = 3\n")},
    )
    conflict = _one(built, built.head({"fixture.sh": MARKERISH.replace("value = 1", "value = 4")}))
    assert conflict.segments is not None
    (hunk,) = conflict.hunks
    dev_text = built.show("dev", "fixture.sh").decode().splitlines(keepends=True)
    main_text = built.show("main", "fixture.sh").decode().splitlines(keepends=True)
    start = hunk.dev_start - 1
    assert list(hunk.dev) == dev_text[start : start + len(hunk.dev)]
    assert "value = 2\n" in hunk.dev
    assert "value = 3\n" in hunk.main
    assert "value = 1\n" in hunk.base
    assert list(hunk.main) == main_text[hunk.main_start - 1 : hunk.main_start - 1 + len(hunk.main)]
    # The heredoc's lines stayed common text, and the file rebuilds exactly.
    assert _hash(built, encode_text(rebuild(conflict.segments, [None]))) == conflict.result_blob
    assert hunk.resolution == "custom"


def test_invalid_utf8_is_flagged_and_round_trips(tmp_path: Path) -> None:
    base = b"caf\xe9 = 1\nx\ny\n"
    built = build_conflicts(
        tmp_path / "r",
        base={"latin.txt": base},
        dev={"latin.txt": b"caf\xe9 = 2\nx\ny\n"},
        main={"latin.txt": b"caf\xe9 = 3\nx\ny\xff\n"},
    )
    conflict = _one(built, built.head({"latin.txt": b"caf\xe9 = 3\nx\ny\xff\n"}))
    assert conflict.decodable is False
    assert conflict.whole_file_only
    assert conflict.segments is not None  # still shown as far as possible
    (hunk,) = conflict.hunks
    assert encode_text(hunk.dev[0]) == b"caf\xe9 = 2\n"
    assert _hash(built, encode_text(rebuild(conflict.segments, [None]))) == conflict.result_blob
    assert encode_text(rebuild(conflict.segments, [hunk.main])) == built.show("main", "latin.txt")
    assert conflict.resolution == "main"


def test_a_file_that_only_looks_binary_to_git_is_whole_file(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "r",
        base={"data.txt": "header\n\x00\n"},
        dev={"data.txt": "header dev\n\x00\n"},
        main={"data.txt": "header main\n\x00\n"},
    )
    conflict = _one(built, "dev")
    assert conflict.binary
    assert conflict.type == "binary"
    assert conflict.segments is None
    assert conflict.resolution == "dev"


def test_a_non_utf8_path_round_trips(tmp_path: Path) -> None:
    name = b"r\xe9sum\xe9.txt".decode("utf-8", "surrogateescape")
    built = build_conflicts(
        tmp_path / "r",
        base={name: "a\n"},
        dev={name: "dev\n"},
        main={name: "main\n"},
    )
    conflict = _one(built, "main")
    assert conflict.path == name  # the raw path, usable with git again
    assert conflict.display_path == "r\ufffdsum\ufffd.txt"  # printable in any terminal
    assert conflict.resolution == "main"


def test_a_path_with_a_newline_is_read_at_the_head_not_taken_for_deleted(tmp_path: Path) -> None:
    name = "notes\nfrom dev.txt"
    built = build_conflicts(
        tmp_path / "r",
        base={name: "a\n"},
        dev={name: "dev\n"},
        main={name: "main\n"},
    )
    conflict = _one(built, "main")
    assert conflict.path == name
    assert conflict.head_blob == built.blob("main", name)  # not "deleted at the head"
    assert conflict.resolution == "main"
