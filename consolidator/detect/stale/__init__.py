"""Evidence that a memory, or a part of it, is no longer true: status markers, finished work,
missing project paths.
"""
