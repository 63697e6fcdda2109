"""The head branch of a sync's pull request, as seen from where the maintainer stands.

GitHub finds a pull request by the name of its head branch on the repository.
Locally the sync is named in several ways, and each maps to that name:

- a branch (``main2dev/x``, ``refs/heads/main2dev/x``), or ``HEAD`` with it
  checked out: ``git rev-parse --symbolic-full-name`` follows the symbolic ref;
- a remote-tracking ref (``origin/main2dev/x``): the remotes' fetch refspecs
  (``remote.<name>.fetch``, read with ``git config``, which runs nothing) say
  which branch of the remote it mirrors; with no refspec that covers it, the
  remote's name is taken off the front, as git's default refspec would;
- a bare name that only the remote has (``main2dev/x`` with no local branch,
  which the session resolved as ``refs/remotes/<remote>/main2dev/x``): that name.

A detached ``HEAD``, a commit or a tag names no branch: the pull request must
then be named by its number (``--pr N``).
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import one_line

_BRANCHES = "refs/heads/"
_REMOTES = "refs/remotes/"
_ASK_FOR_NUMBER = "pass --pr N with the pull request's number"


class NoHeadBranchError(ServiceError):
    """The sync's head is not a branch, so no pull request can be found by it."""

    title = "Which pull request?"


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


def head_branch(git: Git, name: str, remote: str) -> str:
    """The branch name the pull request of the sync at ``name`` has as its head.

    ``name`` is what the user gave (``--head``), ``HEAD`` by default; ``remote``
    is the configured remote a bare branch name falls back to. Raises
    :class:`NoHeadBranchError` (one line, asking for ``--pr N``) when ``name``
    is a detached ``HEAD``, a commit, a tag or a ref no remote branch maps to.
    """
    ref = _full_name(git, name)
    if ref is None and not name.startswith("refs/"):
        ref = _full_name(git, f"{_REMOTES}{remote}/{name}")
    if ref is not None and ref.startswith(_BRANCHES):
        return ref.removeprefix(_BRANCHES)
    if ref is not None and ref.startswith(_REMOTES):
        branch = remote_branch(git, ref)
        if branch is not None:
            return branch
    raise NoHeadBranchError(_no_branch(name, ref))


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
            return source.removeprefix(_BRANCHES) if source.startswith(_BRANCHES) else None
    rest = ref.removeprefix(_REMOTES)
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


def _full_name(git: Git, name: str) -> str | None:
    """The full ref ``name`` stands for (``HEAD`` followed), ``HEAD`` if detached, else None."""
    result = git.run(
        ["rev-parse", "--verify", "--quiet", "--symbolic-full-name", "--end-of-options", name],
        check=False,
    )
    found = result.text.strip()
    return found if result.status == 0 and found else None


def _no_branch(name: str, ref: str | None) -> str:
    shown = one_line(name)
    if ref == "HEAD":
        return f"HEAD is detached, so no branch names the pull request: {_ASK_FOR_NUMBER}"
    if ref is not None and ref.startswith("refs/tags/"):
        return f"{shown} is a tag, not a branch, so it names no pull request: {_ASK_FOR_NUMBER}"
    if ref is not None and ref.startswith(_REMOTES):
        return f"{shown} mirrors no branch of its remote: {_ASK_FOR_NUMBER}"
    return f"{shown} is not a branch, so it names no pull request: {_ASK_FOR_NUMBER}"
