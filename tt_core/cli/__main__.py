"""``python -m tt_core.cli``: the ``tt`` command."""

import sys

from tt_core.cli import main

sys.exit(main())
