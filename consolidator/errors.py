"""One base error and the narrow kinds the command line maps to exit codes."""

from __future__ import annotations


class ConsolidatorError(Exception):
    """Base of every expected error; its message is one line fit for a user."""


class UsageError(ConsolidatorError):
    """The command line asked for something impossible (exit 2)."""


class ConfigError(ConsolidatorError):
    """The config has problems; ``problems`` lists each with its key path (exit 2)."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        joined = "; ".join(problems)
        super().__init__(f"{source}: {joined}")


class LockHeld(ConsolidatorError):
    """Another consolidation holds the root's lock (exit 75 under ``--force``)."""


class FileChanged(ConsolidatorError):
    """A memory changed on disk between scan and write; it is left alone this run."""


class UnsafePath(ConsolidatorError):
    """A path would leave the root or pass through a symlink."""
