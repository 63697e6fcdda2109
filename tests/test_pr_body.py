"""The sync PR description: written from the report's facts, and checked against them.

The demo world's PR body lists 96 of its 100 slice SHAs (as the real seed PR
did); the checker must name exactly the four it leaves out. Hand-written
bodies below follow the seed's layout with one defect each.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.description.check import BodyCheck, body_check_json, verify_body
from syncdesk.services.description.write import generate_body
from syncdesk.services.sandbox.demo.scenario import demo_scenario
from syncdesk.services.sync.models import CommitSummary, SyncReport
from syncdesk.services.sync.session import load_report
from tests.worlds import demo_session

ELSEWHERE = "0123456789abcdef0123456789abcdef01234567"  # in no slice
_WORDS = st.sampled_from(
    ["merge", "repair commit", "dev base:", "tip", "oldest 3 commits", "5 main commits",
     "Ordered 2 source SHAs", "1234567", "deadbeef", "(dev)", "(main)", "a1b2c3d..e4f5a6b",
     "@team", "<b>", "|", "`", "\n", "ſ"]
)  # fmt: skip


@pytest.fixture(scope="module")
def report(demo_facts: DemoFacts) -> SyncReport:
    return load_report(demo_session(demo_facts), detail=False)


def shas(report: SyncReport) -> list[str]:
    return [commit.sha for commit in report.slice.commits]


def hand_written(
    report: SyncReport,
    listed: Sequence[str] | None = None,
    *,
    claimed: int | None = None,
    dev_base: str | None = None,
    repair: str | None = None,
    list_text: str | None = None,
) -> str:
    """A maintainer's description in the seed PR's layout, with the given facts."""
    the_slice, anatomy = report.slice, report.anatomy
    listed = [sha[:7] for sha in shas(report)] if listed is None else listed
    count = len(listed) if claimed is None else claimed
    base = dev_base or the_slice.dev_base
    tip = the_slice.tip or ""
    merge, repair = anatomy.merge or "", repair or anatomy.repair or ""
    rows = " ".join(listed) if list_text is None else list_text
    return f"""Background

Scheduled main → dev sync, bringing in the oldest {count} commits of dev..main.

• dev base: {base}
• slice tip on main: {tip}

What changed

• {count} original main commits, untouched and in order.
• 1 merge commit, {merge}, with parents {base[:8]} (dev) and {tip[:8]} (main).
• 1 squashed repair commit, {repair}. It folds in the previous repair 1234567.

Details

• Remerge-diff: git show --remerge-diff {merge[:8]} shows the hand-resolved files.
• The merge base of dev and main, {ELSEWHERE[:10]}, is older than the dev base.

Tested

• Unit tests passed locally.

Ordered {count} source SHAs

{rows}
"""


# --- generate_body -------------------------------------------------------------------------


def test_the_generated_body_lists_every_slice_sha_in_order(report: SyncReport) -> None:
    body = generate_body(report)

    heading, rows = body.rstrip("\n").split("\n\n")[-2:]
    assert heading == "Ordered 100 source SHAs"
    assert [sha[:7] for sha in shas(report)] == rows.split(" ")
    check = verify_body(body, report)
    assert check == BodyCheck(True, (), tuple(rows.split(" ")), (), (), (), 100)


def test_the_generated_body_states_the_reports_facts(
    report: SyncReport, demo_facts: DemoFacts
) -> None:
    body = generate_body(report)

    assert f"• dev base: {demo_facts.dev_base}" in body
    assert f"• slice tip on main: {demo_facts.slice_tip}" in body
    assert f"{demo_facts.main_tip}, with {demo_facts.remaining} more commits" in body
    assert f"1 merge commit, {demo_facts.merge}, with parents" in body
    assert f"1 squashed repair commit, {demo_facts.repair}." in body
    assert f"dev has moved on by {len(demo_facts.dev_advanced)} commits" in body
    unsigned, mismatched = len(demo_facts.unsigned), len(demo_facts.mismatched_signoff)
    assert f"• DCO: {unsigned} imported commits have no sign-off and {mismatched} " in body
    for sha in demo_facts.unsigned:
        assert f"no sign-off: {sha[:8]} by " in body
    assert f"{len(demo_facts.conflicts)} files, " in body
    assert "identical to the dev base" in body
    assert body.startswith("Background\n\n")
    assert body.index("What changed") < body.index("Details") < body.index("Tested")


def test_tested_lists_only_what_the_caller_ran(report: SyncReport) -> None:
    assert "Tested\n\nNothing has been run on this head yet." in generate_body(report)

    body = generate_body(report, tested=["tests/unit: passed", "  "])

    assert "Tested\n\n• tests/unit: passed\n\nOrdered" in body


def test_the_conflicts_note_is_kept_inert(report: SyncReport) -> None:
    body = generate_body(report, conflicts_note="kept @alice's <b>fix</b>\nfrom | dev")

    assert "• Conflict resolution: kept @\u200dalice's &lt;b>fix&lt;/b> from \\| dev" in body


def test_hostile_repository_text_is_inert_and_does_not_fool_the_checker(
    report: SyncReport,
) -> None:
    subject = "Revert merge 1234567 @everyone <img src=x onerror=alert(1)> | \x1b[31m"
    hostile = dataclasses.replace(
        report,
        dev_advanced=dataclasses.replace(
            report.dev_advanced,
            commits=(CommitSummary(ELSEWHERE, subject, "@mallory <script>", "2025-01-01"),),
        ),
        slice=dataclasses.replace(
            report.slice,
            commits=tuple(
                dataclasses.replace(c, author_name="<b>@bot</b>", subject=subject)
                for c in report.slice.commits
            ),
        ),
    )

    body = generate_body(hostile)

    assert "<img" not in body and "<b>" not in body and "\x1b" not in body
    assert re.search(r"@(?!\u200d)", body) is None  # every @ is broken, so no one is notified
    assert verify_body(body, hostile).ok


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    subject=st.text(max_size=60) | st.lists(_WORDS, max_size=8).map(" ".join),
    name=st.text(max_size=20) | st.lists(_WORDS, max_size=3).map(" ".join),
)
def test_any_repository_text_leaves_the_generated_body_valid(
    report: SyncReport, subject: str, name: str
) -> None:
    quoted = dataclasses.replace(
        report,
        dev_advanced=dataclasses.replace(
            report.dev_advanced,
            commits=tuple(
                dataclasses.replace(c, subject=subject) for c in report.dev_advanced.commits
            ),
        ),
        slice=dataclasses.replace(
            report.slice,
            commits=tuple(dataclasses.replace(c, author_name=name) for c in report.slice.commits),
        ),
    )

    check = verify_body(generate_body(quoted), quoted)

    assert check.problems == ()


def test_an_empty_slice_gets_no_list_and_checks_clean(report: SyncReport) -> None:
    empty = dataclasses.replace(
        report,
        slice=dataclasses.replace(report.slice, commits=(), remaining=0),
        anatomy=dataclasses.replace(report.anatomy, merge=None, repair=None),
    )

    body = generate_body(empty)

    assert "Dev already has every commit of main" in body and "Ordered" not in body
    assert "What changed" not in body and "DCO" not in body
    assert verify_body(body, empty).ok


def test_short_shas_grow_where_seven_characters_are_ambiguous(report: SyncReport) -> None:
    commits = report.slice.commits
    eighth = "0" if commits[0].sha[7] != "0" else "1"
    twin = dataclasses.replace(commits[1], sha=commits[0].sha[:7] + eighth * 33)
    ambiguous = dataclasses.replace(
        report, slice=dataclasses.replace(report.slice, commits=(commits[0], twin, *commits[2:]))
    )

    body = generate_body(ambiguous)

    rows = body.rstrip("\n").split("\n\n")[-1].split(" ")
    assert rows[1] == twin.sha[:8] and len(rows[0]) == 8
    assert verify_body(body, ambiguous).ok
    check = verify_body(body.replace(rows[1], rows[1][:7]), ambiguous)
    assert check.extra == (rows[1][:7],)
    assert "lists 1 ambiguous short SHAs" in check.problems[-1]


# --- verify_body on the demo PR and on hand-written bodies ---------------------------------


def test_the_demo_prs_body_is_flagged_with_exactly_the_missing_shas(
    report: SyncReport, demo_facts: DemoFacts
) -> None:
    scenario = demo_scenario(demo_facts)
    pull = next(p for p in scenario.pulls if p.number == 4242)
    omitted = scenario.notes["body_missing_shas"]

    check = verify_body(pull.body, report)

    assert not check.ok
    assert check.missing == tuple(omitted)
    assert len(check.listed) == 96 and check.extra == () and check.out_of_order == ()
    assert check.claimed_count == 100
    shown = ", ".join(sha[:7] for sha in omitted)
    assert check.problems == (
        f"lists 96 SHAs, the slice has 100: missing {shown}",
        "claims 100 commits but lists 96",
    )
    assert body_check_json(check) == {
        "ok": False,
        "problems": list(check.problems),
        "listed": 96,
        "missing": list(omitted),
        "extra": [],
    }


def test_a_correct_hand_written_body_is_ok(report: SyncReport) -> None:
    check = verify_body(hand_written(report), report)

    assert check.problems == ()
    assert check.ok and check.claimed_count == 100 and len(check.listed) == 100


def test_a_swapped_pair_is_out_of_order_from_its_position(report: SyncReport) -> None:
    listed = [sha[:7] for sha in shas(report)]
    listed[16], listed[17] = listed[17], listed[16]

    check = verify_body(hand_written(report, listed), report)

    assert check.out_of_order == (shas(report)[17], shas(report)[16])
    assert check.missing == () and check.extra == ()
    assert check.problems == (f"SHAs out of order from position 17: {listed[16]}, {listed[17]}",)


def test_an_unknown_sha_is_extra(report: SyncReport) -> None:
    listed = [sha[:7] for sha in shas(report)] + ["deadbee"]

    check = verify_body(hand_written(report, listed, claimed=100), report)

    assert check.extra == ("deadbee",)
    assert check.missing == ()
    assert check.problems == (
        "lists 1 SHAs that are not in the slice: deadbee",
        "claims 100 commits but lists 101",
    )


def test_a_wrong_count_claim_is_named(report: SyncReport) -> None:
    body = hand_written(report).replace("the oldest 100 commits", "the oldest 90 commits")

    check = verify_body(body, report)

    assert check.problems == (
        "claims 90 commits, the slice has 100",
        "claims 90 commits but lists 100",
    )
    assert check.claimed_count == 100  # the list's own heading


def test_a_wrong_dev_base_is_named(report: SyncReport) -> None:
    body = hand_written(report, dev_base=ELSEWHERE)

    check = verify_body(body, report)

    base = report.slice.dev_base[:7]
    assert check.problems == (f"names dev base 0123456, the dev base is {base}",)


def test_a_wrong_repair_and_a_missing_repair_are_named(report: SyncReport) -> None:
    wrong = verify_body(hand_written(report, repair=ELSEWHERE), report)
    no_repair = dataclasses.replace(
        report, anatomy=dataclasses.replace(report.anatomy, repair=None)
    )
    none = verify_body(hand_written(report), no_repair)

    repair = (report.anatomy.repair or "")[:7]
    assert wrong.problems == (f"names repair 0123456, the repair is {repair}",)
    assert none.problems == (f"names repair {repair}, the branch has none",)


def test_wrong_tips_merges_and_ranges_are_named(report: SyncReport) -> None:
    tip, merge = report.slice.tip or "", report.anatomy.merge or ""
    body = hand_written(report) + (
        f"\nThe main tip is {ELSEWHERE}; merge commit `{ELSEWHERE[:9]}`; "
        f"range {shas(report)[3][:8]}..{tip[:8]}, and {ELSEWHERE[:7]} (main).\n"
    )

    problems = verify_body(body, report).problems

    assert problems == (
        f"names main tip 0123456, the main tip is {report.slice.main_tip[:7]}",
        f"names merge 0123456, the merge is {merge[:7]}",
        f"names slice tip 0123456, the slice tip is {tip[:7]}",
        f"names a range from {shas(report)[3][:7]}, which is commit 4 of the slice",
    )


@pytest.mark.parametrize(
    "layout",
    ["full lines", "commas", "backticks", "links", "bullets", "oneline", "table", "html"],
)
def test_the_list_is_read_in_every_usual_layout(report: SyncReport, layout: str) -> None:
    full = shas(report)
    web = "https://github.com/lumen-ai/lumen"
    rows = {
        "full lines": "\n".join(full),
        "commas": ", ".join(sha[:9] for sha in full) + ".",
        "backticks": " ".join(f"`{sha[:7]}`" for sha in full),
        "links": "\n".join(f"- [{sha[:7]}]({web}/commit/{sha}) Subject" for sha in full),
        "bullets": "\n".join(f"• {sha[:7]} — Fix the merge 1234567 path" for sha in full),
        "oneline": "\n\n".join(f"{sha[:10]} Subject (#12)" for sha in full),
        "table": "| # | SHA |\n|---|---|\n"
        + "\n".join(f"| {i} | `{sha[:7]}` |" for i, sha in enumerate(full, 1)),
        "html": "<details><summary>list</summary>\n\n"
        + "<br>".join(f'<a href="{web}/pull/4242/commits/{sha}">{sha[:7]}</a>' for sha in full)
        + "\n</details>",
    }[layout]
    body = hand_written(report, list_text=rows)

    check = verify_body(body, report)

    assert check.ok, check.problems
    assert len(check.listed) == 100


def test_a_source_commits_heading_and_a_list_with_no_heading_are_found(
    report: SyncReport,
) -> None:
    full = shas(report)
    oneline = "\n".join(f"* {sha[:8]} Subject {i}" for i, sha in enumerate(full))
    with_heading = f"Imported.\n\n**Source commits**\n\nIn slice order:\n{oneline}\n\nThanks."
    without = f"Imported the oldest 100 commits.\n\n{oneline}\n\nThanks, dev base {full[0]}."

    assert verify_body(with_heading, report).ok
    check = verify_body(without, report)
    assert check.listed == tuple(sha[:8] for sha in full)
    assert check.claimed_count == 100
    base = report.slice.dev_base[:7]
    assert check.problems == (f"names dev base {full[0][:7]}, the dev base is {base}",)


def test_a_body_with_no_list_misses_the_whole_slice(report: SyncReport) -> None:
    check = verify_body("Main → dev sync of the oldest 100 commits. See the commits tab.", report)

    assert check.listed == () and check.missing == tuple(shas(report))
    assert check.problems[0].startswith("lists 0 SHAs, the slice has 100: missing ")
    assert check.problems[0].endswith(" and 90 more")
    assert check.problems[1] == "claims 100 commits but lists 0"


def test_a_repeated_sha_is_named(report: SyncReport) -> None:
    listed = [sha[:7] for sha in shas(report)]
    listed.insert(5, listed[0])

    check = verify_body(hand_written(report, listed, claimed=100), report)

    assert check.problems == (
        "lists 101 SHAs, the slice has 100",
        f"lists 1 SHAs more than once: {listed[0]}",
        "claims 100 commits but lists 101",
    )


# --- robustness ----------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        " ", "\n", ", ", "• ", "- ", "`", "|", "..", "(dev)", "(main)", "[", "](", ")",
        "https://github.com/o/r/commit/", "Ordered 100 source SHAs", "Source commits",
        "dev base: ", "main tip ", "tip", "merge commit ", "repair ", "merge base ",
        "the oldest 7 commits", "<b>", "</b>", "@", "\x1b", "\u202e", "٣", "ſ",
        "1234567", "deadbeef", "0" * 40, "f" * 41,
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=400) | st.lists(_PIECES | st.text(max_size=5)).map("".join))
def test_verify_never_raises_and_agrees_with_itself(report: SyncReport, text: str) -> None:
    check = verify_body(text, report)

    assert check.ok == (not check.problems)
    assert set(check.missing) <= set(shas(report))
    assert all("\n" not in problem for problem in check.problems)
    assert isinstance(body_check_json(check)["listed"], int)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, 99), moved=st.integers(0, 99))
def test_any_moved_sha_is_caught(report: SyncReport, cut: int, moved: int) -> None:
    listed = [sha[:7] for sha in shas(report)]
    listed.insert(moved, listed.pop(cut))

    check = verify_body(hand_written(report, listed), report)

    assert check.ok == (cut == moved)
    if cut != moved:
        assert check.problems[0].startswith(
            f"SHAs out of order from position {min(cut, moved) + 1}"
        )


_JUNK = {
    "labels": "base: ",
    "urls": "https://",
    "brackets": "[",
    "tags": "<",
    "hex words": "deadbeef ",
    "filler": "merge commit ::::::",
    "bullets": "• 1234567 subject\n",
    "headings": "Ordered 100 source SHAs\n",
    "prose": "The oldest 100 main commits, dev base 1234567 (dev) and a..b.\n",
}


@pytest.mark.parametrize("unit", _JUNK.values(), ids=_JUNK.keys())
def test_a_one_megabyte_body_of_junk_still_yields_the_real_list(
    report: SyncReport, unit: str
) -> None:
    # How long this takes is measured by `make bench` (bench/bench_parsers.py), not here.
    body = hand_written(report) + unit * (1_000_000 // len(unit) + 1)

    check = verify_body(body, report)

    assert check.missing == ()  # the real list is still found
