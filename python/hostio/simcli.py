"""Command-line registration (see hostio.cli)."""


def register(subparsers) -> None:
    pass
