"""A deterministic demo world: a repository shaped like a real main -> dev sync.

``build_world(directory)`` builds (or reuses) a git repository with a linear
main, a dev branch, and a sync branch made exactly as the bot makes one (the
oldest ``slice_size`` commits of ``dev_base..main``, one merge commit with hand
resolutions of real conflicts, one repair commit), and returns
:class:`DemoFacts`: what the builder guarantees about it. Same spec, same SHAs,
on every machine.
"""
