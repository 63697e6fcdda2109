"""syncdesk's core: everything that decides, with no UI imports.

Nothing under ``syncdesk.services`` may import textual, rich, ``tui`` or
``screens``; ``tests/test_layers.py`` holds the line. One folder a concept,
bottom up (each folder uses only those above it in this list):

- ``sanitize``, ``lines``, ``errors``, ``progress``: the ground every folder stands on;
- ``git/``: the one runner, objects, trees, commits, ref moves, crash-safe files;
- ``conflicts/``: merge-tree, markers, hunks, placement, resolution, attribution;
- ``audit/``: lost dev lines and their triage;
- ``sync/``: configuration, the slice, the anatomy, the opened sync session;
- ``github/``, ``description/``: the pull request, its checks and its description;
- ``review/``: findings, their blame origin, dispositions, the reply;
- ``report/``: the report's sections and its one serialiser;
- ``decisions/``: saved decisions and the carry-over store;
- ``workspace/``: what the conflict workspace shows and does;
- ``write/``: the repair commit, rebuild, push;
- ``demo/``, ``sandbox/``: beside the product; the product never imports them.
"""
