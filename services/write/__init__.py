"""Rewriting the sync branch: the repair commit (plan, message, write), the rebuild on a
new dev base, the push with a lease, and the writes a session makes (the CLI and the TUI
both call these).
"""
