"""Reading a sync's conflicts: every type git reports, grouped, typed, paired with the head.

Expectations come from the repositories the tests build (the demo builder's
facts, or the blobs git itself stores), never from the services' own code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.services.conflicts.models import Common, ConflictSet
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git, GitResult
from tests.conflictrepo import ConflictRepo, build_conflicts, numbered, replace_lines

BASE_TEXT = numbered(12)


def test_every_demo_conflict_has_its_type_and_recorded_resolution(demo_facts: DemoFacts) -> None:
    conflicts = read_conflicts(
        Git(demo_facts.repo), demo_facts.dev_base, demo_facts.slice_tip, demo_facts.repair
    )
    found = {c.path: (c.type, c.resolution) for c in conflicts.files}
    assert found == {c.path: (c.type, c.resolution) for c in demo_facts.conflicts}
    assert not conflicts.clean
    assert conflicts.head == demo_facts.repair


def test_the_merge_commit_alone_records_the_same_resolutions(demo_facts: DemoFacts) -> None:
    # The demo's repair commit fixes an import outside the conflicts: still "custom".
    conflicts = read_conflicts(
        Git(demo_facts.repo), demo_facts.dev_base, demo_facts.slice_tip, demo_facts.merge
    )
    assert {c.path: c.resolution for c in conflicts.files} == {
        c.path: c.resolution for c in demo_facts.conflicts
    }


def test_equal_lines_of_every_version_are_held_once(demo_facts: DemoFacts) -> None:
    """The result, the head and the sides share most lines: each is one object in memory."""
    conflicts = read_conflicts(
        Git(demo_facts.repo), demo_facts.dev_base, demo_facts.slice_tip, demo_facts.repair
    )
    held: dict[str, int] = {}
    references = 0
    for conflict in conflicts.files:
        for segment in conflict.segments or ():
            parts = (
                [segment.lines]
                if isinstance(segment, Common)
                else [segment.dev, segment.base, segment.main, segment.conflict, segment.head or ()]
            )
            for part in (*parts, conflict.head_lines or ()):
                for line in part:
                    references += 1
                    assert held.setdefault(line, id(line)) == id(line), line
    assert references > 2 * len(held)  # the sharing is worth it on the demo already


def test_a_sync_not_built_yet_has_every_conflict_unresolved(demo_facts: DemoFacts) -> None:
    conflicts = read_conflicts(
        Git(demo_facts.repo), demo_facts.dev_base, demo_facts.slice_tip, None
    )
    assert conflicts.head is None
    assert {c.path for c in conflicts.files} == {c.path for c in demo_facts.conflicts}
    assert {c.resolution for c in conflicts.files} == {"unresolved"}
    assert {h.resolution for c in conflicts.files for h in c.hunks} == {"unresolved"}
    assert all(h.head is None for c in conflicts.files for h in c.hunks)


@pytest.fixture(scope="module")
def every_type(tmp_path_factory: pytest.TempPathFactory) -> ConflictRepo:
    """One repository with each conflict type git reports."""
    built = build_conflicts(
        tmp_path_factory.mktemp("types") / "repo",
        base={
            "content.txt": BASE_TEXT,
            "dev-deletes.txt": "kept by main\n",
            "main-deletes.txt": "kept by dev\n",
            "olddir/one.txt": "one\n",
            "renamed.txt": numbered(6, "r"),
            "image.bin": b"\x00\x01base",
        },
        dev={
            "content.txt": replace_lines(BASE_TEXT, {3: "three on dev\n"}),
            "added.txt": "added on dev\n",
            "dev-deletes.txt": None,
            "main-deletes.txt": "changed by dev\n",
            "olddir -> newdir": None,
            "renamed.txt -> renamed-dev.txt": None,
            "image.bin": b"\x00\x02dev",
        },
        main={
            "content.txt": replace_lines(BASE_TEXT, {3: "three on main\n"}),
            "added.txt": "added on main\n",
            "dev-deletes.txt": "changed by main\n",
            "main-deletes.txt": None,
            "olddir/two.txt": "added by main in the old directory\n",
            "renamed.txt -> renamed-main.txt": None,
            "image.bin": b"\x00\x03main",
        },
    )
    return built


def test_each_conflict_type_is_named(every_type: ConflictRepo) -> None:
    conflicts = read_conflicts(every_type.git, "dev", "main", None)
    assert {c.path: c.type for c in conflicts.files} == {
        "added.txt": "add/add",
        "content.txt": "content",
        "dev-deletes.txt": "modify/delete",
        "main-deletes.txt": "modify/delete",
        "image.bin": "binary",
        "newdir/two.txt": "file-location",
        "renamed-dev.txt": "rename",
    }


def test_each_conflict_carries_the_stage_blobs_git_stores(every_type: ConflictRepo) -> None:
    conflicts = read_conflicts(every_type.git, "dev", "main", None)
    blob = every_type.blob
    content = conflicts.file("content.txt")
    assert content is not None
    assert (content.base_blob, content.dev_blob, content.main_blob) == (
        blob("dev~1", "content.txt"),
        blob("dev", "content.txt"),
        blob("main", "content.txt"),
    )
    added = conflicts.file("added.txt")
    assert added is not None
    assert added.base_blob is None
    assert added.hunks[0].base == ()
    assert added.hunks[0].base_start == 0  # no base file
    deleted_on_dev = conflicts.file("dev-deletes.txt")
    assert deleted_on_dev is not None
    assert deleted_on_dev.dev_blob is None
    assert deleted_on_dev.main_blob == blob("main", "dev-deletes.txt")
    assert deleted_on_dev.segments is None
    assert deleted_on_dev.whole_file_only


def test_renames_are_one_conflict_with_every_name(every_type: ConflictRepo) -> None:
    conflicts = read_conflicts(every_type.git, "dev", "main", None)
    renamed = conflicts.file("renamed-main.txt")  # found by any of its names
    assert renamed is not None
    assert renamed.path == "renamed-dev.txt"
    assert set(renamed.old_paths) == {"renamed-main.txt", "renamed.txt"}
    assert (renamed.dev_path, renamed.main_path, renamed.base_path) == (
        "renamed-dev.txt",
        "renamed-main.txt",
        "renamed.txt",
    )
    moved = conflicts.file("newdir/two.txt")
    assert moved is not None
    assert moved.old_paths == ("olddir/two.txt",)
    assert any("directory" in message for message in moved.messages)


def test_binary_files_resolve_whole(every_type: ConflictRepo) -> None:
    conflicts = read_conflicts(every_type.git, "dev", "main", None)
    image = conflicts.file("image.bin")
    assert image is not None
    assert image.binary
    assert image.segments is None
    assert image.hunks == ()
    assert image.whole_file_only
    assert image.dev_blob == every_type.blob("dev", "image.bin")


def test_whole_file_resolutions_of_each_type(every_type: ConflictRepo) -> None:
    head = every_type.head(
        {
            "content.txt": every_type.show("main", "content.txt").decode(),  # main's blob
            "added.txt": "added on dev\nadded on main\n",  # both, by hand
            "main-deletes.txt": None,  # main deleted it: deleted
            "dev-deletes.txt": every_type.show("main", "dev-deletes.txt"),  # main's version back
            "newdir/two.txt": every_type.show("main", "olddir/two.txt"),  # follows dev's rename
            "image.bin": every_type.show("main", "image.bin"),
        }
    )
    conflicts = read_conflicts(every_type.git, "dev", "main", head)
    assert {c.path: c.resolution for c in conflicts.files} == {
        "added.txt": "union",
        "content.txt": "main",
        "dev-deletes.txt": "main",
        "main-deletes.txt": "deleted",
        "image.bin": "main",
        "newdir/two.txt": "dev",  # dev renamed the directory; the file followed it
        "renamed-dev.txt": "dev",  # the head is on dev: it has dev's name only
    }


def test_renames_are_judged_by_the_names_the_head_kept(every_type: ConflictRepo) -> None:
    body = every_type.show("dev", "renamed-dev.txt")
    both = every_type.head({"renamed-main.txt": body}, name="both")
    main_name = every_type.head({"renamed-dev.txt": None, "renamed-main.txt": body}, name="m")
    kept_old = every_type.head(
        {"olddir/two.txt": "added by main in the old directory\n"}, name="old"
    )
    assert _resolution(every_type, both, "renamed-dev.txt") == ("union", "renamed-dev.txt")
    assert _resolution(every_type, main_name, "renamed-dev.txt") == ("main", "renamed-main.txt")
    # main added the file in its directory, dev renamed the directory: main's layout.
    assert _resolution(every_type, kept_old, "newdir/two.txt") == ("main", "olddir/two.txt")


def _resolution(built: ConflictRepo, head: str, path: str) -> tuple[str, str | None]:
    conflict = read_conflicts(built.git, "dev", "main", head).file(path)
    assert conflict is not None
    return conflict.resolution, conflict.head_path


def test_a_renamed_file_is_found_under_the_name_the_head_kept(tmp_path: Path) -> None:
    text = numbered(20)
    built = build_conflicts(
        tmp_path / "r",
        base={"ren.txt": text},
        dev={"ren.txt -> ren-dev.txt": replace_lines(text, {5: "five on dev\n"})},
        main={"ren.txt": replace_lines(text, {5: "five on main\n"})},
    )
    # Only the markers' labels say that main calls the file ren.txt.
    head = built.head({"ren-dev.txt": None, "ren.txt": built.show("main", "ren.txt")})
    conflicts = read_conflicts(built.git, "dev", "main", head)
    (conflict,) = conflicts.files
    assert (conflict.path, conflict.type, conflict.old_paths) == (
        "ren-dev.txt",
        "content",
        ("ren.txt",),
    )
    assert (conflict.dev_path, conflict.main_path) == ("ren-dev.txt", "ren.txt")
    assert (conflict.head_path, conflict.resolution) == ("ren.txt", "main")


def test_a_clean_merge_has_no_conflicts(tmp_path: Path) -> None:
    built = build_conflicts(
        tmp_path / "r",
        base={"a.txt": BASE_TEXT},
        dev={"a.txt": replace_lines(BASE_TEXT, {2: "two on dev\n"})},
        main={"a.txt": replace_lines(BASE_TEXT, {10: "ten on main\n"})},
    )
    conflicts = read_conflicts(built.git, "dev", "main", "dev")
    assert conflicts == ConflictSet(built.dev, built.main, built.dev, conflicts.tree, True, (), ())


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record every git command syncdesk runs (the real git still runs them)."""
    calls: list[list[str]] = []
    real = Git.run

    def recording(self: Git, args: list[str], **kwargs: object) -> GitResult:
        calls.append(list(args))
        return real(self, args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Git, "run", recording)
    return calls


def _subcommand(args: list[str]) -> str:
    rest = list(args)
    while rest and rest[0] == "-c":
        rest = rest[2:]
    return rest[0]


def test_one_merge_tree_and_two_object_reads_whatever_the_file_count(
    every_type: ConflictRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = every_type.head({"content.txt": "resolved\n"}, name="count")
    calls = _calls(monkeypatch)
    conflicts = read_conflicts(every_type.git, "dev", "main", head)
    assert len(conflicts.files) == 7
    commands = [_subcommand(args) for args in calls]
    assert commands.count("merge-tree") == 1
    # One asks every object's size (a file over the large-file limit is not read), one reads.
    assert commands.count("cat-file") == 2
    merge = next(args for args in calls if _subcommand(args) == "merge-tree")
    assert "merge.conflictStyle=zdiff3" in merge


def test_reading_conflicts_writes_nothing_to_the_repository(every_type: ConflictRepo) -> None:
    before = every_type.repo.git("count-objects", "-v")
    refs = every_type.repo.git("for-each-ref")
    read_conflicts(every_type.git, "dev", "main", "dev")
    assert every_type.repo.git("count-objects", "-v") == before
    assert every_type.repo.git("for-each-ref") == refs
