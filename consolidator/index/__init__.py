"""MEMORY.md: reading its lines and planning its rebuild within Claude Code's limits."""
