import sys

from hostio.cli import main

sys.exit(main())
