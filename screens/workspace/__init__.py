"""The conflict workspace: dev | result | main side by side, one key per decision.

``screen`` binds the keys; ``core`` holds the state and the view; the actions live by
meaning in ``decisions``, ``edits``, ``restores``, ``attribution`` and ``panes``.
"""
