"""A sync branch with dev merged in on top, built with real git: who wrote which line is known.

The shape of a real sync whose maintainers merged dev in while it was in review:

```
dev:   root ─ dev_base ───────── pr_one ─ pr_two ───── pr_three ─ pr_later   (dev's tip)
main:  root ─ main_one ─ main_two ─ main_three                                 (slice of 2)
sync:  merge(dev_base, main_two) ─ repair_one ─ repair_two
         ─ dev_merge_one (brings pr_one, pr_two) ─ dev_merge_two (brings pr_three,
           conflicts and writes a line of its own) ─ repair_three
```

Every line that matters is unique and named in :data:`LINES` with the commit that wrote it, so a
test can check a class against the builder and against raw ``git blame``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.conflictrepo import numbered, replace_lines
from tests.gitrepo import GitRepo

SLICE_SIZE = 2

CORE = numbered(30, "core")
TRAIN = numbered(20, "train")
DISPATCH = numbered(10, "dispatch")

# (path, the line's text) -> the name of the commit that wrote it (a key of DevMerged.shas)
LINES = {
    ("core.py", "core 1"): "root",
    ("core.py", "dev three"): "dev_base",
    ("core.py", "merge ten"): "merge",
    ("core.py", "main fifteen"): "main_one",
    ("core.py", "repair three added"): "repair_three",
    ("train.py", "repair one five"): "repair_one",
    ("train.py", "dev merge eight"): "dev_merge_two",
    ("train.py", "dev pr two fifteen"): "pr_two",
    ("dispatch.py", "dev pr one two"): "pr_one",
    ("dispatch.py", "dev pr one extra"): "pr_one",
    ("dispatch.py", "dev pr three seven"): "pr_three",
}


@dataclass(frozen=True)
class DevMerged:
    """The built repository, every commit by name, and the head's files."""

    repo: GitRepo
    shas: dict[str, str]

    @property
    def path(self) -> Path:
        return self.repo.path

    def line(self, path: str, text: str) -> int:
        """The head's line number of ``text`` in ``path`` (each is there once)."""
        lines = self.repo.git("show", f"{self.shas['head']}:{path}").splitlines()
        assert lines.count(text) == 1, (path, text)
        return lines.index(text) + 1

    def blamed(self, path: str, line: int) -> str:
        """Raw ``git blame``'s commit for one head line, independent of syncdesk."""
        out = self.repo.git("blame", "--porcelain", "-L", f"{line},{line}", "sync", "--", path)
        return out.split()[0]


def build_dev_merged(path: Path) -> DevMerged:
    """Build the repository in ``path``: branches ``main``, ``dev`` and ``sync``."""
    repo = GitRepo(path)
    shas = {
        "root": repo.commit("Base", {"core.py": CORE, "train.py": TRAIN, "dispatch.py": DISPATCH})
    }
    core_dev = replace_lines(CORE, {3: "dev three\n", 10: "dev ten\n"})
    repo.checkout("dev", shas["root"])
    shas["dev_base"] = repo.commit("dev: tune the core", {"core.py": core_dev})
    repo.checkout("main")
    core_main = replace_lines(CORE, {10: "main ten\n", 15: "main fifteen\n"})
    shas["main_one"] = repo.commit("main: fifteen (#1)", {"core.py": core_main})
    shas["main_two"] = repo.commit("main: docs (#2)", {"README.md": "docs\n"})
    shas["main_three"] = repo.commit("main: later (#3)", {"LATER.md": "later\n"})
    repo.checkout("sync", shas["dev_base"])
    core_merged = replace_lines(core_dev, {10: "merge ten\n", 15: "main fifteen\n"})
    shas["merge"] = repo.merge(
        shas["main_two"], "Merge main into dev", resolve={"core.py": core_merged}
    )
    train_one = replace_lines(TRAIN, {5: "repair one five\n"})
    shas["repair_one"] = repo.commit("fix: post-merge corrections", {"train.py": train_one})
    train_two = replace_lines(train_one, {8: "repair two eight\n"})
    shas["repair_two"] = repo.commit("fix: restore dev changes", {"train.py": train_two})
    _dev_prs(repo, shas)
    repo.checkout("sync")
    shas["dev_merge_one"] = repo.merge("dev", "Merge branch 'dev' into sync")
    repo.checkout("dev")
    train_dev = replace_lines(TRAIN, {8: "dev pr three eight\n", 15: "dev pr two fifteen\n"})
    dispatch_three = replace_lines(_dispatch_one(), {7: "dev pr three seven\n"})
    shas["pr_three"] = repo.commit(
        "[dev] recipes (#13)", {"train.py": train_dev, "dispatch.py": dispatch_three}
    )
    repo.checkout("sync")
    # Both sides changed train.py line 8: the merge of dev resolves it with a line of its own.
    train_merged = replace_lines(train_two, {8: "dev merge eight\n", 15: "dev pr two fifteen\n"})
    shas["dev_merge_two"] = repo.merge("dev", "Merge dev again", resolve={"train.py": train_merged})
    core_three = core_merged.replace("core 28\n", "core 28\nrepair three added\n")
    shas["repair_three"] = repo.commit("add dropped code", {"core.py": core_three})
    shas["head"] = shas["repair_three"]
    repo.checkout("dev")
    shas["pr_later"] = repo.commit("[dev] not merged in yet (#14)", {"later.py": "later\n"})
    repo.checkout("sync")
    return DevMerged(repo, shas)


def _dispatch_one() -> str:
    return replace_lines(DISPATCH, {2: "dev pr one two\n"}) + "dev pr one extra\n"


def _dev_prs(repo: GitRepo, shas: dict[str, str]) -> None:
    """Dev's pull requests while the sync was in review."""
    repo.checkout("dev")
    shas["pr_one"] = repo.commit("[dev] dispatch thd (#11)", {"dispatch.py": _dispatch_one()})
    train = replace_lines(TRAIN, {15: "dev pr two fifteen\n"})
    shas["pr_two"] = repo.commit("[dev] fsdp metadata (#12)", {"train.py": train})
