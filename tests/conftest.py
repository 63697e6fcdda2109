"""Every test runs sealed off from the machine's git and user configuration.

The ``hermetic`` fixture (after git-revise's ``hermetic_seal``) gives each test
a temporary HOME and XDG directories, no system git config, a fixed identity
and dates, and an editor that fails if anything tries to open one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gitrepo import GitRepo


@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    for name in list(os.environ):
        if name.startswith("GIT_") or name in ("GH_TOKEN", "GITHUB_TOKEN", "EDITOR", "VISUAL"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    for xdg in ("CONFIG", "DATA", "CACHE", "STATE"):
        monkeypatch.setenv(f"XDG_{xdg}_HOME", str(home / xdg.lower()))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Maintainer")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Ada Maintainer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "@1700000000 +0000")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@1700000000 +0000")
    monkeypatch.setenv("GIT_EDITOR", "false")
    monkeypatch.setenv("TZ", "UTC")
    (home / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    return home


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch main."""
    return GitRepo(tmp_path / "repo")


from tests.prworld import pr_sandbox, pr_world  # noqa: E402,F401  (shared fixtures)
from tests.tmux import tmux  # noqa: E402,F401  (a shared fixture)
from tests.worlds import demo_facts  # noqa: E402,F401  (a shared fixture)
