"""The one module that runs git.

A thin layer over GitPython: :class:`git.Repo` finds and validates the
repository, and ``Git.execute`` runs plumbing with NUL-separated output.
We never use GitPython's object model in loops (its ``Commit.trailers_list``
spawns one process per commit: 42x slower on 100 commits, see DOMAIN.md).

Every command runs with the repository's hooks and fsmonitor disabled
(``core.hooksPath``, ``core.fsmonitor``), no pager and no colour, and with
optional locks off so that reading never takes ``index.lock`` from under the
user. Commands a repository can configure are kept from running: every
diffing command gets ``--no-textconv --no-ext-diff`` (``blame`` gets
``--no-textconv``), ``merge.renormalize`` is off (it runs clean and smudge
filters inside ``merge-tree``), hash-object takes ``--no-filters``, and
``interpret-trailers`` runs outside any repository (:func:`run_isolated`), so
no ``trailer.<token>.cmd`` runs. Merges (``merge-tree``, ``--remerge-diff``)
run in a *merge room* (:meth:`Git.run`): a throwaway git directory with no
configuration of its own that borrows the repository's objects, so that no
merge driver (``merge.<name>.driver``) the repository configures, and no
``.git/info/attributes`` naming one, takes part: a file whose attributes name
a driver git does not know is merged as text, as git itself does.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import git as gitpython
from git.exc import GitCommandNotFound

from syncdesk.services.errors import (
    GitCommandError,
    GitTooOldError,
    NotARepositoryError,
    os_reason,
)
from syncdesk.services.sanitize import decode, one_line

MINIMUM_GIT = (2, 38)  # merge-tree --write-tree

_SAFE_OPTIONS = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "color.ui=never",
    "-c", "log.showSignature=false",
    "-c", "core.quotePath=false",
    "-c", "merge.renormalize=false",
    "--no-pager",
    "--no-optional-locks",
)  # fmt: skip
# Options a subcommand gets so that no textconv or external diff the repository
# (or its .gitattributes) configures runs, whatever the caller passed.
_NO_COMMANDS = {
    "blame": ("--no-textconv",),
    "diff": ("--no-textconv", "--no-ext-diff"),
    "diff-tree": ("--no-textconv", "--no-ext-diff"),
    "grep": ("--no-textconv",),
    "log": ("--no-textconv", "--no-ext-diff"),
    "show": ("--no-textconv", "--no-ext-diff"),
}

# Subcommands that merge: run in the merge room (see Git._merge_location).
_MERGING = frozenset({"merge-tree"})
_REMERGING = frozenset({"log", "show", "diff-tree"})

_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
}


@dataclass(frozen=True, slots=True)
class GitResult:
    """What a git command said: its exit status and its raw output."""

    status: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        """``stdout`` decoded as UTF-8 (invalid bytes replaced)."""
        return decode(self.stdout)


def parse_version(output: str) -> tuple[int, int]:
    """Read ``(major, minor)`` from ``git version 2.39.5`` and its vendor variants."""
    match = re.search(r"(\d+)\.(\d+)", output)
    if match is None:
        raise GitTooOldError(f"cannot read git's version from {output!r}")
    return int(match.group(1)), int(match.group(2))


# The default size over which a file is compared by blob id and never read
# whole: split into lines and diffed in Python, a file takes 30-40 times its
# size in memory (a 50 MB one, 1.6-2.2 GB). Megatron-LM's largest files, golden
# values, are about 3 MB. The ``large_file_limit`` setting changes it.
LARGE_FILE_LIMIT = 8 * 1024 * 1024


class Git:
    """Runs git commands in one repository.

    ``env`` is added to the environment of every command this runner starts
    (over the inherited one; a call's own ``env`` goes over both): a caller
    that must not depend on the user's git configuration passes one here
    instead of on every call.

    ``large_file_limit`` is the size in bytes over which readers of file
    contents (the conflicts, the audit) take a blob by its id only: one value
    per repository handle, so every reader agrees on which files those are.
    """

    def __init__(self, path: Path, *, env: Mapping[str, str] | None = None) -> None:
        self.large_file_limit = LARGE_FILE_LIMIT
        self._env = {**_ENV, **(env or {})}
        self.git_dir, self.work_tree = _discover(path, self._env)
        # From here on git is told where the repository is (--git-dir): git's own
        # discovery above already applied safe.directory and safe.bareRepository.
        self._location = [f"--git-dir={self.git_dir}"]
        if self.work_tree is not None:
            self._location.append(f"--work-tree={self.work_tree}")
        self._executor = gitpython.Git(self.work_tree or self.git_dir)
        self._room: list[str] | None = None
        self._version: tuple[int, int] | None = None
        self._objects: Path | None = None
        self._common: Path | None = None

    def run(
        self,
        args: Sequence[str],
        *,
        input: bytes | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> GitResult:
        """Run ``git <args>``; raise :class:`GitCommandError` on failure if ``check``."""
        command = ["git", *self._location, *_SAFE_OPTIONS, *_guarded(args)]
        extra_env = {**self._env, **(env or {})}
        if _merges(args):
            command[1 : 1 + len(self._location)] = self._merge_location()
            # New objects go where the caller's environment says, else where they
            # would have gone: the repository's store (never the room, which goes away).
            extra_env.setdefault("GIT_OBJECT_DIRECTORY", str(self.object_store()))
        try:
            if input is None:
                status, stdout, stderr = _execute(self._executor, command, extra_env, None)
            else:
                # GitPython's execute() takes stdin as a file object, not bytes.
                with tempfile.TemporaryFile() as stdin:
                    stdin.write(input)
                    stdin.seek(0)
                    status, stdout, stderr = _execute(self._executor, command, extra_env, stdin)
        except GitCommandNotFound:
            raise GitCommandError("git is not installed or not on PATH") from None
        except OSError as error:  # its input could not be written (a file-size limit, say)
            raise GitCommandError(f"git {args[0]} could not run: {os_reason(error)}") from None
        result = GitResult(status, stdout, stderr)
        if check and status != 0:
            raise GitCommandError(f"git {args[0]} failed: {first_line(stderr)}")
        return result

    def object_store(self) -> Path:
        """The repository's object directory (a linked work tree's is its main repository's)."""
        if self._objects is None:
            found = Path(self.text("rev-parse", "--git-path", "objects").strip())
            if not found.is_absolute():
                found = (self.work_tree or self.git_dir) / found
            self._objects = found.resolve()
        return self._objects

    def common_dir(self) -> Path:
        """The git directory the repository's work trees share (its refs, config and objects)."""
        if self._common is None:
            found = self.text("rev-parse", "--path-format=absolute", "--git-common-dir")
            self._common = Path(found.strip())
        return self._common

    def _merge_location(self) -> list[str]:
        """``--git-dir`` (and ``--work-tree``) of this repository's merge room, made on first use.

        The room is a git directory with a config of its own holding only the
        repository format, and the repository's objects as an alternate: git
        there reads no ``merge.<name>.driver``, no ``.git/info/attributes`` and
        no other repository setting, so a merge runs nothing the repository
        configures. The work tree is the repository's, so that its
        ``.gitattributes`` still choose git's built-in drivers (``union``,
        ``binary``) and marker sizes as a real merge there would. Its ``refs``
        and ``packed-refs`` are links to the repository's, so branch names
        resolve as they do there (merges never write a ref). The ``shallow``
        list is copied, or merge bases would be sought past it.
        """
        if self._room is not None:
            return self._room
        objects = self.object_store()
        object_format = self.text("rev-parse", "--show-object-format").strip() or "sha1"
        room = Path(tempfile.mkdtemp(prefix="syncdesk-merge-room-"))
        weakref.finalize(self, shutil.rmtree, room, ignore_errors=True)
        common = self.common_dir()
        (room / "refs").symlink_to(common / "refs", target_is_directory=True)
        (room / "packed-refs").symlink_to(common / "packed-refs")  # may not exist yet
        (room / "objects" / "info").mkdir(parents=True)
        (room / "objects" / "info" / "alternates").write_text(f"{alternate_entry(objects)}\n")
        (room / "HEAD").write_text("ref: refs/heads/merge-room\n")
        bare = "false" if self.work_tree is not None else "true"
        (room / "config").write_text(
            f"[core]\n\trepositoryformatversion = 1\n\tbare = {bare}\n"
            f"[extensions]\n\tobjectformat = {object_format}\n"
        )
        shallow = common / "shallow"
        if shallow.is_file():
            shutil.copyfile(shallow, room / "shallow")
        self._room = [f"--git-dir={room}"]
        if self.work_tree is not None:
            self._room.append(f"--work-tree={self.work_tree}")
        return self._room

    def text(self, *args: str) -> str:
        """Run a command that must succeed and return its output as text."""
        return self.run(args).text

    def lines(self, *args: str) -> list[str]:
        """Run a command that must succeed and return its non-empty output lines."""
        return [line for line in self.text(*args).splitlines() if line]

    def fields(self, *args: str) -> list[str]:
        """Run a ``-z`` command and return its NUL-separated fields (the last empty one dropped)."""
        out = self.text(*args)
        parts = out.split("\0")
        if parts and parts[-1] in ("", "\n"):
            parts.pop()
        return parts

    def resolve(self, rev: str) -> str | None:
        """The full SHA of the commit ``rev`` names, or None if it names none."""
        result = self.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            check=False,
        )
        return result.text.strip() if result.status == 0 else None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is reachable from ``descendant`` (a commit is its own ancestor)."""
        result = self.run(["merge-base", "--is-ancestor", ancestor, descendant], check=False)
        if result.status not in (0, 1):
            raise GitCommandError(f"git merge-base failed: {first_line(result.stderr)}")
        return result.status == 0

    def version(self) -> tuple[int, int]:
        """git's ``(major, minor)`` version (asked once per handle)."""
        if self._version is None:
            self._version = parse_version(self.text("version"))
        return self._version

    def require_version(self) -> None:
        """Refuse a git without ``merge-tree --write-tree`` (2.38)."""
        found = self.version()
        if found < MINIMUM_GIT:
            raise GitTooOldError(
                f"git {found[0]}.{found[1]} is too old: syncdesk needs git 2.38 or newer "
                "(for merge-tree --write-tree)"
            )


# Variables that tell git where a repository is, instead of finding it.
_LOCATION_VARIABLES = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_NAMESPACE"}
)


def _discover(path: Path, env: dict[str, str]) -> tuple[Path, Path | None]:
    """The git dir and work tree of the repository at or above ``path``, found by git itself.

    git applies its own ownership rules here (``safe.directory``: a repository
    another user owns is refused) and ``safe.bareRepository``; where it
    refuses, so does syncdesk, in git's words. Naming the repository with
    ``--git-dir`` afterwards would skip both checks, so they must happen here.
    """
    path = Path(path)  # scripts pass a str
    if not path.is_dir():
        raise NotARepositoryError(f"{path} is not a git repository")
    # The repository at ``path``: not one an inherited GIT_DIR (a hook's, say) names.
    environment = {
        name: value for name, value in os.environ.items() if name not in _LOCATION_VARIABLES
    } | env
    found = _run_outside(
        ["rev-parse", "--absolute-git-dir", "--is-bare-repository", "--is-inside-git-dir"],
        path,
        environment,
    )
    if found.status != 0:
        raise NotARepositoryError(_refusal(path, found.stderr))
    # The two answers after the path are single words: split them off the end, so a
    # path holding a newline stays whole.
    git_dir, bare, inside = [*found.text.removesuffix("\n").rsplit("\n", 2), "", ""][:3]
    if bare != "false":
        return Path(git_dir).resolve(), None
    if inside == "true":
        # Named by its git directory (repo/.git): git will not say where the work
        # tree is from in there, so the standard layout's parent is it.
        parent = Path(git_dir).resolve().parent
        return Path(git_dir).resolve(), parent if Path(git_dir).name == ".git" else None
    top = _run_outside(["rev-parse", "--show-toplevel"], path, environment)
    if top.status != 0:
        raise NotARepositoryError(_refusal(path, top.stderr))
    return Path(git_dir).resolve(), Path(top.text.removesuffix("\n")).resolve()


def _refusal(path: Path, stderr: str) -> str:
    """What git said when it would not open ``path``, as one line with its advice."""
    said = first_line(stderr)
    if "not a git repository" in said:
        return f"{path} is not a git repository"
    advice = next((line.strip() for line in stderr.splitlines() if "safe.directory" in line), "")
    return f"git refuses {path}: {said}" + (f" (to trust it: {advice})" if advice else "")


def _subcommand(args: Sequence[str]) -> tuple[int, str | None]:
    """Where the subcommand is in ``args`` (past any leading ``-c k=v``), and its name."""
    at = 0
    while at + 1 < len(args) and args[at] == "-c":
        at += 2
    return at, (args[at] if at < len(args) else None)


def _merges(args: Sequence[str]) -> bool:
    """Whether the command merges: ``merge-tree``, or a diff with ``--remerge-diff``."""
    _, name = _subcommand(args)
    return name in _MERGING or (name in _REMERGING and "--remerge-diff" in args)


def _guarded(args: Sequence[str]) -> list[str]:
    """``args`` with :data:`_NO_COMMANDS` after the subcommand (past any leading ``-c k=v``)."""
    at, name = _subcommand(args)
    if name is None:
        return list(args)
    extra = _NO_COMMANDS.get(name, ())
    return [*args[: at + 1], *extra, *args[at + 1 :]]


def run_isolated(args: Sequence[str], *, input: bytes | None = None) -> GitResult:
    """Run a git command that needs no repository, outside any and with no configuration.

    For ``interpret-trailers``: inside a repository it runs whatever the
    repository's ``trailer.<token>.cmd`` says, and puts its output in the
    message. Here no system, global or repository configuration is read.
    """
    environment = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    with tempfile.TemporaryDirectory(prefix="syncdesk-isolated-") as empty:
        environment |= {
            **_ENV,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CEILING_DIRECTORIES": str(Path(empty).parent),
        }
        result = _run_outside(args, Path(empty), environment, input or b"")
    if result.status != 0:
        raise GitCommandError(f"git {args[0]} failed: {first_line(result.stderr)}")
    return result


def _run_outside(
    args: Sequence[str], cwd: Path, environment: dict[str, str], input: bytes = b""
) -> GitResult:
    """``git <args>`` in ``cwd`` with exactly ``environment``, not through a runner."""
    try:
        done = subprocess.run(
            ["git", *_SAFE_OPTIONS, *args], input=input, cwd=cwd, env=environment,
            capture_output=True, check=False,
        )  # fmt: skip
    except FileNotFoundError:
        raise GitCommandError("git is not installed or not on PATH") from None
    return GitResult(
        done.returncode, done.stdout, with_signal(done.returncode, decode(done.stderr))
    )


def init_repository(path: Path, branch: str, *, env: Mapping[str, str] | None = None) -> Git:
    """Create an empty repository with a work tree at ``path`` and return its runner.

    ``path`` is created if missing; its git dir is ``path/.git``, named
    explicitly so that an inherited ``GIT_DIR`` cannot redirect the new
    repository. ``branch`` is the unborn branch HEAD names. ``env`` is the
    runner's environment (see :class:`Git`), used for ``git init`` too.
    """
    path.mkdir(parents=True, exist_ok=True)
    command = [
        "git", f"--git-dir={path / '.git'}", f"--work-tree={path}", *_SAFE_OPTIONS,
        "init", "--quiet", f"--initial-branch={branch}",
    ]  # fmt: skip
    try:
        status, _, stderr = _execute(gitpython.Git(path), command, {**_ENV, **(env or {})}, None)
    except GitCommandNotFound:
        raise GitCommandError("git is not installed or not on PATH") from None
    if status != 0:
        raise GitCommandError(f"git init failed: {first_line(stderr)}")
    return Git(path, env=env)


def _execute(
    executor: gitpython.Git, command: list[str], env: dict[str, str], stdin: BinaryIO | None
) -> tuple[int, bytes, str]:
    status, stdout, stderr = executor.execute(
        command,
        istream=stdin,
        with_extended_output=True,
        with_exceptions=False,
        stdout_as_string=False,
        strip_newline_in_stdout=False,
        env=env,
    )
    return int(status), bytes(stdout), with_signal(int(status), str(stderr))


def with_signal(status: int, stderr: str) -> str:
    """``stderr``, led by the signal that killed git, if one did (a negative status).

    A git killed by a signal says nothing itself ("git merge-tree failed: no
    message" under a file-size limit); :func:`first_line` now finds the reason.
    """
    if status >= 0:
        return stderr
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = f"signal {-status}"
    why = _SIGNAL_REASONS.get(name, "")
    return f"fatal: git was killed by {name}{why}\n{stderr}"


_SIGNAL_REASONS = {
    "SIGXFSZ": " (a file-size limit: see ulimit -f)",
    "SIGKILL": " (out of memory, or killed by hand)",
    "SIGSEGV": " (git crashed)",
    "SIGXCPU": " (a CPU-time limit: see ulimit -t)",
}


def alternate_entry(path: Path | str) -> str:
    """``path`` as one entry of an alternates list, quoted the way git unquotes it.

    ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` is split on ``:``, and the alternates
    file on newlines; an entry starting with ``"`` is read as a C-style quoted
    path. So a path holding ``:``, a quote, a backslash or a control character
    is quoted (a repository under a folder named ``co:lon`` read "object
    directory .../co does not exist"); any other goes as it is.
    """
    text = str(path)
    if not any(char in text for char in ':"\\') and text.isprintable():
        return text
    quoted = []
    for char in text:
        if char in '"\\':
            quoted.append("\\" + char)
        elif not char.isprintable() or char == "\t":
            quoted.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            quoted.append(char)
    return '"' + "".join(quoted) + '"'


def first_line(stderr: str) -> str:
    """git's most useful error line, one line, sanitized."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return one_line(line)
    return one_line(lines[0]) if lines else "no message"
