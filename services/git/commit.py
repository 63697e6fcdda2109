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

import codecs
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from syncdesk.services.errors import GitCommandError, ServiceError
from syncdesk.services.git.runner import Git, first_line, run_isolated
from syncdesk.services.git.trees import durable_env

_IDENT = re.compile(r"(?P<name>[^<>\n]*?) ?<(?P<email>[^<>\n]*)> (?P<epoch>\d+) (?P<tz>[+-]\d{4})")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class CommitObject:
    """A commit object's headers and message, as git stores them (the one parser of them)."""

    tree: str
    parents: tuple[str, ...]
    author: str  # "Name <email> <epoch> <tz>"
    committer: str
    signature: str | None  # the gpgsig (or gpgsig-sha256) header's value, if any
    payload: str  # the object without its signature header: what was signed
    message: str


@dataclass(frozen=True, slots=True)
class Ident:
    """A parsed identity header: who, and when."""

    name: str
    email: str
    epoch: int
    tz: str  # "+hhmm" or "-hhmm"

    @property
    def when(self) -> datetime:
        """The moment, in the identity's own offset."""
        sign = -1 if self.tz[0] == "-" else 1
        offset = timedelta(hours=int(self.tz[1:3]), minutes=int(self.tz[3:5])) * sign
        return datetime.fromtimestamp(self.epoch, UTC).astimezone(timezone(offset))


_SIGNATURES = ("gpgsig", "gpgsig-sha256")


def parse_commit_object(raw: bytes, errors: str = "surrogateescape") -> CommitObject:
    """Split a raw ``git cat-file commit`` object into its headers and message.

    The text is decoded with the codec its ``encoding`` header names (git
    writes one for a commit made with ``i18n.commitEncoding=ISO-8859-1``),
    UTF-8 otherwise, with ``errors`` for bytes that do not decode. A header may
    run over several lines, each continuation starting with a space
    (``gpgsig``, ``mergetag``); the signature is left out of the payload, which
    is then exactly the text git signed.
    """
    head, _, body = raw.partition(b"\n\n")
    encoding = next((line[9:] for line in head.split(b"\n") if line.startswith(b"encoding ")), b"")
    codec = message_codec(encoding)
    fields: dict[str, list[str]] = {}
    payload: list[str] = []
    key = ""
    for line in head.decode(codec, errors).split("\n"):
        if line.startswith(" ") and key:
            fields[key][-1] += "\n" + line[1:]
        else:
            key, _, value = line.partition(" ")
            fields.setdefault(key, []).append(value)
        if key not in _SIGNATURES:
            payload.append(line)
    message = body.decode(codec, errors)

    def first(name: str) -> str:
        return fields.get(name, [""])[0]

    signature = next((fields[name][0] for name in _SIGNATURES if name in fields), None)
    return CommitObject(
        tree=first("tree"),
        parents=tuple(fields.get("parent", [])),
        author=first("author"),
        committer=first("committer"),
        signature=signature,
        payload="\n".join(payload) + "\n\n" + message,
        message=message,
    )


def message_codec(declared: bytes) -> str:
    """The codec a commit's ``encoding`` header names (``ISO-8859-1``), else UTF-8."""
    try:
        name = codecs.lookup(declared.decode("ascii").strip()).name if declared else "utf-8"
        b"".decode(name)  # a header naming a bytes codec (base64, zlib) is no text encoding
    except (LookupError, UnicodeDecodeError, ValueError):
        return "utf-8"
    return name


def parse_ident(value: str) -> Ident | None:
    """``Name <email> <epoch> <tz>`` (an author, committer or ``git var`` line), or None."""
    match = _IDENT.fullmatch(value)
    if match is None:
        return None
    return Ident(match["name"], match["email"], int(match["epoch"]), match["tz"])


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
    parsed = parse_commit_object(raw)
    full = git.text("rev-parse", "--verify", f"{sha}^{{commit}}").strip()
    return CommitInfo(full, parsed.tree, parsed.parents, parsed.author, parsed.message)


def maintainer(git: Git) -> str:
    """``Name <email>`` of whoever commits here now (for ``Signed-off-by``)."""
    result = git.run(["var", "GIT_COMMITTER_IDENT"], check=False)
    ident = parse_ident(result.text.strip()) if result.status == 0 else None
    if ident is None:
        raise ServiceError(
            "git does not know who you are: set user.name and user.email "
            f"({first_line(result.stderr)})"
        )
    return f"{ident.name} <{ident.email}>"


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
    ident = parse_ident(author) if author else None
    if ident is None:
        return {}
    return {
        "GIT_AUTHOR_NAME": ident.name,
        "GIT_AUTHOR_EMAIL": ident.email,
        "GIT_AUTHOR_DATE": f"@{ident.epoch} {ident.tz}",
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
