"""``syncdesk repair|undo|rebuild|push``: the writers for scripts, one line per failure."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from syncdesk.tui.cli.run import main
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.writing import approve_whole_file, branch_at, raw_git, refs

CORE = "pkg/core.py"


def approve_mains_core(sync: SyncRepo) -> bytes:
    """Approve main's whole pkg/core.py in the workspace state; return its content."""
    return approve_whole_file(sync, CORE)


def run(capsys, *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["--slice-size", "5", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def test_repair_previews_then_writes_the_approved_files(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r")
    content = approve_mains_core(sync)
    repo = str(sync.path)
    before = refs(sync.path)
    code, out, _ = run(capsys, "--repo", repo, "repair", "--preview")
    assert code == 0 and refs(sync.path) == before
    what = f"replaces 1 commit(s) on top of the merge, up to {sync.head[:12]}"
    assert out[0] == f"Repair of sync at {sync.head[:12]}: {what}"
    assert f"- {CORE} (updated)" in out
    assert '+    return "main"' in out
    assert out[-1] == "Nothing was written: syncdesk repair --write writes it."

    code, out, err = run(capsys, "--repo", repo, "repair", "--write", "--branch", "sync")
    head = branch_at(sync.path)
    assert code == 0 and out[-1] == head
    assert out[0].startswith(f"Wrote repair {head[:12]} on sync (was {sync.head[:12]}; backup ")
    assert "Anatomy: ok" in out and "Tree: verified" in out
    assert raw_git(sync.path, "show", f"{head}:{CORE}") == content
    # sync is checked out and clean: its index and files followed the new repair.
    assert err == []
    assert (sync.path / CORE).read_bytes() == content
    assert raw_git(sync.path, "status", "--porcelain", "--untracked-files=no") == b""

    code, out, err = run(capsys, "--repo", repo, "repair", "--write")
    assert (code, out) == (1, [])
    assert err == ["syncdesk: nothing to write: the repair of sync already holds every change"]


def test_undo_then_undo_again(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r")
    approve_mains_core(sync)
    run(capsys, "--repo", str(sync.path), "repair", "--write")
    written = branch_at(sync.path)
    code, out, _ = run(capsys, "--repo", str(sync.path), "undo")
    assert (code, out[-1], branch_at(sync.path)) == (0, sync.head, sync.head)
    code, out, _ = run(capsys, "--repo", str(sync.path), "undo", "--branch", "sync")
    assert (code, out[-1]) == (0, written)


def test_rebuild_prints_the_new_head_last(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    sync.repo.checkout("main")
    code, out, _ = run(
        capsys, "--repo", str(sync.path), "rebuild", "--onto", "dev", "--branch", "sync"
    )
    assert code == 0 and out[-1] == branch_at(sync.path) != sync.head
    assert "Carried: 1 file(s) whole, 0 hunk(s) of changed files, 1 non-conflict change(s)" in out
    assert "Left to decide: pkg/core.py" in out
    assert "Patch: patch identical to the previous repair" in out


def test_push_asks_first_and_pushes_with_yes(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.git("remote", "add", "origin", str(remote))
    code, out, err = run(capsys, "--repo", str(sync.path), "push")
    assert (code, out) == (1, [])
    assert err == ["syncdesk: push asks for confirmation: run it in a terminal, or pass --yes"]
    assert raw_git(remote, "for-each-ref") == b""
    code, out, _ = run(capsys, "--repo", str(sync.path), "push", "--yes")
    # --yes too says where the push goes and what it replaces, before it runs
    assert out[0].startswith(
        f"Push sync ({sync.head[:12]}) to origin ({remote}), replacing nothing"
    )
    assert code == 0 and out[-1].startswith("pushed origin/sync: ")
    assert raw_git(remote, "rev-parse", "refs/heads/sync").decode().strip() == sync.head


def test_a_tty_answer_other_than_yes_pushes_nothing(tmp_path, capsys, monkeypatch):
    sync = build_sync_repo(tmp_path / "r")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.git("remote", "add", "origin", str(remote))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    code, out, _ = run(capsys, "--repo", str(sync.path), "push")
    assert (code, out) == (1, ["Nothing was pushed."])
    assert raw_git(remote, "for-each-ref") == b""


def test_a_branch_moved_while_the_question_is_open_is_not_pushed(tmp_path, capsys, monkeypatch):
    sync = build_sync_repo(tmp_path / "r")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.git("remote", "add", "origin", str(remote))
    elsewhere = sync.git("rev-parse", "sync~1").strip()
    asked = []

    def answer_after_the_branch_moved(prompt: str) -> str:
        asked.append(prompt)
        sync.git("update-ref", "refs/heads/sync", elsewhere)  # another terminal moves it
        return "y"

    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", answer_after_the_branch_moved)
    code, out, err = run(capsys, "--repo", str(sync.path), "push")
    assert asked and f"({sync.head[:12]})" in asked[0]  # the question named the old head
    assert code == 1 and out == []
    assert err == [
        f"syncdesk: sync moved since you confirmed the push: it is at {elsewhere[:12]}, "
        f"you confirmed {sync.head[:12]}; nothing was pushed"
    ]
    assert raw_git(remote, "for-each-ref") == b""  # neither commit reached the remote


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["undo"], "syncdesk: HEAD is detached: name the sync branch (syncdesk --head BRANCH)"),
        (["repair", "--preview"],
         "syncdesk: HEAD is detached: name the sync branch (syncdesk --head BRANCH)"),
        (["undo", "--branch", "sync"], "syncdesk: nothing to undo: syncdesk has no backup of sync"),
        (["rebuild", "--onto", "nowhere", "--branch", "sync"],
         "syncdesk: no commit named 'nowhere' to rebuild onto"),
        (["repair", "--write", "--branch", "no-such"],
         "syncdesk: no branch or commit named 'no-such' in this repository"),
    ],
)  # fmt: skip
def test_failures_are_one_line(tmp_path, capsys, args, message):
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.git("checkout", "-q", "--detach")
    code, out, err = run(capsys, "--repo", str(sync.path), *args)
    assert (code, out, err) == (1, [], [message])


def test_repair_needs_a_mode(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--repo", str(Path(tmp_path)), "repair"])
    assert exited.value.code == 2
    assert "one of the arguments --preview --write is required" in capsys.readouterr().err


def test_a_write_that_leaves_the_anatomy_broken_exits_non_zero(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r", base_off_dev=True)
    approve_mains_core(sync)
    code = main(["--repo", str(sync.path), "repair", "--write"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1 and out[-1] == branch_at(sync.path) != sync.head
    anatomy = next(line for line in out if line.startswith("Anatomy: "))
    assert "is not on dev" in anatomy


def test_a_repository_cannot_choose_where_a_push_goes(tmp_path, capsys, monkeypatch):
    sync = build_sync_repo(tmp_path / "r")
    theirs, mine = tmp_path / "theirs.git", tmp_path / "mine.git"
    for bare in (theirs, mine):
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    sync.git("remote", "add", "theirs", str(theirs))
    sync.git("remote", "add", "mine", str(mine))
    (sync.path / ".syncdesk.toml").write_text('remote = "theirs"\n')
    code, out, err = run(capsys, "--repo", str(sync.path), "push", "--yes")
    assert (code, out) == (1, [])
    assert err[0].startswith(f"syncdesk: {sync.path / '.syncdesk.toml'}: remote may only be set")
    assert raw_git(theirs, "for-each-ref") == b""
    # The user's own file says where pushes go.
    (sync.path / ".syncdesk.toml").unlink()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "config" / "syncdesk").mkdir(parents=True)
    (tmp_path / "config" / "syncdesk" / "config.toml").write_text('remote = "mine"\n')
    code, out, _ = run(capsys, "--repo", str(sync.path), "push", "--yes")
    assert code == 0 and f"to mine ({mine})" in out[0]
    assert raw_git(mine, "rev-parse", "refs/heads/sync").decode().strip() == sync.head
    assert raw_git(theirs, "for-each-ref") == b""


def test_repair_says_when_its_decisions_were_set_aside(tmp_path, capsys):
    sync = build_sync_repo(tmp_path / "r")
    approve_mains_core(sync)
    (state,) = (sync.path / ".git" / "syncdesk" / "syncs").glob("*.json")
    state.write_text('{"kind": "syncdesk-state", "sch')  # cut off by a crash or an editor
    code, out, err = run(capsys, "--repo", str(sync.path), "repair", "--write", "--branch", "sync")
    assert (code, out) == (1, [])
    assert err[0].startswith("syncdesk: nothing to write")
    assert "is not valid JSON" in err[0] and "corrupt-" in err[0]  # and where it went
    assert branch_at(sync.path) == sync.head
