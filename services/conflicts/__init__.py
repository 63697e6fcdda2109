"""The conflicts of a sync merge: merge-tree and its parser, conflict markers, hunks, where
each hunk sits in another version of the file, how the head resolved it, the three-way merge
of trees, the commits behind each hunk (attribution), and which lines of two versions
correspond and which of their words changed (linediff, worddiff).
"""
