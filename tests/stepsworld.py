"""A Python file of small functions whose sync loses dev lines by accident, in and out of hunks.

Shared by the workspace's Pilot test of accidents and ``make bench``'s hunk-move measurement.
"""

from __future__ import annotations

# The dev lines each conflict hunk loses when the head takes main's file: the two
# lines around main's change and dev's helper between them (its def and body).
LOST_PER_HUNK = 4


def steps_file(side: str, blocks: int) -> str:
    """A Python file of small functions. In every other one dev changed the lines around
    the one main changed and added a helper there (a conflict hunk); in the others, one
    line main left alone.

    The helper matters: a hunk taken as main that only drops dev lines next to
    main's change is the resolution's decision, but one that drops a whole dev
    function drops dev's work, and every dev line it lost is an accident
    (rule 13 of the triage: services/audit/resolution.py).
    """
    out = []
    for i in range(blocks):
        conflicted = i % 2 == 1
        value, scale, total, helper = f"batch + {i}", f"{i} * 2", "value * scale", ""
        if side == "dev":
            value += f" + offset_{i}"
            if conflicted:
                total += f" + bias_{i}()"
                helper = f"    def bias_{i}():\n        return {i} + {i}\n"
        if side == "main" and conflicted:
            scale = f"{i} * 3"
        out.append(
            f"def step_{i}(batch):\n    value = {value}\n    scale = {scale}\n{helper}"
            f"    total = {total}\n    return total\n\n"
        )
    return "".join(out)
