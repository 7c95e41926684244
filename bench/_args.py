"""argparse types for the benchmark scripts: hostio's own number parsing (``hostio.cli``'s
``integer_arg`` and ``number_arg``: ASCII digits only) with a range. A value outside it (zero,
negative, nan, inf, too large) is refused by argparse, naming the option, the value and the range,
with exit status 2, before the script does any work."""
import argparse
import os

from hostio import outfile
from hostio.cli import integer_arg, number_arg, one_line
from hostio.errors import USER_ERRORS


def _shown(text: str) -> str:
    t = text.strip(" \t")
    return repr(t) if len(t) <= 30 else f"{t[:20]!r}… ({len(t)} characters)"


def _ranged(parse, lo, hi, unit: str, name: str):
    def check(text: str):
        value = parse(text)
        if not lo <= value <= hi:  # also false for nan
            raise argparse.ArgumentTypeError(f"{_shown(text)} is out of range: allowed {lo:,}..={hi:,}{unit}")
        return value

    check.__name__ = name
    return check


def int_in(lo: int, hi: int, unit: str = ""):
    """Type for an integer option within lo..hi (``unit`` follows the range in the message)."""
    return _ranged(integer_arg, lo, hi, unit, "integer")


def number_in(lo: float, hi: float, unit: str = ""):
    """Type for a finite number option within lo..hi."""
    return _ranged(number_arg, lo, hi, unit, "number")


def out_dir(ap: argparse.ArgumentParser, out: str, *names: str) -> None:
    """Create output folder ``out`` (``--out``) and check that files ``names`` can be written in
    it; a failure is ``ap.error`` (one line, exit status 2)."""
    try:
        os.makedirs(out, exist_ok=True)
        for name in names:
            outfile.check("--out", os.path.join(out, name))
    except USER_ERRORS as e:
        ap.error(one_line(e))
    except OSError as e:
        ap.error(one_line(f"argument --out: {out!r}: a directory this user can create or write ({e.strerror or e})"))


def summary(doc: str) -> str:
    """A script's docstring's first paragraph as one line, for argparse's description."""
    return " ".join(doc.strip().split("\n\n")[0].split())
