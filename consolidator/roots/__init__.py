"""Claude Code's on-disk layout: where memory stores and session transcripts live, which stores
a machine has, and which a session's project uses.
"""
