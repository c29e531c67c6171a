"""`python -m bookkit.burn_check PATH...`, the same as `burn-check PATH...`."""

import sys

from bookkit.burn_check.command import main

sys.exit(main())
