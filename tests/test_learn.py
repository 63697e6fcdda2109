"""Carry-over: learn one sync branch, re-merge on a moved dev base, get suggestions hunk by hunk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learn import learn_branch
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.demo.world import build_world
from syncdesk.services.git.runner import Git


def _commit_on_dev(facts: DemoFacts, path: str, old: str, new: str) -> str:
    """Change one line of ``path`` on dev, with plumbing in a scratch index (no checkout)."""
    repo = facts.repo
    env = {"GIT_INDEX_FILE": str(repo / ".git" / "scratch-index")}

    def git(*args: str, input: bytes | None = None) -> str:
        result = subprocess.run(
            ["git", *args], cwd=repo, input=input, capture_output=True, check=True,
            env={**os.environ, **env},
        )  # fmt: skip
        return result.stdout.decode().strip()

    content = git("show", f"{facts.dev_branch}:{path}")
    assert old in content
    blob = git("hash-object", "-w", "--stdin", input=(content.replace(old, new, 1) + "\n").encode())
    git("read-tree", facts.dev_branch)
    git("update-index", "--cacheinfo", f"100644,{blob},{path}")
    tree = git("write-tree")
    commit = git(
        "commit-tree", tree, "-p", facts.dev_branch, "-m", "[dev] change a conflicted line"
    )
    git("update-ref", f"refs/heads/{facts.dev_branch}", commit)
    return commit


def test_learned_hunks_are_suggested_after_dev_moves_and_changed_ones_are_not(
    tmp_path: Path,
) -> None:
    facts = build_world(tmp_path / "world")
    git = Git(facts.repo)
    store = ResolutionStore.open(git)
    learned = learn_branch(git, facts.sync_branch, facts.dev_branch, facts.main_branch, store)
    old = read_conflicts(git, facts.dev_base, facts.slice_tip, facts.sync_branch)
    assert learned.hunks == sum(
        1 for f in old.files for h in f.hunks if h.head is not None and h.resolution != "unresolved"
    )
    # Dev moves on, and one commit rewrites a line inside a conflict hunk's dev side.
    target = next(f for f in old.files if f.path == "lumen/inference/engine.py")
    hunk = target.hunks[0]
    changed_line = next(line for line in hunk.dev if line.strip())
    _commit_on_dev(facts, target.path, changed_line.rstrip("\n"), "# rewritten on dev")
    new_dev = git.resolve(facts.dev_branch)
    assert new_dev is not None
    # The rebuilt sync: the new dev tip merged with the same slice tip.
    new = read_conflicts(git, new_dev, facts.slice_tip, None)
    old_keys = {h.key for f in old.files for h in f.hunks}
    suggested = store.suggest_hunks(h.key for f in new.files for h in f.hunks)
    for conflict in new.files:
        for new_hunk in conflict.hunks:
            if new_hunk.key in old_keys:
                assert suggested.get(new_hunk.key), (conflict.path, new_hunk.index)
            else:
                assert not suggested.get(new_hunk.key)
    new_engine = new.file(target.path)
    assert new_engine is not None
    assert new_engine.hunks[0].key != hunk.key
    assert not suggested.get(new_engine.hunks[0].key)
    # Identical hunks elsewhere do carry over.
    assert sum(1 for found in suggested.values() if found) >= learned.hunks - 2


def test_learn_command_reports_what_it_stored(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "learn", facts.sync_branch, "--repo", str(facts.repo)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Learned ")
    assert facts.sync_branch in result.stdout
    store = ResolutionStore.open(Git(facts.repo))
    hunk_keys, file_keys = store.counts()
    assert hunk_keys > 0
    assert file_keys == len(facts.conflicts)


def test_learning_a_branch_without_a_sync_merge_is_one_clear_line(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "learn", facts.main_branch, "--repo", str(facts.repo)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "no sync merge" in result.stderr
