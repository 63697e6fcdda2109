"""What the conflict workspace shows and does: the layout of each hunk and what each key
decides, loading it, the probable accidents, and the approved content of each file.
"""
