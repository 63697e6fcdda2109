"""The sanitizer: no terminal control survives, and what was there stays visible."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from syncdesk.services.sanitize import decode, one_line, visible

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Everything a terminal acts on, except the two layout characters visible() keeps.
FORBIDDEN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")

hostile_text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0xA0),
        st.sampled_from(BIDI + "\u2028\u2029[]/@=\\"),
        st.characters(),
    )
)


@given(hostile_text)
def test_visible_leaves_no_control_character(text):
    assert FORBIDDEN.search(visible(text)) is None


@given(hostile_text)
def test_one_line_has_no_control_character_and_no_newline(text):
    out = one_line(text)
    assert FORBIDDEN.search(out) is None
    assert "\n" not in out
    assert "\t" not in out


# Lone surrogates (Cs) are not printable: no terminal encoding takes them, and
# visible() shows them as U+FFFD (tested below); hypothesis draws them rarely.
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs"))))
def test_printable_text_passes_unchanged(text):
    assert visible(text) == text


def test_controls_are_spelled_out_not_dropped():
    osc52 = "\x1b]52;c;ZXZpbA==\x07"
    assert visible(f"a{osc52}b") == "a^[]52;c;ZXZpbA==^Gb"
    assert visible("x\x9by") == "x<U+009B>y"
    assert visible("abc\u202edef") == "abc<U+202E>def"
    assert visible("\x7f") == "^?"


def test_visible_keeps_newlines_and_tabs():
    assert visible("line 1\n\tline 2\n") == "line 1\n\tline 2\n"


def test_one_line_spells_out_inner_newlines_and_drops_trailing_whitespace():
    assert one_line("a\nb\tc\r\n  ") == "a^Jb^Ic"


def test_rich_markup_is_left_as_text():
    # Markup is not the sanitizer's business: it must reach the UI literally.
    assert visible("[bold]x[/] [@click=app.quit]y[/]") == "[bold]x[/] [@click=app.quit]y[/]"


def test_decode_never_fails_on_invalid_utf8():
    assert decode(b"ok \x9b\xff") == "ok \ufffd\ufffd"


def test_lone_surrogates_of_any_kind_never_break_the_sanitizers():
    # JSON from a server can hold any lone surrogate; mixed with surrogateescape's
    # (undecodable bytes) they used to make visible() and one_line() raise.
    for text in ("\udc80\ud800", "a\ud800b", "\udfff\udc80", "x\udbff"):
        assert "\ufffd" in visible(text)
        assert "\ufffd" in one_line(text)
        visible(text).encode("utf-8")  # printable to any UTF-8 terminal
