"""The runner's own environment and ``init_repository``: what the demo builder runs git with."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.runner import Git, init_repository


def test_init_repository_makes_a_work_tree_repository_on_the_branch(tmp_path: Path):
    git = init_repository(tmp_path / "new" / "repo", "trunk")
    assert git.work_tree == (tmp_path / "new" / "repo").resolve()
    assert git.git_dir == git.work_tree / ".git"
    assert git.text("symbolic-ref", "HEAD").strip() == "refs/heads/trunk"
    assert git.text("rev-parse", "--is-bare-repository").strip() == "false"


def test_an_inherited_git_dir_cannot_redirect_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere.git"))
    git = init_repository(tmp_path / "repo", "main")
    assert git.git_dir == (tmp_path / "repo" / ".git").resolve()
    assert not (tmp_path / "elsewhere.git").exists()


def test_init_repository_refuses_a_bad_branch_name(tmp_path: Path):
    with pytest.raises(GitCommandError, match="git init failed"):
        init_repository(tmp_path / "repo", "no..dots")


def test_the_runner_env_reaches_every_command_and_a_call_env_wins(tmp_path: Path):
    seal = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "demo.value", "GIT_CONFIG_VALUE_0": "a"}
    git = init_repository(tmp_path / "repo", "main", env=seal)
    assert git.text("config", "demo.value").strip() == "a"
    again = Git(tmp_path / "repo", env=seal)
    assert again.text("config", "demo.value").strip() == "a"
    result = again.run(["config", "demo.value"], env={"GIT_CONFIG_VALUE_0": "b"})
    assert result.text.strip() == "b"
    assert Git(tmp_path / "repo").run(["config", "demo.value"], check=False).status == 1
