"""The DCO app's sign-off rule, as dcoapp/app's lib/dco.js applies it."""

from __future__ import annotations

import pytest

from syncdesk.services.sync.dco import Signoff, app_signoffs, signoff_matches
from syncdesk.services.sync.models import Person

AUTHOR = Person("Carol Coder", "carol@corp.example")
COMMITTER = Person("Ada Maintainer", "ada@example.com")


def _matches(message: str) -> bool:
    return signoff_matches(app_signoffs(message), AUTHOR, COMMITTER)


def test_every_signoff_line_is_found_in_order() -> None:
    message = (
        "Fix the loader (#12)\n\nBody.\n\n"
        "Signed-off-by: Bot <bot@example.com>\nSigned-off-by: Carol Coder <carol@corp.example>\n"
    )
    assert app_signoffs(message) == (
        Signoff("Bot", "bot@example.com"),
        Signoff("Carol Coder", "carol@corp.example"),
    )


@pytest.mark.parametrize(
    ("message", "matches"),
    [
        ("x\n\nSigned-off-by: Carol Coder <carol@corp.example>", True),  # the author
        ("x\n\nSigned-off-by: Ada Maintainer <ada@example.com>", True),  # the committer
        ("x\n\nsigned-off-by: CAROL CODER <Carol@Corp.Example>", True),  # the app ignores case
        # The common real case: noreply address in the sign-off, corporate one as author.
        ("x\n\nSigned-off-by: Carol Coder <carol@users.noreply.github.com>", False),
        ("x\n\nSigned-off-by: Someone Else <carol@corp.example>", False),  # wrong name
        ("x\n\nSigned-off-by: Carol Coder carol@corp.example", False),  # no <email>
        ("x\n\nNo sign-off here", False),
        # The app reads every line, not just git's trailer block: a squash message with
        # its sign-off above a closing Co-authored-by paragraph still passes.
        (
            "x\n\nSigned-off-by: Carol Coder <carol@corp.example>\n\nsome notes\n\n"
            "Co-authored-by: Ada Maintainer <ada@example.com>",
            True,
        ),
        # The app's pattern wants exactly one space after the colon.
        ("x\n\nSigned-off-by:Carol Coder <carol@corp.example>", False),
        # CRLF messages: JavaScript's "$" stops before "\r", so the email is clean.
        ("x\r\n\r\nSigned-off-by: Carol Coder <carol@corp.example>\r\n", True),
    ],
)
def test_signoff_matches_like_the_app(message: str, matches: bool) -> None:
    assert _matches(message) is matches


def test_name_and_email_may_come_from_author_and_committer_separately() -> None:
    # lib/dco.js checks the name against both names and the email against both emails.
    assert _matches("x\n\nSigned-off-by: Carol Coder <ada@example.com>")


def test_whitespace_after_the_closing_bracket_is_allowed_as_by_the_app() -> None:
    from syncdesk.services.sync.dco import app_signoffs

    found = app_signoffs("Fix\n\nSigned-off-by: Ada Lovelace <ada@example.com>  \t\n")
    assert [(s.name, s.email) for s in found] == [("Ada Lovelace", "ada@example.com")]
    # but a sign-off never runs on into the next line
    assert app_signoffs("Signed-off-by: A <a@x>\nSigned-off-by: B <b@x> \n")[1].name == "B"
