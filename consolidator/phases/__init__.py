"""The four phases, in order: scan, detect, consolidate, index."""

from __future__ import annotations

from consolidator.phases import consolidate, detect, index, scan

PHASES = (
    ("scan", scan.run),
    ("detect", detect.run),
    ("consolidate", consolidate.run),
    ("index", index.run),
)
