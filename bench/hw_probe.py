#!/usr/bin/env python3
"""Full probe of this machine (minutes, not seconds: kept out of the tests).

    .venv/bin/python bench/hw_probe.py [--max-mib N] [--reps N] [--out DIR]

Writes DIR/probe.json (the report of ``hostio probe --json``) and DIR/platform.toml (the
simulator's platform file), and prints the readable summary. Default DIR: out/hw.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from hostio import probe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-mib", type=float, help="largest working set (default 4 × LLC)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", default="out/hw")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    r = probe.run_probe(probe.ProbeOptions(max_mib=a.max_mib, reps=a.reps),
                        progress=lambda m: print(f"probe: {m}", file=sys.stderr))
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
