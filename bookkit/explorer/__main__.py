"""`python -m bookkit.explorer FOLDER`: every combination run, its pictures and answers.json written there."""

import sys

from bookkit.explorer.explorer import main

sys.exit(main())
