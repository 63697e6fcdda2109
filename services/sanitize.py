"""Make untrusted text safe to show in a terminal.

Commit messages, names, paths, file contents, review bodies and server errors
are hostile until proven otherwise. Rich and Textual strip only BEL, BS, VT,
FF and CR: ESC and the C1 controls reach the terminal untouched (see
``research/reliability.md`` E1). So every untrusted string passes through
:func:`visible` at the data boundary, the way git's sideband fix and gh's
``asciisanitizer`` do it: C0 controls (except tab and newline), DEL and C1
controls become caret or ``<U+XXXX>`` notation, and bidirectional overrides
become visible (the Trojan Source defence GitHub's UI uses).

Markup is a separate concern: the UI never parses untrusted text as markup.
"""

from __future__ import annotations

import re

# Bidi embedding/override/isolate controls and the marks (U+200E/F, U+061C).
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_ONE_LINE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_FOREIGN_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # not surrogateescape's
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # surrogateescape's: a byte that was not UTF-8


def _show(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    return f"<U+{code:04X}>"


def _printable(text: str) -> str:
    # Text decoded with surrogateescape (raw paths, file lines) holds lone
    # surrogates for bytes that were not UTF-8; JSON from a server can hold
    # any other lone surrogate ("\ud800"). No terminal encoding accepts them:
    # the escaped bytes are decoded again (a valid sequence is its character,
    # the rest U+FFFD), and any other surrogate becomes U+FFFD.
    text = _FOREIGN_SURROGATE.sub("\ufffd", text)
    if _ESCAPED_BYTE.search(text) is None:
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def visible(text: str) -> str:
    """Return ``text`` with every control character made visible.

    Newlines and tabs are kept; everything else that a terminal would act on
    (ESC, CSI, OSC, C1, DEL, bidi overrides) is spelled out instead, and
    undecodable bytes show as U+FFFD.
    """
    if text.isascii() and text.isprintable():
        # Most text (names, SHAs, paths, code without tabs): no control character and
        # no surrogate to show, told at C speed (a JSON report holds 260,000 strings).
        return text
    return _UNSAFE.sub(_show, _printable(text))


def one_line(text: str) -> str:
    """Like :func:`visible`, but for fields that must stay on one line.

    Trailing whitespace is dropped, then inner newlines and tabs are made visible
    too (a file name may contain a newline).
    """
    return _UNSAFE_ONE_LINE.sub(_show, _printable(text).rstrip())


def decode(data: bytes) -> str:
    """Decode bytes from git as UTF-8, never failing on invalid sequences."""
    return data.decode("utf-8", errors="replace")


def decode_path(data: bytes) -> str:
    """A path from git, decoded so that it encodes back to the same bytes.

    Invalid UTF-8 becomes lone surrogates (``surrogateescape``): the path still
    names the file in git commands and compares equal to the same path read
    elsewhere; :func:`visible` and :func:`one_line` show those bytes as U+FFFD.
    """
    return data.decode("utf-8", "surrogateescape")


def flattened(text: str) -> str:
    """``text`` on one line: controls and bidi overrides become spaces, runs of space one."""
    return " ".join(_UNSAFE_ONE_LINE.sub(" ", text).split())


def markdown_cell(text: str) -> str:
    """``text`` made safe for one cell of a GitHub markdown table.

    One line (controls and bidi overrides become spaces), no cell break (``|``),
    no HTML (``<``), and no mention: ``@`` gets a zero-width joiner, so review
    text quoted in a reply can never notify anyone.
    """
    flat = flattened(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
    return flat.replace("@", "@\u200d")
