"""``python -m dpinfer.cli``: the same as the ``dpinfer`` command."""

import sys

from . import main

sys.exit(main())
