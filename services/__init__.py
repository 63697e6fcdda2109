"""syncdesk's core: everything that decides, with no UI imports.

Nothing under ``services`` may import textual, rich, ``tui`` or ``screens``;
``tests/test_import_hygiene.py`` holds the line.
"""
