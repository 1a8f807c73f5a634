"""`python -m runtime ...`: the headless command line."""

import sys

from runtime.cli import main

sys.exit(main())
