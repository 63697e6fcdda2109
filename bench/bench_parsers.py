"""Benchmark: the review-text parsers on hostile bodies of 1–2 MB, against one pass over the text.

Review bodies and PR descriptions are untrusted and can be large; both parsers
use bounded regular expressions so that no body makes them backtrack. This
prints, per hostile body, the parser's time beside the floor that no parser
can skip (splitting the text into lines once, measured in the same run) and
their ratio: a ratio that grows with the body's size is a backtracking bug.
The bodies are the tests' own (``tests/test_findings.py``,
``tests/test_pr_body.py``), so what the tests check is what is timed here.
Not a test: nothing here asserts on time.

    PYTHONPATH=. .venv/bin/python bench/bench_parsers.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from syncdesk.services.demo.world import build_world
from syncdesk.services.description.check import verify_body
from syncdesk.services.review.parse import parse_text
from syncdesk.services.sync.session import load_report
from tests.test_findings import HOSTILE_BODIES
from tests.test_pr_body import _JUNK, hand_written
from tests.worlds import demo_session

ROUNDS = 3


def best_of(work: Callable[[], object]) -> float:
    """The median of a few runs, in seconds: the machine's noise, not the code's."""
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def row(name: str, text: str, parse: Callable[[], object]) -> str:
    floor = best_of(text.splitlines)
    took = best_of(parse)
    size = f"{len(text) / 1e6:.1f} MB"
    return f"| {name} | {size} | {took * 1e3:.0f} ms | {floor * 1e3:.1f} ms | {took / floor:.0f}x |"


def main() -> None:
    print("| body | size | syncdesk | floor (splitlines) | ratio |")
    print("|---|---|---|---|---|")
    for name, text in sorted(HOSTILE_BODIES.items()):
        print(row(f"review: {name}", text, partial(parse_text, text, review_id=1)))
    with tempfile.TemporaryDirectory() as scratch:
        report = load_report(demo_session(build_world(Path(scratch) / "demo")), detail=False)
        for name, unit in _JUNK.items():
            body = hand_written(report) + unit * (1_000_000 // len(unit) + 1)
            print(row(f"description: {name}", body, partial(verify_body, body, report)))


if __name__ == "__main__":
    main()
