import sys

from polypragma.cli import main

sys.exit(main())
