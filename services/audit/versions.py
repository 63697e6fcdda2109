"""Another version of a lost dev block at its place: main's own port, or our repair's rewrite.

A lost dev block (consecutive dev lines the result dropped) is often not lost
work at all: main carried its own version of the same feature (under another
subject, so no commit links the two), or our repair rewrote dev's lines in a
new form at that spot. Neither leaves dev's lines in the result, so the line
rules cannot see it; what they leave is the *names*. A feature brings names
of its own (a parameter, a helper, a config field, a word of prose): when the
lines another side wrote *at the block's place* in the result use most of the
names dev's block introduced, that side wrote its version there.

The test is deliberately narrow, because the guide's accident looks alike at
first sight (main's hunk taken, dev's follow-up dropped):

- only the names dev *introduced* count (those the merge base's file never
  had): main rewriting the code around dev's line with the file's old names
  is not a version of dev's line;
- only the result's lines *at the block's place* count (between the nearest
  dev lines the result kept above and below, at most a few lines beyond the
  block's size from each): a name defined elsewhere in the file is not a
  version at that place;
- only lines dev's file does not have count (the other side's writing);
- a block with no name of its own (a comment of common words, a call of an
  old helper) is not judged here;
- in Python, a block's code names it, not its comments: a comment above
  dev's code goes with that code (our repair restoring dev's call under a
  shorter comment restored the change); a block of comment lines alone, above
  code the result kept at its place, is another side's version when that side
  wrote a comment of its own there (it rewrote the comment of code it kept).

Dropping dev's keyword argument, dev's call of its own new helper, or dev's
class leaves those names out of the other side's lines, so such a loss stays
lost.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass

from syncdesk.services.audit.lines import alignment

# A name: an identifier or a word of prose, three characters or more.
_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")
# Names every Python file uses: they say nothing about a feature.
_COMMON = frozenset(
    name.encode()
    for name in (
        *keyword.kwlist,
        "self", "cls", "args", "kwargs", "None", "True", "False", "super", "len", "str",
        "int", "float", "bool", "list", "dict", "tuple", "set", "print", "range", "isinstance",
        "getattr", "setattr", "hasattr", "enumerate", "zip", "the", "and", "for", "that",
        "this", "with", "not", "are", "from", "when", "into", "its", "use", "used",
    )
)  # fmt: skip
# How much of dev's own names the other side's lines must use.
_COVERED = 0.6
# How far past the block's size, on each side, the result's lines count as "at its place".
_REACH = 8


@dataclass(frozen=True, slots=True)
class OtherVersion:
    """The lines another side wrote at a lost block's place, using dev's names."""

    lines: tuple[int, ...]  # 1-based, in the result's file
    names: tuple[str, ...]  # dev's own names those lines use


def names_of(lines: Sequence[bytes]) -> frozenset[bytes]:
    """The telling names in ``lines`` (identifiers and words, Python's common ones aside)."""
    found: set[bytes] = set()
    for line in lines:
        found.update(_NAME.findall(line))
    return frozenset(found - _COMMON)


class Places:
    """Where each dev line of one file sits in the result: aligned once per file."""

    def __init__(self, dev: Sequence[bytes], result: Sequence[bytes]) -> None:
        self._dev, self._result = dev, result
        self._placed = alignment(dev, result, exact=False)
        self._dev_lines = frozenset(line.strip() for line in dev)

    def other_version(
        self,
        first: int,
        last: int,
        block: Sequence[bytes],
        base_names: frozenset[bytes],
        *,
        python: bool = False,
    ) -> OtherVersion | None:
        """The result's lines at the place of dev's lines ``first``..``last`` (1-based) that
        dev's file lacks and that use most of the names ``block`` introduced (those not in
        ``base_names``, the merge base's file); None when there are none. In ``python``
        code, the names of the block's code lines, when it has any."""
        code = [line for line in block if not line.lstrip().startswith(b"#")] if python else []
        above = next((self._placed[i] for i in range(first - 2, -1, -1) if i in self._placed), -1)
        below = next(
            (self._placed[i] for i in range(last, len(self._dev)) if i in self._placed),
            len(self._result),
        )
        reach = last - first + 1 + _REACH
        place = [
            index
            for index in range(above + 1, below)
            if (index - above <= reach or below - index <= reach)
            and self._result[index].strip() not in self._dev_lines
        ]
        if python and not code and (rewritten := self._comment_rewritten(last, place)):
            return rewritten
        own = names_of(code or block) - base_names
        if not own:
            return None
        used = names_of([self._result[index] for index in place]) & own
        if len(used) < _COVERED * len(own):
            return None
        lines = tuple(index + 1 for index in place if names_of([self._result[index]]) & used)
        return OtherVersion(lines, tuple(sorted(name.decode("utf-8", "replace") for name in used)))

    def _comment_rewritten(self, last: int, place: Sequence[int]) -> OtherVersion | None:
        """A block of dev's comment lines whose code, the next line, the result kept at its
        place, where another side wrote a comment of its own: that side rewrote the comment
        of code it kept (our repair restoring dev's call under a shorter comment). A comment
        dropped with nothing written in its stead, or above code that is gone, is not this."""
        documented = next((i for i in range(last, len(self._dev)) if self._dev[i].strip()), None)
        if documented is None or documented not in self._placed:
            return None
        comments = tuple(
            index + 1 for index in place if self._result[index].lstrip().startswith(b"#")
        )
        return OtherVersion(comments, ()) if comments else None
