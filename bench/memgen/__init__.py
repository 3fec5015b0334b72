"""Building blocks of bench/generate.py: a seeded generator of labelled memory directories."""
