"""Rebuild on a new dev base: every hand resolution carried, the repair re-applied, nothing lost."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.errors import MissingRefError, NothingToDoError, ServiceError
from syncdesk.services.git.refs import list_backups, undo_last
from syncdesk.services.git.runner import Git
from syncdesk.services.write.rebuild import rebuild_onto
from tests.gitrepo import GitRepo
from tests.syncrepo import build_sync_repo
from tests.writing import branch_at, fsck_ok, raw_git, refs

SIGNOFF = "Signed-off-by: Ada Maintainer <ada@example.com>"


def rebuild(git: Git, onto: str = "dev", branch: str = "sync", **extra):
    return rebuild_onto(git, branch, onto, dev="dev", main="main", **extra)


def blob(path: Path, rev: str) -> bytes:
    return raw_git(path, "show", rev)


def parents(path: Path, rev: str) -> list[str]:
    return raw_git(path, "rev-parse", f"{rev}^@").decode().split()


def test_a_clean_dev_move_carries_everything_and_the_same_repair(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean")
    git = Git(sync.path)
    result = rebuild(git)
    dev_tip = sync.dev_new[-1]
    assert (result.onto, result.old_head) == (dev_tip, sync.head)
    assert parents(sync.path, result.new_merge) == [dev_tip, sync.parent2]
    assert parents(sync.path, result.new_head) == [result.new_merge]
    assert branch_at(sync.path) == result.new_head
    assert result.carried_files == (".github/CODEOWNERS", "pkg/core.py")
    assert (result.left, result.not_carried, result.repair_conflicts) == ((), (), ())
    assert result.evil_carried == ("pkg/util.py",)
    for path in (*sync.conflicted, sync.evil_file):  # the merge holds the same hand work
        assert blob(sync.path, f"{result.new_merge}:{path}") == blob(
            sync.path, f"{sync.merge}:{path}"
        )
    assert blob(sync.path, f"{result.new_merge}:pkg/newdev.py") == b"NEW = 1\n"  # dev's new work
    assert b"# fixed" in blob(sync.path, f"{result.new_head}:pkg/feature.py")  # the repair
    assert (result.anatomy_ok, result.tree_verified, result.problems) == (True, True, ())
    assert result.patch_id_same is True
    assert result.patch_note == "patch identical to the previous repair"
    assert fsck_ok(sync.path)


def test_the_rebuilt_commits_keep_their_authors_and_messages_and_gain_a_signoff(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean")
    result = rebuild(Git(sync.path))
    for old, new in ((sync.merge, result.new_merge), (sync.repair, result.new_head)):
        assert old is not None
        old_author = raw_git(sync.path, "log", "-1", "--format=%an %ae %ad", old)
        assert raw_git(sync.path, "log", "-1", "--format=%an %ae %ad", new) == old_author
        old_message = raw_git(sync.path, "log", "-1", "--format=%B", old).decode()
        new_message = raw_git(sync.path, "log", "-1", "--format=%B", new).decode()
        # git placed the trailer (above the "# Conflicts:" lines git commit left in the
        # merge's message); taking it out gives the old message back.
        assert new_message.replace(f"\n\n{SIGNOFF}", "", 1) == old_message
        trailers = subprocess.run(
            ["git", "interpret-trailers", "--parse"],
            input=new_message.encode(),
            capture_output=True,
            check=True,
        ).stdout.decode()
        assert SIGNOFF in trailers


def test_a_conflict_dev_changed_is_left_with_its_markers_and_the_rest_carried(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    git = Git(sync.path)
    result = rebuild(git)
    assert result.carried_files == (".github/CODEOWNERS",)
    assert result.left == ("pkg/core.py",)
    core = blob(sync.path, f"{result.new_head}:pkg/core.py").decode()
    assert f"<<<<<<< {result.onto}\n" in core and '    return "dev2"\n' in core
    assert result.anatomy_ok and result.patch_id_same is True
    # The workspace sees exactly that: one conflict unresolved at the new head.
    at_head = read_conflicts(git, result.onto, sync.parent2, result.new_head)
    unresolved = [c.path for c in at_head.files if c.resolution == "unresolved"]
    assert unresolved == ["pkg/core.py"]


@dataclass
class Rebuildable:
    repo: GitRepo
    merge: str
    head: str
    dev_tip: str


LINES = [f"line {n}\n" for n in range(1, 31)]


def text(changes: dict[int, str]) -> str:
    return "".join(changes.get(n, line) for n, line in enumerate(LINES, start=1))


def build_rebuildable(path: Path) -> Rebuildable:
    """Two hunks in one file, two evil changes and a repair; dev then moves under some of them."""
    repo = GitRepo(path)
    root = repo.commit(
        "root",
        {"two.txt": text({}), "evil.txt": text({}), "clash.txt": text({}), "fix.txt": text({})},
    )
    repo.checkout("dev", root)
    repo.commit("dev side", {"two.txt": text({3: "dev three\n", 25: "dev twenty-five\n"})})
    repo.checkout("main")
    tip = repo.commit("main side (#1)", {"two.txt": text({3: "main three\n", 25: "main 25\n"})})
    repo.checkout("sync", "dev")
    resolved = text({3: "resolved three\n", 25: "resolved twenty-five\n"})
    evil = {"evil.txt": text({2: "evil two\n"}), "clash.txt": text({10: "evil ten\n"})}
    merge = repo.merge(tip, "Merge main into dev", resolve={"two.txt": resolved, **evil})
    head = repo.commit("Repair", {"fix.txt": text({20: "repaired twenty\n"})})
    repo.checkout("dev")
    dev_tip = repo.commit(
        "dev moves on",
        {
            "two.txt": text({3: "dev three\n", 25: "dev 25 again\n"}),  # hunk 2 changes
            "evil.txt": text({28: "dev twenty-eight\n"}),  # far from the evil change
            "clash.txt": text({10: "dev ten\n"}),  # on the evil change's line
            "fix.txt": text({20: "dev twenty\n"}),  # on the repair's line
        },
    )
    repo.checkout("main")  # the sync branch is not checked out
    return Rebuildable(repo, merge, head, dev_tip)


def test_hunks_evil_changes_and_the_repair_are_each_carried_where_they_still_apply(tmp_path):
    built = build_rebuildable(tmp_path / "r")
    path = built.repo.path
    result = rebuild_onto(Git(path), "sync", "dev", dev="dev", main="main")
    two = blob(path, f"{result.new_merge}:two.txt").decode()
    assert "resolved three\n" in two  # hunk 1 is the same conflict: its resolution carried
    assert "<<<<<<< " in two and "dev 25 again\n" in two  # hunk 2 changed: left to decide
    assert "resolved twenty-five" not in two
    assert (result.carried_files, result.carried_hunks, result.left) == ((), 1, ("two.txt",))
    evil = blob(path, f"{result.new_merge}:evil.txt").decode()
    assert "evil two\n" in evil and "dev twenty-eight\n" in evil  # both changes combined
    assert result.evil_carried == ("evil.txt",)
    assert result.not_carried == ("clash.txt",)  # dev rewrote the evil change's line
    assert blob(path, f"{result.new_merge}:clash.txt").decode() == text({10: "dev ten\n"})
    assert result.repair_conflicts == ("fix.txt",)  # the repair's line was rewritten by dev
    assert blob(path, f"{result.new_head}:fix.txt").decode() == text({20: "dev twenty\n"})
    assert result.patch_id_same is False and "fix.txt" in result.patch_note
    assert result.tree_verified and result.anatomy_ok
    # Nothing is lost: the backup still holds the old head with every old resolution.
    backup = list_backups(Git(path), "sync")[-1]
    assert backup.before == built.head


def test_the_old_resolutions_are_learned_for_what_is_left(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    git = Git(sync.path)
    store = ResolutionStore.open(git)
    result = rebuild(git, store=store)
    assert result.learned_hunks == 2  # core.py's and CODEOWNERS' hunks, as the old head had them
    old = read_conflicts(git, sync.dev_base, sync.parent2, sync.head)
    core = old.file("pkg/core.py")
    assert core is not None
    suggestion = store.suggest_hunk(core.hunks[0].key)[0]
    assert store.lines(suggestion) == list(core.hunks[0].head or ())


def test_a_rebuild_is_undone_like_a_write(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean")
    git = Git(sync.path)
    result = rebuild(git)
    assert undo_last(git, "sync").new_head == sync.head
    assert branch_at(sync.path) == sync.head
    assert undo_last(git, "sync").new_head == result.new_head


def test_a_sync_without_a_repair_is_rebuilt_as_a_merge_alone(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean", repair=False)
    result = rebuild(Git(sync.path))
    assert result.new_head == result.new_merge
    assert (result.anatomy_ok, result.patch_id_same) == (True, None)
    assert result.patch_note == "no repair commit to re-apply"


def test_refusals_change_nothing(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean")
    git = Git(sync.path)
    before = refs(sync.path)
    with pytest.raises(NothingToDoError, match="already based on"):
        rebuild(git, onto=sync.dev_base)
    with pytest.raises(ServiceError, match="is not on dev"):
        rebuild(git, onto="main")
    with pytest.raises(MissingRefError, match="no commit named 'nowhere'"):
        rebuild(git, onto="nowhere")
    with pytest.raises(ServiceError, match="has no sync merge"):
        rebuild(git, branch="main")
    assert refs(sync.path) == before


def test_the_demo_sync_is_rebuilt_on_its_moved_dev_carrying_every_resolution(
    demo_facts: DemoFacts, tmp_path
):
    copy = tmp_path / "demo"
    shutil.copytree(demo_facts.repo, copy, symlinks=True)
    git = Git(copy)
    facts = demo_facts
    result = rebuild_onto(
        git,
        facts.sync_branch,
        facts.dev_tip,
        dev=facts.dev_tip,
        main=facts.main_tip,
        store=ResolutionStore.open(git),
    )
    assert set(result.carried_files) == {conflict.path for conflict in facts.conflicts}
    assert set(result.evil_carried) == set(facts.evil_merge_files)
    assert (result.left, result.not_carried, result.repair_conflicts) == ((), (), ())
    assert (result.anatomy_ok, result.tree_verified, result.patch_id_same) == (True, True, True)
    # Every resolution, a deleted file included, is in the new merge as it was in the old.
    for conflict in facts.conflicts:
        old = raw_git(copy, "ls-tree", facts.merge, "--", conflict.path)
        assert raw_git(copy, "ls-tree", result.new_merge, "--", conflict.path) == old
    assert result.learned_hunks > 0
    assert fsck_ok(copy)
