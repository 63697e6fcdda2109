"""A sync branch as a set of facts: configuration and policies, the slice and its commits,
the DCO rule, the anatomy, which commits are ours, what happened around the sync, and the
opened sync session that gathers them.
"""
