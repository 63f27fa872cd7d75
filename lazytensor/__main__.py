"""`python -m lazytensor`: the command line (`lazytensor.cli`)."""

import sys

from lazytensor.cli import main

if __name__ == "__main__":
    sys.exit(main())
