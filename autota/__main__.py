"""``python -m autota`` runs the command line."""

import sys

from autota.cli.main import main

sys.exit(main())
