"""The reflow matcher (lines.py's Reflow): what it finds, and that its new index changed nothing.

Reflow used to index its candidates by the first 8 bytes of the loosened
stream at each result line, so a lock file whose thousands of lines share
those bytes made it quadratic. It now looks candidates up by whole line; the
equivalence tests below run the old matcher (kept here, verbatim in logic, as
:class:`EightByteReflow`) and the new one on the same synthetic inputs and
demand the same answer for every start.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence

import pytest

from syncdesk.services.audit.lines import REFLOW_SPAN, Reflow, loosen


class EightByteReflow:
    """The matcher before the whole-line index: candidates keyed by the stream's first 8 bytes."""

    def __init__(self, result: Sequence[bytes]) -> None:
        parts = [loosen(line) for line in result]
        self._stream = b"".join(parts)
        self._offsets: list[int] = []
        self._numbers: list[int] = []
        self._boundaries: set[int] = set()
        self._index: dict[bytes, list[int]] = {}
        offset = 0
        for number, part in enumerate(parts, start=1):
            self._boundaries.add(offset)
            if part:
                self._offsets.append(offset)
                self._numbers.append(number)
                self._index.setdefault(self._stream[offset : offset + 8], []).append(offset)
            offset += len(part)
        self._boundaries.add(offset)

    def find(self, loose_dev: Sequence[bytes], start: int) -> tuple[int, int] | None:
        texts = loose_dev[start : start + REFLOW_SPAN]
        if not texts or not texts[0]:
            return None
        joined = b"".join(texts)
        for offset in self._index.get(joined[:8], ()):
            for end in range(len(texts) - 1, -1, -1):
                text = b"".join(texts[: end + 1])
                stop = offset + len(text)
                if stop not in self._boundaries or not self._stream.startswith(text, offset):
                    continue
                dev_lines = sum(1 for part in texts[: end + 1] if part)
                between = bisect_left(self._offsets, stop) - bisect_left(self._offsets, offset)
                if dev_lines >= 2 or between >= 2:
                    return start + end, self._numbers[bisect_left(self._offsets, offset)]
        return None


# -- synthetic inputs ----------------------------------------------------------------------

_NAMES = ["x", "y", "value", "batch", "config", "self.model", "args", "out", "i", "n"]
_CALLS = ["compute", "build", "load", "print", "get", "set", "f", "g"]


def _statement(rng: random.Random) -> str:
    """One line of Python-ish code, short or long, often with a call and arguments."""
    kind = rng.random()
    if kind < 0.1:
        return rng.choice(["", "pass", "return", "else:", ")", "]", "},", "# note"])
    if kind < 0.2:
        return f"{rng.choice(_NAMES)} = {rng.randint(0, 3)}"
    args = ", ".join(
        rng.choice([*_NAMES, f"{rng.choice(_NAMES)}={rng.randint(0, 9)}", '"text"'])
        for _ in range(rng.randint(0, 6))
    )
    call = f"{rng.choice(_CALLS)}({args})"
    if rng.random() < 0.5:
        call = f"{rng.choice(_NAMES)} = {call}"
    return call


def _split(line: str, rng: random.Random) -> list[str]:
    """A formatter's split of ``line``: one argument a line, with a magic trailing comma."""
    if "(" not in line or line.endswith("()"):
        return [line]
    head, _, rest = line.partition("(")
    args = [part.strip() for part in rest.rstrip(")").split(",") if part.strip()]
    if not args:
        return [line]
    body = [f"    {arg}," for arg in args]
    if rng.random() < 0.3:  # sometimes no trailing comma
        body[-1] = body[-1].rstrip(",")
    return [f"{head}(", *body, ")"]


def code_like(rng: random.Random, count: int) -> tuple[list[bytes], list[bytes]]:
    """A dev file and a result that joined, split, dropped, kept and added its statements."""
    dev: list[str] = []
    result: list[str] = []
    while len(dev) < count:
        line = _statement(rng)
        roll = rng.random()
        if roll < 0.15:  # the formatter split it in the result
            dev.append(line)
            result.extend(_split(line, rng))
        elif roll < 0.3:  # dev had it split, the result joined it
            pieces = _split(line, rng)
            dev.extend(pieces)
            result.append(line)
        elif roll < 0.4:  # lost
            dev.append(line)
        elif roll < 0.45:  # main's own line
            result.append(_statement(rng))
            dev.append(line)
            result.append(line)
        else:
            dev.append(line)
            result.append(line)
    return [line.encode() for line in dev], [line.encode() for line in result]


_PREFIX = "https://files.pythonhosted.example/packages"


def _package(rng: random.Random, number: int, wheels: int, split_wheel: bool) -> list[str]:
    """One [[package]] of a uv.lock-like file: its lines share long prefixes with every other's."""
    name = f"package-{number:05d}"
    lines = [
        "[[package]]",
        f'name = "{name}"',
        f'version = "{number % 7}.{number % 13}.{number % 5}"',
        'source = { registry = "https://pypi.example/simple" }',
        "dependencies = [",
        *(f'    {{ name = "package-{(number * 7 + k) % 997:05d}" }},' for k in range(2)),
        "]",
        f'sdist = {{ url = "{_PREFIX}/{number % 256:02x}/{name}.tar.gz", size = {number * 31} }}',
        "wheels = [",
    ]
    for wheel in range(wheels):
        digest = f"{rng.getrandbits(64):016x}"
        url = f"{_PREFIX}/{number % 256:02x}/{digest}/{name}-cp3{wheel}-manylinux.whl"
        if split_wheel and wheel == 0:  # a formatter spread this entry over four lines
            lines += [
                "    {",
                f'        url = "{url}",',
                f'        hash = "sha256:{digest}", size = {number + wheel}',
                "    },",
            ]
        else:
            lines.append(
                f'    {{ url = "{url}", hash = "sha256:{digest}", size = {number + wheel} }},'
            )
    lines += ["]", ""]
    return lines


def lock_like(seed: int, lines: int) -> tuple[list[bytes], list[bytes]]:
    """A uv.lock-like dev file of about ``lines`` lines, and a result that dropped, changed
    and reflowed some of its packages (the same random wheels on both sides)."""
    dev: list[str] = []
    result: list[str] = []
    number = 0
    while len(dev) < lines:
        wheels = 1 + number % 5
        dev_package = _package(random.Random(seed * 100_003 + number), number, wheels, False)
        roll = random.Random(seed + number).random()
        if roll < 0.1:  # dropped by the result
            pass
        elif roll < 0.25:  # reflowed by the result (the same wheels, spread over lines)
            result += _package(random.Random(seed * 100_003 + number), number, wheels, True)
        elif roll < 0.35:  # changed by the result
            result += _package(random.Random(seed + number), number + 1, wheels, False)
        else:
            result += dev_package
        dev += dev_package
        number += 1
    return [line.encode() for line in dev], [line.encode() for line in result]


def repetitive(rng: random.Random, count: int) -> tuple[list[bytes], list[bytes]]:
    """Both files made of a few short lines, in random order: many ways to spell each run."""
    alphabet = [b"a", b"b", b"ab", b"ba", b"aab", b"(a,", b"b)", b"", b"]", b"[[x]]"]
    dev = [rng.choice(alphabet) for _ in range(count)]
    result = [rng.choice(alphabet) for _ in range(count)]
    # Copy stretches of dev into the result, some joined into one line.
    for _ in range(count // 10):
        at, size = rng.randrange(count), rng.randint(1, 6)
        piece = dev[at : at + size]
        where = rng.randrange(len(result) + 1)
        result[where:where] = [b"".join(piece)] if rng.random() < 0.5 else piece
    return dev, result


def _same_answers(dev: list[bytes], result: list[bytes], starts: Sequence[int]) -> None:
    old, new = EightByteReflow(result), Reflow(result)
    loose = [loosen(line) for line in dev]
    for start in starts:
        assert new.find(loose, start) == old.find(loose, start), f"start {start}"


# -- the new index finds what the old one found --------------------------------------------


@pytest.mark.parametrize("seed", range(40))
def test_whole_line_index_matches_the_eight_byte_index_on_code(seed: int) -> None:
    rng = random.Random(seed)
    dev, result = code_like(rng, rng.randint(5, 400))
    _same_answers(dev, result, range(len(dev) + 1))


@pytest.mark.parametrize("seed", range(20))
def test_whole_line_index_matches_on_files_of_a_few_repeated_lines(seed: int) -> None:
    rng = random.Random(seed)
    dev, result = repetitive(rng, rng.randint(20, 300))
    _same_answers(dev, result, range(len(dev) + 1))


def test_whole_line_index_matches_on_tiny_and_empty_inputs() -> None:
    cases: list[tuple[list[bytes], list[bytes]]] = [
        ([], []),
        ([b"a"], []),
        ([], [b"a"]),
        ([b"f(a,", b"b)"], [b"f(a, b)"]),
        ([b"ab"], [b"a", b"b"]),  # one dev line, two result lines, shorter than 8 bytes
        ([b"a", b"b"], [b"ab", b"a", b"b"]),
        ([b"a", b"b", b"c"], [b"a", b"bc", b"ab", b"c"]),
        ([b"x", b"", b"y", b"zz"], [b"xy", b"", b"zz", b"xyzz"]),  # empty lines on both sides
        ([b"(", b"a", b")"], [b"a"]),
        ([b"   "], [b"(", b")"]),
    ]
    for dev, result in cases:
        _same_answers(dev, result, range(len(dev) + 1))


def test_whole_line_index_matches_on_a_10000_line_lock_file() -> None:
    dev, result = lock_like(0, 10_000)
    assert len(dev) >= 10_000
    loose_result = {loosen(line) for line in result}
    # Lines the result lacks (what the audit asks about), and a sample of the rest: the
    # old matcher takes a second or two per hundred starts on this file, which was the bug.
    lacking = [i for i, line in enumerate(dev) if loosen(line) not in loose_result]
    rng = random.Random(0)
    starts = sorted(set(rng.sample(lacking, 120)) | set(rng.sample(range(len(dev)), 80)))
    _same_answers(dev, result, starts)


def test_the_lock_file_shares_long_prefixes() -> None:
    """The input above is the hard case: thousands of lines alike in their first bytes."""
    _, result = lock_like(0, 10_000)
    firsts = [loosen(line)[:8] for line in result if loosen(line)]
    most = max(firsts.count(first) for first in set(firsts))
    assert most > 1_000
    urls = [loosen(line) for line in result if b"url=" in line]
    assert all(url.startswith(b'{url="' + _PREFIX.encode()) for url in urls if b"hash" in url)


# -- what it finds -------------------------------------------------------------------------


def _find(dev: list[bytes], result: list[bytes], start: int) -> tuple[int, int] | None:
    return Reflow(result).find([loosen(line) for line in dev], start)


def test_a_statement_the_result_joined_is_found_at_its_one_line() -> None:
    dev = [b"x = 1", b"value = compute(", b"    batch,", b"    size=3,", b")", b"y = 2"]
    result = [b"x = 1", b"value = compute(batch, size=3)", b"z = 3"]
    assert _find(dev, result, 1) == (4, 2)  # dev lines 2..5 (indices 1..4) are result line 2


def test_a_statement_the_result_split_is_found_at_its_first_line() -> None:
    dev = [b"a = 1", b"value = compute(batch, size=3)"]
    result = [b"a = 1", b"", b"value = compute(", b"    batch,", b"    size=3,", b")"]
    assert _find(dev, result, 1) == (1, 3)


def test_one_line_against_one_line_is_not_a_reflow() -> None:
    assert _find([b"f(a, b)"], [b"f(a,b)"], 0) is None


def test_the_first_place_in_the_result_wins() -> None:
    dev = [b"compute(alpha,", b"beta)"]
    result = [b"other()", b"compute(alpha, beta)", b"more()", b"compute(alpha, beta)"]
    assert _find(dev, result, 0) == (1, 2)


def test_a_run_shorter_than_8_bytes_matches_only_where_the_stream_goes_on_alike() -> None:
    """The old index's quirk, kept: a short run's candidates begin with its first 8 bytes."""
    dev = [b"f(a,", b"b)"]
    assert _find(dev, [b"g()", b"f(a, b)", b"h()", b"f(a, b)"], 0) == (1, 4)  # "fab" ends it
    assert _find(dev, [b"g()", b"f(a, b)", b"h()"], 0) is None


def test_a_lost_lock_entry_is_found_where_the_result_spread_it_over_lines() -> None:
    dev, result = lock_like(1, 10_000)
    reflow = Reflow(result)
    loose = [loosen(line) for line in dev]
    # Each four-line entry of the result is one dev line; find them all.
    found = 0
    for number, line in enumerate(result, start=1):
        if line != b"    {":
            continue
        url = loosen(result[number])  # the entry's url line
        start = next(i for i, dev_line in enumerate(loose) if dev_line.startswith(b"{" + url))
        hit = reflow.find(loose, start)
        assert hit is not None
        assert hit[1] == number
        found += 1
    assert found > 100
