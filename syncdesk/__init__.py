"""syncdesk: a terminal desk for the maintainers who land main -> dev syncs.

The one import root. The code lives in the repository's top-level folders, and
this package links them in, so every module has one name under ``syncdesk``
(``syncdesk.services.git.runner``) and the installed distribution claims no
generic top-level name such as ``services`` or ``tui``:

- ``syncdesk.services``: everything that decides; no UI imports;
- ``syncdesk.screens``: the screens, which orchestrate services in workers;
- ``syncdesk.tui``: the app, the command line and the widgets;
- ``syncdesk.assets``: the stylesheet.
"""
