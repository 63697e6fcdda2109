"""End to end, as a person would: the real program in tmux, keys sent, the screen read.

This is also where escape injection is checked at the real terminal: a commit
subject carrying OSC 0 (set title) and OSC 52 (write clipboard) must change
neither tmux's pane title nor its paste buffers.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.gitrepo import GitRepo
from tests.tmux import Tmux

pytestmark = pytest.mark.e2e


def test_demo_opens_the_slice_screen_and_a_commit(tmux: Tmux, tmp_path: Path) -> None:
    world = tmp_path / "world"
    tmux.start([sys.executable, "-m", "syncdesk", "demo", "--dir", str(world)], cwd=tmp_path)
    screen = tmux.wait_for(lambda s: "healthy" in s, "the Slice screen to load")
    assert "main2dev/demo" in screen
    assert "Open commit" in screen  # the footer's key hints
    tmux.keys("Down", "Enter")
    screen = tmux.wait_for(lambda s: "committer" in s and "Files" in s, "the commit view")
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen again")
    tmux.keys("q")
    deadline = time.monotonic() + 20
    while not tmux.pane_dead() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert tmux.pane_dead(), "q did not quit syncdesk"


def test_at_80x24_the_workspace_keeps_its_keys_and_finds_a_file_by_name(
    tmux: Tmux, tmp_path: Path
) -> None:
    world = tmp_path / "world"
    tmux.start(
        [sys.executable, "-m", "syncdesk", "demo", "--dir", str(world)], cwd=tmp_path, size=(80, 24)
    )
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen")
    tmux.keys("c")
    screen = tmux.wait_for(lambda s: "CODEOWNERS" in s and "Approve" in s, "the workspace")
    footer = " ".join(screen.rstrip("\n").splitlines()[-2:])
    for key in ("n Next", "d Dev", "m Main", "u Union", "e Edit", "z Undo", "a Approve", "? Help"):
        assert key in footer, (key, footer)
    tmux.keys("/")
    tmux.wait_for(lambda s: "Find a conflicted file" in s, "the file finder")
    tmux.keys(*"attention")
    tmux.wait_for(lambda s: "lumen/models/attention.py" in s, "the file offered")
    tmux.keys("Enter")
    tmux.wait_for(
        lambda s: "Find a conflicted file" not in s and "attention.py" in s.splitlines()[1],
        "the file opened",
    )
    tmux.keys("q")


def test_escape_sequences_in_a_subject_never_reach_the_terminal(tmux: Tmux, tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "hostile")
    repo.commit("root", {"a.py": "a = 1\n"})
    repo.branch("dev", "HEAD")
    repo.commit(
        "title \x1b]0;PWNED-TITLE\x07 clip \x1b]52;c;UFdORUQtQ0xJUA==\x07 end", {"b.py": "b\n"}
    )
    repo.checkout("dev")
    tmux.start(
        [sys.executable, "-m", "syncdesk", "--repo", str(repo.path), "--head", "dev"], cwd=tmp_path
    )
    screen = tmux.wait_for(lambda s: "PWNED-TITLE" in s, "the hostile commit in the table")
    assert "^[]0;PWNED-TITLE^G" in screen
    assert "PWNED" not in tmux.tmux("display-message", "-p", "#{pane_title}")
    assert "PWNED-CLIP" not in tmux.tmux("show-buffer")
    tmux.keys("q")


def test_a_hunk_edited_in_the_users_editor(
    tmux: Tmux, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # $EDITOR is a script that replaces the hunk's text, as a person would in vim.
    monkeypatch.setenv("EDITOR", 'sh -c \'printf "edited_in_editor = 1\\n" > "$0"\'')
    world = tmp_path / "world"
    tmux.start([sys.executable, "-m", "syncdesk", "demo", "--dir", str(world)], cwd=tmp_path)
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen")
    tmux.keys("c")
    tmux.wait_for(lambda s: "Next hunk" in s and "CODEOWNERS" in s, "the conflict workspace")
    tmux.keys("E")
    tmux.wait_for(lambda s: "edited_in_editor = 1" in s, "the edited hunk in the result")
    screen = tmux.wait_for(lambda s: "you edited it by hand" in s, "the decision named")
    assert "CODEOWNERS" in screen
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen again")
    tmux.keys("q")


def test_demo_findings_and_a_reply_posted_to_the_in_process_sandbox(
    tmux: Tmux, tmp_path: Path
) -> None:
    world = tmp_path / "world"
    tmux.start([sys.executable, "-m", "syncdesk", "demo", "--dir", str(world)], cwd=tmp_path)
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen to load")
    tmux.keys("f")
    screen = tmux.wait_for(lambda s: "#4242" in s and "F10" in s, "the findings")
    assert "repair 6" in screen and "slice 7" in screen  # origins traced on the real repo
    tmux.keys("X")  # F1 (under the cursor): closed
    tmux.wait_for(lambda s: "Closed" in s, "the disposition")
    tmux.keys("P")
    tmux.wait_for(lambda s: "exactly as it will be posted" in s, "the reply preview")
    tmux.keys("P")
    tmux.wait_for(lambda s: "Post (y)" in s, "the confirmation")
    tmux.keys("y")
    tmux.wait_for(lambda s: "Posted the reply" in s, "the post's confirmation")
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "healthy" in s, "the Slice screen again")
    tmux.keys("q")
    deadline = time.monotonic() + 20
    while not tmux.pane_dead() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert tmux.pane_dead(), "q did not quit syncdesk"


@pytest.mark.parametrize("what", ["not a repository", "a missing ref"])
def test_a_sync_that_cannot_be_opened_ends_the_desk_with_one_line(
    tmux: Tmux, tmp_path: Path, what: str
) -> None:
    # The desk paints first and opens the sync in a worker: what cannot be opened ends
    # it, and the shell shows the one line that says why (no screen left, no traceback).
    if what == "not a repository":
        target, expected = tmp_path / "plain", "is not a git repository"
        target.mkdir()
        command = [sys.executable, "-m", "syncdesk", "--repo", str(target)]
    else:
        repo = GitRepo(tmp_path / "r")
        repo.commit("one", {"a.txt": "a\n"})
        command = [sys.executable, "-m", "syncdesk", "--repo", str(repo.path), "--head", "nope"]
        expected = "nope"
    # The exit status, as the shell saw it: written to a file once the desk has ended.
    status_file = tmp_path / "status"
    shell = " ".join(shlex.quote(part) for part in command) + f" ; echo $? > {status_file}"
    tmux.start(["sh", "-c", shell], cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not status_file.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status_file.exists(), f"the desk did not end: {tmux.screen()!r}"
    assert status_file.read_text().strip() == "1"
    # With the pane's history: leaving the alternate screen can scroll the line up.
    lines = [line for line in tmux.tmux("capture-pane", "-p", "-S", "-200").splitlines() if line]
    said = [line for line in lines if line.startswith("syncdesk: ")]
    assert len(said) == 1 and expected in said[0], lines
    assert not any("Traceback" in line for line in lines)
