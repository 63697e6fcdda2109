"""The statement scanner cuts a Python file where Python's own tokenizer does.

:func:`statement_keys` reads a whole file in passes over bytes (string
literals and comments, brackets cancelled line by line, only the lines left
open walked). On valid Python its statements over several lines are exactly
the logical lines :mod:`tokenize` reports, and every other line stands alone;
its keys survive rewrapping. Its one departure, the fail-safe for a bracket
that never closes, is checked apart.
"""

from __future__ import annotations

import io
import random
import tokenize

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncdesk.services.audit.statements import (
    LONGEST,
    docstring_lines,
    line_invariant,
    rewrap_invariant,
    scan,
    statement_keys,
)

_SKIPPED = {
    tokenize.ENCODING, tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
    tokenize.ENDMARKER,
}  # fmt: skip


def _logical_lines(lines: list[bytes]) -> set[tuple[int, int]]:
    """The (first, last) 0-based lines of every statement, as Python tokenizes the file."""
    spans: set[tuple[int, int]] = set()
    start: int | None = None
    source = io.BytesIO(b"\n".join(lines) + b"\n")
    for token in tokenize.tokenize(source.readline):
        if token.type in _SKIPPED:
            continue
        if token.type == tokenize.NEWLINE:
            assert start is not None
            spans.add((start, token.start[0] - 1))
            start = None
        elif start is None:
            start = token.start[0] - 1
    return spans


def _python_file(seed: int) -> list[bytes]:
    """Valid Python at the left margin: calls over lines with comments in them, docstrings
    (some longer than LONGEST), strings holding brackets, quotes and "#", quotes inside
    comments, backslash continuations, string literals over a backslash-newline."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    for index in range(150):
        kind = rng.randrange(10)
        if kind == 0:
            lines.append(b"call_%d(" % index)
            lines += [b"    arg_%d,  # it's (a note" % k for k in range(rng.choice([1, 5, 20]))]
            lines.append(rng.choice([b")", b"    last)", b")  # done"]))
        elif kind == 1:
            quotes = rng.choice([b'"""', b"'''"])
            prose = [b"text (with a bracket", b"it's #not a comment", b'a "quote" [', b""]
            lines.append(rng.choice([b"", b"r"]) + quotes + b"Doc")
            lines += [rng.choice(prose) for _ in range(rng.choice([1, 7, LONGEST + 15]))]
            lines.append(quotes)
        elif kind == 2:
            lines += [b"total = 1 + \\", b"    2 + \\", b"    3"]
        elif kind == 3:
            lines.append(b"s = 'it''s' \"a # b (\"  # ( not a bracket, don't")
        elif kind == 4:
            lines += [b"d = {", b"    'k': [1, (2,", b"          3)],", b"}"]
        elif kind == 5:
            lines += [b'joined = ("part one "', b'          "part two")']
        elif kind == 6:
            lines += [b's = "one \\', b'two"']
        elif kind == 7:
            lines.append(b'# a comment with a ( and a quote \' and """')
        elif kind == 8:
            lines.append(b"")
        else:
            lines.append(b"value_%d = compute(%d)[0]" % (index, index))
    return lines


@pytest.mark.parametrize("seed", range(12))
def test_statements_over_lines_are_the_logical_lines_python_tokenizes(seed: int) -> None:
    lines = _python_file(seed)
    found = statement_keys(lines)
    assert found[0][0] == 0 and found[-1][1] == len(lines) - 1
    assert [last + 1 for _, last, _ in found[:-1]] == [first for first, _, _ in found[1:]]
    logical = _logical_lines(lines)
    spans = {(first, last) for first, last, _ in found}
    assert logical <= spans  # every statement Python sees, the scanner sees whole
    assert {span for span in spans if span[0] != span[1]} <= logical
    assert any(last - first > LONGEST for first, last in logical)  # the inputs reach past it


def test_a_rewrapped_statement_keeps_its_key_and_comments_do_not_count() -> None:
    one = [b"result = compute(alpha, beta='x')  # why"]
    five = [b"result = compute(", b"    alpha,  # first", b'    beta="x",', b")"]
    assert statement_keys(one)[0][2] == statement_keys(five)[0][2]
    assert statement_keys(five)[0][:2] == (0, 3)


def test_a_docstring_longer_than_the_reach_is_one_statement_and_prose() -> None:
    lines = [b"def f():", b'    """Summary.', *[b"    it's (prose" for _ in range(LONGEST + 5)]]
    lines += [b'    """', b"    return 1"]
    found = statement_keys(lines)
    assert found[1][:2] == (1, LONGEST + 7)
    assert docstring_lines(found) == set(range(1, LONGEST + 8))
    assert found[-1][:2] == (LONGEST + 8, LONGEST + 8)


def test_a_bracket_never_closed_stands_alone_and_the_scan_goes_on() -> None:
    lines = [b"broken = (  # never closed", *[b"x_%d = [%d]" % (k, k) for k in range(LONGEST + 5)]]
    found = statement_keys(lines)
    assert found[0][:2] == (0, 0)
    assert [span[:2] for span in found[1:]] == [(k, k) for k in range(1, LONGEST + 6)]
    assert found[1][2] == b"x_0=[0]"


# Lines of the bytes that make a key differ most from its lines: quotes of both kinds,
# string prefixes, "#", brackets, backslashes, commas and whitespace.
_TRICKY = st.lists(
    st.lists(st.sampled_from(list(b"ab rfu\"'#()[]{},\\\t")), max_size=12).map(bytes),
    max_size=30,
)


@given(_TRICKY)
@settings(max_examples=300, deadline=None)
def test_every_line_and_key_of_a_statement_lies_in_the_files_rewrap_invariant(
    lines: list[bytes],
) -> None:
    # What lets the audit rule a file out before reading its statements: if a file
    # holds a statement, the statement's key and each of its lines (read alone) are
    # found whole in the invariant of the file's code. It holds for any bytes.
    invariant = rewrap_invariant(scan(lines).code)
    for first, last, key in statement_keys(lines):
        of_key = rewrap_invariant(key)
        assert of_key in invariant, (first, key)
        for line in lines[first : last + 1]:
            assert line_invariant(line) in of_key, (first, line)


def test_the_invariant_drops_a_seams_prefix_and_reads_strings_with_a_hash_whole() -> None:
    joined = scan([b'msg = f"saved {when} ok"', b'note("#1", when, level=2)']).code
    wrapped = [b'msg = (f"saved {when} "', b'       f"ok")', b'note("#1", when,', b"   level=2)"]
    assert [key for _, _, key in statement_keys(wrapped)] == [
        key for _, _, key in statement_keys(joined.split(b"\n"))
    ]
    for line in wrapped:
        assert line_invariant(line) in rewrap_invariant(joined), line
