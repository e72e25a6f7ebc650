"""``python -m autota`` runs the command line."""

import os
import sys
from pathlib import Path

# `python -m` puts the working directory first on `sys.path`, where a project's own `copy.py` or
# `time.py` would stand in for the standard library modules autota imports (the console script
# does not put it there). Kept where autota itself is found there: a checkout run in place.
if sys.path and sys.path[0] in ("", os.getcwd()) and Path(__file__).resolve().parents[1] != Path.cwd().resolve():
    del sys.path[0]

from autota.cli.main import main  # noqa: E402

sys.exit(main())
