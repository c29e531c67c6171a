"""`python -m bookkit.bench`, as `make bench` runs it: the package's command line."""

import sys

from bookkit.bench import main

sys.exit(main())
