"""The exit codes every ``syncdesk`` command shares (0 is success)."""

EXIT_ERROR = 1  # a failure the user can cause or meet: one line on stderr says which
EXIT_USAGE = 2  # the command line itself is wrong (argparse's own code)
EXIT_INTERNAL = 70  # a bug: an exception nothing expected (EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as a shell reports it)
