"""Real-looking Python modules for the demo project, built from small templates.

A module is data (:class:`Module`): a docstring, import lines, constants and
units (functions, classes, tests). Edits change the data and the text is
rendered again, so a one-line edit stays a one-line diff and blame stays
meaningful. Each template puts its tunable value (the *knob*) on exactly one
line: two branches that set a unit's knob to different values are certain to
conflict on that line, and two edits in different units are certain not to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from string import Template

KNOBS = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)

# Function templates: (source, the parameter a guard or a log line mentions).
# ``$`` placeholders (string.Template) so the generated f-strings keep their braces.
_FUNCTIONS: dict[str, tuple[str, str]] = {
    "validate": (
        '''\
def validate_$noun($noun: $Noun, *, limit: int = $knob) -> None:
    """Raise ``ValueError`` when ``$noun`` cannot be used as a $words."""
    if $noun.size <= 0:
        raise ValueError(f"$words size must be positive, got {$noun.size}")
    if $noun.size > limit:
        raise ValueError(f"$words size {$noun.size} is above the limit {limit}")''',
        "$noun",
    ),
    "stats": (
        '''\
def ${noun}_stats(values: Sequence[float], window: int = $knob) -> dict[str, float]:
    """Summarise the last ``window`` $words values for the step log."""
    recent = list(values)[-window:]
    if not recent:
        return {"count": 0.0, "mean": 0.0, "max": 0.0}
    return {
        "count": float(len(recent)),
        "mean": math.fsum(recent) / len(recent),
        "max": max(recent),
    }''',
        "values",
    ),
    "split": (
        '''\
def shard_$nouns(items: Sequence[T], world_size: int, rank: int) -> list[T]:
    """Return the $words items owned by ``rank``, padded so every rank gets as many."""
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is outside a world of size {world_size}")
    per_rank = max(1, math.ceil(len(items) / world_size))
    chunk = list(items[rank * per_rank : (rank + 1) * per_rank])
    while chunk and len(chunk) < min(per_rank, $knob):
        chunk.append(chunk[-1])
    return chunk''',
        "items",
    ),
    "wait": (
        '''\
def wait_for_$noun(handle: ${Noun}Handle, timeout_s: float = $knob.0) -> bool:
    """Poll ``handle`` until the $words is ready or ``timeout_s`` seconds have passed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if handle.ready():
            return True
        time.sleep(0.05)
    logger.warning("$words not ready after %.1fs", timeout_s)
    return False''',
        "handle",
    ),
    "from_dict": (
        '''\
def ${noun}_from_dict(data: Mapping[str, Any]) -> ${Noun}Config:
    """Build a ``${Noun}Config`` from a parsed YAML section, rejecting unknown keys."""
    known = {field.name for field in fields(${Noun}Config)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise KeyError(f"unknown $words keys: {', '.join(unknown[:$knob])}")
    return ${Noun}Config(**{key: value for key, value in data.items() if value is not None})''',
        "data",
    ),
    "merge": (
        '''\
def merge_$nouns(left: Mapping[str, int], right: Mapping[str, int]) -> dict[str, int]:
    """Combine two $words tallies, keeping the larger count for each key."""
    merged = dict(left)
    for key, count in right.items():
        merged[key] = max(merged.get(key, 0), count)
    if len(merged) > $knob:
        logger.info("$words tally has %d keys", len(merged))
    return merged''',
        "right",
    ),
    "key": (
        '''\
def ${noun}_key(rank: int, step: int, *, buckets: int = $knob) -> tuple[int, int]:
    """The cache key of a $words: its rank and the step bucket it falls in."""
    if buckets <= 0:
        raise ValueError("buckets must be positive")
    return rank, step % buckets''',
        "step",
    ),
}

_CLASSES: dict[str, str] = {
    "cache": '''\
class ${Noun}Cache:
    """An LRU cache of $words entries keyed by ``(rank, step)``."""

    def __init__(self, capacity: int = $knob) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[int, int], $Noun] = OrderedDict()

    def get(self, key: tuple[int, int]) -> $Noun | None:
        """Return the entry for ``key`` and mark it as recently used."""
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple[int, int], value: $Noun) -> None:
        """Store ``value``, evicting the least recently used entry when full."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)''',
    "config": '''\
@dataclass(frozen=True)
class ${Noun}Config:
    """Settings of the $words."""

    size: int = $knob
    dropout: float = 0.1
    enabled: bool = True''',
}

_TESTS: dict[str, str] = {
    "validate": """\
def test_validate_${noun}_rejects_oversized() -> None:
    $noun = $mod.$Noun(size=$big)
    with pytest.raises(ValueError, match="above the limit"):
        $mod.validate_$noun($noun, limit=$knob)""",
    "stats": """\
def test_${noun}_stats_of_nothing_is_zero() -> None:
    assert $mod.${noun}_stats([], window=$knob)["count"] == 0.0""",
    "split": """\
def test_shard_${nouns}_pads_the_last_rank() -> None:
    chunk = $mod.shard_$nouns(list(range(5)), world_size=2, rank=1)
    assert len(chunk) == min(3, $knob)""",
    "wait": """\
def test_wait_for_${noun}_times_out() -> None:
    handle = SimpleNamespace(ready=lambda: False)
    assert not $mod.wait_for_$noun(handle, timeout_s=0.01 * $knob)""",
    "from_dict": """\
def test_${noun}_from_dict_rejects_unknown_keys() -> None:
    with pytest.raises(KeyError, match="unknown"):
        $mod.${noun}_from_dict({"no_such_key_$knob": 1})""",
    "merge": """\
def test_merge_${nouns}_keeps_the_larger_count() -> None:
    assert $mod.merge_$nouns({"a": 1}, {"a": $knob, "b": 2}) == {"a": $knob, "b": 2}""",
    "key": """\
def test_${noun}_key_wraps_steps() -> None:
    assert $mod.${noun}_key(0, $knob + 1, buckets=$knob) == (0, 1)""",
    "cache": """\
def test_${noun}_cache_evicts_the_oldest() -> None:
    cache = $mod.${Noun}Cache(capacity=1)
    cache.put((0, 0), "first")
    cache.put((0, $knob), "second")
    assert cache.get((0, 0)) is None""",
    "config": """\
def test_${noun}_config_defaults() -> None:
    config = $mod.${Noun}Config()
    assert config.size == $knob
    assert config.enabled""",
}

FUNCTION_KINDS = tuple(_FUNCTIONS)
UNIT_KINDS = FUNCTION_KINDS + tuple(_CLASSES)

_FEATURES = {
    "guard": '    if $param is None:\n        raise TypeError("$param must not be None")',
    "log": '    logger.debug("$func: %r", $param)',
}

STDLIB_IMPORTS = (
    "import logging",
    "import math",
    "import os",
    "import time",
    "from collections import OrderedDict",
    "from collections.abc import Mapping, Sequence",
    "from dataclasses import dataclass, fields",
    "from typing import Any, TypeVar",
)


@dataclass(frozen=True, slots=True)
class Unit:
    """One top-level definition: a template instance, or hand-written ``text``."""

    kind: str  # a template name, "test_<kind>", or "raw"
    noun: str = ""
    knob: int = 0  # index into KNOBS
    features: tuple[str, ...] = ()
    text: str = ""
    module: str = ""  # for tests: the module under test, as imported

    @property
    def func(self) -> str:
        """The name this unit defines (read off its ``def``/``class`` line, not a full render)."""
        if self.kind == "raw":
            source = self.text
        elif self.kind.startswith("test_"):
            source = _TESTS[self.kind[5:]]
        else:
            source = _CLASSES.get(self.kind) or _FUNCTIONS[self.kind][0]
        line = next(line for line in source.split("\n") if line.startswith(("def ", "class ")))
        if self.kind != "raw":
            line = Template(line).substitute(self._values())
        return line.split()[1].split("(")[0].rstrip(":")

    @property
    def knob_value(self) -> int:
        """The value the knob line shows."""
        return KNOBS[self.knob % len(KNOBS)]

    def render(self) -> str:
        """The unit's source, without trailing newline."""
        if self.kind == "raw":
            return self.text.rstrip("\n")
        values = self._values()
        if self.kind.startswith("test_"):
            return Template(_TESTS[self.kind[5:]]).substitute(values)
        if self.kind in _CLASSES:
            return Template(_CLASSES[self.kind]).substitute(values)
        source, param = _FUNCTIONS[self.kind]
        lines = Template(source).substitute(values).split("\n")
        func = lines[0].split()[1].split("(")[0]
        param = Template(param).substitute(values)
        extra = [
            Template(_FEATURES[name]).substitute(param=param, func=func)
            for name in ("guard", "log")
            if name in self.features
        ]
        # Feature lines go right after the docstring, where a reviewer expects them.
        return "\n".join([*lines[:2], *extra, *lines[2:]])

    def _values(self) -> dict[str, str]:
        return {
            "noun": self.noun,
            "Noun": "".join(part.title() for part in self.noun.split("_")),
            "words": self.noun.replace("_", " "),
            "nouns": plural(self.noun),
            "knob": str(self.knob_value),
            "big": str(self.knob_value * 2),
            "mod": self.module,
        }

    def test(self, module: str) -> Unit:
        """A test unit for this unit, calling it through ``module``."""
        return Unit(f"test_{self.kind}", self.noun, self.knob, module=module)


@dataclass(frozen=True, slots=True)
class Module:
    """A Python source file as data."""

    doc: str
    imports: tuple[str, ...]  # lines; "" separates import groups
    constants: tuple[tuple[str, int], ...] = ()
    units: tuple[Unit, ...] = ()
    preamble: tuple[str, ...] = ("logger = logging.getLogger(__name__)", 'T = TypeVar("T")')

    def render(self) -> str:
        """The file's text."""
        head = [f'"""{self.doc}"""', "from __future__ import annotations", "\n".join(self.imports)]
        if self.preamble:
            head.append("\n".join(self.preamble))
        if self.constants:
            head.append("\n".join(f"{name} = {value}" for name, value in self.constants))
        body = "\n\n\n".join(unit.render() for unit in self.units)
        return "\n\n".join(head) + ("\n\n\n" + body if body else "") + "\n"

    def with_unit(self, index: int, unit: Unit) -> Module:
        """This module with unit ``index`` replaced."""
        units = list(self.units)
        units[index] = unit
        return replace(self, units=tuple(units))

    def with_knob(self, index: int, knob: int) -> Module:
        """This module with unit ``index`` tuned to knob ``knob``."""
        return self.with_unit(index, replace(self.units[index], knob=knob))

    def with_feature(self, index: int, feature: str) -> Module:
        """This module with a guard or log line added to function ``index``."""
        unit = self.units[index]
        return self.with_unit(index, replace(unit, features=(*unit.features, feature)))

    def appended(self, *units: Unit) -> Module:
        """This module with ``units`` added at the end."""
        return replace(self, units=(*self.units, *units))

    def with_import(self, old: str, new: str) -> Module:
        """This module with import line ``old`` replaced by ``new``."""
        lines = list(self.imports)
        lines[lines.index(old)] = new
        return replace(self, imports=tuple(lines))

    def with_constant(self, name: str, value: int) -> Module:
        """This module with constant ``name`` set to ``value``."""
        constants = tuple((key, value if key == name else old) for key, old in self.constants)
        return replace(self, constants=constants)


def plural(noun: str) -> str:
    """``prefix`` -> ``prefixes``, ``token_budget`` -> ``token_budgets``."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"
