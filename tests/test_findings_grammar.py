"""The review grammar shape by shape: ids, headers, tags, lists, tables, ranges, hints, the scale.

Every text is written for a fictional serving stack, "kestrel", in the shapes reviewers of a
sync pull request use (docs/findings.md lists them). tests/test_findings.py holds the shapes
of the review bot the product was designed from; tests/test_findings_corpus.py checks whole
reviews against a real repository.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from syncdesk.services.github.models import Review
from syncdesk.services.review.actionable import nothing_to_act_on
from syncdesk.services.review.advice import suggest_disposition
from syncdesk.services.review.links import prose_ranges
from syncdesk.services.review.models import CitedRange, Disposition
from syncdesk.services.review.parse import (
    SHAPES,
    collect_findings,
    finding_from_comment,
    natural_key,
    parse_text,
    review_findings,
)
from syncdesk.services.review.paths import full_paths
from syncdesk.services.review.render import findings_to_text
from syncdesk.services.review.severity import Level, level_of, prose_severity, severity_word
from tests.reviewbuilders import inline_comment

SHA = "5e6f708192a3b4c5d6e7f809123456781a2b3c4d"
BLOB = f"https://github.com/kestrel-ai/kestrel/blob/{SHA}"
DOCS = Path(__file__).parent.parent / "docs" / "findings.md"


def by_id(findings):
    return {finding.id: finding for finding in findings}


def spans(finding):
    return [(r.path, r.start, r.end) for r in finding.ranges]


# -- headers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "finding_id", "severity", "category", "title"),
    [
        (
            "### R07 — Warm-up requests skip the admission check [IMPORTANT Correctness]",
            "R7",
            "IMPORTANT",
            "Correctness",
            "Warm-up requests skip the admission check",
        ),
        (
            "**F2: Positional order of the pool arguments** (important)",
            "F2",
            "IMPORTANT",
            "",
            "Positional order of the pool arguments",
        ),
        (
            "**F1 (CRITICAL) — Shutdown leaves pinned pages behind**",
            "F1",
            "CRITICAL",
            "",
            "Shutdown leaves pinned pages behind",
        ),
        (
            "F3 [minor] The flag help text is stale.",
            "F3",
            "MINOR",
            "",
            "The flag help text is stale.",
        ),
        ("#3 — Drain the queue on reload", "#3", "", "", "Drain the queue on reload"),
        ("### #12: Drain the queue on reload", "#12", "", "", "Drain the queue on reload"),
        ("- R004 - Drain the queue on reload (nit)", "R4", "NIT", "", "Drain the queue on reload"),
        ("1. **F9** — Drain the queue on reload", "F9", "", "", "Drain the queue on reload"),
        ("F5 — Drain [P1] the queue on reload", "F5", "P1", "", "Drain the queue on reload"),
    ],
)
def test_header_shapes(line, finding_id, severity, category, title):
    [finding] = parse_text(f"{line}\n\nThe scheduler keeps them forever.\n")
    assert (finding.id, finding.severity, finding.category) == (finding_id, severity, category)
    assert finding.title == title
    assert finding.body.endswith("The scheduler keeps them forever.")


def test_a_bracket_tag_in_place_of_a_separator_titles_the_first_sentence():
    [finding] = parse_text("F3 [minor] The flag help text is stale. It names the old default.\n")
    assert finding.title == "The flag help text is stale."
    assert finding.body == "It names the old default."


def test_a_bold_title_ends_where_the_bold_does():
    text = "**F4: Pool size** (major) — the pool is sized before the config is read.\n"
    [finding] = parse_text(text)
    assert (finding.id, finding.title, finding.severity) == ("F4", "Pool size", "MAJOR")
    assert finding.body == "— the pool is sized before the config is read."


def test_a_bold_blocking_tag_opens_a_finding_with_a_generated_id():
    text = (
        "Read the merge resolution twice.\n\n"
        "**[BLOCKING]** The merged batcher drops dev's flush-on-close in "
        "`kestrel/serving/batcher.py:40-44`. Put it back.\n"
    )
    [finding] = parse_text(text, review_id=77, head=SHA)
    assert (finding.id, finding.severity, finding.level) == ("R77-1", "BLOCKING", Level.CRITICAL)
    assert (
        finding.title
        == "The merged batcher drops dev's flush-on-close in kestrel/serving/batcher.py:40-44."
    )
    assert finding.ranges == (
        CitedRange("kestrel/serving/batcher.py", 40, 44, commit=SHA, source="prose"),
    )


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("Nit: call it pending_batch.", "NIT"),
        ("**Minor:** the docstring still says seconds.", "MINOR"),
        ("Non-blocking — a test for the empty pool would help.", "NON-BLOCKING"),
        ("(nit) call it pending_batch.", "NIT"),
        ("The retry helper [suggestion] could share the backoff table.", "SUGGESTION"),
    ],
)
def test_tag_shapes_without_an_id(text, severity):
    [finding] = parse_text(text)
    assert (finding.id, finding.severity) == ("T1", severity)
    assert "[" not in finding.title and "(nit)" not in finding.title


@pytest.mark.parametrize(
    "text",
    [
        "Important: the dependency files are kept from dev.",
        "> [!IMPORTANT]\n> The dependency files are kept from dev.",
        "- [dev] Restore the overlap of expert gradients\n- [data] Read the new shard format",
        "F2 (see the first round) is the same concern.",
        "Critical path timings are unchanged.",
        "R2 score went up.",
        "Fixes #1234 and closes #1240.",
    ],
)
def test_lines_that_only_look_like_findings(text):
    assert parse_text(text) == []


def test_headers_and_hints_inside_code_are_code():
    text = "F1 — Real one\n\n```text\nR2 — in a log\nF1 is fixed\n```\n\n    F3 — indented\n"
    [finding] = parse_text(text)
    assert (finding.id, finding.status) == ("F1", "")


# -- where a finding ends --------------------------------------------------------------------------


def test_a_heading_that_is_no_finding_ends_one_and_a_sub_heading_does_not():
    text = (
        "### F4 — Lock the block table once\n\nTwo writers race.\n\n"
        "#### Correction\n\nTake the lock in allocate().\n\n"
        "## How this review was run\n\nOnly the merge was read.\n"
    )
    [finding] = parse_text(text)
    assert finding.body.startswith("Two writers race.")
    assert finding.body.endswith("Take the lock in allocate().")


def test_a_summary_finding_ends_at_its_details_close():
    text = (
        "<details>\n<summary><b>R09</b> — The cache key misses the rank</summary>\n"
        "Two ranks share one entry.\nCode: kestrel/cache/blocks.py:10-12\n</details>\n\n"
        "Thanks for the quick turnaround on the merge.\n"
    )
    [finding] = parse_text(text, head=SHA)
    assert (finding.id, finding.title) == ("R9", "The cache key misses the rank")
    assert finding.body == "Two ranks share one entry.\nCode: kestrel/cache/blocks.py:10-12"
    assert spans(finding) == [("kestrel/cache/blocks.py", 10, 12)]


def test_a_summary_with_an_f_id_is_a_header():
    text = (
        "<details><summary>F7 — Flush partial batches</summary>\n\nClose drops them.\n\n</details>"
    )
    [finding] = parse_text(text)
    assert (finding.id, finding.title, finding.body) == (
        "F7",
        "Flush partial batches",
        "Close drops them.",
    )


# -- the priority table, joined by id ----------------------------------------------------------

REVIEW_WITH_TABLES = f"""\
Pass over the merge resolution and the repair commit.

| ID | Review priority | Area | Related PRs |
|---|---|---|---|
| R01 | Critical | Correctness | #4411 |
| R02 | Important | Packaging | — |
| R03 | Suggestion | Docs | #4420 |
| R04 | n/a | — | — |

<details><summary>R01 — Every rank reseeds with one value</summary>

Each rank draws the same stream, so dropout masks repeat across ranks.

Code: [sampler.py#L10-L20]({BLOB}/kestrel/sampling/sampler.py#L10-L20), \
[ranks.py#L3]({BLOB}/kestrel/sampling/ranks.py#L3)

</details>

<details><summary>R02 — The wheel ships the test data</summary>

The package globs pick up tests/data.

Code: [pyproject.toml#L30-L34]({BLOB}/pyproject.toml#L30-L34)

</details>

### Per file

| File | Result |
|---|---|
| `kestrel/sampling/sampler.py` | R01 |
| `docs/flags.md` | No additional actionable finding |
"""


def test_details_blocks_take_severity_and_area_from_the_priority_table():
    findings = parse_text(REVIEW_WITH_TABLES, review_id=5, head=SHA)
    assert [f.id for f in findings] == ["R1", "R2", "R3"]  # R04's row has nothing to act on
    r1, r2, r3 = findings
    assert (r1.severity, r1.level, r1.category) == ("CRITICAL", Level.CRITICAL, "Correctness")
    assert r1.title == "Every rank reseeds with one value"
    assert spans(r1) == [
        ("kestrel/sampling/sampler.py", 10, 20),
        ("kestrel/sampling/ranks.py", 3, 3),
    ]
    assert all(r.commit == SHA for r in r1.ranges)
    assert "Per file" not in r2.body and "</details>" not in r2.body
    assert (r2.severity, r2.category) == ("IMPORTANT", "Packaging")
    # a row with no details block is a finding of its own, its cells in words
    assert (r3.severity, r3.category, r3.body) == (
        "SUGGESTION",
        "Docs",
        "Review priority: Suggestion; Area: Docs; Related PRs: #4420",
    )


def test_a_table_gives_titles_and_statuses_by_its_column_names():
    text = (
        "| # | Severity | Title | Status |\n|---|---|---|---|\n"
        "| F1 | high | Bound the retry loop | open |\n"
        "| F2 | low | Rename tmp2 | addressed |\n"
        "| F3 | nit | Spelling in the help | superseded by F1 |\n"
    )
    findings = parse_text(text)
    assert [(f.id, f.severity, f.title, f.status) for f in findings] == [
        ("F1", "HIGH", "Bound the retry loop", "unresolved"),
        ("F2", "LOW", "Rename tmp2", "closed"),
        ("F3", "NIT", "Spelling in the help", "superseded"),
    ]


def test_tables_without_an_id_column_give_no_finding():
    text = (
        "| Finding | Origin | Disposition |\n|---|---|---|\n"
        "| F1 cache handshake | main 1a2b3c4 | Fix on main |\n"
        "| F4 scheduler starvation | the repair commit | Closed |\n"
    )
    assert parse_text(text) == []


# -- announced lists -----------------------------------------------------------------------------

FOLLOW_UPS = """\
Thanks for carrying the resolutions over. Two non-blocking follow-ups:

1. In `kestrel/serving/batcher.py`, the close path at line 40 cancels the timer before it
   flushes; a comment saying why would help the next reader.
2. tests/serving/test_batcher.py lines 12–18 build the same fixture as conftest does.

Otherwise LGTM.
"""


def test_announced_follow_ups_are_findings_graded_by_their_lead_in():
    first, second = parse_text(FOLLOW_UPS, review_id=8, head=SHA)
    assert (first.id, second.id) == ("R8-1", "R8-2")
    assert {first.severity, second.severity} == {"NON-BLOCKING"}
    assert first.level is Level.LOW
    assert first.title == (  # the whole first sentence, over the item's line break
        "In kestrel/serving/batcher.py, the close path at line 40 cancels the timer before it "
        "flushes; a comment saying why would help the next reader."
    )
    assert spans(first) == [("kestrel/serving/batcher.py", 40, 40)]
    assert spans(second) == [("tests/serving/test_batcher.py", 12, 18)]
    assert "LGTM" not in second.body


@pytest.mark.parametrize(
    ("lead_in", "severity"),
    [
        ("A few nits:", "NIT"),
        ("One blocking issue, then a question:", "BLOCKING"),
        ("Follow-ups", ""),
        ("Three things to fix later, none of them blocking:", "NON-BLOCKING"),
        ("Some minor concerns:", "MINOR"),
    ],
)
def test_lead_ins_that_announce_findings(lead_in, severity):
    text = f"{lead_in}\n\n- Bound the queue.\n- Rename tmp2.\n"
    findings = parse_text(text)
    assert [(f.title, f.severity) for f in findings] == [
        ("Bound the queue.", severity),
        ("Rename tmp2.", severity),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "What changed:\n\n- The merge commit.\n- One repair commit.\n",
        "Tested:\n1. Unit tests on the head.\n2. The functional smoke run.\n",
        "No further comments:\n- none\n",
        "Follow-ups:\n- none\n- n/a\n",
    ],
)
def test_lists_that_announce_no_findings(text):
    assert parse_text(text) == []


def test_tag_led_items_end_with_their_item():
    text = "- [nit] rename tmp2\n- [minor] the docstring says seconds\n\nThanks, nice work.\n"
    findings = parse_text(text)
    assert [(f.severity, f.body) for f in findings] == [
        ("NIT", "rename tmp2"),
        ("MINOR", "the docstring says seconds"),
    ]


# -- a review with no finding shape --------------------------------------------------------------


def test_a_prose_review_is_one_finding_holding_all_of_it():
    text = (
        "Thanks for the rebuild.\n\n"
        "I'm worried about the retry helper: after line 88 of kestrel/serving/retry.py it never "
        "backs off, so a dead tokenizer service gets hammered. This one is a blocking issue for me."
    )
    assert parse_text(text, review_id=3) == []  # the grammar alone finds no shape
    [finding] = review_findings(text, review_id=3, head=SHA)
    assert finding.id == "R3-1"
    assert finding.title.startswith("I'm worried about the retry helper")
    assert finding.body == text
    assert (finding.severity, finding.level) == ("BLOCKING", Level.CRITICAL)
    assert spans(finding) == [("kestrel/serving/retry.py", 88, 88)]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "LGTM",
        "LGTM. The resolutions look right to me.",
        "Thanks! 👍",
        "/ok to test 1a2b3c4",
        "/review mode=strict\n",
        "Approved. No further comments.",
        "No additional actionable finding.",
        "Strict review — complete\n\nFindings: CRITICAL: 0, IMPORTANT: 0, SUGGESTION: 0.",
    ],
)
def test_texts_with_nothing_to_act_on_are_no_finding(text):
    assert review_findings(text, review_id=1) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("LGTM, but the retry loop never backs off.", False),
        ("Looks good. Why does the pool start at 16?", False),
        ("I can't approve this until the flush is back.", False),
        ("Found no remaining merge-specific blockers. Thanks!", True),
        ("Nothing else to add.", True),
    ],
)
def test_what_leaves_something_to_act_on(text, expected):
    assert nothing_to_act_on(text) is expected


def test_a_review_with_only_hints_keeps_its_other_words():
    text = "Round two: F4 is fixed.\n\nThe new pool size in kestrel/cache/blocks.py:7 looks off."
    findings = review_findings(text, review_id=2)
    assert [(f.id, f.status) for f in findings] == [("F4", "closed"), ("R2-1", "")]
    assert findings[1].title == "The new pool size in kestrel/cache/blocks.py:7 looks off."
    assert review_findings("Round two: F4 is fixed. Thanks!", review_id=2)[-1].id == "F4"


# -- inline comments -----------------------------------------------------------------------------


def inline(comment_id, body, *, line=40):
    return inline_comment(comment_id, body, commit=SHA, line=line, original_line=line)


def test_inline_remarks_cite_their_line_and_prose_at_their_commit():
    finding = finding_from_comment(inline(41, "This duplicates retry.py:12-20; share it?"))
    assert finding is not None
    assert (finding.id, finding.title) == ("C41", "This duplicates retry.py:12-20; share it?")
    assert finding.ranges == (
        CitedRange("kestrel/serving/batcher.py", 40, 40, commit=SHA, source="inline"),
        CitedRange("retry.py", 12, 20, commit=SHA, source="prose"),
    )


def test_an_inline_approval_is_no_finding():
    assert finding_from_comment(inline(42, "Thanks, looks good.")) is None


def test_an_inline_comment_with_two_headers_is_one_finding_keeping_both():
    body = "F2 — Bound the queue\n[HIGH Performance] It grows.\n\nF3 — Also\n[LOW Style] rename x"
    finding = finding_from_comment(inline(43, body))
    assert finding is not None
    assert finding.id == "F2"
    assert finding.body.endswith("rename x")


# -- hints ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "finding_id", "status"),
    [
        ("R07 is addressed by the repair.", "R7", "closed"),
        ("R3: superseded.", "R3", "superseded"),
        ("R3 is superseded by R9.", "R3", "superseded"),
        ("R9 supersedes R3.", "R3", "superseded"),
        ("This is unresolved prior R12.", "R12", "unresolved"),
        ("The repair addresses F6.", "F6", "closed"),
    ],
)
def test_status_hints_on_r_ids(sentence, finding_id, status):
    [finding] = parse_text(f"Round two.\n\n{sentence}\n")
    assert (finding.id, finding.status) == (finding_id, status)


def test_a_superseded_finding_is_suggested_closed():
    [finding] = parse_text("R3 is superseded by R9.")
    assert suggest_disposition(finding, ()) == (
        Disposition.CLOSED,
        "the review says this finding is superseded",
    )


# -- the scale -----------------------------------------------------------------------------------


def _documented_scale() -> dict[str, list[str]]:
    rows = re.findall(r"^\| `(\w*)` \| ([A-Z0-9, ()\-\"a-z]+) \|$", DOCS.read_text(), re.M)
    return {level: re.findall(r"\b[A-Z][A-Z0-9-]+\b", words) for level, words in rows}


def test_the_documented_scale_is_the_one_the_code_uses():
    scale = _documented_scale()
    assert set(scale) == {"critical", "high", "medium", "low", "nit"}
    for level, words in scale.items():
        for word in words:
            assert level_of(word) == Level(level), word
    assert level_of("Must fix") is Level.NONE


@pytest.mark.parametrize(
    ("written", "word"),
    [("non blocking", "NON-BLOCKING"), ("Nonblocking", "NON-BLOCKING"), ("nits", "NIT")],
)
def test_the_reviewers_word_is_kept_in_one_spelling(written, word):
    assert severity_word(written) == word


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("Two non-blocking follow-ups:", "NON-BLOCKING"),
        ("the blocking call in the loop", ""),
        ("a couple of nits", "NIT"),
        ("one major concern", "MAJOR"),
    ],
)
def test_prose_severity(sentence, word):
    assert prose_severity(sentence) == word


# -- ranges in prose -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see kestrel/a.py:12", [("kestrel/a.py", 12, 12)]),
        ("see kestrel/a.py:12-20 now", [("kestrel/a.py", 12, 20)]),
        ("see `kestrel/a.py:L12-L20`", [("kestrel/a.py", 12, 20)]),
        ("see kestrel/a.py#L20-L12", [("kestrel/a.py", 12, 20)]),
        ("in `batcher.py` (line 40)", [("batcher.py", 40, 40)]),
        ("batcher.py, lines 3 to 9, drop it", [("batcher.py", 3, 9)]),
        ("line 7 of kestrel/a.py is dead", [("kestrel/a.py", 7, 7)]),
        ("docker/Dockerfile.ci.dev:4", [("docker/Dockerfile.ci.dev", 4, 4)]),
        ("batcher.py is fine. Then line 5 fails", []),
        ("e.g. line 4", []),
        ("upgrade to 1.26.2 at line 4", []),
        ("https://example.com:8080/x and github.com:443", []),
        ("kestrel/a.py:0", []),
    ],
)
def test_prose_citations(text, expected):
    assert [(r.path, r.start, r.end) for r in prose_ranges(text)] == expected


def test_a_link_text_repeating_its_target_is_one_citation():
    text = f"F1 — Title\n\nCode: [blocks.py#L3-L9]({BLOB}/kestrel/cache/blocks.py#L3-L9)\n"
    [finding] = parse_text(text, head="f" * 40)
    assert finding.ranges == (CitedRange("kestrel/cache/blocks.py", 3, 9, commit=SHA),)


def test_review_ranges_in_prose_name_the_reviewed_head():
    review = Review(1, "reviewer", "COMMENTED", "F1 — Title\n\nSee kestrel/a.py:3.", SHA, "2026")
    [finding] = collect_findings([review], [])
    assert finding.ranges == (CitedRange("kestrel/a.py", 3, 3, commit=SHA, source="prose"),)


def test_bare_names_are_found_by_their_end_when_only_one_file_ends_so():
    tree = ["kestrel/serving/batcher.py", "kestrel/a/util.py", "kestrel/b/util.py", "README.md"]
    found = full_paths(["batcher.py", "serving/batcher.py", "util.py", "README.md", "x.py"], tree)
    assert found == {
        "batcher.py": "kestrel/serving/batcher.py",
        "serving/batcher.py": "kestrel/serving/batcher.py",
    }


def test_reviewer_ids_sort_before_generated_ones():
    ids = ["R3-1", "#2", "R10", "F2", "C5", "R2", "F10"]
    assert sorted(ids, key=natural_key) == ["F2", "F10", "R2", "R10", "#2", "C5", "R3-1"]


# -- properties ----------------------------------------------------------------------------------

STATUS_WORDS = (
    r"(?i:(?:is |now |still |not )*(?:closed|fixed|resolved|unresolved|open|addressed"
    r"|superseded)(?: by \S+)?\W*)"
)
TITLES = (
    st.text(
        alphabet=st.sampled_from(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,'/-"
        ),
        min_size=1,
        max_size=60,
    )
    .map(lambda s: " ".join(s.split()))
    .filter(
        lambda s: (
            re.fullmatch(r"[A-Za-z][\w ,'/-]*[A-Za-z0-9]", s) is not None
            and re.match(r"[FR]\d", s) is None  # "F1 — R2": its title is an id
            and re.fullmatch(STATUS_WORDS, s) is None  # "F9: closed" is a status hint
        )
    )
)
HEADER_SHAPES = [
    "F{n} — {title}",
    "### R{n:02d} — {title} [IMPORTANT Area]",
    "**F{n} (CRITICAL) — {title}**",
    "**F{n}: {title}** (minor)",
    "<details><summary>R{n} — {title}</summary>\n\nBody.\n\n</details>",
    "- #{n}: {title}",
    "> **R{n}** — {title}",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(HEADER_SHAPES), st.integers(1, 999), TITLES)
def test_every_header_shape_gives_its_id_and_exact_title(shape, number, title):
    [finding] = parse_text(shape.format(n=number, title=title) + "\n\nThe text of it.\n")
    assert finding.id[0] in "FR#" and int(finding.id[1:]) == number
    assert finding.title == title


SEVERITIES = st.sampled_from(
    ["critical", "BLOCKING", "important", "Major", "medium", "minor", "suggestion", "nit", "P2"]
)
TAG_SHAPES = ["[{w} Area] text", "**[{w}]** text", "F1 — Title [{w}]", "F1 ({w}) — Title"]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(TAG_SHAPES), SEVERITIES)
def test_every_tag_shape_grades_on_the_one_scale(shape, word):
    [finding] = parse_text(shape.format(w=word))
    assert finding.severity == word.upper()
    assert finding.level == level_of(word) != Level.NONE


FRAGMENTS = st.sampled_from(
    [
        "R07", "#3", "F1", " — ", ": ", "[minor]", "(important)", "**", "__", "<details>",
        "<summary>", "</summary>", "</details>", "| ID | Priority |\n|---|---|\n", "| R1 | high |",
        "\n", "\n\n", "1. ", "- ", "Follow-ups:", "Nit: ", "### ", "> ", "```", "line ", "lines ",
        "12", "–", "a.py", "kestrel/", ":", "#L", "superseded", " is addressed", "LGTM",
        "/ok to test ", "\x1b[31m", "\u202e", "[@click=app.quit]", "\x00",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(FRAGMENTS, st.text(max_size=6)), max_size=50))
@example(["**", "| ID | Priority |\n|---|---|\n"])  # found by hypothesis: bold around a table
def test_any_mix_of_shapes_never_raises_and_stays_sane(parts):
    text = "".join(parts)
    for finding in [*review_findings(text, review_id=4), *parse_text(text)]:
        assert finding.id
        assert "\n" not in finding.title
        assert not finding.title.startswith(("**", "<summary", "|"))
        for cited in finding.ranges:
            assert 1 <= cited.start <= cited.end
            assert cited.path and "\0" not in cited.path


# -- long and hostile input ----------------------------------------------------------------------

TWO_MB = 2_000_000
LONG_BODIES = {
    "dotted words": "a." * (TWO_MB // 2),
    "slashes": "a/" * (TWO_MB // 2),
    "paths with colons": "x.py:" * (TWO_MB // 5),
    "paths with fragments": "xy.py#L" * (TWO_MB // 7),
    "line after line": "engine.py line line " * (TWO_MB // 20),
    "line of": "line 1 of " * (TWO_MB // 10),
    "open brackets": "[minor" * (TWO_MB // 6),
    "open parens": "(minor, " * (TWO_MB // 8),
    "angle brackets": "<" * TWO_MB,
    "summaries": "<details><summary>" * (TWO_MB // 18),
    "lead-ins": "Follow-ups:\n- x\n" * (TWO_MB // 16),
    "table rows": "| ID | P |\n|---|---|\n" + "| R1 | high |\n" * (TWO_MB // 13),
    "emphasis": "**F1" * (TWO_MB // 4),
    "underscores": "__a" * (TWO_MB // 3),
    "spaces after a tag word": "Nit:" + " " * TWO_MB,
    "no no no": "no " * (TWO_MB // 3),
    "supersedes": "R1 is superseded " * (TWO_MB // 17),
}


@pytest.mark.parametrize("name", sorted(LONG_BODIES))
def test_long_hostile_bodies_parse_within_the_caps(name):
    # Every pattern is linear (bench/bench_parsers.py measures it); a quadratic one would
    # hang here for hours on 2 MB rather than take a second.
    body = LONG_BODIES[name]
    assert len(review_findings(body, review_id=1)) <= 1_001
    finding = finding_from_comment(inline(1, body))
    assert finding is None or all(1 <= r.start <= r.end for r in finding.ranges)


def test_a_title_with_controls_and_markup_is_kept_and_shown_visible():
    text = "### R2 — Evil \x1b]52;c;eA==\x07 \u202etxt.py [@click=app.quit]q[/] [HIGH x]\n\nBody."
    [finding] = parse_text(text)
    assert finding.title == "Evil \x1b]52;c;eA==\x07 \u202etxt.py [@click=app.quit]q[/]"
    shown = findings_to_text([finding])
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "[@click=app.quit]q[/]" in shown


# -- the command ---------------------------------------------------------------------------------


def run_findings(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", "--text-file", "-", *args],
        input=stdin,
        capture_output=True,
        env=os.environ,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("output", ["text", "json"])
def test_finding_nothing_says_which_shapes_were_looked_for(output):
    result = run_findings("--format", output, stdin=b"LGTM, thanks!")
    assert result.returncode == 0
    stderr = result.stderr.decode()
    for shape in SHAPES:
        assert shape.what in stderr
    assert "### R07 — Bound the queue [IMPORTANT Correctness]" in stderr
    if output == "json":
        assert json.loads(result.stdout) == {"findings": []}
    else:
        assert result.stdout.decode() == "No findings.\n"


def test_a_prose_review_on_the_command_line_is_one_finding():
    text = "The retry loop in kestrel/serving/retry.py never backs off after line 88."
    result = run_findings(stdin=text.encode())
    assert result.stderr == b""
    assert result.stdout.decode() == (f"T1 {text}\n    kestrel/serving/retry.py:88-88\n")


@pytest.mark.parametrize(
    "example", [example for shape in SHAPES for example in shape.examples], ids=str
)
def test_every_shape_the_command_names_parses(example):
    assert review_findings(example)


def test_an_id_keeps_the_reviewers_spelling_and_rounds_still_match() -> None:
    first = Review(1, "bot", "COMMENTED", "R01 — Bound the queue\n\nIt grows.", "a" * 40, "t1")
    later = Review(2, "bot", "COMMENTED", "R1 — Bound the queue\n\nStill grows.", "a" * 40, "t2")
    (finding,) = collect_findings([first, later], [])
    assert (finding.id, finding.label) == ("R1", "R01")  # one finding, shown as first written
    (plain,) = parse_text("F3 — Rename tmp2")
    assert plain.label == "F3"


def test_more_structural_units_a_reviewer_writes() -> None:
    # Variations of the layouts corpus's shapes, written after it: the kind then the grade
    # of a file's comment (the grade wins), a table whose location column holds path:lines,
    # bold titles under a heading that announces findings, and a bold title that only praises.
    walkthrough = (
        "<details>\n<summary>src/app/server.py (1)</summary><blockquote>\n\n"
        "`5`: _🛠️ Refactor suggestion_ | _🟡 Minor_\n\n**Name the magic number.**\n\n"
        "The 30 is a timeout in seconds.\n\n</blockquote></details>\n"
    )
    (comment,) = review_findings(walkthrough)
    assert (comment.severity, comment.title) == ("MINOR", "Name the magic number.")
    assert [(r.path, r.start, r.end) for r in comment.ranges] == [("src/app/server.py", 5, 5)]
    table = (
        "| Severity | Location | Description |\n|---|---|---|\n"
        "| High | src/app/server.py:12-14 | The handler leaks the socket. |\n"
    )
    (row,) = review_findings(table)
    assert row.severity == "HIGH" and [(r.start, r.end) for r in row.ranges] == [(12, 14)]
    announced = (
        "## Issues\n\n**Socket leak in the handler** — src/app/server.py:12\n\nIt stays open.\n\n"
        "**Unused import in the util module**\n\n`os` is imported but never used.\n"
    )
    titles = [f.title for f in review_findings(announced)]
    assert titles == ["Socket leak in the handler", "Unused import in the util module"]
    assert review_findings("**Nice cleanup of the retry helper**\n\nReads better. LGTM.\n") == []
