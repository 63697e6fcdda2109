"""A submodule (gitlink) that both sides moved: a conflict type of its own, resolvable whole.

git 2.39's ``merge-tree`` ends its ``-z`` messages with free text on such a
conflict ("Recursive merging with submodules currently only supports trivial
cases"); it used to end the report with an internal error.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.models import (
    Action,
    FileChoice,
    FileStatus,
    SyncKey,
    choose_file,
    new_state,
)
from syncdesk.services.decisions.store import save_state
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.gitrepo import GitRepo
from tests.waiting import until, until_loaded
from tests.writing import raw_git, refs

SUB = "vendor/lib"
AT_BASE, AT_DEV, AT_MAIN = ("1" * 40, "2" * 40, "3" * 40)


@dataclass
class Built:
    repo: GitRepo
    dev: str
    main: str
    head: str


def _link(repo: GitRepo, commit: str) -> None:
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{SUB}")


def build(path: Path) -> Built:
    """Base with a submodule; dev and main each move it; the sync merge keeps dev's."""
    repo = GitRepo(path)
    _link(repo, AT_BASE)
    repo.commit("Base", {"README.md": "project\n"})
    repo.checkout("dev", "main")
    _link(repo, AT_DEV)
    dev = repo.commit("dev: bump the library", {"dev.txt": "dev\n"})
    repo.checkout("main")
    _link(repo, AT_MAIN)
    main = repo.commit("main: bump the library", {"main.txt": "main\n"})
    repo.checkout("main2dev/sub", dev)
    merging = ["git", "merge", "--no-commit", "--no-ff", "main"]
    subprocess.run(merging, cwd=repo.path, capture_output=True, check=False)  # conflicts
    _link(repo, AT_DEV)  # the resolution: dev's commit
    repo.git("commit", "-q", "--no-verify", "-m", "Merge main into dev")
    return Built(repo, dev, main, repo.rev("HEAD"))


def test_the_conflict_reads_as_a_submodule_resolved_as_dev(tmp_path: Path) -> None:
    built = build(tmp_path / "r")
    conflicts = read_conflicts(Git(built.repo.path), built.dev, built.main, built.head)
    (conflict,) = conflicts.files
    assert (conflict.path, conflict.type, conflict.resolution) == (SUB, "submodule", "dev")
    assert (conflict.dev_blob, conflict.main_blob, conflict.head_blob) == (AT_DEV, AT_MAIN, AT_DEV)
    assert conflict.whole_file_only


def test_the_report_lists_it_and_exits_zero(tmp_path: Path, capsys: Any) -> None:
    from syncdesk.tui.cli.run import main

    built = build(tmp_path / "r")
    repo = str(built.repo.path)
    code = main(["--slice-size", "1", "report", "--repo", repo, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (listed,) = json.loads(out)["conflicts"]["files"]
    assert (listed["path"], listed["type"], listed["resolution"]) == (SUB, "submodule", "dev")


def test_choosing_mains_commit_writes_the_gitlink_into_the_repair(
    tmp_path: Path, capsys: Any
) -> None:
    from syncdesk.tui.cli.run import main

    built = build(tmp_path / "r")
    git = Git(built.repo.path)
    state = new_state(SyncKey(built.dev, built.main), branch="main2dev/sub", head=built.head)
    choice = FileChoice(Action.MAIN, None)  # as the workspace records it
    save_state(git, choose_file(state, SUB, choice, status=FileStatus.APPROVED))
    repo = str(built.repo.path)
    before = refs(built.repo.path)
    code = main(["--slice-size", "1", "--repo", repo, "repair", "--preview"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"- {SUB} (submodule updated)" in out.splitlines()
    assert refs(built.repo.path) == before
    code = main(["--slice-size", "1", "--repo", repo, "repair", "--write"])
    out, err = capsys.readouterr()
    assert code == 0, err
    head = built.repo.rev("main2dev/sub")
    listed = raw_git(built.repo.path, "ls-tree", head, "--", SUB).decode()
    assert listed.startswith(f"160000 commit {AT_MAIN}\t")
    changed = raw_git(built.repo.path, "diff", "--name-only", built.head, head).decode().split()
    assert changed == [SUB]


async def test_the_workspace_shows_both_commits_and_takes_one(tmp_path: Path) -> None:
    built = build(tmp_path / "r")
    options = SyncOptions(repo=built.repo.path, head="main2dev/sub", slice_size=1)
    app = SyncDeskApp(open_sync(options, user_config=Path("/nonexistent")))
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("c")
        screen: Any = await until_loaded(pilot, WorkspaceScreen)
        await until(pilot, lambda: screen.conflict is not None, "the submodule open")
        info = str(screen.query_one("#ws-hunk-info").render())
        assert f"dev names {AT_DEV[:12]}" in info and f"main names {AT_MAIN[:12]}" in info
        await pilot.press("M")
        await until(
            pilot,
            lambda: (
                (w := screen.state.decisions(SUB).whole_file) is not None
                and w.action is Action.MAIN
            ),
            "main's commit chosen (not a deletion)",
        )
