"""``python -m tui``: the same as the ``syncdesk`` command."""

import sys

from tui.cli import main

sys.exit(main())
