"""``python -m consolidator``."""

import sys

from consolidator.cli import main

sys.exit(main())
