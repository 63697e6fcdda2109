"""The key grammar: every kind of action, and the keys that do it, on every screen.

One table, so that a key does one kind of thing wherever it is pressed: ``m``
chooses main (a hunk's side in the workspace, "fix on main" in Findings), ``z``
undoes (a decision, or syncdesk's last write), ``r`` reads again, ``P`` sends
something to the remote (a push, a post). The help screen groups a screen's
bindings by these kinds; the README's "Keys" section is this table, row for row;
``tests/test_keys.py`` checks both, and walks every ``BINDINGS`` of every screen
and widget: each binding's id is listed under each of its keys, and no key
belongs to two kinds.

The one exception is a yes/no question (:class:`~syncdesk.screens.confirm_screen.ConfirmScreen`):
it takes ``y`` and ``n`` (and ``escape``) and no other key of the screen beneath,
so its answers may reuse letters that mean something else everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

# How a key is written in the README and the help, where Textual's name differs.
KEY_DISPLAY = {
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "question_mark": "?",
    "plus": "+",
    "slash": "/",
}


@dataclass(frozen=True, slots=True)
class KeyUse:
    """Keys of one kind that go together (``n``/``p``), what they do, and the bindings using them.

    ``ids`` are the binding ids bound to these keys; an empty ``ids`` names keys
    the app binds no binding of its own to (Textual's scrolling and focus keys),
    or that are reserved for a binding still to come.
    """

    keys: tuple[str, ...]  # Textual key names: "n", "question_mark", "ctrl+s"
    does: str
    ids: tuple[str, ...] = ()

    @property
    def shown(self) -> tuple[str, ...]:
        """The keys as a person reads them: ``↑``, ``?``, ``+``."""
        return tuple(display(key) for key in self.keys)


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of action, with its keys.

    ``question``: keys only a yes/no question takes. ``generic``: keys every
    screen has (help, quit, the palette, scrolling); the help lists them last.
    """

    name: str
    uses: tuple[KeyUse, ...]
    question: bool = False
    generic: bool = False

    @property
    def keys(self) -> frozenset[str]:
        """Every key of this kind."""
        return frozenset(key for use in self.uses for key in use.keys)


def display(key: str) -> str:
    """``key`` (a Textual key name) as the README and the help write it."""
    return KEY_DISPLAY.get(key, key)


GRAMMAR: tuple[Kind, ...] = (
    Kind(
        "Move",
        (
            KeyUse(
                ("up", "down", "j", "k"),
                "up and down a list or a text",
                (
                    "slice.down",
                    "slice.up",
                    "findings.down",
                    "findings.up",
                    "commit.down",
                    "commit.up",
                ),
            ),
            KeyUse(
                ("left", "right", "h", "l"),
                "the workspace's text sideways",
                ("view.left", "view.right"),
            ),
            KeyUse(
                ("n", "p"),
                "next / previous hunk, on into the next / previous file",
                ("ws.next", "ws.prev"),
            ),
            KeyUse(("N",), "next file not yet approved", ("ws.next_file",)),
            KeyUse(
                ("slash",),
                "workspace: find a conflicted file by any part of its path",
                ("ws.find",),
            ),
            KeyUse(
                ("x",), "next probable accident (a dev line the result lost)", ("ws.next_accident",)
            ),
        ),
    ),
    Kind(
        "Choose",
        (
            KeyUse(
                ("d", "m"),
                "take dev / main (a hunk); Findings: fix on dev / fix on main",
                ("ws.dev", "ws.main", "findings.dev", "findings.main"),
            ),
            KeyUse(("b",), "take base", ("ws.base",)),
            KeyUse(
                ("u", "U"), "union: dev then main / main then dev", ("ws.union", "ws.union_main")
            ),
            KeyUse(("D", "M"), "the whole file as dev's / main's", ("ws.file_dev", "ws.file_main")),
            KeyUse(("S",), "take the carried-over suggestion", ("ws.suggestion",)),
            KeyUse(
                ("R",),
                "restore the lost dev lines; a lost dev change in a file (after a preview)",
                ("ws.restore", "lost.restore", "preview_restore.restore"),
            ),
            KeyUse(
                ("H", "X"),
                "Findings: fix here (in the repair commit) / closed",
                ("findings.here", "findings.closed"),
            ),
        ),
    ),
    Kind(
        "Approve",
        (
            KeyUse(
                ("a",),
                "approve the file; Findings: accept the suggested disposition",
                ("ws.approve", "findings.accept"),
            ),
        ),
    ),
    Kind(
        "Undo",
        (
            KeyUse(
                ("z", "y"),
                "undo / redo (a file's decisions); Slice: undo syncdesk's last write",
                ("ws.undo", "ws.redo", "slice.undo"),
            ),
        ),
    ),
    Kind(
        "Edit",
        (
            KeyUse(
                ("e", "E"),
                "edit the hunk in the app / in $EDITOR; Findings: write the note",
                ("ws.edit", "ws.editor", "findings.note"),
            ),
            KeyUse(("ctrl+s",), "keep what was typed", ("edit.save", "note.save")),
        ),
    ),
    Kind(
        "Show",
        (
            KeyUse(
                ("v",),
                "show the base beside dev; Status: a description made from the facts",
                ("ws.show_base", "status.description"),
            ),
            KeyUse(
                ("i",),
                "who wrote the hunk, both sides (again: close)",
                ("ws.attribution", "attribution.close"),
            ),
            KeyUse(
                ("L",),
                "the legend: this screen's symbols (again: close)",
                ("app.legend", "legend.close"),
            ),
            KeyUse(("A",), "workspace: the lost dev changes, ranked", ("ws.lost_changes",)),
            KeyUse(
                ("B",),
                "lost dev changes: look for code the result breaks (ranks first)",
                ("lost.breakage",),
            ),
            KeyUse(("F",), "workspace: show or hide the file list", ("ws.files",)),
            KeyUse(("Z",), "workspace: zoom one pane, the next each press, then all", ("ws.zoom",)),
        ),
    ),
    Kind(
        "Write",
        (
            KeyUse(
                ("W",),
                "preview a write of the repair: the approved files (Slice), a re-sign (Status)",
                ("slice.write", "status.resign"),
            ),
            KeyUse(("w",), "in the preview: write it (after a y)", ("preview.write",)),
            KeyUse(
                ("O",),
                "Slice: rebuild the sync (fold dev merged on top; else onto dev's new tip)",
                ("slice.rebuild",),
            ),
        ),
    ),
    Kind(
        "Post",
        (
            KeyUse(
                ("P",),
                "push (Slice); the reply's preview (Findings); in a preview: post it (after a y)",
                ("slice.push", "findings.reply", "reply.post", "preview_text.post"),
            ),
            KeyUse(("o",), "Status: draft the DCO override request", ("status.override",)),
            KeyUse(("t",), "Status: post the CI trigger", ("status.trigger",)),
            KeyUse(("T",), "reply preview: also answer in each inline thread", ("reply.threads",)),
            KeyUse(("plus",), "Status: add or remove a label", ("status.label",)),
        ),
    ),
    Kind("Copy", (KeyUse(("C",), "copy the text shown (OSC 52)", ("preview_text.copy",)),)),
    Kind(
        "Reload",
        (
            KeyUse(
                ("r",),
                "read everything again (the workspace keeps every decision)",
                ("slice.reload", "ws.reload", "findings.reload", "status.reload"),
            ),
        ),
    ),
    Kind(
        "Go",
        (
            KeyUse(
                ("enter",),
                "open the commit or file under the cursor",
                ("slice.open", "conflicts.open", "lost.open"),
            ),
            KeyUse(
                ("c", "f", "s"),
                "Slice: the conflict workspace, the review findings, the status",
                ("slice.conflicts", "slice.findings", "slice.status"),
            ),
            KeyUse(
                ("escape",),
                "back, cancel or close (Slice: stop a load)",
                (
                    "slice.cancel",
                    "ws.back",
                    "lost.back",
                    "findings.back",
                    "status.back",
                    "commit.back",
                    "preview.cancel",
                    "preview_text.cancel",
                    "reply.cancel",
                    "label.cancel",
                    "note.cancel",
                    "edit.cancel",
                    "attribution.close",
                    "help.close",
                    "legend.close",
                    "confirm.no",
                ),
            ),
        ),
    ),
    Kind(
        "Answer",
        (KeyUse(("y", "n"), "in a yes/no question only: yes / no", ("confirm.yes", "confirm.no")),),
        question=True,
    ),
    Kind(
        "Everywhere",
        (
            KeyUse(("question_mark",), "this help (again: close)", ("app.help", "help.close")),
            KeyUse(("q",), "quit", ("app.quit",)),
            KeyUse(("ctrl+p",), "the command palette: every action of the screen"),
            KeyUse(("tab", "shift+tab"), "the next / previous pane"),
            KeyUse(
                ("pageup", "pagedown", "home", "end"),
                "scroll; in a list: a page up / down, the first / last row",
                ("table.first", "table.last"),
            ),
        ),
        generic=True,
    ),
)


def kind_of(key: str, binding_id: str | None) -> Kind | None:
    """The kind of ``key`` as the binding ``binding_id`` uses it; None if the grammar lacks it.

    By key and id both: one binding may sit under two kinds by its keys (the
    attribution closes on ``escape``, Go, and on ``i`` again, Show).
    """
    if binding_id is None:
        return None
    for kind in GRAMMAR:
        for use in kind.uses:
            if binding_id in use.ids and key in use.keys:
                return kind
    return None


# What the footer says for an action on a narrow terminal, where every screen's own
# keys must still fit (two rows at 80 columns); the help and the palette keep the
# full descriptions. Keyed by the binding's action.
SHORT_LABELS = {
    "next_hunk": "Next",
    "previous_hunk": "Prev",
    "next_file": "Next file",
    "find_file": "Find",
    "take('dev')": "Dev",
    "take('main')": "Main",
    "take('union')": "Union",
    "attribution": "Who",
    "write_repair": "Write",
    "undo": "Undo",
    "select_cursor": "Open",
    "override": "Override",
    "description": "Describe",
    "dispose('fix-on-dev')": "On dev",
    "dispose('fix-on-main')": "On main",
    "dispose('fix-here')": "Here",
    "accept": "Accept",
    "toggle_threads": "Threads",
    "breakage": "Breakage",
    "resign": "Re-sign",
    "trigger": "CI",
    "choose('restore')": "Restore",
    "choose('open')": "Go",
}
