"""Credentials never leave the machine: every text a backend sends is redacted first.

The scan itself is :mod:`consolidator.detect.secrets.scan` (detect, the index and the reports
use it too); its names stay importable from here.
"""

from __future__ import annotations

from consolidator.detect.secrets.scan import (
    KINDS,
    LABELLED,
    PLACEHOLDER,
    Hit,
    find,
    hits,
    redact,
    scrub,
    secret_values,
)

__all__ = [
    "KINDS",
    "LABELLED",
    "PLACEHOLDER",
    "Hit",
    "find",
    "hits",
    "redact",
    "scrub",
    "secret_values",
]
