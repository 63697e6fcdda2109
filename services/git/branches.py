"""One reading of "the sync branch", whatever name the maintainer gave it.

Every command (the desk, ``report``, ``repair``, ``rebuild``, ``undo``, ``push``
and the pull request lookup) names the sync through :func:`name_branch`, so
``main2dev/x``, ``refs/heads/main2dev/x``, ``origin/main2dev/x``,
``refs/remotes/origin/main2dev/x``, ``HEAD`` with it checked out, and its SHA
all name the same commit, and the first five the same branch:

- ``HEAD``: ``git rev-parse --symbolic-full-name`` follows the symbolic ref to
  the checked-out branch (a detached HEAD names no branch);
- a local branch, by short or full name;
- a remote-tracking ref (``origin/x`` or ``refs/remotes/origin/x``): the
  remotes' fetch refspecs (``remote.<name>.fetch``, read with ``git config``,
  which runs nothing) say which branch of the remote it mirrors; with no
  refspec that covers it, the remote's name is taken off the front, as git's
  default refspec would;
- a bare name only the configured remote has (``x`` with no local branch):
  ``refs/remotes/<remote>/x``;
- anything else git resolves (a SHA, a tag) names a commit and no branch.

A write acts on the local branch of that name: when only the remote-tracking
ref exists, the write creates it there (compare-and-swap on its absence, see
:func:`syncdesk.services.git.refs.move_branch`) and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.errors import MissingRefError
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import one_line

BRANCHES = "refs/heads/"
REMOTES = "refs/remotes/"


@dataclass(frozen=True, slots=True)
class NamedBranch:
    """What a name the user gave stands for."""

    name: str  # as given (``HEAD`` when none was)
    sha: str  # the commit it names
    ref: str | None  # the full ref it resolved through; None for a SHA; "HEAD" if detached
    branch: str | None  # the branch: local short name, or the remote's branch; None if none
    local: bool  # refs/heads/<branch> exists
    tracking: str | None  # the remote-tracking ref it was read from, if it was


@dataclass(frozen=True, slots=True)
class Refspec:
    """One fetch refspec of a remote: the remote's refs ``source`` land in ``destination``."""

    remote: str
    source: str  # refs/heads/* (one "*" at most)
    destination: str  # refs/remotes/origin/*

    def source_of(self, ref: str) -> str | None:
        """The remote's ref that ``ref`` mirrors under this refspec, or None if it does not."""
        if "*" not in self.destination:
            return self.source if ref == self.destination else None
        before, _, after = self.destination.partition("*")
        if not (ref.startswith(before) and ref.endswith(after)) or len(ref) <= len(before + after):
            return None
        middle = ref[len(before) : len(ref) - len(after)]
        return self.source.replace("*", middle, 1)


def name_branch(git: Git, name: str | None, remote: str) -> NamedBranch:
    """Resolve ``name`` (None: ``HEAD``) to its commit and, when it names one, its branch.

    Raises :class:`MissingRefError` (one line) when it names no commit.
    """
    given = name or "HEAD"
    ref = full_name(git, given)
    if ref is None and not given.startswith("refs/"):
        ref = full_name(git, f"{REMOTES}{remote}/{given}")
    sha = git.resolve(ref if ref is not None and ref != "HEAD" else given)
    if sha is None:
        raise MissingRefError(f"no branch or commit named {one_line(given)!r} in this repository")
    if ref is not None and ref.startswith(BRANCHES):
        return NamedBranch(given, sha, ref, ref.removeprefix(BRANCHES), True, None)
    if ref is not None and ref.startswith(REMOTES):
        branch = remote_branch(git, ref)
        local = branch is not None and git.resolve(f"{BRANCHES}{branch}") is not None
        return NamedBranch(given, sha, ref, branch, local, ref)
    return NamedBranch(given, sha, ref, None, False, None)


def resolve_commit(git: Git, name: str, remote: str) -> str:
    """The commit ``name`` names, falling back to ``refs/remotes/<remote>/<name>``.

    For dev and main, where only the commit matters: one ``rev-parse`` when the
    name resolves (:func:`name_branch` also reads which branch it is). Raises
    :class:`MissingRefError` when it names none.
    """
    sha = git.resolve(name)
    if sha is None and not name.startswith("refs/"):
        sha = git.resolve(f"{REMOTES}{remote}/{name}")
    if sha is None:
        raise MissingRefError(f"no branch or commit named {one_line(name)!r} in this repository")
    return sha


def full_name(git: Git, name: str) -> str | None:
    """The full ref ``name`` stands for (``HEAD`` followed), ``HEAD`` if detached, else None.

    A SHA or an ambiguous name gives None (``--symbolic-full-name`` prints nothing).
    """
    result = git.run(
        ["rev-parse", "--verify", "--quiet", "--symbolic-full-name", "--end-of-options", name],
        check=False,
    )
    found = result.text.strip()
    return found if result.status == 0 and found else None


def remote_branch(git: Git, ref: str) -> str | None:
    """The remote's branch a remote-tracking ``ref`` (``refs/remotes/...``) mirrors, if any.

    The fetch refspecs decide; only when none covers ``ref`` is the remote's
    name (the longest configured one that prefixes it, else the first part)
    taken off, the mapping of git's default refspec.
    """
    specs = fetch_refspecs(git)
    for spec in specs:
        source = spec.source_of(ref)
        if source is not None:
            return source.removeprefix(BRANCHES) if source.startswith(BRANCHES) else None
    rest = ref.removeprefix(REMOTES)
    remotes = sorted({spec.remote for spec in specs} | _remote_names(git), key=len, reverse=True)
    prefix = next((f"{r}/" for r in remotes if rest.startswith(f"{r}/")), None)
    if prefix is None:
        prefix = rest.partition("/")[0] + "/"
    branch = rest.removeprefix(prefix)
    return branch if branch and branch != rest else None


def fetch_refspecs(git: Git) -> list[Refspec]:
    """Every remote's fetch refspecs that map refs somewhere (negative ones are skipped)."""
    specs = []
    for key, value in _config_entries(git, r"^remote\..+\.fetch$"):
        spec = value.strip().removeprefix("+")
        source, colon, destination = spec.partition(":")
        if not colon or not source or not destination or source.startswith("^"):
            continue
        if source.count("*") != destination.count("*") or source.count("*") > 1:
            continue
        specs.append(Refspec(key[len("remote.") : -len(".fetch")], source, destination))
    return specs


def _remote_names(git: Git) -> set[str]:
    return {
        key[len("remote.") : -len(".url")] for key, _ in _config_entries(git, r"^remote\..+\.url$")
    }


def _config_entries(git: Git, pattern: str) -> list[tuple[str, str]]:
    """``(key, value)`` of every config entry whose key matches ``pattern`` (none: empty)."""
    result = git.run(["config", "--null", "--get-regexp", pattern], check=False)
    entries = []
    for item in result.text.split("\0"):
        key, _, value = item.partition("\n")
        if key:
            entries.append((key, value))
    return entries
