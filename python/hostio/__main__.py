import sys

from hostio.cli import main

if __name__ == "__main__":  # worker processes that re-import this module must not run the CLI
    sys.exit(main())
