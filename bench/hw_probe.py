#!/usr/bin/env python3
"""Full probe of this machine (minutes, not seconds: kept out of the tests).

    .venv/bin/python bench/hw_probe.py [--max-mib N] [--reps N] [--out DIR]

Writes DIR/probe.json (the report of ``hostio probe --json``) and DIR/platform.toml (the
simulator's platform file), and prints the readable summary. Default DIR: out/hw.
--max-mib is 0.0625..=65536, --reps 1..=1000 (``hostio probe``'s limits); bad values are refused
before DIR is created.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from _args import int_in, number_in, out_dir
from hostio import probe
from hostio.cli import one_line
from hostio.errors import USER_ERRORS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-mib", type=number_in(0.0625, 65536, " MiB"), help="largest working set (default 4 × LLC)")
    ap.add_argument("--reps", type=int_in(1, 1000), default=7)
    ap.add_argument("--out", default="out/hw")
    a = ap.parse_args()
    opts = probe.ProbeOptions(max_mib=a.max_mib, reps=a.reps)
    try:
        opts.validate()
    except USER_ERRORS as e:
        ap.error(one_line(e))
    out_dir(ap, a.out, "probe.json", "platform.toml")
    t0 = time.time()
    r = probe.run_probe(opts, progress=lambda m: print(f"probe: {m}", file=sys.stderr))
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump(r, f, indent=2)
    try:
        with open(os.path.join(a.out, "platform.toml"), "w") as f:
            f.write(probe.platform_toml(r))
    except Exception as e:  # a one-cpu machine has no c2c: report, keep the JSON
        print(f"platform file not written: {e}", file=sys.stderr)
    print(probe.format_summary(r))
    print(f"({time.time() - t0:.0f} s; files in {a.out}/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
