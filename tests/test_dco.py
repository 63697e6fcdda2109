"""The DCO app's sign-off rule: a trailer naming the author or the committer."""

from __future__ import annotations

import pytest

from services.dco import Signoff, parse_signoff, signoff_matches
from services.models import Person

AUTHOR = Person("Carol Coder", "carol@corp.example")
COMMITTER = Person("Ada Maintainer", "ada@example.com")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Carol Coder <carol@corp.example>", Signoff("Carol Coder", "carol@corp.example")),
        ("  Carol Coder   <carol@corp.example>  ", Signoff("Carol Coder", "carol@corp.example")),
        ("<carol@corp.example>", Signoff("", "carol@corp.example")),
        ("Carol Coder", None),
        ("Carol Coder carol@corp.example", None),
    ],
)
def test_parse_signoff(value, expected):
    assert parse_signoff(value) == expected


@pytest.mark.parametrize(
    ("signoffs", "matches"),
    [
        (("Carol Coder <carol@corp.example>",), True),  # the author
        (("Ada Maintainer <ada@example.com>",), True),  # the committer
        (("CAROL CODER <Carol@Corp.Example>",), True),  # case does not matter
        # The common real case: noreply address in the sign-off, corporate one as author.
        (("Carol Coder <carol@users.noreply.github.com>",), False),
        (("Someone Else <carol@corp.example>",), False),  # right email, wrong name
        (("Carol Coder",), False),  # no email at all
        ((), False),
        # One good trailer among others is enough.
        (("Bot <bot@example.com>", "Carol Coder <carol@corp.example>"), True),
    ],
)
def test_signoff_matches(signoffs, matches):
    assert signoff_matches(signoffs, AUTHOR, COMMITTER) is matches
