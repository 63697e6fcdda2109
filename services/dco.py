"""The DCO app's sign-off rule, shared by the slice and (later) the Status screen.

The DCO GitHub App (dcoapp/app) reads ``Signed-off-by: Name <email>`` trailers
and accepts a commit when one of them names the author or the committer:
the name is one of theirs and the email is one of theirs, compared without
regard to case. We read the trailers with git's own parser
(``%(trailers:key=Signed-off-by)``), never by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.models import Person

_SIGNOFF = re.compile(r"^(?P<name>.*?)\s*<(?P<email>[^<>]*)>\s*$")


@dataclass(frozen=True, slots=True)
class Signoff:
    """One parsed ``Signed-off-by`` value."""

    name: str
    email: str


def parse_signoff(value: str) -> Signoff | None:
    """Parse ``Name <email>``; None when the value has no ``<email>`` part."""
    match = _SIGNOFF.match(value.strip())
    if match is None:
        return None
    return Signoff(match.group("name").strip(), match.group("email").strip())


def signoff_matches(values: tuple[str, ...], author: Person, committer: Person) -> bool:
    """Whether some sign-off names the author or the committer (the DCO app's rule)."""
    names = {author.name.casefold(), committer.name.casefold()}
    emails = {author.email.casefold(), committer.email.casefold()}
    for value in values:
        signoff = parse_signoff(value)
        if signoff and signoff.name.casefold() in names and signoff.email.casefold() in emails:
            return True
    return False
