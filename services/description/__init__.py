"""The sync pull request's description: written from verified facts (``write``), read as a
reviewer would (``shas``), and checked against the facts (``check``).
"""
