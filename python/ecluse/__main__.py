"""`python -m ecluse`: the same as the `ecluse` command."""
import sys

from .cli import main

sys.exit(main())
