"""The ``syncdesk`` command line: the TUI, ``demo``, ``sandbox``, ``report``, ``learn``, writers.

One room a file:

- ``run``: ``main``, the console script's entry point: it hands each command to its room
  and turns every failure into one line on stderr and an exit code (``exits``), never a
  traceback.
- ``parser``: what the command line accepts, and nothing else (``build_parser``).
- ``desk``: opening the TUI on a sync, the only room that imports Textual.
- ``reads``: the commands that only read: ``report``, ``findings``, ``learn``.
- ``demo``: ``demo`` (small or large) and ``sandbox``, on the built-in demo world.
- ``writers``: ``repair``, ``fold``, ``undo``, ``rebuild``, ``push``, which move a branch.
"""
