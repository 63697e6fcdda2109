"""Build real git repositories for tests, with real git.

``GitRepo`` is a small porcelain-driving builder: tests describe the history
they need (commits with files, merges with a chosen tree) and get real SHAs.
Dates advance one minute per commit so histories are deterministic.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

BASE_EPOCH = 1_700_000_000


class GitRepo:
    """A real repository in ``path``, built commit by commit."""

    def __init__(self, path: Path, *, initial_branch: str = "main") -> None:
        self.path = path
        self._tick = 0
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", f"--initial-branch={initial_branch}")

    def git(
        self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None
    ) -> str:
        """Run git in the repository; fail the test with git's stderr on error."""
        result = subprocess.run(
            ["git", *args],
            cwd=self.path,
            input=input,
            capture_output=True,
            env={**os.environ, **(env or {})},
            check=False,
        )
        if result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr.decode()}")
        return result.stdout.decode("utf-8", "replace").strip()

    def _dates(self) -> dict[str, str]:
        self._tick += 1
        date = f"@{BASE_EPOCH + 60 * self._tick} +0000"
        return {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        """Write (or with None, delete) files in the work tree and stage them."""
        for name, content in files.items():
            target = self.path / name
            if content is None:
                self.git("rm", "-q", "--", name)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_bytes(content.encode())
            self.git("add", "--", name)

    def commit(
        self,
        message: str,
        files: Mapping[str, str | bytes | None] | None = None,
        *,
        author: tuple[str, str] | None = None,
        allow_empty: bool = True,
    ) -> str:
        """Commit ``files`` on the current branch and return the new SHA."""
        self.write(files or {})
        env = self._dates()
        if author is not None:
            env |= {"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]}
        args = ["commit", "-q", "--no-verify", "-F", "-"]
        if allow_empty:
            args.append("--allow-empty")
        self.git(*args, input=message.encode(), env=env)
        return self.rev("HEAD")

    def checkout(self, branch: str, start: str | None = None) -> None:
        """Switch to ``branch``, creating it at ``start`` when given."""
        if start is None:
            self.git("checkout", "-q", branch)
        else:
            self.git("checkout", "-q", "-B", branch, start)

    def merge(
        self, other: str, message: str, *, resolve: Mapping[str, str | None] | None = None
    ) -> str:
        """Merge ``other`` into the current branch; conflicts are settled by ``resolve``."""
        env = self._dates()
        result = subprocess.run(
            ["git", "merge", "-q", "--no-ff", "--no-edit", "-m", message, other],
            cwd=self.path,
            capture_output=True,
            env={**os.environ, **env},
            check=False,
        )
        if result.returncode != 0:
            if resolve is None:
                raise AssertionError(f"merge of {other} conflicted: {result.stdout.decode()}")
            self.write(resolve)
            self.git("commit", "-q", "--no-verify", "--no-edit", env=env)
        elif resolve:
            self.write(resolve)
            self.git("commit", "-q", "--amend", "--no-edit", "--no-verify", env=env)
        return self.rev("HEAD")

    def rev(self, rev: str) -> str:
        return self.git("rev-parse", "--verify", rev)

    def branch(self, name: str, at: str) -> None:
        self.git("branch", "-f", name, at)
