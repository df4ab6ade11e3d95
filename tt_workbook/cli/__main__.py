"""``python -m tt_workbook.cli``: the ``tt`` command."""

import sys

from tt_workbook.cli import main

sys.exit(main())
