"""The state dir, its one owner: per-root folders, the lock, history and its retention,
proposals waiting for review.
"""
