"""The preservation audit's line logic: pure functions over lists of lines.

Nothing here runs git. Lines are what ``sort`` and ``comm`` see in the
reference hook: a blob split at LF, compared as bytes. The restore planner is
generic over ``str`` and ``bytes`` so the workspace can hand it its own buffer.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import AnyStr, Generic

from syncdesk.services.sanitize import decode

# git's buffer_is_binary(): a NUL among the first 8000 bytes.
FIRST_FEW_BYTES = 8000
# The longest statement (in dev lines) a formatter is assumed to join or split.
REFLOW_SPAN = 24
# Above this many lines an alignment lets difflib ignore very common lines (autojunk).
_EXACT_ALIGNMENT_LIMIT = 4000
# How alike a changed line and its new version are (difflib's ratio).
_SIMILAR = 0.6


def raw_lines(data: bytes) -> list[bytes]:
    """The lines of a blob as ``sort`` sees them: split at LF, no empty last line.

    A ``\\r`` stays part of its line and a last line without a newline is a line.
    """
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def is_binary(data: bytes) -> bool:
    """git's test for binary content: a NUL in the first 8000 bytes."""
    return b"\0" in data[:FIRST_FEW_BYTES]


_ASCII_ALNUM = re.compile(rb"[A-Za-z0-9]")
_ASCII_ALNUM_TEXT = re.compile(r"[A-Za-z0-9]")


def is_trivial(line: str | bytes) -> bool:
    """A line with no letter or digit: blank, brackets, punctuation, a bare comment marker."""
    if line.isascii():  # the common case, at C speed
        if isinstance(line, bytes):
            return _ASCII_ALNUM.search(line) is None
        return _ASCII_ALNUM_TEXT.search(line) is None
    text = decode(line) if isinstance(line, bytes) else line
    return not any(char.isalnum() for char in text)


def is_blank(line: str | bytes) -> bool:
    """A line holding nothing but whitespace."""
    return not line.strip()


# ASCII whitespace, as bytes.isspace() and git's ``diff -w`` see it.
_WHITESPACE = b" \t\n\r\x0b\x0c"
# What :func:`loosen` drops; the same without the line break, for whole files.
_LOOSE = _WHITESPACE + b",()\\"
_LOOSE_BUT_LINE_ENDS = _LOOSE.replace(b"\n", b"")


def squeeze(line: bytes) -> bytes:
    """The line with all whitespace removed: what ``diff -w`` compares."""
    return line.translate(None, _WHITESPACE)


def loosen(line: bytes) -> bytes:
    """The line without whitespace, commas, parentheses and backslashes.

    What a code formatter changes when it joins or splits a statement: line
    breaks and indentation, the "magic" trailing comma, wrapping parentheses,
    and the backslash continuations one style uses where another wraps.
    """
    return line.translate(None, _LOOSE)


def loosen_all(lines: Sequence[bytes]) -> list[bytes]:
    """:func:`loosen` of every line, in one pass over the joined lines (C speed)."""
    if not lines:
        return []
    # A line holds no line break: delete all the rest, then split at the breaks.
    return b"\n".join(lines).translate(None, _LOOSE_BUT_LINE_ENDS).split(b"\n")


def lost_lines(
    dev: Sequence[bytes], main: Sequence[bytes], result: Sequence[bytes]
) -> Counter[bytes]:
    """The hook's ``comm -23 <(comm -23 dev main) result``, as a multiset."""
    # Counter subtraction keeps positive counts only: exactly how comm pairs
    # equal lines of sorted input (dev 3x, main 1x -> 2 left). The (line, count)
    # pairs dev shares with main or the result are set differences at C speed;
    # only the rest is subtracted line by line.
    mine, theirs = Counter(dev), Counter(main)
    # Most often the result took main's file whole (the same list): counted once.
    kept = theirs if result is main else Counter(result)
    candidates = mine.items() - theirs.items()
    if kept is not theirs:
        candidates -= kept.items()
    # (dev - main) - result with positive parts is dev - main - result where positive;
    # dict.get, not Counter's subtraction: a line main lacks costs a __missing__ call there.
    return Counter(
        {
            line: left
            for line, count in candidates
            if (left := count - theirs.get(line, 0) - kept.get(line, 0)) > 0
        }
    )


def place_lost(
    dev: Sequence[bytes],
    result: Sequence[bytes],
    lost: Counter[bytes],
    unmatched: Collection[int] | None = None,
) -> list[tuple[int, bytes]]:
    """Which dev lines (1-based, sorted) the lost lines are.

    A line dev holds as often as it was lost is all its copies. When dev holds
    more copies (:func:`has_spare_copies`), the ones an alignment of dev with the
    result leaves unmatched are taken first: ``unmatched`` (0-based dev indices,
    git's diff of the two) when given, else difflib's.
    """
    spots: dict[bytes, list[int]] = {}
    for index, line in enumerate(dev):
        if line in lost:
            spots.setdefault(line, []).append(index)
    placed: list[tuple[int, bytes]] = []
    for line, count in lost.items():
        where = spots.get(line, [])
        if len(where) > count:
            if unmatched is None:
                # Only a preference: the fast alignment (autojunk) is good enough.
                unmatched = set(range(len(dev))) - set(alignment(dev, result, exact=False))
            held = unmatched
            where = sorted(where, key=lambda index: index not in held)  # stable
        placed += ((index + 1, line) for index in where[:count])
    return sorted(placed)


def has_spare_copies(dev: Sequence[bytes], lost: Counter[bytes]) -> bool:
    """Whether dev holds some lost line more often than it was lost: placing it needs
    an alignment (:func:`place_lost`)."""
    held = Counter(line for line in dev if line in lost)
    return any(held[line] > count for line, count in lost.items())


def alignment(
    old: Sequence[AnyStr], new: Sequence[AnyStr], *, exact: bool = True
) -> dict[int, int]:
    """The matched lines of a line alignment: old index -> new index (0-based).

    ``exact`` aligns every line; otherwise, and always above 4000 lines,
    difflib's autojunk ignores very common lines (faster, a little cruder).
    """
    # The common head and tail match as they stand (the longest matching block
    # difflib would find starts there anyway); only the middle is aligned.
    head = 0
    shortest = min(len(old), len(new))
    while head < shortest and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    pairs = {k: k for k in range(head)}
    middle_old, middle_new = old[head : len(old) - tail], new[head : len(new) - tail]
    exact = exact and max(len(middle_old), len(middle_new)) <= _EXACT_ALIGNMENT_LIMIT
    matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=not exact)
    for block in matcher.get_matching_blocks():
        pairs.update((head + block.a + k, head + block.b + k) for k in range(block.size))
    pairs.update((len(old) - 1 - k, len(new) - 1 - k) for k in range(tail))
    return pairs


class Reflow:
    """Finds dev statements that a formatter joined or split in the result.

    The result's lines, :func:`loosen`-ed and concatenated, form one stream; a
    run of dev lines is reflowed when its loosened text equals the stream
    between two line boundaries, and either side spans two lines or more
    (one line against one line is :func:`squeeze`'s business).

    Such a stretch of the stream is whole result lines, each a prefix of what
    is left of the run's text. So the candidates are found by whole line: the
    lines that begin the run's text, then among the places they stand, those
    followed by a line that continues it (a lock file's thousands of lines
    alike in their first bytes, or of ``]`` lines, are never tried one by one).
    """

    def __init__(self, result: Sequence[bytes]) -> None:
        parts = loosen_all(result)
        self._stream = b"".join(parts)
        self._lines: list[bytes] = []  # the non-empty loosened result lines...
        self._offsets: list[int] = []  # ...where each starts in the stream...
        self._numbers: list[int] = []  # ...and its 1-based number
        self._boundaries: set[int] = set()
        self._where: dict[bytes, list[int]] = {}  # a line -> its indices in _lines
        # Two lines in a row -> the index of the first, built when first needed.
        self._pairs: dict[tuple[bytes, bytes], list[int]] | None = None
        offset = 0
        for number, part in enumerate(parts, start=1):
            self._boundaries.add(offset)
            if part:
                self._where.setdefault(part, []).append(len(self._lines))
                self._lines.append(part)
                self._offsets.append(offset)
                self._numbers.append(number)
            offset += len(part)
        self._boundaries.add(offset)
        self._sorted = sorted(self._where)  # the distinct lines, for prefix look-ups

    def find(self, loose_dev: Sequence[bytes], start: int) -> tuple[int, int] | None:
        """The longest reflowed run of dev lines from index ``start``: (last index, result line).

        ``loose_dev`` is the dev file's lines, :func:`loosen`-ed. Of the places
        in the result where a run matches, the first wins; of the runs
        matching there, the longest.
        """
        texts = loose_dev[start : start + REFLOW_SPAN]
        if not texts or not texts[0]:
            return None
        joined = b"".join(texts)
        runs = _runs(texts, joined)
        dev_lines = {len(text): lines for text, _, lines in runs}  # run length -> its dev lines
        first = self._first_match(joined, dev_lines)
        if first is None:
            return None
        end = self._longest_run(self._offsets[first], runs)
        assert end is not None  # _first_match found a run there
        return start + end, self._numbers[first]

    def _first_match(self, joined: bytes, dev_lines: dict[int, int]) -> int | None:
        """The first result line (its index in ``_lines``) where a run matches, if any.

        A depth-first walk over the ways consecutive result lines spell the
        start of ``joined``; each step keeps the places where the lines so far
        stand in a row, and a step that ends on a run's length is a match there.
        """
        # Candidates also have to begin with the run's first 8 bytes: the matcher
        # always required it (it only matters for a run shorter than that).
        lead = joined[:8]
        best = bound = len(self._lines)
        continuing: dict[int, list[bytes]] = {}  # length -> the lines that continue from there
        stack: list[tuple[int, int, bytes, list[int]]] = []  # (length, lines, last line, starts)
        for line in self._lines_starting(joined):
            size, starts = len(line), self._where[line]
            if dev_lines.get(size, 0) >= 2:  # one result line against two dev lines or more
                best = self._first_leading(starts, lead, best)
            if size < len(joined):
                stack.append((size, 1, line, starts))
        while stack:
            size, depth, last, starts = stack.pop()
            if size not in continuing:
                continuing[size] = self._lines_starting(joined[size:])
            for line in continuing[size]:
                if depth == 1:
                    after = self._pairs_index().get((last, line), [])
                    narrowed = after[: bisect_left(after, best)]
                else:
                    narrowed = self._followed_by(starts, depth, line, best)
                if not narrowed:
                    continue
                reach = size + len(line)
                if reach in dev_lines:  # two result lines or more: a match
                    best = self._first_leading(narrowed, lead, best)
                    narrowed = narrowed[: bisect_left(narrowed, best)]
                if reach < len(joined) and narrowed:
                    stack.append((reach, depth + 1, line, narrowed))
        return best if best < bound else None

    def _pairs_index(self) -> dict[tuple[bytes, bytes], list[int]]:
        """Each two result lines in a row -> the indices where the first stands, ascending."""
        if self._pairs is None:
            self._pairs = {}
            for index, pair in enumerate(zip(self._lines, self._lines[1:], strict=False)):
                self._pairs.setdefault(pair, []).append(index)
        return self._pairs

    def _followed_by(self, starts: list[int], depth: int, line: bytes, bound: int) -> list[int]:
        """Those of ``starts`` (below ``bound``) whose line ``depth`` further on is ``line``."""
        where = self._where[line]
        starts = starts[: bisect_left(starts, bound)]
        if len(starts) <= len(where):
            last = len(self._lines) - depth
            return [s for s in starts if s < last and self._lines[s + depth] == line]
        kept = []
        for index in where:
            begin = index - depth
            if begin >= bound:
                break
            found = bisect_left(starts, begin)
            if found < len(starts) and starts[found] == begin:
                kept.append(begin)
        return kept

    def _first_leading(self, starts: list[int], lead: bytes, bound: int) -> int:
        """The first of ``starts`` below ``bound`` whose stream begins with ``lead``.

        ``bound`` when none does.
        """
        for index in starts:
            if index >= bound:
                break
            offset = self._offsets[index]
            if self._stream[offset : offset + 8] == lead:
                return index
        return bound

    def _lines_starting(self, text: bytes) -> list[bytes]:
        """The distinct result lines that are prefixes of ``text``, longest first.

        Each step takes the greatest line not above the probe: either it is a
        prefix (then only shorter lines, sorted before it, are left), or every
        prefix of the probe is also a prefix of that line, so the probe
        shrinks to what the two have in common.
        """
        found: list[bytes] = []
        size, high = len(text), len(self._sorted)
        while size > 0 and high > 0:
            probe = text[:size]
            position = bisect_right(self._sorted, probe, 0, high) - 1
            if position < 0:
                break
            line = self._sorted[position]
            if probe.startswith(line):
                found.append(line)
                size = len(line) - 1
            else:
                size = _common_prefix(line, probe)
            high = position
        return found

    def _longest_run(self, offset: int, runs: list[tuple[bytes, int, int]]) -> int | None:
        """The last index of the longest run matching the stream at ``offset``, if any does."""
        for text, end, dev_lines in runs:
            stop = offset + len(text)
            if stop not in self._boundaries or not self._stream.startswith(text, offset):
                continue
            if dev_lines >= 2 or self._lines_between(offset, stop) >= 2:
                return end
        return None

    def _lines_between(self, begin: int, stop: int) -> int:
        return bisect_left(self._offsets, stop) - bisect_left(self._offsets, begin)


def _runs(texts: Sequence[bytes], joined: bytes) -> list[tuple[bytes, int, int]]:
    """The runs of ``texts`` from its first: (text, last index, non-empty lines), longest first."""
    runs: list[tuple[bytes, int, int]] = []
    length = lines = 0
    for end, part in enumerate(texts):
        length += len(part)
        lines += 1 if part else 0
        runs.append((joined[:length], end, lines))
    runs.reverse()
    return runs


def _common_prefix(one: bytes, other: bytes) -> int:
    """How many leading bytes ``one`` and ``other`` share."""
    low, high = 0, min(len(one), len(other))
    while low < high:
        middle = (low + high + 1) // 2
        if one.startswith(other[:middle]):
            low = middle
        else:
            high = middle - 1
    return low


@dataclass(frozen=True, slots=True)
class Restoration(Generic[AnyStr]):
    """Dev lines to put back into the result, and where.

    Insert :attr:`lines` after line :attr:`insert_after` of the result
    (0: at the top of the file). When the result holds its own version of the
    region (main's change to those lines, say), :attr:`facing` names those
    result lines, so a caller can offer "replace" as well as "insert".
    """

    dev_start: int  # 1-based first dev line restored
    dev_end: int  # 1-based last dev line restored (inclusive)
    lines: tuple[AnyStr, ...]
    insert_after: int  # 1-based result line; 0 = top of the file
    facing: tuple[int, int] | None  # 1-based result lines between the same neighbours


def plan_restore(
    dev: Sequence[AnyStr],
    result: Sequence[AnyStr],
    line: int,
    restorable: Collection[int] = (),
) -> Restoration[AnyStr] | None:
    """Where to put dev's line ``line`` (1-based) and its lost neighbours back into ``result``.

    The block is the run of dev lines around ``line`` that the result lacks
    (unmatched in a dev -> result alignment) and that are either in
    ``restorable`` (the other findings the caller wants back, say the file's
    accidents) or trivial (a closing bracket goes back with its statement);
    blank lines at its edges stay out. It goes after the result line matched to
    the nearest preceding dev line the result holds, or after the new version
    of a dev line in between that the result changed (a similar line where it
    stood). ``result`` may be an edited buffer: nothing is assumed about it.
    None when the result holds ``line`` already.
    """
    index = line - 1
    if not 0 <= index < len(dev):
        raise ValueError(f"line {line} is outside the dev file (1..{len(dev)})")
    pairs = _local_alignment(dev, result, index)
    if index in pairs:
        return None
    wanted = {number - 1 for number in restorable} | {index}

    def lost(position: int) -> bool:
        return position not in pairs and (position in wanted or is_trivial(dev[position]))

    first = last = index
    while first > 0 and lost(first - 1):
        first -= 1
    while last + 1 < len(dev) and lost(last + 1):
        last += 1
    while first < index and is_blank(dev[first]):
        first += 1
    while last > index and is_blank(dev[last]):
        last -= 1
    before = max((position for position in pairs if position < first), default=-1)
    after = min((position for position in pairs if position > last), default=len(dev))
    # The result's lines between the two matched neighbours (0-based, half-open).
    gap = (pairs[before] + 1 if before >= 0 else 0, pairs.get(after, len(result)))
    facing = (gap[0] + 1, gap[1]) if gap[1] > gap[0] else None
    insert_after = gap[0]
    # Dev lines between the neighbour and the block that the result changed
    # (main's edit of them, say) still mark the place: go after their new version.
    counterpart = _counterpart(dev[before + 1 : first], result[gap[0] : gap[1]])
    if counterpart is not None:
        insert_after = gap[0] + counterpart + 1
    block = tuple(dev[first : last + 1])
    return Restoration(first + 1, last + 1, block, insert_after, facing)


def _counterpart(changed: Sequence[AnyStr], facing: Sequence[AnyStr]) -> int | None:
    """The index in ``facing`` of the last changed line's new version, if one is similar enough.

    Tried from the line nearest the block backwards, each against the facing
    lines (both capped at 50: a long gap is not worth a guess).
    """
    for line in reversed(changed[-50:]):
        if is_trivial(line):
            continue
        scores = []
        for index, other in enumerate(facing[:50]):
            if is_trivial(other):
                continue
            matcher = difflib.SequenceMatcher(None, line, other)
            # The quick ratios bound ratio() from above: a line they put below
            # the bar cannot be the answer, and ratio() is the costly one.
            if matcher.real_quick_ratio() >= _SIMILAR and matcher.quick_ratio() >= _SIMILAR:
                scores.append((matcher.ratio(), index))
        best = max(scores, default=(0.0, 0))
        if best[0] >= _SIMILAR:
            return best[1]
    return None


# A file's accidents are planned one by one against the same two files: their
# anchors are found once (a few pairs of files are kept; the tuples compare by
# identity first, so a hit costs a hash of line objects already hashed).
@lru_cache(maxsize=8)
def _anchors(dev: tuple[AnyStr, ...], result: tuple[AnyStr, ...]) -> tuple[tuple[int, int], ...]:
    """The lines that occur once in each file and are not trivial: (dev index, result index)."""
    dev_counts, result_counts = Counter(dev), Counter(result)
    where = {text: position for position, text in enumerate(result) if result_counts[text] == 1}
    return tuple(
        (position, where[text])
        for position, text in enumerate(dev)
        if dev_counts[text] == 1 and text in where and not is_trivial(text)
    )


def held_lines(dev: Sequence[AnyStr], result: Sequence[AnyStr], lines: Iterable[int]) -> set[int]:
    """Which of dev's ``lines`` (1-based) ``result`` holds: those :func:`plan_restore` would
    plan nothing for, told by the alignment alone (the file's anchors found once for
    all of them), without placing a restore, the costly part on a file of hundreds."""
    anchors = _anchors(tuple(dev), tuple(result))
    return {line for line in lines if line - 1 in _local_alignment(dev, result, line - 1, anchors)}


def _local_alignment(
    dev: Sequence[AnyStr],
    result: Sequence[AnyStr],
    index: int,
    anchors: tuple[tuple[int, int], ...] | None = None,
) -> dict[int, int]:
    """A dev -> result alignment that is exact around ``index``.

    Lines that occur once in each file and are not trivial anchor it (the
    patience diff's idea); only the stretch between the anchors either side of
    ``index`` is aligned line by line, so a key press stays fast on a
    10,000-line file. ``anchors`` are :func:`_anchors` of the two, when known.
    """
    if anchors is None:
        anchors = _anchors(tuple(dev), tuple(result))
    pairs = dict(anchors)  # every anchor is a line the result holds
    low = max((anchor for anchor in anchors if anchor[0] < index), default=(-1, -1))
    high = next(
        (anchor for anchor in anchors if anchor[0] > index and anchor[1] > low[1]),
        (len(dev), len(result)),
    )
    local = alignment(dev[low[0] + 1 : high[0]], result[low[1] + 1 : high[1]])
    pairs.update((a + low[0] + 1, b + low[1] + 1) for a, b in local.items())
    return pairs
