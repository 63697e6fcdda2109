"""What differs within a line: which lines of two versions correspond, and which words changed.

The 3-way view marks, on a line of one side, the words its version on
another side does not have: a ``512`` that is ``256`` on the other side is
found at a glance, not by reading two long lines character by character.

Two steps, both bounded whatever the input:

- :func:`pair_lines` says which line of ``b`` each line of ``a`` is a version
  of. Equal lines are matched first (:func:`~syncdesk.services.conflicts.linediff.matching_blocks`,
  a patience diff: a few passes over a 2,000-line hunk); in each gap between
  them, lines are paired with the most similar line across, searched only in
  a small gap, else by position, and only if similar enough: a rewritten
  line stands alone, with nothing to compare it to.
- :func:`changed_words` diffs a pair of lines word by word (difflib on word,
  space and punctuation tokens). A pathologically long line is compared by
  its common start and end only.

Everything here works on the strings it is given: the view passes the text
it shows (control characters made visible, tabs expanded), so a span's
columns are the columns on screen.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from syncdesk.services.conflicts.linediff import matching_blocks
from syncdesk.services.lines import common_prefix

Columns = tuple[int, int]  # [start, end) character columns of a line

# A word, a run of white space, or one other character.
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# difflib is quadratic: token pairs beyond this are compared by their common ends only.
_TOKEN_LIMIT = 40_000
# A gap of lines x lines up to this is searched for its most similar pairs; a larger
# one is paired by position (a 2,000-line rewrite costs 2,000 comparisons, not 4 million),
# its first lines only: the rest of a longer one stands alone.
_SEARCH_LIMIT = 400
_POSITIONAL_LIMIT = 2_000
# Two lines are versions of each other when at least this share of their tokens agree.
_SIMILAR = 0.5


@dataclass(frozen=True, slots=True)
class Pairing:
    """How the lines of one version stand to another's.

    ``counterparts`` maps a line that differs from its version in the other
    to that version's index; ``alone`` holds the lines with no version there
    (added, or rewritten past recognition). Every other line is equal to a
    line of the other version.
    """

    counterparts: Mapping[int, int]
    alone: frozenset[int]


def tokens(text: str) -> list[str]:
    """``text`` cut into words, runs of white space and single other characters."""
    return _TOKEN.findall(text)


def changed_words(text: str, other: str) -> tuple[Columns, ...]:
    """The character ranges of ``text`` that ``other`` does not have, word by word.

    A word that changed is marked whole (``512`` against ``256``, not the
    ``51`` of a character diff); what ``other`` only adds marks nothing here.
    Adjacent changed tokens make one range.
    """
    if text == other:
        return ()
    mine, theirs = tokens(text), tokens(other)
    head = common_prefix(mine, theirs)
    tail = common_prefix(mine[head:][::-1], theirs[head:][::-1])
    middle_mine, middle_theirs = mine[head : len(mine) - tail], theirs[head : len(theirs) - tail]
    start = sum(map(len, mine[:head]))
    if len(middle_mine) * len(middle_theirs) > _TOKEN_LIMIT:
        end = start + sum(map(len, middle_mine))
        return ((start, end),) if end > start else ()
    offsets = [start]
    for token in middle_mine:
        offsets.append(offsets[-1] + len(token))
    # White space may not start a match (it may extend one): without that, the
    # spaces between the words of two different lines are islands of sameness
    # that difflib searches around, quadratically.
    matcher = difflib.SequenceMatcher(str.isspace, middle_mine, middle_theirs, autojunk=False)
    spans: list[Columns] = []
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            if spans and spans[-1][1] == offsets[i1]:
                spans[-1] = (spans[-1][0], offsets[i2])
            else:
                spans.append((offsets[i1], offsets[i2]))
    return tuple(_trimmed(text, span) for span in spans)


def pair_lines(a: Sequence[str], b: Sequence[str]) -> tuple[Pairing, Pairing]:
    """Which line of ``b`` each line of ``a`` is a version of, and the reverse.

    Line endings are not compared. Returns ``a``'s pairing, then ``b``'s.
    """
    keys_a = [line.rstrip("\r\n") for line in a]
    keys_b = [line.rstrip("\r\n") for line in b]
    blocks = matching_blocks(keys_a, keys_b)
    pairs: dict[int, int] = {}
    low_a = low_b = 0
    for i, j, size in [*blocks, (len(a), len(b), 0)]:
        if i > low_a and j > low_b:
            pairs.update(_pair_gap(keys_a, low_a, i, keys_b, low_b, j))
        low_a, low_b = i + size, j + size
    matched_a = {i + k for i, _, size in blocks for k in range(size)}
    matched_b = {j + k for _, j, size in blocks for k in range(size)}
    reverse = {j: i for i, j in pairs.items()}
    return (
        Pairing(pairs, frozenset(set(range(len(a))) - matched_a - set(pairs))),
        Pairing(reverse, frozenset(set(range(len(b))) - matched_b - set(reverse))),
    )


def first_change(
    lines: Sequence[str],
    others: Sequence[str],
    pairing: Pairing,
    count: int,
    shown: Callable[[str], str] = str,
    compare: Callable[[str, str], tuple[Columns, ...]] = changed_words,
) -> Columns | None:
    """The leftmost change on the first ``count`` lines of ``lines``, or None.

    A paired line's change is its first changed word (against ``others``); a
    line that stands alone changed from its first non-blank character on.
    Lines are compared as ``shown`` makes them (the screen's text, so that
    the columns are the screen's), with ``compare`` (a cached
    :func:`changed_words`: the rows drawn next ask for the same pairs).
    """
    found: Columns | None = None
    for index in range(min(count, len(lines))):
        line = shown(lines[index])
        counterpart = pairing.counterparts.get(index)
        if counterpart is not None:
            spans = compare(line, shown(others[counterpart]))
            span = spans[0] if spans else None
        elif index in pairing.alone and line.strip():
            indent = len(line) - len(line.lstrip())
            span = (indent, len(line.rstrip()))
        else:
            span = None
        if span is not None and (found is None or span[0] < found[0]):
            found = span
    return found


def _trimmed(text: str, span: Columns) -> Columns:
    """``span`` without the white space at its ends, unless it is only white space."""
    start, end = span
    part = text[start:end]
    if not part.strip():
        return span
    return start + len(part) - len(part.lstrip()), end - len(part) + len(part.rstrip())


def _words(line: str) -> list[str]:
    """The tokens of ``line`` that say what it is: white space left out."""
    return [token for token in tokens(line) if not token.isspace()]


def _similarity(a: list[str], b: list[str]) -> float:
    """How much of two lines' tokens agree, order aside (difflib's quick_ratio: linear)."""
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).quick_ratio()


def _pair_gap(
    a: Sequence[str], a0: int, a1: int, b: Sequence[str], b0: int, b1: int
) -> dict[int, int]:
    """The similar lines of ``a[a0:a1]`` and ``b[b0:b1]`` paired, in order."""
    if (a1 - a0) * (b1 - b0) > _SEARCH_LIMIT:
        return {
            a0 + k: b0 + k
            for k in range(min(a1 - a0, b1 - b0, _POSITIONAL_LIMIT))
            if _similarity(_words(a[a0 + k]), _words(b[b0 + k])) >= _SIMILAR
        }
    words_a = [_words(line) for line in a[a0:a1]]
    words_b = [_words(line) for line in b[b0:b1]]
    return {a0 + i: b0 + j for i, j in _best_pairs(words_a, words_b)}


def _best_pairs(a: list[list[str]], b: list[list[str]]) -> list[tuple[int, int]]:
    """The in-order pairs of similar lines with the greatest total similarity (a small DP)."""
    score = [[0.0] * (len(b) + 1) for _ in range(len(a) + 1)]
    similar = [[_similarity(x, y) for y in b] for x in a]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            best = max(score[i + 1][j], score[i][j + 1])
            if similar[i][j] >= _SIMILAR:
                best = max(best, similar[i][j] + score[i + 1][j + 1])
            score[i][j] = best
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if similar[i][j] >= _SIMILAR and score[i][j] == similar[i][j] + score[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif score[i][j] == score[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs
