"""Memories that say the same thing: exact duplicates, near duplicates, and lines they share."""
