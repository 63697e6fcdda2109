r"""The DCO app's sign-off rule, shared by the slice and (later) the Status screen.

Two readings of a sign-off, on purpose:

- whether a commit *has* a ``Signed-off-by`` trailer comes from git's own
  trailer parser (``%(trailers:key=Signed-off-by)``), never by hand;
- whether the sign-off *satisfies the DCO check* follows the DCO GitHub App
  exactly (dcoapp/app ``lib/dco.js``): it matches
  ``/^Signed-off-by: (.*) <(.*)>\s*$/img`` against every line of the message, not
  only the trailer block (a squash-merge message often has its sign-offs above
  a ``Co-authored-by`` paragraph), and accepts the commit when one of them has a
  name of the author's or the committer's and an email of theirs, compared
  lower-cased.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncdesk.services.sync.models import Person


@dataclass(frozen=True, slots=True)
class Signoff:
    """One parsed ``Signed-off-by`` value."""

    name: str
    email: str


# The app's pattern, flags and all: case-insensitive, anchored per line.
# Trailing whitespace after ">" is allowed, as the app's \s*$ allows it (but
# only on the same line: JavaScript's \s would also swallow line breaks).
_APP_SIGNOFF_LINE = re.compile(
    r"^Signed-off-by: (.*) <(.*)>[ \t\f\v]*$", re.IGNORECASE | re.MULTILINE
)


def app_signoffs(message: str) -> tuple[Signoff, ...]:
    """Every sign-off the DCO app finds in a commit message, in order."""
    # JavaScript's "." and "$" treat "\r" as a line break; Python's do not.
    text = message.replace("\r\n", "\n").replace("\r", "\n")
    return tuple(Signoff(m.group(1), m.group(2)) for m in _APP_SIGNOFF_LINE.finditer(text))


def signoff_matches(signoffs: tuple[Signoff, ...], author: Person, committer: Person) -> bool:
    """Whether some sign-off names the author or the committer (the DCO app's rule).

    As in the app, the name must be one of the two names and the email one of
    the two emails, each compared lower-cased (JavaScript's ``toLowerCase``).
    """
    names = {author.name.lower(), committer.name.lower()}
    emails = {author.email.lower(), committer.email.lower()}
    return any(s.name.lower() in names and s.email.lower() in emails for s in signoffs)
