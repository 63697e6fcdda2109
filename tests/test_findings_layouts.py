"""Reviews in the layouts reviewers really use, and the findings a maintainer reads in them.

Issue 29 lists the layouts sync pull requests get from review bots, review systems and people:
a walkthrough with collapsible per-file comments, an overview with a file table and comments
suppressed for low confidence, an issues table with no id column, severity headings over bold
numbered items, badge images as severities, review-system mail, numbered lists under lead-ins,
struck-through and resolved items, a blob link on a branch whose name has slashes, a mixed
review, and all of them in one text. Each review here is written in our own words about the
fictional serving stack "kestrel" (the files of ``tests/test_findings_corpus.py``), and
``EXPECTED`` holds, per review, the findings a maintainer calls findings there: written down by
hand before the parser read any of them.

A finding is known by the reviewer's id when it has one, else by its title (a generated id is
the desk's own label). Each is compared on its severity level, title, status (open or closed)
and cited ranges, read three ways: the library (``collect_findings``, then
``resolve_cited_paths`` on the fixture repository) and ``syncdesk findings --text-file F
--format json`` without and with ``--repo``. Without a repository a blob link's ref that holds
slashes cannot be told from its path, so such a range (``Cited.needs_refs``) is then also
accepted with the ref's segments still in front of its path.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from syncdesk.services.git.runner import Git
from syncdesk.services.github.models import Review
from syncdesk.services.review.models import Finding
from syncdesk.services.review.parse import collect_findings, natural_key
from syncdesk.services.review.paths import resolve_cited_paths
from tests.gitrepo import GitRepo
from tests.test_findings_corpus import FILES

# A branch of the fixture repository whose name holds slashes (layout "branch link").
SLASH_BRANCH = "sync/main2dev/05_12"
REPO_URL = "https://github.com/kestrel-ai/kestrel"


class Cited(NamedTuple):
    """A cited range as the maintainer reads it: ``path`` lines ``first``..``last``."""

    path: str
    first: int
    last: int
    needs_refs: bool = False  # written on a ref with slashes: only the repository can split it


@dataclass(frozen=True)
class Want:
    """One finding a maintainer reads in a review."""

    title: str
    level: str  # "critical", "high", "medium", "low", "nit", or "" (no severity)
    ranges: tuple[Cited, ...]
    status: str = "open"  # or "closed"
    id: str | None = None  # the reviewer's own id; None: the desk labels it (known by title)


ALL = "all together"


def layouts(sha: str) -> dict[str, str]:
    """The reviews, by layout; links name ``sha``, the reviewed head of the fixture repo."""
    blob = f"{REPO_URL}/blob/{sha}"
    texts = {
        "walkthrough": """\
## Walkthrough

The merge brings main's timer-driven batch scheduler into dev's serving stack. The batcher now
flushes partial batches on a timer, the retry helper takes its budget from the server config,
and the block cache keys its pages by rank. Dev's eviction guard is kept as it was.

## Changes

| Cohort / File(s) | Summary |
|---|---|
| **Batch scheduling** <br> `kestrel/serving/batcher.py` | Flush on a timer; close is reworked. |
| **Retries** <br> `kestrel/serving/retry.py` | Budget from the config, jitter between tries. |
| **Block cache** <br> `kestrel/cache/blocks.py`, `kestrel/cache/keys.py` | Keys carry the rank. |

## Estimated code review effort

🎯 3 (Moderate) | ⏱️ ~20 minutes

**Actionable comments posted: 2**

<details>
<summary>kestrel/serving/batcher.py (1)</summary><blockquote>

`40-48`: _⚠️ Potential issue_ | _🟠 Major_

**Close drops the partial batch.**

`close()` cancels the flush timer and returns, so requests sitting in a partial batch at
shutdown never get an answer. Flush what is pending before cancelling the timer.

<details>
<summary>📝 Committable suggestion</summary>

> ‼️ **IMPORTANT**
> Read the suggestion against the code around it before you commit it.

```suggestion
    def close(self) -> None:
        self._flush_pending()
        self._timer.cancel()
        self._closed = True
```

</details>

<details>
<summary>🤖 Prompt for AI Agents</summary>

```
In kestrel/serving/batcher.py around lines 40 to 48, close() cancels the timer before the
pending batch is flushed; flush first, then cancel the timer.
```

</details>

</blockquote></details>

<details>
<summary>kestrel/serving/retry.py (1)</summary><blockquote>

`22-27`: _⚠️ Potential issue_ | _🟠 Major_

**A zero budget from the config retries forever.**

The loop stops when `attempt == budget`, and `attempt` starts at 1, so `retry_budget = 0`
never matches and a failing backend is called until the process is killed. Compare with `>=`
and treat zero as "call once, never retry".

</blockquote></details>

<details>
<summary>🧹 Nitpick comments (1)</summary><blockquote>

<details>
<summary>kestrel/cache/keys.py (1)</summary><blockquote>

`12-14`: **Spell the key prefix once.**

The `"kv:"` prefix is written out at three call sites; a module constant keeps them from
drifting apart.

</blockquote></details>

</blockquote></details>

<details>
<summary>🔇 Additional comments (1)</summary><blockquote>

<details>
<summary>kestrel/cache/blocks.py (1)</summary><blockquote>

`20-24`: **Keeping dev's page-size default is right.**

The deployment configs rely on dev's default, and the merge kept it. LGTM.

</blockquote></details>

</blockquote></details>

<details>
<summary>📜 Review details</summary>

**Configuration used**: defaults

**Review profile**: CHILL

<details>
<summary>📒 Files selected for processing (4)</summary>

* `kestrel/cache/blocks.py` (1 hunks)
* `kestrel/cache/keys.py` (2 hunks)
* `kestrel/serving/batcher.py` (3 hunks)
* `kestrel/serving/retry.py` (1 hunks)

</details>

</details>
""",
        "overview": """\
## Pull Request Overview

This pull request brings main's serving changes into dev: a timer-driven batcher, a retry budget
read from the config, and page keys that carry the rank.

### Reviewed Changes

Copilot reviewed 4 out of 4 changed files in this pull request and generated no new comments.

| File | Description |
| ---- | ----------- |
| kestrel/serving/batcher.py | Flushes partial batches from a timer. |
| kestrel/serving/retry.py | Reads the retry budget from the server config. |
| kestrel/cache/blocks.py | Keeps dev's eviction guard beside main's page pinning. |
| kestrel/cache/keys.py | Adds the rank to every page key. |

<details>
<summary>Comments suppressed due to low confidence (2)</summary>

**kestrel/cache/blocks.py:50**
* The eviction guard now runs after the page is unpinned. A page that is still being copied
can be evicted between the two calls; check the pin count inside the guard instead.
* The same ordering exists in `evict_all()`, which the tests do not cover.

**kestrel/sampling/sampler.py:33**
* [nitpick] The local name `t` hides the temperature argument. Calling it `temperature` would
make the zero check below easier to read.

</details>
""",
        "issues table": """\
<h3>Greptile Summary</h3>

This PR merges main's serving work into dev. The retry helper now reads its budget from the
server config, and the sampler gains a greedy path for temperature zero.

- The retry budget comes from `serving.retry_budget`.
- Temperature zero takes the argmax path.

<h3>Confidence Score: 3/5</h3>

- Mergeable once the retry loop backs off on timeouts; the sampler change is low risk.
- The score is lowered by the retry loop, which can call a timed-out backend back to back.
- Files that need attention: `kestrel/serving/retry.py`.

<h3>Important Files Changed</h3>

| Filename | Overview |
|----------|----------|
| kestrel/serving/retry.py | Budget from the config; timeouts skip the backoff sleep. |
| kestrel/sampling/sampler.py | Adds the greedy path. |

<h3>Issues found</h3>

| Priority | File | Lines | Issue |
|---|---|---|---|
| P1 | kestrel/serving/retry.py | 30-34 | A timeout skips the backoff sleep, so timed-out \
calls are retried back to back. |
| <img alt="P2" src="https://greptile-static-assets.s3.amazonaws.com/badges/p2.svg" \
height="14"> | kestrel/sampling/sampler.py | 41-44 | The greedy path ignores the repetition \
penalty that the sampled path applies. |
| P3 | docs/flags.md | 8 | The flags page still lists --retry-count, which the config key \
replaced. |

<sub>3 files reviewed, 3 comments</sub>
""",
        "severity headings": """\
## Review: main → dev sync (serving and cache)

I read the merge resolution and the repair commit. Two items below; the first has to be fixed
before this merges.

### 🔴 Critical

**1. Warm-up requests bypass admission control** — kestrel/serving/batcher.py:L70-L75

The warm-up path pushes requests straight onto the queue. During start-up a burst of warm-up
calls can go past max_batch_tokens, and the first real batch is then rejected. Send them
through admit() like every other request.

### 🟡 Minor

**2. Page keys are built twice per lookup** — kestrel/cache/keys.py:L20-L24

lookup() calls make_key() and then formats the same string again for its debug log.
Nit: the log line could reuse the key it already has.
""",
        "badges": f"""\
### 💡 Codex Review

Here are some automated suggestions for this pull request.

**![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat) The prefix-cache key lost \
the rank**

{blob}/kestrel/cache/keys.py#L10-L12

Two tensor-parallel ranks serving the same prompt now compute the same key, so one rank can
read pages the other wrote. Mix the rank back into the key, as dev did before the merge.

Useful? React with 👍 / 👎.

**<sub><sub>![P2 Badge](https://img.shields.io/badge/P2-yellow?style=flat)</sub></sub> \
Shutdown leaks pinned pages**

{blob}/kestrel/cache/blocks.py#L60-L66

shutdown() drops the pool without calling release() on pages that are still pinned, so the
allocator's leak check fails when the server exits.

Useful? React with 👍 / 👎.

<details> <summary>ℹ️ About Codex in GitHub</summary>
<br/>

Codex reviews this repository when a pull request is opened or when someone comments
"@codex review". When it has nothing to suggest it reacts with 👍 instead.

Comment "@codex fix the CI failure" to ask it for a change.
</details>
""",
        "review mail": """\
Ada Reviewer has posted comments on this change by Sync Bot. \
( https://review.kestrel.dev/c/kestrel/+/4242 )

Change subject: Sync main into dev (2026-05-12)
......................................................................


Patch Set 3: Code-Review-1

(2 comments)

File kestrel/serving/retry.py:

https://review.kestrel.dev/c/kestrel/+/4242/3/kestrel/serving/retry.py@31
PS3, Line 31: for attempt in range(self.budget):
Major: The budget counts retries but this loop counts calls. With a budget of 3 the backend
is called three times, not four; either loop to budget + 1 or rename the setting.


https://review.kestrel.dev/c/kestrel/+/4242/3/kestrel/serving/retry.py@58
PS3, Line 58: except TimeoutError:
Why is the timeout caught here and again in the caller? After the merge one of the two
handlers looks dead.



--
To view, visit https://review.kestrel.dev/c/kestrel/+/4242
To unsubscribe, or for help writing mail filters, visit https://review.kestrel.dev/settings

Gerrit-Project: kestrel
Gerrit-Branch: dev
Gerrit-Change-Id: I5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80
Gerrit-Change-Number: 4242
Gerrit-PatchSet: 3
Gerrit-Owner: Sync Bot <sync-bot@kestrel.dev>
Gerrit-Reviewer: Ada Reviewer <ada@kestrel.dev>
Gerrit-Comment-Date: Tue, 12 May 2026 09:14:02 +0000
Gerrit-HasComments: Yes
Gerrit-MessageType: comment
""",
        "lead-ins": """\
I went through the merge resolution file by file. The retry and cache parts need another pass.

Blocking before this lands:

1. The eviction guard from dev is gone from kestrel/cache/blocks.py:50-58, so a page can be
   evicted while it is still being copied.
2. kestrel/serving/retry.py:40-44 swallows the last exception and returns None, which the
   caller takes for an empty completion.

Smaller things, fine as a follow-up:

1. tests/serving/test_batcher.py:12-18 rebuilds the fake clock that conftest already provides.

Happy to look again once the first two are in.
""",
        "struck and resolved": """\
Second pass, after the repair commit.

~~**blocking:** the retry budget is read before the config is loaded, so it is always the \
default (kestrel/serving/retry.py:40).~~ Resolved by 6d20ae6.

**blocking:** every rank still seeds its generator with the same value \
(kestrel/sampling/ranks.py:5-9). Dev's per-rank offset was lost in the merge.

**minor:** the flags page still documents --pool-pages (docs/flags.md:4-6).
Resolving.
""",
        "branch link": f"""\
One thing in the sampler; the rest of the merge reads right to me.

**[P2] Top-k is cut after the temperature scaling**

{REPO_URL}/blob/{SLASH_BRANCH}/kestrel/sampling/sampler.py#L20-L24

Main moved the top-k cut below the division by temperature, so which tokens survive now
depends on the temperature. Dev cut first; please keep dev's order.
""",
        "mixed": """\
## Sync review (main → dev, 2026-05-12)

**[P1] The batcher's close() no longer waits for
in-flight batches**
kestrel/serving/batcher.py:88-96 returns as soon as the timer is cancelled; requests already
handed to the model are dropped from the response map. Await the in-flight futures first.

**R4 [P2] — Cache pages are sized from the default config**
kestrel/cache/blocks.py:12-15 reads PAGE_SIZE at import time, before the server config is
applied, so a configured page size is ignored.

| Severity | File | Line | Problem |
|---|---|---|---|
| High | kestrel/serving/retry.py | 61 | The jitter draws from the global random module, so \
seeded runs do not repeat. |
| Low | pyproject.toml | 30-34 | The wheel's package globs pick up tests/serving as well. |

A few more things I noticed:

1. The rank table in kestrel/sampling/ranks.py
   is rebuilt on every request (lines 14-20); build it once at start-up.
2. docs/flags.md:10-12 still gives the flush interval in seconds, but main made it
   milliseconds.
""",
    }
    # One review holding every layout above, one after the other.
    texts[ALL] = "\n".join(texts.values())
    return texts


EXPECTED: dict[str, list[Want]] = {
    "walkthrough": [
        Want(
            "Close drops the partial batch",
            "high",
            (Cited("kestrel/serving/batcher.py", 40, 48),),
        ),
        Want(
            "A zero budget from the config retries forever",
            "high",
            (Cited("kestrel/serving/retry.py", 22, 27),),
        ),
        Want("Spell the key prefix once", "nit", (Cited("kestrel/cache/keys.py", 12, 14),)),
    ],
    "overview": [
        Want(
            "The eviction guard now runs after the page is unpinned",
            "",
            (Cited("kestrel/cache/blocks.py", 50, 50),),
        ),
        Want(
            "The local name t hides the temperature argument",
            "nit",
            (Cited("kestrel/sampling/sampler.py", 33, 33),),
        ),
    ],
    "issues table": [
        Want(
            "A timeout skips the backoff sleep, so timed-out calls are retried back to back",
            "high",
            (Cited("kestrel/serving/retry.py", 30, 34),),
        ),
        Want(
            "The greedy path ignores the repetition penalty that the sampled path applies",
            "medium",
            (Cited("kestrel/sampling/sampler.py", 41, 44),),
        ),
        Want(
            "The flags page still lists --retry-count, which the config key replaced",
            "low",
            (Cited("docs/flags.md", 8, 8),),
        ),
    ],
    "severity headings": [
        Want(
            "Warm-up requests bypass admission control",
            "critical",
            (Cited("kestrel/serving/batcher.py", 70, 75),),
        ),
        Want(
            "Page keys are built twice per lookup",
            "low",
            (Cited("kestrel/cache/keys.py", 20, 24),),
        ),
    ],
    "badges": [
        Want(
            "The prefix-cache key lost the rank",
            "high",
            (Cited("kestrel/cache/keys.py", 10, 12),),
        ),
        Want(
            "Shutdown leaks pinned pages",
            "medium",
            (Cited("kestrel/cache/blocks.py", 60, 66),),
        ),
    ],
    "review mail": [
        Want(
            "The budget counts retries but this loop counts calls",
            "high",
            (Cited("kestrel/serving/retry.py", 31, 31),),
        ),
        Want(
            "Why is the timeout caught here and again in the caller?",
            "",
            (Cited("kestrel/serving/retry.py", 58, 58),),
        ),
    ],
    "lead-ins": [
        Want(
            "The eviction guard from dev is gone from kestrel/cache/blocks.py:50-58, so a page "
            "can be evicted while it is still being copied",
            "critical",
            (Cited("kestrel/cache/blocks.py", 50, 58),),
        ),
        Want(
            "kestrel/serving/retry.py:40-44 swallows the last exception and returns None, which "
            "the caller takes for an empty completion",
            "critical",
            (Cited("kestrel/serving/retry.py", 40, 44),),
        ),
        Want(
            "tests/serving/test_batcher.py:12-18 rebuilds the fake clock that conftest already "
            "provides",
            "low",
            (Cited("tests/serving/test_batcher.py", 12, 18),),
        ),
    ],
    "struck and resolved": [
        Want(
            "the retry budget is read before the config is loaded, so it is always the default "
            "(kestrel/serving/retry.py:40)",
            "critical",
            (Cited("kestrel/serving/retry.py", 40, 40),),
            status="closed",
        ),
        Want(
            "every rank still seeds its generator with the same value "
            "(kestrel/sampling/ranks.py:5-9)",
            "critical",
            (Cited("kestrel/sampling/ranks.py", 5, 9),),
        ),
        Want(
            "the flags page still documents --pool-pages (docs/flags.md:4-6)",
            "low",
            (Cited("docs/flags.md", 4, 6),),
            status="closed",
        ),
    ],
    "branch link": [
        Want(
            "Top-k is cut after the temperature scaling",
            "medium",
            (Cited("kestrel/sampling/sampler.py", 20, 24, needs_refs=True),),
        ),
    ],
    "mixed": [
        Want(
            "The batcher's close() no longer waits for in-flight batches",
            "high",
            (Cited("kestrel/serving/batcher.py", 88, 96),),
        ),
        Want(
            "Cache pages are sized from the default config",
            "medium",
            (Cited("kestrel/cache/blocks.py", 12, 15),),
            id="R4",
        ),
        Want(
            "The jitter draws from the global random module, so seeded runs do not repeat",
            "high",
            (Cited("kestrel/serving/retry.py", 61, 61),),
        ),
        Want(
            "The wheel's package globs pick up tests/serving as well",
            "low",
            (Cited("pyproject.toml", 30, 34),),
        ),
        Want(
            "The rank table in kestrel/sampling/ranks.py is rebuilt on every request "
            "(lines 14-20); build it once at start-up",
            "",
            (Cited("kestrel/sampling/ranks.py", 14, 20),),
        ),
        Want(
            "docs/flags.md:10-12 still gives the flush interval in seconds, but main made it "
            "milliseconds",
            "",
            (Cited("docs/flags.md", 10, 12),),
        ),
    ],
}
EXPECTED[ALL] = [want for wants in EXPECTED.values() for want in wants]

LAYOUTS = list(EXPECTED)

# -- comparing ------------------------------------------------------------------------------

Record = tuple[str, str, str, str, tuple[tuple[str, int, int], ...]]

_REVIEWER_ID = re.compile(r"(?:[FR]|#)\d+")
_STATUS = {"": "open", "unresolved": "open", "closed": "closed", "superseded": "closed"}
# What must never reach a terminal: C0 controls but the line feed, DEL, C1 controls.
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Seen:
    """A finding as the library or the command gave it."""

    id: str
    level: str
    title: str
    status: str
    ranges: tuple[tuple[str, int, int], ...]


def from_finding(finding: Finding) -> Seen:
    ranges = tuple((cited.path, cited.start, cited.end) for cited in finding.ranges)
    return Seen(finding.id, finding.level.value, finding.title, finding.status, ranges)


def from_json(entry: dict[str, Any]) -> Seen:
    ranges = tuple((cited["path"], cited["start"], cited["end"]) for cited in entry["ranges"])
    return Seen(entry["id"], entry["level"], entry["title"], entry["status"], ranges)


def title_text(title: str) -> str:
    """A title as compared: runs of spaces as one, without a sentence's closing period."""
    return " ".join(title.split()).removesuffix(".")


def want_record(want: Want) -> Record:
    ranges = tuple((cited.path, cited.first, cited.last) for cited in want.ranges)
    return (want.id or "", want.level, title_text(want.title), want.status, ranges)


def seen_record(seen: Seen, wants: Sequence[Want], *, with_refs: bool) -> Record:
    """``seen`` in the terms of ``want_record``: a generated id counts as none (the title
    names the finding), ``unresolved`` is open and ``superseded`` closed. Without the
    repository's refs, a range that needs them may keep the ref's segments before its path."""
    repo_only = [cited for want in wants for cited in want.ranges if cited.needs_refs]
    ranges = []
    for path, start, end in seen.ranges:
        for cited in repo_only:
            as_written = path.endswith("/" + cited.path)
            if not with_refs and as_written and (start, end) == (cited.first, cited.last):
                path = cited.path
        ranges.append((path, start, end))
    reviewer = seen.id if _REVIEWER_ID.fullmatch(seen.id) else ""
    status = _STATUS.get(seen.status, seen.status)
    return (reviewer, seen.level, title_text(seen.title), status, tuple(ranges))


def assert_reads(seen: Sequence[Seen], wants: Sequence[Want], *, with_refs: bool) -> None:
    assert [seen_record(s, wants, with_refs=with_refs) for s in seen] == [
        want_record(w) for w in wants
    ]
    ids = [s.id for s in seen]
    assert len(set(ids)) == len(ids), ids
    for finding in seen:
        for text in (finding.id, finding.title, *(path for path, _, _ in finding.ranges)):
            assert not any(unicodedata.category(c) == "Cc" for c in text), repr(text)


def library_order(want: Want) -> tuple[int, tuple[tuple[int, int, str], ...]]:
    """``collect_findings`` sorts the reviewers' ids first, then the generated ones in order."""
    return (0, natural_key(want.id)) if want.id else (1, ())


# -- the fixture repository and the runs ----------------------------------------------------


@pytest.fixture
def layout_repo(repo: GitRepo) -> tuple[GitRepo, str]:
    """The kestrel files at the reviewed head, on main; dev and a branch with slashes there."""
    files = {
        path: "".join(f"{path} line {n}\n" for n in range(1, lines + 1))
        for path, lines in FILES.items()
    }
    sha = repo.commit("kestrel at the reviewed head", files)
    repo.branch("dev", sha)
    repo.branch(SLASH_BRANCH, sha)
    return repo, sha


def run_findings(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "syncdesk", "findings", *args],
        capture_output=True,
        env=os.environ,
        check=False,
        timeout=60,
    )


# -- the tests ------------------------------------------------------------------------------


def test_the_expectations_are_consistent() -> None:
    # The data itself, before any parser: every range names a fixture file with those lines,
    # and a finding without a reviewer's id can be told from the others by its title.
    assert LAYOUTS[-1] == ALL
    for name, wants in EXPECTED.items():
        titles = [title_text(w.title) for w in wants if w.id is None]
        assert len(set(titles)) == len(titles), name
        for want in wants:
            assert want.level in ("critical", "high", "medium", "low", "nit", ""), want
            assert want.status in ("open", "closed"), want
            assert want.id is None or _REVIEWER_ID.fullmatch(want.id), want
            for cited in want.ranges:
                assert 1 <= cited.first <= cited.last <= FILES[cited.path], cited
    assert set(layouts("0" * 40)) == set(EXPECTED)


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_library_reads_each_layout(layout_repo: tuple[GitRepo, str], name: str) -> None:
    repo, sha = layout_repo
    review = Review(1, "reviewer", "COMMENTED", layouts(sha)[name], sha, "2026-05-12T09:00:00Z")
    found = collect_findings([review], [])
    wants = sorted(EXPECTED[name], key=library_order)
    assert_reads([from_finding(f) for f in found], wants, with_refs=False)
    resolved = resolve_cited_paths(Git(repo.path), sha, found)
    assert_reads([from_finding(f) for f in resolved], wants, with_refs=True)


@pytest.mark.parametrize("with_repo", [False, True], ids=["offline", "with-repo"])
@pytest.mark.parametrize("name", LAYOUTS)
def test_the_command_reads_each_layout(
    layout_repo: tuple[GitRepo, str], tmp_path: Path, name: str, with_repo: bool
) -> None:
    repo, sha = layout_repo
    source = tmp_path / "review.md"
    source.write_text(layouts(sha)[name], encoding="utf-8")
    args = ["--text-file", str(source), "--format", "json"]
    result = run_findings(*args, *(["--repo", str(repo.path)] if with_repo else []))
    stdout, stderr = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == 0, stderr
    assert not _CONTROL.search(stdout), repr(_CONTROL.findall(stdout))
    assert not _CONTROL.search(stderr), repr(_CONTROL.findall(stderr))
    seen = [from_json(entry) for entry in json.loads(stdout)["findings"]]
    assert_reads(seen, EXPECTED[name], with_refs=with_repo)
