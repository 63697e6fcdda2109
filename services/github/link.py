"""Where a sync's pull request lives: the repository, the token, and its number.

The number is given (``--pr N``) or found: the newest pull request whose head
branch is the sync branch (:func:`~syncdesk.services.github.head.head_branch`
names it from what the user stands on: a checked-out branch, a remote-tracking ref).
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import storage_dir
from syncdesk.services.github.api import GitHubClient, GitHubTarget, target_for
from syncdesk.services.github.head import head_branch
from syncdesk.services.github.token import Token, find_token
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.session import SyncSession


@dataclass(frozen=True, slots=True)
class GitHubLink:
    """Where the pull request lives and the token to read it with."""

    target: GitHubTarget
    token: Token
    number: int | None = None  # None: found by the sync branch's name
    codecov_url: str | None = None  # None: the configured codecov_api_url


def pull_number(session: SyncSession, link: GitHubLink, client: GitHubClient) -> int:
    """The link's pull request number, else the newest one whose head is the sync branch.

    Raises a :class:`~syncdesk.services.errors.ServiceError` asking for ``--pr N``
    when the head is no branch (a detached HEAD, a commit, a tag).
    """
    if link.number is not None:
        return link.number
    # The name as the user gave it (refs.head_name is its one-line display form).
    named = session.options.head if session.options is not None else session.refs.head_name
    branch = head_branch(session.git, named or "HEAD", session.config.remote)
    number = client.find_pull(branch)
    if number is None:
        raise ServiceError(
            f"no pull request on {link.target.full_name} has {one_line(branch)} as its head branch"
        )
    return number


def github_link_for(session: SyncSession, number: int | None = None) -> GitHubLink:
    """The repository from the config or the remote, and a token found gh's way.

    May run ``gh auth token``: call it from a worker.
    """
    target = target_for(session.git, session.config)
    return GitHubLink(target, find_token(target.api_url), number)


def posting_client(link: GitHubLink, git: Git) -> GitHubClient:
    """A client whose posts are locked in ``git``'s directory: once per key across processes.

    Two syncdesk processes on one repository (two terminals, a script) take the
    same lock file for the same post, so one reads back the other's comment
    instead of posting a second one.
    """
    return GitHubClient(link.target, link.token, post_locks=storage_dir(git) / "posts")
