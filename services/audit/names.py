"""What a lost line names: the names it defined, the function holding it, lines like it.

- :func:`defined_names`: what a line defines (a function and its parameters, a
  class, an attribute, a field, a module-level name, an import, a flag, a
  YAML key). A lost definition whose name main never mentions and the head
  still uses is the strongest sign of an accident: dev's feature survived in
  part (its callers, its tests) and lost the piece that made it work. The
  audit asks the head's whole tree with one ``git grep`` and ranks such lines
  first (``still-referenced``).
- :func:`enclosing_definition`: the function or class a line belongs to, so
  that a whole dev function main and the head both lack stays an accident.
- :class:`SimilarLines`: whether main wrote its own version of a line (at
  least half of their words shared), which supersedes dev's.

The tests are textual, over identifier tokens, and deliberately narrow: a
strong sign must stay strong.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet  # typing's name for a read-only set

_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_DIGITS = b"0123456789"
_AFTER_DIGITS = ord("9") + 1  # a word's first byte below this is a digit
_WORD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_" + _DIGITS
# Every byte that cannot be part of an identifier, as a space.
_WORD_BYTES_ONLY = bytes(byte if byte in _WORD_BYTES else ord(" ") for byte in range(256))
# The same with line breaks kept (byte 10), so a file's lines stay apart.
_WORDS_BY_LINE = _WORD_BYTES_ONLY[:10] + b"\n" + _WORD_BYTES_ONLY[11:]
# In such a line, a word that starts with a digit.
_DIGIT_LED = re.compile(rb"(?:^| )[0-9]")
_DEFINITIONS = (
    re.compile(rb"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\((.*)"),  # def name(params
    re.compile(rb"^\s*class\s+([A-Za-z_]\w*)"),
    re.compile(rb"^\s*self\.([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)"),  # self.name = ...
    re.compile(rb"^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)"),  # a module-level name = value
)
# A parameter or a dataclass field: ``name: Type [= default][,]`` (the type checked apart).
_ANNOTATED = re.compile(rb"^\s*([A-Za-z_]\w*)\s*:\s*([^=#]*?)\s*(?:=(?!=).*?)?,?\s*$")
_TYPE = re.compile(rb"^[\w.\"']+(?:\s*\|\s*[\w.\"']+)*$")  # Optional, a.B, "Fwd" | None
_BRACKETS = re.compile(rb"\[[^\[\]]*\]")
# An import binds names: ``from a import b, c as d`` -> b, d; ``import a.b as c`` -> c.
_FROM_IMPORT = re.compile(rb"^\s*from\s+[\w.]+\s+import\s+\(?([^#]*)")
_IMPORT = re.compile(rb"^\s*import\s+([^#]*)")
_YAML_KEY = re.compile(rb"^\s*-?\s*([A-Za-z_][\w-]*)\s*:(?:\s|$)")
_YAML = (".yaml", ".yml")
# Local variables (an indented ``name = value``) and keyword arguments are not
# definitions here: their names recur everywhere and would prove nothing.
_FLAG = re.compile(rb"""["']--([A-Za-z][\w-]*)["']""")  # argparse: "--some-flag"
_PARAMETER = re.compile(rb"(?:^|,)\s*\*{0,2}([A-Za-z_]\w*)")
# Names too common to say anything: a lost `x = 1` proves nothing by `x` appearing elsewhere.
_TOO_COMMON = frozenset(
    {b"self", b"cls", b"args", b"kwargs", b"name", b"value", b"config", b"type", b"data"}
)
_SHORTEST = 3


def defined_names(line: bytes, path: str = "") -> set[bytes]:
    """The names ``line`` defines: a function and its parameters, a class, an attribute,
    a parameter or field, a module-level name, a command-line flag (as its ``dest``),
    and in a YAML file (``path``) a key."""
    found: set[bytes] = set()
    for pattern in _DEFINITIONS:
        match = pattern.match(line)
        if match is None:
            continue
        found.add(match.group(1))
        if pattern is _DEFINITIONS[0]:  # def name(a, b: int = 1, *rest
            found.update(p.group(1) for p in _PARAMETER.finditer(match.group(2)))
        break
    else:
        found |= _imported(line)
        annotated = _ANNOTATED.match(line)
        if annotated is not None and _is_type(annotated.group(2)):
            found.add(annotated.group(1))
        elif path.endswith(_YAML) and (key := _YAML_KEY.match(line)) is not None:
            found.add(key.group(1).replace(b"-", b"_"))
    found.update(flag.group(1).replace(b"-", b"_") for flag in _FLAG.finditer(line))
    return {
        name
        for name in found
        if len(name) >= _SHORTEST
        and name not in _TOO_COMMON
        and not keyword.iskeyword(name.decode("ascii", "replace"))
    }


def defines(lines: Iterable[bytes], name: bytes, path: str = "") -> bool:
    """Whether one of ``lines`` (of ``path``) defines ``name`` (:func:`defined_names`).

    Only the lines that spell the name are read: a line defines a name by
    spelling it, or a flag or a YAML key with dashes for its underscores
    (``"--a-b_c"`` defines ``a_b_c``).
    """
    return any(
        name in defined_names(line, path) for line in lines if name in line.replace(b"-", b"_")
    )


def imported_names(line: bytes) -> set[bytes]:
    """The names an import line binds (none for any other line)."""
    return _imported(line)


def _imported(line: bytes) -> set[bytes]:
    """The names an import line binds in its module."""
    names: set[bytes] = set()
    if (match := _FROM_IMPORT.match(line)) is not None:
        for part in match.group(1).replace(b")", b"").split(b","):
            words = part.split()
            if words:
                names.add(words[-1])  # "b" or "c as d" -> d
    elif (match := _IMPORT.match(line)) is not None:
        for part in match.group(1).split(b","):
            words = part.split()
            if words:
                names.add(words[-1] if b"as" in words else words[0].split(b".")[0])
    return {name for name in names if _IDENTIFIER.fullmatch(name)}


def _is_type(text: bytes) -> bool:
    """Whether ``text`` reads as a type annotation, not prose (``Returns: the value``)."""
    while (shorter := _BRACKETS.sub(b"", text)) != text:
        text = shorter
    return bool(text) and _TYPE.match(text) is not None


def identifiers(data: bytes) -> set[bytes]:
    """Every identifier token of ``data`` (what ``_IDENTIFIER.findall`` finds, as a set).

    Whole files are read this way (main's side of every changed file), so the
    words are cut at C speed: every byte that is not a word byte becomes a
    space, and the words split there. A word that starts with a digit (``1e5``,
    ``0x1f``) holds the identifier after its leading digits, as the regex reads it.
    """
    found = set(data.translate(_WORD_BYTES_ONLY).split())
    numbers = {word for word in found if word[0] < _AFTER_DIGITS}
    if numbers:
        found -= numbers
        found.update(word.lstrip(_DIGITS) for word in numbers)
        found.discard(b"")
    return found


def lines_naming(lines: Sequence[bytes], names: AbstractSet[bytes]) -> list[int]:
    """The 0-based indices of the lines whose :func:`identifiers` may include one of
    ``names``: every such line, and the few others with a word that starts with a
    digit (``1e5`` holds ``e5``), which the caller's own test sorts out.

    The whole file becomes its words in one translate (line breaks kept), so
    each line costs a split and a set test at C speed, not a regex.
    """
    if not names or not lines:
        return []
    words = b"\n".join(lines).translate(_WORDS_BY_LINE).split(b"\n")
    return [
        at
        for at, line in enumerate(words)
        if not names.isdisjoint(line.split()) or _DIGIT_LED.search(line)
    ]


_TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")
# Lines sharing this share of their words are versions of each other (a rename,
# a new argument, a reworded comment); fewer than two words is too little to say.
SIMILAR = 0.5
_FEWEST_WORDS = 2
# Words every other line holds: sharing only these says nothing (``x: int = 0``, ``y: int = 0``).
_PLAIN = frozenset(
    {b"True", b"False", b"None", b"self", b"return", b"bool", b"float", b"list", b"dict",
     b"tuple", b"torch", b"Tensor", b"Optional", b"assert", b"import", b"from", b"with",
     b"else", b"elif", b"lambda", b"yield", b"pass", b"raise", b"while", b"print"}
)  # fmt: skip


def words(line: bytes) -> frozenset[bytes]:
    """The identifiers and numbers of a line (its words, in no order)."""
    return frozenset(_TOKEN.findall(line))


class SimilarLines:
    """Find, among many lines, the one sharing most of a line's words.

    Two lines are versions of each other when they share at least half of
    their words together (Jaccard >= 0.5). Such a line must hold one of the
    rarest ``n - ceil(n/2) + 1`` words of a line of ``n`` words (prefix
    filtering), so only the lines indexed under those words are compared.
    """

    def __init__(self, lines: Iterable[bytes]) -> None:
        self._words: list[tuple[frozenset[bytes], bytes]] = []
        self._index: dict[bytes, list[int]] = {}
        for line in lines:
            found = words(line)
            if len(found) < _FEWEST_WORDS:
                continue
            for word in found:
                self._index.setdefault(word, []).append(len(self._words))
            self._words.append((found, line))

    def most_similar(self, line: bytes) -> bytes | None:
        """The most similar line (None: no line shares half of their words)."""
        mine = words(line)
        if len(mine) < _FEWEST_WORDS:
            return None
        rarest = sorted(mine, key=lambda word: (len(self._index.get(word, ())), word))
        prefix = rarest[: len(mine) - math.ceil(len(mine) * SIMILAR) + 1]
        candidates = {at for word in prefix for at in self._index.get(word, ())}
        best, best_score = None, SIMILAR
        for at in sorted(candidates):
            theirs, other = self._words[at]
            shared = mine & theirs
            score = len(shared) / len(mine | theirs)
            if score < best_score or (best is not None and score == best_score):
                continue
            if any(len(word) >= _SHORTEST + 1 and word not in _PLAIN for word in shared):
                best, best_score = other, score
        return best


_DEF = re.compile(rb"^(\s*)(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")


def definition_name(line: bytes) -> bytes | None:
    """The function or class a ``def`` or ``class`` line starts, if it starts one."""
    match = _DEF.match(line)
    return match.group(2) if match is not None else None


# ``def`` and ``class`` found by their keyword (a fast literal search); the rest
# of the line before it must be indentation (and ``async``).
_DEF_KEYWORD = re.compile(rb"def[ \t]+([A-Za-z_]\w*)")
_CLASS_KEYWORD = re.compile(rb"class[ \t]+([A-Za-z_]\w*)")
_DEF_MARGIN = re.compile(rb"[ \t]*(?:async[ \t]+)?")


def definitions(data: bytes) -> set[bytes]:
    """The names of the functions and classes a file defines: every line that is
    ``def name``/``async def name``/``class name`` after its indentation.

    A whole file is read at once: a regex anchored at each line start tries
    every byte (200 ms over a large sync's files); searching the keywords
    first and checking what precedes them on their line takes a tenth of that.
    """
    found: set[bytes] = set()
    for opener in (_DEF_KEYWORD, _CLASS_KEYWORD):
        for match in opener.finditer(data):
            start = match.start()
            line_start = data.rfind(b"\n", 0, start) + 1
            if _DEF_MARGIN.fullmatch(data, line_start, start):
                found.add(match.group(1))
    return found


def enclosing_definition(lines: Sequence[bytes], index: int) -> bytes | None:
    """The name of the function or class whose body holds ``lines[index]`` (0-based), if any."""
    return outline(lines)[index]


def outline(lines: Sequence[bytes]) -> list[bytes | None]:
    """For every line, the function or class whose body holds it (None: none, or blank).

    The nearest ``def`` or ``class`` above a line and indented less than it,
    through any ``if``/``for``/``with`` blocks in between; a block at the
    left margin that is not a definition ends the search. Blank lines and
    deeper lines do not end a body, and a line opening with a closing bracket
    (a signature's ``):``) belongs to the line that opened the bracket. One
    pass, keeping the chain of enclosing lines (strictly less indented, top
    to bottom) on a stack.
    """
    return outline_and_owners(lines)[0]


def outline_and_owners(lines: Sequence[bytes]) -> tuple[list[bytes | None], list[bytes | None]]:
    """:func:`outline`, and the same where a ``def``/``class`` line belongs to what it
    defines (its owner), computed in the one pass.

    Each entry of the chain keeps, beside its indent, the holder of the lines
    below it (its own name, or else its own holder's: none for a plain margin
    block, which empties the chain), so a line's holder is read off the top of
    the chain: no walk down it but for a closing-bracket line, which sees the
    chain without popping.
    """
    indents: list[int] = []  # the chain of enclosing lines, strictly less indented
    below: list[bytes | None] = []  # ... and the holder of the lines below each
    out: list[bytes | None] = []
    owners: list[bytes | None] = []
    for line in lines:
        stripped = line.lstrip()
        if not stripped:
            out.append(None)
            owners.append(None)
            continue
        indent = len(line) - len(stripped)
        lead = stripped[0]
        if lead in _CLOSERS:
            at = len(indents) - 1
            while at >= 0 and indents[at] >= indent:
                at -= 1  # only a closing-bracket line sees entries this deep
            holder = below[at] if at >= 0 else None
            out.append(holder)
            owners.append(holder)
            continue
        while indents and indents[-1] >= indent:
            indents.pop()
            below.pop()
        holder = below[-1] if below else None
        out.append(holder)
        # Only a line starting "def", "class" or "async" can define (a cheap test first).
        match = _DEF.match(line) if lead in _DEFINERS else None
        name = match.group(2) if match is not None else None
        owners.append(name or holder)
        indents.append(indent)
        below.append(name if name is not None else holder)  # at the margin, holder is None
    return out, owners


_CLOSERS = frozenset(b")]}")
_DEFINERS = frozenset(b"dca")


# ``a = ...``, ``a, b = ...``, ``a: T = ...``, ``a += ...``: the names a line assigns.
_ASSIGNED = re.compile(
    rb"^\s*([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]*)?[-+*/|&]?=(?!=)"
)
_LOOP_OR_WITH = re.compile(rb"^\s*(?:for\s+([\w\s,]+?)\s+in\b|with\s.*\bas\s+(\w+))")
_HOLE = b"\x00"


def local_names(lines: Iterable[bytes]) -> frozenset[bytes]:
    """The names a function's lines bind: its parameters, assignment, loop and ``with``
    targets. Renaming them changes nothing outside the function."""
    found: set[bytes] = set()
    for line in lines:
        if (match := _DEFINITIONS[0].match(line)) is not None:
            found.update(p.group(1) for p in _PARAMETER.finditer(match.group(2)))
        elif (match := _ASSIGNED.match(line)) is not None:
            found.update(_IDENTIFIER.findall(match.group(1)))
        elif (match := _LOOP_OR_WITH.match(line)) is not None:
            found.update(_IDENTIFIER.findall(match.group(1) or match.group(2) or b""))
    return frozenset(found - {b"self", b"cls"})


def shape(line: bytes, local: frozenset[bytes]) -> bytes | None:
    """The line without whitespace, one quote style, each of ``local`` a hole: two
    versions of a statement that differ only in local names have one shape. None when
    too little is left to say anything (fewer than two words that are not holes)."""
    if len(words(line) - local) < _FEWEST_SHAPED:
        return None
    shaped = _IDENTIFIER.sub(lambda m: _HOLE if m.group() in local else m.group(), line.strip())
    return b"".join(shaped.replace(b"'", b'"').split())


_FEWEST_SHAPED = 2
