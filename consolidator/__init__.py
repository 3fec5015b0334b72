"""Dream Consolidator: keeps Claude Code memory directories healthy without losing a memory."""

__version__ = "0.1.0"
