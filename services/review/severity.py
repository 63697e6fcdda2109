"""The one severity scale every reviewer's words are placed on.

Reviewers grade findings in their own words: a review bot's ``[CRITICAL ...]``,
``[IMPORTANT ...]`` and ``[SUGGESTION ...]``, a person's "blocking" or "nit", a
priority column's "High" or "P1". A finding keeps the word as written (upper case,
``NON-BLOCKING`` spelled one way) for display; :func:`level_of` places it on one
:class:`Level` scale, so findings of different reviewers compare and sort:

============  ==============================================================
level         words
============  ==============================================================
``critical``  CRITICAL, BLOCKING, BLOCKER, SEVERE, P0
``high``      HIGH, MAJOR, IMPORTANT, P1
``medium``    MEDIUM, MODERATE, P2
``low``       LOW, MINOR, SUGGESTION, NON-BLOCKING, OPTIONAL, P3
``nit``       NIT, NITPICK, TRIVIAL
``""``        no severity given, or a word not listed here
============  ==============================================================

:data:`SEVERITY` is the pattern of those words for the grammar's tags;
:func:`prose_severity` finds one in a sentence that announces findings ("Two
non-blocking follow-ups:", "one blocking issue", "a few nits").
"""

from __future__ import annotations

import re
from enum import StrEnum


class Level(StrEnum):
    """Where a reviewer's severity word sits on the one scale (see the module docstring)."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NIT = "nit"
    NONE = ""


_LEVELS = {
    Level.CRITICAL: ("CRITICAL", "BLOCKING", "BLOCKER", "SEVERE", "P0"),
    Level.HIGH: ("HIGH", "MAJOR", "IMPORTANT", "P1"),
    Level.MEDIUM: ("MEDIUM", "MODERATE", "P2"),
    Level.LOW: ("LOW", "MINOR", "SUGGESTION", "NON-BLOCKING", "OPTIONAL", "P3"),
    Level.NIT: ("NIT", "NITPICK", "TRIVIAL"),
}
_LEVEL_OF = {word: level for level, words in _LEVELS.items() for word in words}

# The words, as one group for the grammar's tags; "non-blocking" before "blocking".
SEVERITY = (
    r"(?i:(non[- ]?blocking|not[- ]blocking|critical|blocking|blocker|severe|important|major"
    r"|high|medium|moderate|minor|low|suggestion|optional|nitpick|nit|trivial|p[0-3]))\b"
)
_PLURAL = {"NITS": "NIT", "NITPICKS": "NITPICK", "BLOCKERS": "BLOCKER", "SUGGESTIONS": "SUGGESTION"}
# What a sentence announcing findings grades them with: "non-blocking follow-ups",
# "a blocking issue", "Nits:", "two blockers", "none of them blocking".
_NOUNS = (
    r"(?:follow[- ]?ups?|findings?|issues?|concerns?|comments?|problems?|bugs?|points?"
    r"|questions?|requests?|remarks?|things?|items?|changes?|notes?|suggestions?|nits?)"
)
_PROSE = re.compile(
    r"(?i:\b(?:(?P<negated>(?:non|not|none|nothing)[- ](?:of[ \t]+(?:them|these)[ \t]+)?blocking)"
    r"|(?P<graded>blocking|critical|important|major|minor|small|trivial|optional)"
    rf"[ \t]+{_NOUNS}\b"
    r"|(?P<noun>nit(?:pick)?s?|blockers?|suggestions?)\b))"
)


def severity_word(raw: str) -> str:
    """The reviewer's word as findings keep it: upper case, ``NON-BLOCKING`` spelled one way."""
    word = " ".join(raw.split()).upper()
    if word.endswith("BLOCKING") and word != "BLOCKING":
        return "NON-BLOCKING"
    return _PLURAL.get(word, word)


def level_of(severity: str) -> Level:
    """The level of a finding's severity word; :attr:`Level.NONE` for one not on the scale."""
    return _LEVEL_OF.get(severity_word(severity), Level.NONE)


def prose_severity(sentence: str) -> str:
    """The severity word a sentence grades its findings with, or "" when it names none.

    "Two non-blocking follow-ups:" gives ``NON-BLOCKING``, "one blocking issue"
    ``BLOCKING``, "A few nits:" ``NIT``. A word only counts next to a noun that
    names findings ("the blocking call" is code, not a grade).
    """
    match = _PROSE.search(sentence[:2000])
    if match is None:
        return ""
    if match.group("negated"):
        return "NON-BLOCKING"
    word = match.group("graded") or match.group("noun")
    word = {"SMALL": "MINOR"}.get(word.upper(), word)
    return severity_word(word)


# A list's lead-in that grades its items by its first word ("Blocking before this lands:"),
# or says they can wait ("Smaller things, fine as a follow-up:", "These can wait:").
_LEADING_WORD = re.compile(rf"[ \t*_]*{SEVERITY}")
_CAN_WAIT = re.compile(
    r"(?i:\b(?:fine|ok(?:ay)?|good)[ \t]+(?:as[ \t]+)?(?:a[ \t]+)?follow[- ]?ups?\b"
    r"|\bcan[ \t]+(?:wait|be[ \t]+(?:done[ \t]+)?later|follow)\b|\bnot[ \t]+urgent\b)"
)


def lead_in_severity(lead_in: str) -> str:
    """The severity a list's lead-in gives each of its items, or "": its words on findings
    (:func:`prose_severity`), a severity word it opens with, or that they can wait
    (``NON-BLOCKING``)."""
    found = prose_severity(lead_in)
    if found:
        return found
    leading = _LEADING_WORD.match(lead_in[:300])
    if leading is not None:
        return severity_word(leading.group(1))
    return "NON-BLOCKING" if _CAN_WAIT.search(lead_in[:300]) else ""
