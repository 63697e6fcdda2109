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

from syncdesk.services.errors import MissingRefError, ServiceError
from syncdesk.services.git.branches import REMOTES, name_branch
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import one_line

_ASK_FOR_NUMBER = "pass --pr N with the pull request's number"


class NoHeadBranchError(ServiceError):
    """The sync's head is not a branch, so no pull request can be found by it."""

    title = "Which pull request?"


def head_branch(git: Git, name: str, remote: str) -> str:
    """The branch name the pull request of the sync at ``name`` has as its head.

    ``name`` is what the user gave (``--head``), ``HEAD`` by default; ``remote``
    is the configured remote a bare branch name falls back to
    (:func:`~syncdesk.services.git.branches.name_branch` reads it). Raises
    :class:`NoHeadBranchError` (one line, asking for ``--pr N``) when ``name``
    is a detached ``HEAD``, a commit, a tag or a ref no remote branch maps to.
    """
    try:
        named = name_branch(git, name, remote)
    except MissingRefError:
        raise NoHeadBranchError(_no_branch(name, None)) from None
    if named.branch is not None:
        return named.branch
    raise NoHeadBranchError(_no_branch(name, named.ref))


def _no_branch(name: str, ref: str | None) -> str:
    shown = one_line(name)
    if ref == "HEAD":
        return f"HEAD is detached, so no branch names the pull request: {_ASK_FOR_NUMBER}"
    if ref is not None and ref.startswith("refs/tags/"):
        return f"{shown} is a tag, not a branch, so it names no pull request: {_ASK_FOR_NUMBER}"
    if ref is not None and ref.startswith(REMOTES):
        return f"{shown} mirrors no branch of its remote: {_ASK_FOR_NUMBER}"
    return f"{shown} is not a branch, so it names no pull request: {_ASK_FOR_NUMBER}"
