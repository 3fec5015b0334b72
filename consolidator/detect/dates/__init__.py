"""Dates in memory text: relative phrases and their anchors, deadlines, a memory's age in Claude
Code's words.
"""
