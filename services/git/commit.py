"""Write commits with plumbing: ``commit-tree``, the maintainer's sign-off, and signing.

- The sign-off is added by git's own trailer machinery
  (``git interpret-trailers --if-exists addIfDifferent``), so a message that
  already carries it is left alone and the trailer block is found the way git
  finds it (the last paragraph, never the subject).
- The maintainer is git's committer identity (``git var GIT_COMMITTER_IDENT``:
  ``user.name``/``user.email``, or the ``GIT_COMMITTER_*`` environment), the
  identity the DCO app compares the sign-off with.
- ``commit-tree`` does not read ``commit.gpgSign`` (only ``git commit`` does),
  so the writer asks for ``-S`` itself when that setting is true; the key and
  the format (``gpg.format=ssh`` included) are git's to pick from
  ``user.signingKey`` and ``gpg.*``.
- A replaced commit keeps its author (name, email and date), as
  ``git commit --amend`` does; the committer is the maintainer, now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncdesk.services.errors import GitCommandError, ServiceError
from syncdesk.services.git.runner import Git, first_line, run_isolated
from syncdesk.services.git.trees import durable_env

_IDENT = re.compile(r"(?P<name>[^<>\n]*?) ?<(?P<email>[^<>\n]*)> (?P<epoch>\d+) (?P<tz>[+-]\d{4})")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """A commit's header fields and message, as stored (message decoded losslessly)."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: str  # "Name <email> <epoch> <tz>"
    message: str

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return self.message.split("\n", 1)[0]


def read_commit(git: Git, sha: str) -> CommitInfo:
    """Parse ``git cat-file commit``: tree, parents, author and message."""
    raw = git.run(["cat-file", "commit", sha]).stdout
    header, _, message = raw.partition(b"\n\n")
    tree, parents, author = "", [], ""
    for line in header.decode("utf-8", "surrogateescape").split("\n"):
        key, _, value = line.partition(" ")
        if key == "tree":
            tree = value
        elif key == "parent":
            parents.append(value)
        elif key == "author":
            author = value
    full = git.text("rev-parse", "--verify", f"{sha}^{{commit}}").strip()
    text = message.decode("utf-8", "surrogateescape")
    return CommitInfo(full, tree, tuple(parents), author, text)


def maintainer(git: Git) -> str:
    """``Name <email>`` of whoever commits here now (for ``Signed-off-by``)."""
    result = git.run(["var", "GIT_COMMITTER_IDENT"], check=False)
    match = _IDENT.fullmatch(result.text.strip()) if result.status == 0 else None
    if match is None:
        raise ServiceError(
            "git does not know who you are: set user.name and user.email "
            f"({first_line(result.stderr)})"
        )
    return f"{match['name']} <{match['email']}>"


def with_signoff(message: str, ident: str) -> str:
    """``message`` with ``Signed-off-by: <ident>`` unless that exact trailer is already there."""
    out = run_isolated(
        ["interpret-trailers", "--no-divider", "--if-exists", "addIfDifferent",
         "--trailer", f"Signed-off-by: {ident}"],
        input=_encode(message),
    ).stdout  # fmt: skip
    return out.decode("utf-8", "surrogateescape")


def split_trailers(message: str) -> tuple[str, str]:
    """``(body, trailer block)``: git's trailer block is the last paragraph, if it is one."""
    trailers = run_isolated(
        ["interpret-trailers", "--only-trailers", "--only-input", "--no-divider"],
        input=_encode(message),
    ).stdout
    text = message.rstrip("\n")
    paragraphs = list(_BLANK_LINE.finditer(text))
    if not trailers.strip() or not paragraphs:
        return text, ""
    last = paragraphs[-1]
    return text[: last.start()], text[last.end() :]


def should_sign(git: Git) -> bool:
    """Whether ``commit.gpgSign`` asks for signed commits."""
    result = git.run(["config", "--type=bool", "--get", "commit.gpgsign"], check=False)
    return result.status == 0 and result.text.strip() == "true"


def author_env(author: str | None) -> dict[str, str]:
    """The environment that makes ``commit-tree`` keep ``author`` (empty: git's default)."""
    match = _IDENT.fullmatch(author) if author else None
    if match is None:
        return {}
    return {
        "GIT_AUTHOR_NAME": match["name"],
        "GIT_AUTHOR_EMAIL": match["email"],
        "GIT_AUTHOR_DATE": f"@{match['epoch']} {match['tz']}",
    }


def create_commit(
    git: Git,
    tree: str,
    parents: tuple[str, ...],
    message: str,
    *,
    author: str | None = None,
    sign: bool = False,
) -> str:
    """Write a commit object (fsynced) and return its id; no ref moves."""
    args = ["commit-tree", *(["-S"] if sign else []), tree]
    for parent in parents:
        args += ["-p", parent]
    result = git.run(
        args, input=_encode(message), env={**durable_env(), **author_env(author)}, check=False
    )
    if result.status != 0:
        what = "sign" if sign else "write"
        raise GitCommandError(f"could not {what} the commit: {first_line(result.stderr)}")
    return result.text.strip()


def _encode(message: str) -> bytes:
    return message.encode("utf-8", "surrogateescape")
