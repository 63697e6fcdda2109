"""The carry-over store: learned once, suggested again, never applied, never lost."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from syncdesk.services.decisions.carryover import PIN_REF, ResolutionStore
from syncdesk.services.decisions.learned import (
    PROVENANCE_LIMIT,
    Provenance,
    Source,
    Suggestion,
    approved_in,
    evict,
    learned_from,
    remember,
)
from syncdesk.services.decisions.models import Action
from syncdesk.services.git import atomic
from syncdesk.services.git.atomic import StorageError
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_blob, write_lines
from tests.gitrepo import GitRepo

KEY = "5f" * 20  # an opaque hunk key, as the conflict parser makes them
MONDAY = "2023-11-13T10:00:00Z"
TUESDAY = "2023-11-14T10:00:00Z"
WEDNESDAY = "2023-11-15T10:00:00Z"


@pytest.fixture
def git(repo: GitRepo) -> Git:
    repo.commit("root", {"README.md": "hello\n"})
    return Git(repo.path)


def test_a_recorded_hunk_is_suggested_with_its_lines_and_provenance(git):
    store = ResolutionStore.open(git)
    lines = ["import os\n", "import sys\r\n", "no newline"]
    store.record_hunk(KEY, lines, approved_in("main2dev/demo", TUESDAY), action=Action.UNION)
    [suggestion] = store.suggest_hunk(KEY)
    assert store.lines(suggestion) == lines
    assert suggestion.action is Action.UNION
    assert suggestion.describe() == "approved in main2dev/demo on 2023-11-14"
    assert store.suggest_hunk("unknown") == []
    assert store.suggest_file("unknown") is None


def test_the_store_survives_a_reopen_and_is_shared_by_worktrees(git, repo, tmp_path):
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["x\n"], learned_from("main2dev/old", MONDAY))
    repo.git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    reopened = ResolutionStore.open(Git(tmp_path / "wt"))
    assert reopened.path == repo.path / ".git" / "syncdesk" / "carryover.json"
    assert reopened.suggest_hunk(KEY) == store.suggest_hunk(KEY)
    assert reopened.notes == []


def test_a_bare_repository_has_its_own_store(repo, tmp_path):
    repo.commit("root", {"README.md": "hello\n"})
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(repo.path), str(tmp_path / "b")], check=True
    )
    bare = Git(tmp_path / "b")
    ResolutionStore.open(bare).record_hunk(KEY, ["x\n"], learned_from("m2d/1", MONDAY))
    assert (tmp_path / "b" / "syncdesk" / "carryover.json").is_file()
    assert len(ResolutionStore.open(bare).suggest_hunk(KEY)) == 1


def test_the_same_resolution_learned_twice_is_kept_once_with_both_provenances(git):
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["same\n"], learned_from("main2dev/old", MONDAY))
    store.record_hunk(KEY, ["same\n"], approved_in("main2dev/new", TUESDAY), action=Action.DEV)
    [suggestion] = store.suggest_hunk(KEY)
    assert [p.branch for p in suggestion.provenance] == ["main2dev/new", "main2dev/old"]
    assert suggestion.action is Action.DEV
    assert suggestion.describe() == "approved in main2dev/new on 2023-11-14 (and 1 more)"


def test_learning_again_from_the_same_branch_keeps_the_newest_date(git):
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["same\n"], approved_in("main2dev/demo", MONDAY))
    store.record_hunk(KEY, ["same\n"], approved_in("main2dev/demo", WEDNESDAY))
    [suggestion] = store.suggest_hunk(KEY)
    assert suggestion.provenance == (approved_in("main2dev/demo", WEDNESDAY),)


def test_different_resolutions_are_suggested_newest_first_and_bounded(git):
    store = ResolutionStore.open(git, per_key=3)
    for day, text in enumerate(["a\n", "b\n", "c\n", "d\n"], start=10):
        store.record_hunk(KEY, [text], learned_from(f"m2d/{day}", f"2023-11-{day}T00:00:00Z"))
    store.record_hunk(KEY, ["b\n"], approved_in("m2d/again", "2023-11-20T00:00:00Z"))
    texts = [store.lines(s) for s in store.suggest_hunk(KEY)]
    assert texts == [["b\n"], ["d\n"], ["c\n"]]  # "a" fell off; "b", learned again, leads


def test_provenances_per_resolution_are_bounded():
    entry = Suggestion("1" * 40, None, (learned_from("m2d/0", "2023-01-01T00:00:00Z"),))
    entries: tuple[Suggestion, ...] = (entry,)
    for n in range(1, 10):
        again = Suggestion("1" * 40, None, (learned_from(f"m2d/{n}", f"2023-01-0{n}T01:00:00Z"),))
        entries = remember(entries, again, limit=5)
    assert len(entries) == 1
    assert len(entries[0].provenance) == PROVENANCE_LIMIT
    assert entries[0].provenance[0].branch == "m2d/9"


def test_the_least_recently_seen_keys_are_evicted_past_the_limit(git):
    store = ResolutionStore.open(git, max_keys=2)
    store.record_hunk("k1", ["1\n"], learned_from("m2d", MONDAY))
    store.record_hunk("k2", ["2\n"], learned_from("m2d", WEDNESDAY))
    store.record_hunk("k3", ["3\n"], learned_from("m2d", TUESDAY))
    assert store.counts() == (2, 0)
    assert store.suggest_hunk("k1") == []
    table: dict[str, tuple[Suggestion, ...]] = {
        "old": (Suggestion(None, None, (learned_from("x", MONDAY),)),)
    }
    assert evict(table, 1) is table


def test_a_whole_file_resolution_and_a_deletion(git):
    store = ResolutionStore.open(git)
    blob = write_blob(git, b"main's whole file\n")
    store.record_file("file-key", blob, learned_from("m2d/old", MONDAY), action=Action.MAIN)
    store.record_file("gone-key", None, approved_in("m2d/new", TUESDAY))
    suggestion = store.suggest_file("file-key")
    assert suggestion is not None
    assert (suggestion.blob, suggestion.action, suggestion.deleted) == (blob, Action.MAIN, False)
    assert store.lines(suggestion) == ["main's whole file\n"]
    deleted = store.suggest_file("gone-key")
    assert deleted is not None
    assert (deleted.deleted, deleted.action, store.lines(deleted)) == (True, Action.DELETED, [])
    newer = write_blob(git, b"newer\n")
    store.record_file("file-key", newer, approved_in("m2d/new", WEDNESDAY))
    assert store.suggest_file("file-key").blob == newer  # type: ignore[union-attr]


def test_a_file_resolution_must_name_an_existing_blob(git):
    store = ResolutionStore.open(git)
    with pytest.raises(StorageError, match="no such blob"):
        store.record_file("k", "0" * 40, learned_from("m2d", MONDAY))
    with pytest.raises(StorageError, match="no such blob"):
        store.record_file("k", "HEAD", learned_from("m2d", MONDAY))
    with pytest.raises(ValueError, match="must not be empty"):
        store.record_hunk("", ["x\n"], learned_from("m2d", MONDAY))


def test_two_processes_recording_at_once_keep_both(git):
    first = ResolutionStore.open(git)
    second = ResolutionStore.open(git)  # another syncdesk on the same repository
    first.record_hunk("k1", ["from the first\n"], learned_from("m2d", MONDAY))
    second.record_hunk("k2", ["from the second\n"], learned_from("m2d", TUESDAY))
    reopened = ResolutionStore.open(git)
    assert reopened.counts() == (2, 0)
    assert second.suggest_hunk("k1") == first.suggest_hunk("k1")


def test_a_batch_is_written_once(git, monkeypatch):
    writes: list[Path] = []
    real = atomic.write_json

    def counting(path: Path, value: object) -> None:
        writes.append(path)
        real(path, value)

    monkeypatch.setattr("syncdesk.services.decisions.carryover.write_json", counting)
    store = ResolutionStore.open(git)
    with store.batch():
        for n in range(20):
            store.record_hunk(f"k{n}", [f"{n}\n"], learned_from("main2dev/old", MONDAY))
    assert len(writes) == 1
    assert ResolutionStore.open(git).counts() == (20, 0)


def test_suggestions_for_many_hunks_and_their_texts_in_one_go(git):
    store = ResolutionStore.open(git)
    for n in range(5):
        store.record_hunk(f"k{n}", [f"line {n}\n"], learned_from("m2d", MONDAY))
    found = store.suggest_hunks(["k1", "k3", "absent"])
    assert sorted(found) == ["k1", "k3"]
    texts = store.texts(s.blob for entries in found.values() for s in entries if s.blob)
    assert sorted(texts.values()) == [["line 1\n"], ["line 3\n"]]


def test_a_corrupt_store_is_moved_aside_and_a_fresh_one_works(git):
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["x\n"], learned_from("m2d", MONDAY))
    store.path.write_text('{"kind": "syncdesk-carryover", "schema": 1, "hunks": {"k": [{"bl')
    reopened = ResolutionStore.open(git)
    assert reopened.counts() == (0, 0)
    assert reopened.moved_aside is not None
    assert reopened.moved_aside.name.startswith("carryover.json.corrupt-")
    assert "is not valid JSON" in reopened.notes[0]
    reopened.record_hunk(KEY, ["y\n"], learned_from("m2d", TUESDAY))
    assert len(ResolutionStore.open(git).suggest_hunk(KEY)) == 1


def test_learned_text_lost_from_git_is_dropped_and_reported(git, repo):
    store = ResolutionStore.open(git)
    kept = store.record_hunk("kept", ["kept\n"], learned_from("m2d", MONDAY))
    lost = store.record_hunk("lost", ["lost\n"], learned_from("m2d", MONDAY))
    assert lost.blob is not None
    (repo.path / ".git" / "objects" / lost.blob[:2] / lost.blob[2:]).unlink()
    reopened = ResolutionStore.open(git)
    assert reopened.suggest_hunk("lost") == []
    assert reopened.suggest_hunk("kept") == [kept]
    assert reopened.missing_blobs == (lost.blob,)
    assert reopened.notes == [
        "carry-over: 1 learned resolution(s) dropped (their text is missing from the repository)"
    ]


def test_learned_resolutions_survive_git_gc(git, repo):
    store = ResolutionStore.open(git)
    suggestion = store.record_hunk(KEY, ["keep me\n"], learned_from("m2d", MONDAY))
    learned_file = write_blob(git, b"a file from a deleted branch\n")
    store.record_file("f", learned_file, learned_from("m2d", MONDAY))
    repo.git("gc", "--quiet", "--prune=now")
    reopened = ResolutionStore.open(git)
    assert reopened.missing_blobs == ()
    assert reopened.lines(reopened.suggest_hunk(KEY)[0]) == ["keep me\n"]
    assert reopened.suggest_hunk(KEY) == [suggestion]
    assert repo.git("cat-file", "-t", PIN_REF) == "tree"
    repo.git("fsck", "--no-dangling")


def test_the_store_never_touches_the_checkout(git, repo):
    repo.write({"staged.txt": "staged\n"})
    (repo.path / "README.md").write_text("unstaged\n")
    before = (repo.git("status", "--porcelain"), (repo.path / ".git" / "index").read_bytes())
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["x\n"], learned_from("m2d", MONDAY))
    store.suggest_hunk(KEY)
    after = (repo.git("status", "--porcelain"), (repo.path / ".git" / "index").read_bytes())
    assert after == before
    assert (repo.path / "README.md").read_text() == "unstaged\n"


def test_provenance_is_described_for_people_and_sanitized():
    assert learned_from("main2dev/old", MONDAY).describe() == "resolved this way in main2dev/old"
    hostile = Provenance(Source.APPROVED, "evil\x1b]0;title\x07[/]", MONDAY)
    assert hostile.describe() == "approved in evil^[]0;title^G[/] on 2023-11-13"


def test_the_file_is_json_with_a_schema_version(git):
    store = ResolutionStore.open(git)
    store.record_hunk(KEY, ["x\n"], approved_in("m2d", MONDAY), action=Action.BASE)
    document = json.loads(store.path.read_text())
    assert (document["kind"], document["schema"]) == ("syncdesk-carryover", 1)
    [entry] = document["hunks"][KEY]
    assert entry["action"] == "base"
    assert entry["provenance"] == [{"source": "approved", "branch": "m2d", "at": MONDAY}]
    assert entry["blob"] == write_lines(git, ["x\n"])


def test_a_store_nested_too_deeply_is_moved_aside_and_learning_works_again(git):
    store = ResolutionStore.open(git)
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text("{" + '"a":{' * 100_000)
    reopened = ResolutionStore.open(git)
    assert reopened.moved_aside is not None and "nested too deeply" in reopened.notes[0]
    reopened.record_hunk(KEY, ["y\n"], learned_from("m2d", TUESDAY))
    assert len(ResolutionStore.open(git).suggest_hunk(KEY)) == 1
