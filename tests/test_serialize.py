"""The one JSON serialiser: every string it emits, keys too, is sanitised exactly once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.git.runner import Git
from syncdesk.services.report.serialize import sanitized, sanitized_text, to_json_text
from syncdesk.services.review.dispositions import Decision, decide
from syncdesk.services.review.models import CitedRange, Disposition, Finding
from syncdesk.services.review.render import findings_to_json
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync
from tests.prworld import PR_NUMBER, sandbox_link

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# What no emitted string may hold: C0 controls but tab and newline, DEL, C1, bidi, surrogates.
FORBIDDEN = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}\ud800-\udfff]")
# What the JSON text itself may not hold raw: all of that, and tab (newlines are its indent).
FORBIDDEN_RAW = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{BIDI}\ud800-\udfff]")

OSC52 = "\x1b]52;c;ZXZpbA==\x07"
# A maintainer's note: ESC, OSC 52, U+202E, NUL, a lone surrogate of each kind (a mix
# that makes visible() itself fail) and half an emoji, on two lines.
NOTE = f"Fix on main\x1b[2J{OSC52} \u202eexe.py\x00 \udc80\ud800 half\ud83d\nsecond\tline"
NOTE_SHOWN = (
    "Fix on main^[[2J^[]52;c;ZXZpbA==^G <U+202E>exe.py^@ \ufffd\ufffd half\ufffd\nsecond\tline"
)

hostile_text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0xA0),
        st.sampled_from(BIDI + "^[]<>U+\ufffd\u2028"),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
        st.characters(),
    ),
    max_size=30,
)
safe_text = st.text(alphabet=st.characters(exclude_categories=("Cc", "Cf", "Cs")), max_size=30)


def json_values(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | text
    )
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=4)
            | st.tuples(children, children)
            | st.dictionaries(text, children, max_size=4)
        ),
        max_leaves=20,
    )


def strings(value: Any) -> list[str]:
    """Every string of parsed JSON, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (key, *strings(item))]
    return []


def assert_safe_json(text: str) -> Any:
    """``text`` parses, holds no raw control, and none of its strings holds one."""
    assert FORBIDDEN_RAW.search(text) is None
    text.encode("utf-8")  # no lone surrogate: it can be written out
    data = json.loads(text)
    for string in strings(data):
        assert FORBIDDEN.search(string) is None, string
    return data


# -- the serialiser --------------------------------------------------------------------------


@given(json_values(hostile_text))
def test_any_json_value_comes_out_parseable_and_without_controls(value):
    try:
        text = to_json_text(value)
    except ValueError:  # two keys that read the same once sanitised (see below)
        assume(False)
    assert text.endswith("\n")
    assert assert_safe_json(text) == sanitized(value)
    assert to_json_text(json.loads(text)) == text  # a second pass changes nothing


@given(json_values(safe_text))
def test_printable_values_are_dumped_as_the_cli_always_did(value):
    assert to_json_text(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@given(hostile_text)
def test_sanitising_is_idempotent_so_nothing_is_escaped_twice(text):
    once = sanitized_text(text)
    assert sanitized_text(once) == once
    assert visible(once) == once
    assert FORBIDDEN.search(once) is None


escaped_bytes = st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF, exclude_categories=())


@given(st.text(st.one_of(st.characters(max_codepoint=0xA0), st.sampled_from(BIDI), escaped_bytes)))
def test_a_field_a_builder_flattened_with_one_line_passes_unchanged(text):
    flat = one_line(text)
    assert sanitized_text(flat) == flat


def test_keys_and_values_are_spelled_out_once():
    value = {"k\x1b[1m": ["v\x9b", ("\u202e", 1, 2.5, True, None)], "done": "^[ <U+202E>"}
    assert json.loads(to_json_text(value)) == {
        "k^[[1m": ["v<U+009B>", ["<U+202E>", 1, 2.5, True, None]],
        "done": "^[ <U+202E>",  # already spelled out: left alone, not ^^[
    }


def test_newlines_and_tabs_are_kept_json_escaped():
    text = to_json_text({"note": "a\nb\tc"})
    assert text == '{\n  "note": "a\\nb\\tc"\n}\n'


def test_lone_surrogates_of_every_kind_become_replacement_characters():
    # surrogateescape bytes are decoded as visible() does: a valid sequence is its character
    value = ["\ud800", "\udfff\udc80", "\udc80\ud800", "caf\udcc3\udca9", "\udc9b"]
    assert sanitized(value) == ["\ufffd", "\ufffd\ufffd", "\ufffd\ufffd", "café", "\ufffd"]


def test_anything_not_json_ready_is_refused():
    with pytest.raises(TypeError, match="Finding"):
        to_json_text({"f": Finding("F1", "", "", "t", "")})
    with pytest.raises(TypeError, match="keys must be strings"):
        to_json_text({1: "one"})
    with pytest.raises(ValueError, match="two keys"):
        to_json_text({"\x1b": 1, "^[": 2})


# -- the commands ----------------------------------------------------------------------------


def test_report_json_shows_the_maintainers_note_visible(
    pr_world: DemoFacts, pr_sandbox: Sandbox
) -> None:
    from syncdesk.tui.cli.reads import report_output

    decide(
        Git(pr_world.repo), "lumen-ai/lumen", PR_NUMBER, "F8", Decision(Disposition.FIX_HERE, NOTE)
    )
    session = open_sync(
        SyncOptions(repo=pr_world.repo, head=pr_world.sync_branch), user_config=Path("/nonexistent")
    )
    output = report_output(session, "json", sandbox_link(pr_sandbox))  # what stdout gets
    data = assert_safe_json(output)
    f8 = next(f for f in data["findings"] if f["id"] == "F8")
    assert (f8["decided"], f8["disposition"]) == (True, "fix-here")
    assert f8["note"] == NOTE_SHOWN


def test_findings_json_shows_hostile_text_visible():
    ref = "main%0A%1Bevil"  # a cited "commit" that decodes to a newline and an ESC
    review = (
        f"F1 \u2014 Title {OSC52} \u202eexe.py NUL\x00 ".encode()
        + b"bad\xff\xfe\n"
        + "[HIGH Corr\x1b\tect\u202eness] ".encode()
        + f"https://github.com/o/r/blob/{ref}/src/a\x1b.py#L1\n".encode()
    )
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", "--text-file", "-", "--format", "json"],
        input=review,
        capture_output=True,
        env=os.environ,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    data = assert_safe_json(result.stdout.decode("utf-8"))
    (finding,) = data["findings"]
    assert finding["title"] == "Title ^[]52;c;ZXZpbA==^G <U+202E>exe.py NUL^@ bad\ufffd\ufffd"
    assert finding["category"] == "Corr^[^Iect<U+202E>ness"  # one line: the tab spelled out
    assert finding["ranges"][0]["path"] == "src/a^[.py"
    assert finding["ranges"][0]["commit"] == "main^J^[evil"  # a one-line field stays one line


def test_findings_json_replaces_lone_surrogates():
    # one kind only: one_line() itself fails on a mix of both kinds (sanitize.py)
    cited = CitedRange("a\ud800.py", 1, 2, commit="\ud83d")
    finding = Finding("F1", "HIGH", "Cat\u202e", "half an emoji \ud83d", "", ranges=(cited,))
    data = assert_safe_json(to_json_text(findings_to_json([finding])))
    shown = data["findings"][0]
    assert (shown["title"], shown["category"]) == ("half an emoji \ufffd", "Cat<U+202E>")
    assert shown["ranges"][0] == {"path": "a\ufffd.py", "start": 1, "end": 2, "commit": "\ufffd"}
