"""Opening a repository safely: clear one-line errors, nothing from the repository executed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from syncdesk.services.errors import GitCommandError, GitTooOldError, NotARepositoryError
from syncdesk.services.git.runner import Git, parse_version
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_commit, load_report, open_sync
from tests.syncrepo import build_sync_repo

REAL_GIT = shutil.which("git")


def write_script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def old_git_on_path(directory: Path, monkeypatch) -> None:
    """A ``git`` that claims to be 2.30.0 and delegates everything else to the real git."""
    assert REAL_GIT is not None
    write_script(
        directory / "git",
        f"for last; do :; done\n"
        f'if [ "$last" = version ]; then echo "git version 2.30.0"; exit 0; fi\n'
        f'exec {REAL_GIT} "$@"\n',
    )
    monkeypatch.setenv("PATH", f"{directory}:{Path(REAL_GIT).parent}")


@pytest.mark.parametrize("name", ["plain", "missing"])
def test_not_a_repository(tmp_path, name):
    path = tmp_path / name
    if name == "plain":
        path.mkdir()
    with pytest.raises(NotARepositoryError) as caught:
        Git(path)
    assert str(caught.value) == f"{path} is not a git repository"


@pytest.mark.parametrize(
    ("output", "version"),
    [
        ("git version 2.39.5", (2, 39)),
        ("git version 2.38.0.windows.1", (2, 38)),
        ("git version 2.39.3 (Apple Git-145)", (2, 39)),
        ("git version 10.1.0", (10, 1)),
    ],
)
def test_parse_version(output, version):
    assert parse_version(output) == version


def test_parse_version_refuses_nonsense():
    with pytest.raises(GitTooOldError, match="cannot read git's version"):
        parse_version("not git at all")


def test_real_git_is_new_enough(repo):
    Git(repo.path).require_version()
    raw = subprocess.run(["git", "version"], capture_output=True, text=True, check=True).stdout
    assert Git(repo.path).version() == parse_version(raw)


def test_git_older_than_2_38_is_refused(repo, tmp_path, monkeypatch):
    repo.commit("first")
    old_git_on_path(tmp_path / "shim", monkeypatch)
    git = Git(repo.path)
    assert git.resolve("HEAD") == repo.rev("HEAD")  # every other command still reaches real git
    with pytest.raises(GitTooOldError) as caught:
        git.require_version()
    assert "git 2.30 is too old" in str(caught.value)
    assert "2.38" in str(caught.value)


def test_opens_from_a_subdirectory_and_a_bare_clone(repo, tmp_path):
    head = repo.commit("first", {"pkg/a.py": "A = 1\n"})
    assert Git(repo.path / "pkg").resolve("HEAD") == head
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], check=True)
    git = Git(bare)
    assert git.work_tree is None
    assert git.resolve("main") == head


def test_resolve_and_ancestry(repo):
    first = repo.commit("first")
    second = repo.commit("second")
    git = Git(repo.path)
    assert git.resolve("main") == second
    assert git.resolve("main~1") == first
    assert git.resolve("no-such-branch") is None
    assert git.is_ancestor(first, second)
    assert not git.is_ancestor(second, first)


def test_a_ref_that_looks_like_an_option_is_not_an_option(repo, tmp_path):
    repo.commit("first")
    target = tmp_path / "written"
    assert Git(repo.path).resolve(f"--output={target}") is None
    assert not target.exists()


def test_failing_command_is_one_line_with_gits_reason(repo):
    repo.commit("first")
    with pytest.raises(GitCommandError) as caught:
        Git(repo.path).run(["cat-file", "-p", "no-such-object"])
    message = str(caught.value)
    assert message.startswith("git cat-file failed: fatal: ")
    assert "no-such-object" in message
    assert "\n" not in message


def test_reading_a_sync_runs_no_hook_and_no_fsmonitor_of_the_repository(tmp_path):
    built = build_sync_repo(tmp_path / "r", dev_moves="conflict")
    fired = tmp_path / "fired"
    canary = write_script(tmp_path / "canary", f'echo "$0 $*" >> {fired}\n')
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-auto-gc"):
        (hooks / hook).symlink_to(canary)
    built.git("config", "core.hooksPath", str(hooks))
    built.git("config", "core.fsmonitor", str(canary))

    session = open_sync(SyncOptions(repo=built.path, slice_size=built.slice_size))
    report = load_report(session)
    for sha in [*(c.sha for c in report.slice.commits), built.sync_merge]:
        load_commit(session, sha)

    assert report.dev_advanced.merges_cleanly is False  # the report really read the repo
    assert not fired.exists()
    # The canaries do fire for git itself: a plain `git status` runs both.
    subprocess.run(
        ["git", "status"], cwd=built.path, capture_output=True, stdin=subprocess.DEVNULL, check=True
    )
    programs = {line.split()[0] for line in fired.read_text().splitlines()}
    assert programs == {str(canary), str(hooks / "post-index-change")}


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a repository to another user needs root")
def test_a_repository_another_user_owns_is_refused_in_gits_words(tmp_path):
    # Naming the repository with --git-dir would skip git's ownership check, and
    # with it the protection against running another user's configured commands.
    built = build_sync_repo(tmp_path / "r")
    for entry in [built.path, *built.path.rglob("*")]:
        os.lchown(entry, 65534, 65534)  # nobody
    with pytest.raises(NotARepositoryError) as caught:
        Git(built.path)
    message = str(caught.value)
    assert message.startswith(f"git refuses {built.path}: fatal: detected dubious ownership")
    assert f"git config --global --add safe.directory {built.path}" in message
    # the report says the same, in one line, and reads nothing
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "report", "--repo", str(built.path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(f"syncdesk: git refuses {built.path}: fatal: detected dubious")


def test_a_bare_repository_inside_a_work_tree_is_refused_under_explicit(tmp_path, monkeypatch):
    built = build_sync_repo(tmp_path / "r")
    embedded = built.path / "vendor" / "embedded.git"
    subprocess.run(["git", "init", "-q", "--bare", str(embedded)], check=True)
    assert Git(embedded).git_dir == embedded.resolve()  # allowed by default, as git allows it
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "safe.bareRepository")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "explicit")
    with pytest.raises(
        NotARepositoryError, match=r"git refuses .*embedded\.git: fatal: cannot use bare"
    ):
        Git(embedded)
    assert Git(built.path).work_tree == built.path.resolve()  # the project itself still opens


def test_merges_keep_gits_built_in_drivers_and_branch_names_but_no_configured_driver(
    repo, tmp_path
):
    # Merges run in a config-less room (see runner.py): the work tree's
    # .gitattributes still pick git's own union driver, names still resolve, and
    # a driver configured in .git/config and named in .git/info/attributes is
    # not run: its file merges as text, as git does for a driver it does not know.
    repo.commit("base", {".gitattributes": "*.log merge=union\n", "a.log": "x\n", "b.txt": "x\n"})
    repo.checkout("dev", "main")
    repo.commit("dev", {"a.log": "dev\n", "b.txt": "dev\n"})
    repo.checkout("main")
    repo.commit("main", {"a.log": "main\n", "b.txt": "main\n"})
    fired = tmp_path / "fired"
    script = tmp_path / "driver"
    script.write_text(f'#!/bin/sh\necho ran >> {fired}\ncp "$3" "$2"\n')  # "take theirs"
    script.chmod(0o755)
    repo.git("config", "merge.theirs.driver", f"{script} %O %A %B")
    (repo.path / ".git" / "info" / "attributes").write_text("b.txt merge=theirs\n")

    result = Git(repo.path).run(["merge-tree", "--write-tree", "-z", "dev", "main"], check=False)
    assert result.status == 1 and not fired.exists()
    conflicted = {field.split("\t")[1] for field in result.text.split("\0")[1:] if "\t" in field}
    assert conflicted == {"b.txt"}  # a.log merged by union, b.txt as text, not by the driver
    raw = subprocess.run(["git", "merge-tree", "--write-tree", "dev", "main"], cwd=repo.path,
                         capture_output=True, check=False)  # fmt: skip
    assert raw.returncode == 0 and fired.exists()  # plain git runs the configured driver


def test_a_repository_named_by_its_git_directory_opens_with_its_work_tree(repo):
    head = repo.commit("first")
    git = Git(repo.path / ".git")
    assert (git.git_dir, git.work_tree) == ((repo.path / ".git").resolve(), repo.path.resolve())
    assert git.resolve("main") == head
