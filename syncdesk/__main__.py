"""``python -m syncdesk``: the same as the ``syncdesk`` command."""

import sys

from syncdesk.tui.cli.run import main

sys.exit(main())
