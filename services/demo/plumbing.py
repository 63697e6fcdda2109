"""The few git processes the builder runs, in a sealed environment.

The builder must give the same repository whatever the machine's git
configuration says (``core.autocrlf``, ``init.templateDir``, a global
attributes file with filters...), so git runs with an environment built from
scratch: no inherited ``GIT_DIR``/``GIT_INDEX_FILE``, no system or global
config, and a HOME with nothing in it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.errors import ServiceError


class DemoBuildError(ServiceError):
    """The demo world could not be built (or is not what the builder meant)."""

    title = "Demo world"


def sealed_environment(home: Path) -> dict[str, str]:
    """A minimal environment for git: PATH, an empty HOME, and no config files."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        "TZ": "UTC",
    }
    if "SYSTEMROOT" in os.environ:  # Windows cannot start processes without it
        env["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return env


@dataclass(frozen=True, slots=True)
class Run:
    """A finished git process."""

    status: int
    stdout: bytes


class Plumbing:
    """Runs git in one repository with a sealed environment."""

    def __init__(self, repo: Path, home: Path) -> None:
        self.repo = repo
        self.env = sealed_environment(home)

    def __call__(
        self,
        *args: str,
        input: bytes | None = None,
        ok: tuple[int, ...] = (0,),
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run ``git -C repo <args>``; raise :class:`DemoBuildError` on an unexpected status."""
        command = ["git", "-C", str(self.repo), "-c", "core.hooksPath=" + os.devnull, *args]
        try:
            result = subprocess.run(
                command,
                input=input,
                capture_output=True,
                env={**self.env, **(env or {})},
                check=False,
            )
        except FileNotFoundError:
            raise DemoBuildError("git is not installed or not on PATH") from None
        if result.returncode not in ok:
            stderr = result.stderr.decode("utf-8", "replace").strip()
            raise DemoBuildError(f"git {args[0]} failed: {stderr or 'no message'}")
        return Run(result.returncode, result.stdout)

    def text(self, *args: str, input: bytes | None = None) -> str:
        """Run a command that must succeed; its output as text."""
        return self(*args, input=input).stdout.decode("utf-8", "replace")

    @contextmanager
    def scratch_objects(self) -> Iterator[dict[str, str]]:
        """An environment in which git writes new objects to a throwaway directory.

        ``git merge-tree --write-tree`` writes the merged blobs and trees it
        computes. Pointing ``GIT_OBJECT_DIRECTORY`` at a temporary directory,
        with the real one as an alternate, lets git read every object of the
        repository while leaving it untouched: no dangling objects for
        ``git fsck`` to report after the builder's own checks.
        """
        with tempfile.TemporaryDirectory(prefix="demo-objects-") as scratch:
            objects = self.text("rev-parse", "--git-path", "objects").strip()
            yield {
                "GIT_OBJECT_DIRECTORY": scratch,
                "GIT_ALTERNATE_OBJECT_DIRECTORIES": str((self.repo / objects).resolve()),
            }


@dataclass(frozen=True, slots=True)
class MergeTreeResult:
    """What ``git merge-tree --write-tree -z`` said."""

    clean: bool
    tree: str
    conflicts: dict[str, str]  # path -> "content" | "add/add" | "modify/delete" | "other"


def conflict_type(stages: set[int]) -> str:
    """Name a conflict from the index stages git left for the path.

    Stage 1 is the merge base's version, 2 ours, 3 theirs: all three is a
    content conflict, no base is add/add, a base and one side is
    modify/delete (the other side deleted it).
    """
    if stages == {1, 2, 3}:
        return "content"
    if stages == {2, 3}:
        return "add/add"
    if stages in ({1, 2}, {1, 3}):
        return "modify/delete"
    return "other"


def parse_merge_tree(status: int, output: bytes) -> MergeTreeResult:
    """Parse ``merge-tree --write-tree -z``: the tree, then ``mode sha stage\\tpath`` entries."""
    fields = output.decode("utf-8", "replace").split("\0")
    stages: dict[str, set[int]] = {}
    for entry in fields[1:]:
        if not entry:
            break  # an empty field ends the conflicted-file list; messages follow
        info, path = entry.split("\t", 1)
        stages.setdefault(path, set()).add(int(info.split()[2]))
    conflicts = {path: conflict_type(found) for path, found in stages.items()}
    return MergeTreeResult(status == 0, fields[0], conflicts)
