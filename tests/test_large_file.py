"""A conflicted file over the large-file limit: listed, resolved whole by blob id, never read.

Split into lines and diffed in Python, a file takes 30-40 times its size in
memory (a 50 MB one took 2.2 GB and 76 s in ``report``). Here the limit is
set low (``large_file_limit`` in the repository's ``.syncdesk.toml``) so a
60 kB file stands for the huge one; the same file under the default limit is
read hunk by hunk, which shows the limit is what changed.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.models import Action, FileStatus
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from syncdesk.tui.app import SyncDeskApp
from tests.gitrepo import GitRepo
from tests.waiting import until, until_loaded
from tests.writing import raw_git, refs

BIG = "data/big.py"
LIMIT = 20_000
ROWS = 3_000
BRANCH = "main2dev/big"


@dataclass
class Built:
    repo: GitRepo
    dev: str
    main: str
    head: str

    def blob(self, rev: str, path: str = BIG) -> str:
        return self.repo.git("rev-parse", f"{rev}:{path}").strip()


def _rows(changes: dict[int, str]) -> str:
    return "".join(
        changes.get(i, f"row_{i:05d} = compute({i}, 'alpha', scale=1.0)\n") for i in range(ROWS)
    )


def build(path: Path, *, limit: int | None = LIMIT) -> Built:
    """A 60 kB file both sides changed at the same rows; the sync merge took main's file whole.

    ``small.txt`` conflicts too, and is read as usual.
    """
    repo = GitRepo(path)
    repo.commit("Base", {BIG: _rows({}), "small.txt": "one\ntwo\nthree\n"})
    repo.checkout("dev", "main")
    dev = repo.commit(
        "dev: tune the rows",
        {
            BIG: _rows({10: "row_00010 = dev_value()\n", 2000: "row_02000 = dev_only()\n"}),
            "small.txt": "one\ndev two\nthree\n",
        },
    )
    repo.checkout("main")
    main = repo.commit(
        "main: rename the rows",
        {BIG: _rows({10: "row_00010 = main_value()\n"}), "small.txt": "one\nmain two\nthree\n"},
    )
    repo.checkout(BRANCH, dev)
    merging = ["git", "merge", "--no-commit", "--no-ff", "main"]
    subprocess.run(merging, cwd=repo.path, capture_output=True, check=False)  # conflicts
    repo.git("checkout", "--theirs", "--", BIG, "small.txt")
    repo.git("add", BIG, "small.txt")
    repo.git("commit", "-q", "--no-verify", "-m", "Merge main into dev")
    if limit is not None:  # untracked: the repository file syncdesk reads from the work tree
        (repo.path / ".syncdesk.toml").write_text(f"large_file_limit = {limit}\n")
    return Built(repo, dev, main, repo.rev("HEAD"))


def _cat_file_requests(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every ``cat-file`` standard input from here on."""
    asked: list[bytes] = []
    run = Git.run

    def recording(self: Git, args: Any, **kwargs: Any) -> Any:
        if "cat-file" in args and kwargs.get("input"):
            asked.append(kwargs["input"])
        return run(self, args, **kwargs)

    monkeypatch.setattr(Git, "run", recording)
    return asked


def _options(built: Built) -> SyncOptions:
    return SyncOptions(repo=built.repo.path, head=BRANCH, slice_size=1)


async def _open_the_big_file(pilot: Any) -> Any:
    """From the Slice screen: c, then N until the big file is the one open."""
    await until_loaded(pilot, SliceScreen)
    await pilot.press("c")
    screen: Any = await until_loaded(pilot, WorkspaceScreen)
    await until(pilot, lambda: screen.conflict is not None, "a conflict open")
    if screen.conflict.path != BIG:
        await pilot.press("N")
    await until(pilot, lambda: screen.conflict.path == BIG, "the big file open")
    return screen


def test_over_the_limit_the_file_is_resolved_whole_and_its_content_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build(tmp_path / "r")
    git = Git(built.repo.path)
    git.large_file_limit = LIMIT
    asked = _cat_file_requests(monkeypatch)
    conflicts = read_conflicts(git, built.dev, built.main, built.head)
    big = conflicts.file(BIG)
    small = conflicts.file("small.txt")
    assert big is not None and small is not None
    size = int(git.text("cat-file", "-s", built.blob(built.dev)))
    assert size > LIMIT and big.too_large >= size
    assert big.whole_file_only and big.hunks == () and big.head_lines is None
    assert big.resolution == "main"  # the head holds main's blob: compared by id
    assert len(small.hunks) == 1 and small.resolution == "main" and not small.too_large
    for blob in (built.blob(built.dev), built.blob(built.main), built.blob(built.head)):
        assert not any(f"contents {blob}".encode() in stdin for stdin in asked)


def test_under_the_default_limit_the_same_file_is_read_hunk_by_hunk(tmp_path: Path) -> None:
    built = build(tmp_path / "r", limit=None)
    conflicts = read_conflicts(Git(built.repo.path), built.dev, built.main, built.head)
    big = conflicts.file(BIG)
    assert big is not None and not big.too_large and len(big.hunks) == 1


def test_the_report_names_it_too_large_and_the_audit_leaves_it_out(
    tmp_path: Path, capsys: Any
) -> None:
    from syncdesk.tui.cli.run import main

    built = build(tmp_path / "r")
    repo = str(built.repo.path)
    code = main(
        ["--slice-size", "1", "--repo", repo, "--head", BRANCH, "report", "--format", "json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    listed = {one["path"]: one for one in report["conflicts"]["files"]}
    assert listed[BIG]["too_large"] > LIMIT and listed[BIG]["hunks"] == 0
    assert listed[BIG]["resolution"] == "main"
    assert listed["small.txt"]["too_large"] is None
    summary = report["conflicts"]["audit_summary"]
    assert [one["path"] for one in summary["too_large"]] == [BIG]
    # dev's own row 2000 is gone from the head, but the file was not read: no finding, a notice.
    assert all(finding["path"] != BIG for finding in report["conflicts"]["audit"])
    code = main(["--slice-size", "1", "--repo", repo, "--head", BRANCH, "report"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert any(line.strip().startswith(f"too large  {BIG}: ") for line in out.splitlines())


def test_a_limit_that_is_not_a_positive_number_is_refused_in_one_line(
    tmp_path: Path, capsys: Any
) -> None:
    from syncdesk.tui.cli.run import main

    built = build(tmp_path / "r", limit=None)
    (built.repo.path / ".syncdesk.toml").write_text('large_file_limit = "big"\n')
    code = main(["--slice-size", "1", "--repo", str(built.repo.path), "--head", BRANCH, "report"])
    _, err = capsys.readouterr()
    assert code != 0
    assert err.count("\n") == 1 and "large_file_limit must be a positive whole number" in err


async def test_the_workspace_takes_devs_file_by_id_and_the_repair_writes_that_blob(
    tmp_path: Path, capsys: Any
) -> None:
    from syncdesk.tui.cli.run import main

    built = build(tmp_path / "r")
    app = SyncDeskApp(open_sync(_options(built), user_config=Path("/nonexistent")))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_the_big_file(pilot)
        info = str(screen.query_one("#ws-hunk-info").render())
        assert "over the large_file_limit setting" in info and "not shown" in info
        await pilot.press("D")
        await until(
            pilot,
            lambda: (
                (w := screen.state.decisions(BIG).whole_file) is not None and w.action is Action.DEV
            ),
            "dev's file chosen",
        )
        assert screen.state.decisions(BIG).whole_file.blob == built.blob(built.dev)
        await pilot.press("a")
        await until(
            pilot,
            lambda: screen.state.decisions(BIG).status is FileStatus.APPROVED,
            "the big file approved",
        )
    repo = str(built.repo.path)
    before = refs(built.repo.path)
    args = ["--slice-size", "1", "--repo", repo, "--head", BRANCH, "repair"]
    code = main([*args, "--preview"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"- {BIG} (updated)" in out.splitlines()
    assert f"Binary files a/{BIG} and b/{BIG} differ" in out  # no patch of a file this size
    assert refs(built.repo.path) == before
    code = main([*args, "--write"])
    _, err = capsys.readouterr()
    assert code == 0, err
    head = built.repo.rev(BRANCH)
    assert built.blob(head) == built.blob(built.dev)
    changed = raw_git(built.repo.path, "diff", "--name-only", built.head, head).decode().split()
    assert changed == [BIG]


async def test_a_resolution_learned_before_is_taken_by_its_blob_id(tmp_path: Path) -> None:
    """S takes the learned whole-file resolution of a file too large to read, by blob id."""
    from syncdesk.services.decisions.carryover import ResolutionStore
    from syncdesk.services.decisions.learned import Provenance, Source

    built = build(tmp_path / "r")
    git = Git(built.repo.path)
    git.large_file_limit = LIMIT
    conflict = read_conflicts(git, built.dev, built.main, built.head).file(BIG)
    assert conflict is not None and conflict.too_large
    learned = built.blob(built.dev)
    seen = Provenance(Source.APPROVED, "main2dev/earlier", "2026-11-30T10:00:00Z")
    ResolutionStore.open(git).record_file(conflict.file_key, learned, seen, action=Action.DEV)
    app = SyncDeskApp(open_sync(_options(built), user_config=Path("/nonexistent")))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_the_big_file(pilot)
        assert "press S to take it" in str(screen.query_one("#ws-hunk-info").render())
        await pilot.press("S")
        await until(
            pilot,
            lambda: (w := screen.state.decisions(BIG).whole_file) is not None and w.blob == learned,
            "the learned resolution taken",
        )
        assert screen.state.decisions(BIG).whole_file.action is Action.DEV
