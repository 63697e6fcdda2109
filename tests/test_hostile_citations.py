"""A hostile citation fails alone: anyone who can comment cannot break the findings.

A review linking ``…/blob/HEAD/../../etc/passwd#L1`` made ``report --with-pr``,
``findings --repo`` and the Findings screen fail whole ("'../../etc/passwd' is
outside repository"). Such a range is its own note; every other range is traced.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from syncdesk.services.demo.facts import DemoFacts

CITED = "lumen/models/attention.py"


@pytest.mark.parametrize(
    "hostile",
    [
        "https://github.com/lumen-ai/lumen/blob/HEAD/../../etc/passwd#L1",
        "https://github.com/lumen-ai/lumen/blob/HEAD/lumen/./models/attention.py#L1",
        "`/etc/passwd:1`",
    ],
)
def test_a_citation_outside_the_repository_is_a_note_and_the_rest_is_traced(
    demo_facts: DemoFacts, tmp_path: Path, hostile: str
) -> None:
    review = tmp_path / "review.md"
    review.write_text(
        f"1. **Blocking:** look at {hostile}\n2. **Nit:** and at `{CITED}:3`, please fix\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", "--text-file", str(review),
         "--repo", str(demo_facts.repo), "--head", demo_facts.sync_branch],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"{CITED}:3-3: lines 3-3:" in done.stdout  # traced
    assert "outside repository" not in done.stdout + done.stderr
