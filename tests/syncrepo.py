"""A small, sync-shaped repository built with real git, for the service tests.

The shape (DOMAIN.md): ``main`` is a root commit plus a linear run of commits
``M1..Mn``; ``dev`` forks from the root with commits of its own; the ``sync``
branch starts at dev's tip (the dev base) and holds one two-parent merge
(parent 1 = dev base, parent 2 = the ``tip_index``-th oldest main commit) whose
tree carries hand resolutions of two conflicted files plus one "evil" change
to a file that did not conflict, then an optional repair commit.

Every keyword argument of :func:`build_sync_repo` breaks one rule of the
anatomy, so each problem code has a branch made to violate it. The builder
returns the facts it built (SHAs, conflicted files), and tests compare the
services' answers against those facts or against raw git.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.gitrepo import GitRepo

ADA = ("Ada Maintainer", "ada@example.com")  # the committer of every commit (conftest)
ALICE = ("Alice Main", "alice@corp.example")
BOB = ("Bob Builder", "bob@corp.example")
BOT = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")
CAROL = ("Carol Coder", "carol@corp.example")
DAVE = ("Dave Doe", "Dave.Doe@Corp.Example")

FAKE_SSH_SIGNATURE = (
    "gpgsig -----BEGIN SSH SIGNATURE-----\n"
    " U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgZmFrZWZha2VmYWtlZmFrZWZha2Vm\n"
    " -----END SSH SIGNATURE-----\n"
)

CONFLICTED = (".github/CODEOWNERS", "pkg/core.py")  # changed by dev and by main
EVIL_FILE = "pkg/util.py"  # changed by neither side, yet changed by the merge


def core(value: str) -> str:
    return f'"""Core."""\n\n\ndef answer() -> str:\n    return "{value}"\n'


def signoff(person: tuple[str, str]) -> str:
    return f"Signed-off-by: {person[0]} <{person[1]}>"


@dataclass(frozen=True)
class MainCommit:
    """What one main commit should be."""

    subject: str
    files: dict[str, str | None]
    author: tuple[str, str] = ALICE
    trailers: tuple[str, ...] = (signoff(ALICE),)
    signed: bool = False

    @property
    def message(self) -> str:
        body = "\n".join(self.trailers)
        return f"{self.subject}\n\nWhat and why.\n" + (f"\n{body}\n" if body else "")


def main_specs(count: int) -> list[MainCommit]:
    """``count`` main commits; the first five carry the interesting variations."""
    specs = [
        MainCommit("Add module one (#101)", {"pkg/mod1.py": "ONE = 1\n"}),
        # Signed off by the committer (Ada), not the author: the DCO app accepts it.
        MainCommit(
            "Change the core answer (#102)",
            {"pkg/core.py": core("main")},
            author=BOB,
            trailers=(signoff(ADA),),
        ),
        # A bot commit with no sign-off (DOMAIN.md, DCO).
        MainCommit(
            "Update code owners (#103)",
            {".github/CODEOWNERS": "* @team @main-team\n"},
            author=BOT,
            trailers=(),
        ),
        # Signed off with the noreply address while authored with the corporate one.
        MainCommit(
            "Bump the version",
            {"pyproject.toml": '[project]\nname = "demo"\nversion = "0.2"\n'},
            author=CAROL,
            trailers=("Signed-off-by: Carol Coder <carol@users.noreply.github.com>",),
        ),
        # Case differs between the sign-off and the author: still a match. Signed.
        MainCommit(
            "Add module five (#105)",
            {"pkg/mod5.py": "FIVE = 5\n"},
            author=DAVE,
            trailers=("Signed-off-by: dave doe <dave.doe@corp.example>",),
            signed=True,
        ),
    ]
    for number in range(6, count + 1):
        specs.append(
            MainCommit(
                f"Add module {number} (#{100 + number})", {f"pkg/mod{number}.py": f"N = {number}\n"}
            )
        )
    return specs[:count]


@dataclass
class SyncRepo:
    """The facts the builder built."""

    repo: GitRepo
    root: str  # where dev forked from main
    main_line: list[str]  # dev_base..main in first-parent order, oldest first
    side_commits: list[str]  # commits of a side branch merged into main (not first-parent)
    dev_base: str  # parent 1 of the sync merge (dev's tip when the sync was made)
    merge: str | None
    slice_tip: str | None  # parent 2 of the sync merge
    repair: str | None
    on_top: list[str]  # every commit after the merge on the sync branch, oldest first
    dev_new: list[str]  # dev's commits after the dev base, oldest first
    head: str
    slice_size: int
    conflicted: tuple[str, ...] = CONFLICTED
    evil_file: str = EVIL_FILE
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def sync_merge(self) -> str:
        """The merge, for shapes that have one."""
        assert self.merge is not None, "this shape has no sync merge"
        return self.merge

    @property
    def parent2(self) -> str:
        """Parent 2 of the merge, for shapes that have one."""
        assert self.slice_tip is not None, "this shape has no sync merge"
        return self.slice_tip

    @property
    def path(self) -> Path:
        return self.repo.path

    def git(self, *args: str) -> str:
        return self.repo.git(*args)


def sign_head(repo: GitRepo) -> str:
    """Rewrite HEAD's commit with a fake SSH ``gpgsig`` header; return the new SHA."""
    raw = subprocess.run(
        ["git", "cat-file", "commit", "HEAD"], cwd=repo.path, capture_output=True, check=True
    ).stdout
    header, _, message = raw.partition(b"\n\n")
    signed = header + b"\n" + FAKE_SSH_SIGNATURE.encode().rstrip(b"\n") + b"\n\n" + message
    sha = repo.git("hash-object", "-t", "commit", "-w", "--stdin", input=signed)
    repo.git("update-ref", "HEAD", sha)
    return sha


def _base(repo: GitRepo) -> str:
    return repo.commit(
        "Initial project",
        {
            "README.md": "# demo\n",
            "pkg/__init__.py": "",
            "pkg/core.py": core("base"),
            EVIL_FILE: "def helper(x):\n    return x\n",
            ".github/CODEOWNERS": "* @team\n",
            "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1"\n',
            "uv.lock": "version = 1\n",
        },
    )


def _dev(repo: GitRepo, root: str) -> str:
    repo.checkout("dev", root)
    repo.commit(
        "dev: experimental core",
        {"pkg/core.py": core("dev"), "pkg/feature.py": "def feature():\n    return 1\n"},
    )
    return repo.commit("dev: feature owners", {".github/CODEOWNERS": "* @team @dev-team\n"})


def _main(
    repo: GitRepo,
    count: int,
    main_merge_at: int | None,
    subjects: dict[int, str],
    authors: dict[int, tuple[str, str]],
) -> tuple[list[str], list[str]]:
    repo.checkout("main")
    line: list[str] = []
    side: list[str] = []
    for position, spec in enumerate(main_specs(count), start=1):
        subject = subjects.get(position, spec.subject)
        message = MainCommit(subject, spec.files, spec.author, spec.trailers).message
        if position == main_merge_at:
            repo.checkout("side", "HEAD")
            side.append(repo.commit("side: first", {"side/a.py": "A = 1\n"}))
            side.append(repo.commit("side: second", {"side/b.py": "B = 2\n"}))
            repo.checkout("main")
            line.append(repo.merge("side", message, resolve=spec.files))
            continue
        line.append(repo.commit(message, spec.files, author=authors.get(position, spec.author)))
        if spec.signed:
            line[-1] = sign_head(repo)
    return line, side


def _rewritten_copy(repo: GitRepo, root: str, commits: list[str]) -> str:
    """Copies of ``commits`` on a side branch: same changes, new SHAs (the slice rewritten)."""
    repo.checkout("rewritten", root)
    for sha in commits:
        repo.git("cherry-pick", "-x", "--allow-empty", sha)
    return repo.rev("HEAD")


def build_sync_repo(
    path: Path,
    *,
    main_count: int = 8,
    slice_size: int = 5,
    tip_index: int | None = None,
    repair: bool = True,
    extra_on_top: int = 0,
    dev_moves: str | None = None,
    dev_merge_on_top: bool = False,
    base_off_dev: bool = False,
    rewrite_slice: bool = False,
    no_merge: bool = False,
    main_merge_at: int | None = None,
    merge_message: str = "Tidy up imports",
    subjects: dict[int, str] | None = None,
    authors: dict[int, tuple[str, str]] | None = None,
) -> SyncRepo:
    """Build the repository; see the module docstring for the shape.

    - ``tip_index``: parent 2 is the ``tip_index``-th oldest main commit (default ``slice_size``);
    - ``dev_moves``: ``"clean"`` or ``"conflict"``: dev gains commits after the sync was made,
      which merge into the head cleanly or not;
    - ``dev_merge_on_top``: dev (moved on cleanly) is merged into the sync branch afterwards;
    - ``base_off_dev``: parent 1 is a commit made on the sync branch, not on dev;
    - ``rewrite_slice``: parent 2 is a cherry-picked copy of the slice, not main's commits;
    - ``no_merge``: the sync branch is dev plus plain commits (one titled like a sync merge);
    - ``main_merge_at``: main's commit at that position is a merge of a two-commit side branch;
    - ``subjects`` / ``authors``: override main commits' subjects / authors by position.
    """
    repo = GitRepo(path)
    root = _base(repo)
    dev_tip = _dev(repo, root)
    line, side = _main(repo, main_count, main_merge_at, subjects or {}, authors or {})
    tip_index = slice_size if tip_index is None else tip_index

    repo.checkout("sync", dev_tip)
    merge = slice_tip = repair_sha = None
    on_top: list[str] = []
    dev_base = dev_tip
    if no_merge:
        on_top.append(
            repo.commit(
                "Merge branch 'main' into dev", {"pkg/feature.py": "def feature():\n    return 2\n"}
            )
        )
        on_top.append(
            repo.commit("Fix the feature", {"pkg/feature.py": "def feature():\n    return 3\n"})
        )
    else:
        if base_off_dev:
            dev_base = repo.commit("Local work before the merge", {"pkg/local.py": "LOCAL = 1\n"})
        slice_tip = line[tip_index - 1]
        if rewrite_slice:
            slice_tip = _rewritten_copy(repo, root, line[:tip_index])
            repo.checkout("sync")
        merge = repo.merge(slice_tip, merge_message, resolve=_resolutions(line[:tip_index], repo))
        if repair:
            on_top.append(
                repo.commit(
                    "Repair after the merge",
                    {"pkg/feature.py": "def feature():\n    return 1  # fixed\n"},
                )
            )
        for number in range(extra_on_top):
            on_top.append(
                repo.commit(f"Another fix {number + 1}", {f"pkg/fix{number + 1}.py": "X = 1\n"})
            )
    dev_new = _move_dev(repo, dev_tip, dev_moves or ("clean" if dev_merge_on_top else None))
    if dev_merge_on_top:
        repo.checkout("sync")
        on_top.append(repo.merge("dev", "Merge branch 'dev' into sync"))
    repo.checkout("sync")
    repair_sha = on_top[0] if merge is not None and len(on_top) == 1 and repair else None
    return SyncRepo(
        repo=repo,
        root=root,
        main_line=line,
        side_commits=side,
        dev_base=dev_base,
        merge=merge,
        slice_tip=slice_tip,
        repair=repair_sha,
        on_top=on_top,
        dev_new=dev_new,
        head=repo.rev("HEAD"),
        slice_size=slice_size,
    )


def _resolutions(slice_commits: list[str], repo: GitRepo) -> dict[str, str | None]:
    """The hand resolution: a custom mix for the core, dev's owners, and one evil change."""
    resolution: dict[str, str | None] = {
        EVIL_FILE: "def helper(x):\n    return x  # touched by the merge\n"
    }
    touched = set(
        repo.git("diff", "--name-only", f"{slice_commits[0]}^", slice_commits[-1]).splitlines()
    )
    if "pkg/core.py" in touched:
        resolution["pkg/core.py"] = core("dev+main")
    if ".github/CODEOWNERS" in touched:
        resolution[".github/CODEOWNERS"] = "* @team @dev-team\n"
    return resolution


def _move_dev(repo: GitRepo, dev_tip: str, how: str | None) -> list[str]:
    if how is None:
        return []
    repo.checkout("dev")
    if how == "clean":
        first = repo.commit("dev: new module", {"pkg/newdev.py": "NEW = 1\n"})
        return [first, repo.commit("dev: docs", {"README.md": "# demo\n\nMore.\n"})]
    if how == "conflict":
        return [repo.commit("dev: core again", {"pkg/core.py": core("dev2")})]
    raise ValueError(how)
