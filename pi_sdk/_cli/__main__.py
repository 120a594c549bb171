"""``python -m pi_sdk._cli``: the ``pi-sdk`` command."""

import sys

from pi_sdk._cli import main

sys.exit(main())
