"""Whether a reviewer's words leave anything to act on.

A review that follows no finding grammar still becomes a finding, so that nothing a
reviewer wrote is dropped; but an approval ("LGTM, the resolutions look right to
me"), a thank-you, a bot command (``/ok to test 4a5b6c7``) or a verdict that there
is nothing to do ("No additional actionable finding", "Findings: CRITICAL: 0") is not
one. :func:`nothing_to_act_on` decides: the text, bot commands left out, says nothing
at all, or says one of those things and, once they are taken out, asks for nothing
(no "please", "should", question mark, "but", "missing", ...).

The word lists are in this module and in ``docs/findings.md``; every pattern starts at a
word boundary with a bounded gap, so the work grows linearly with the text.
"""

from __future__ import annotations

import re

_COMMAND = re.compile(r"(?m:^[ \t]*/[a-z][\w-]*(?:[ \t][^\n]*)?$)")
_NOUNS = (
    r"(?:findings?|issues?|concerns?|comments?|blockers?|problems?|objections?|remarks?"
    r"|notes?|changes?|action|nits?|follow[- ]?ups?)"
)
_NOTHING = re.compile(
    r"(?i:\b(?:lgtm|ship[ \t]+it|approved?|approving|thanks?|thank[ \t]+you|agreed|done"
    r"|sounds[ \t]+good|makes[ \t]+sense|well[ \t]+done|great[ \t]+work|nice[ \t]+work"
    r"|n/a|(?:all[ \t]+)?good[ \t]+to[ \t]+(?:go|merge)"
    r"|looks?[ \t]+(?:good|great|fine|right|correct|sane|reasonable|ok(?:ay)?)(?:[ \t]+to[ \t]+me)?"
    r"|looked[ \t]+(?:good|fine|right|correct)|(?:is|are)[ \t]+(?:fine|correct|right)"
    rf"|no\b(?:[ \t]+[\w-]{{1,30}}){{0,4}}?[ \t]+{_NOUNS}\b"
    rf"|nothing(?:[ \t]+(?:else|more|further))?[ \t]+to[ \t]+(?:act[ \t]+on|add|fix|address"
    r"|flag|report|do)"
    r"|(?:critical|important|suggestion|high|medium|low|major|minor|nits?|blocking)[ \t]*[:=]"
    r"[ \t]*0\b)"
    r"|\+1|:\+1:|👍|✅|🚀|🎉"
    # "none" alone on a line ("- none"), not a word of prose ("returns None, which ...")
    r"|(?<![^\n])[ \t]*none[ \t.!]*(?![^\n]))"
)
_ASKS = re.compile(
    r"(?i:\b(?:please|should|must|needs?|needed|could|can[ \t]+you|would|consider|instead"
    r"|but|however|although|though|except|unless|todo|fixme|bug|wrong|missing|broken|incorrect"
    r"|fails?|failing|failure|regress\w*|concerns?|issues?|problems?|blocking|blockers?|nits?"
    r"|minor|major|critical|important|suggest\w*|why|race|leaks?|crash\w*|breaks?|drops?"
    r"|lost|loses|typo|unused|dead|stale|revert\w*|remove|rename|fix\w*|not|cannot|until"
    r"|\w+n['’]t)\b|\?)"
)
_MAX = 20_000  # a longer text is never "only an approval"


def nothing_to_act_on(text: str) -> bool:
    """Whether ``text`` only approves, thanks, runs a bot command or says nothing is left.

    ``"LGTM. The conflict resolutions look right to me."``, ``"/ok to test 4a5b6c7"``
    and ``"No additional actionable finding."`` leave nothing to act on;
    ``"LGTM, but the retry loop never backs off."`` and a concern in prose do.
    """
    if len(text) > _MAX:
        return False
    rest = _COMMAND.sub(" ", text)
    if not rest.strip(" \t\n.!-—–*_`>#|"):
        return True
    if _NOTHING.search(rest) is None:
        return False
    return _ASKS.search(_NOTHING.sub(" ", rest)) is None


def without_approvals(text: str) -> str:
    """``text`` without its bot commands and approvals: "no remaining blockers" grades nothing."""
    return _NOTHING.sub(" ", _COMMAND.sub(" ", text))
