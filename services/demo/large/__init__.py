"""The large demo world: a sync the size of a real one, for the desk's speed and its benchmarks.

``build_large_world(directory)`` (in :mod:`syncdesk.services.demo.large.world`)
builds (or reuses) a repository of 3,000 files with a 400-commit backlog on
main, a sync branch that imported its oldest 100 commits (89 conflicted
files: a 10,000-line lock file, a 25,000-line golden-values file, a
3,000-line Python file that lost hundreds of dev lines), a repair commit, a
merge of dev on top and a fix after it, and returns
:class:`~syncdesk.services.demo.large.spec.LargeFacts`. The small demo
(:mod:`syncdesk.services.demo.world`) is untouched by it.
"""
