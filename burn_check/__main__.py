"""`python -m burn_check PATH...`, the same as `burn-check PATH...`."""

import sys

from burn_check.command import main

sys.exit(main())
