"""Check that the simulator's results did not change: run a fixed set of short scenarios with
several seeds and compare their full metrics (and event counts) with a saved reference.

    .venv/bin/python bench/same_results.py --save ref.json     # on the reference build
    .venv/bin/python bench/same_results.py --check ref.json    # on the changed build

Cases cover 1500 B and 64 B forwarding (the second drops most arrivals; also with several queues,
skewed flows, flow-director imbalance and PAUSE on), PAUSE frames, a size
mix, two sockets with remote memory, a cache-hungry co-runner with CAT and MBA, 8 and 18 cores,
the PLRU, QLRU and random replacement policies (QLRU on Haswell's 20 ways too), Ice Lake with 4 cores;
each with three seeds. Exit status 1 when any number differs.
"""
import argparse
import json
import os
import sys

import hostio
from hostio import outfile
from _args import summary
from hostio.cli import one_line
from hostio.errors import USER_ERRORS

SHORT = ["run.duration_us=400", "run.warmup_us=300"]
CASES = {
    "single_core": ("ddio/single_core", []),
    "single_core_64B": ("ddio/single_core", ["traffic.t0.packet_size=64"]),
    "single_core_imix": ("ddio/single_core", ['traffic.t0.size_mix="imix"']),
    "multi_core_8": ("ddio/multi_core", ["apps.fwd.cores=8", "nics.nic0.rx_descriptors=512"]),
    "pause": ("ddio/pause", []),
    "remote": ("ddio/remote", []),
    "interference": ("ddio/interference", []),
    "isolation": ("ddio/isolation", []),
    "stateful_chain": ("ddio/stateful_chain", []),
    "interference_plru": ("ddio/interference", ['platform.replacement="plru"']),
    "interference_qlru": ("ddio/interference", ['platform.replacement="qlru"']),
    "interference_random": ("ddio/interference", ['platform.replacement="random"']),
    "haswell_64B": ("ddio/single_core", ['platform.preset="haswell-e5-2699v3"', "traffic.t0.packet_size=64"]),
    "haswell_interference_qlru": ("ddio/interference", ['platform.preset="haswell-e5-2699v3"', 'platform.replacement="qlru"']),
    "multi_core_64B_skew": ("ddio/multi_core", ["apps.fwd.cores=4", "nics.nic0.rx_descriptors=256", "traffic.t0.packet_size=64", "traffic.t0.flow_skew=1.1"]),
    "multi_core_64B_imbalance": ("ddio/multi_core", ["apps.fwd.cores=3", "nics.nic0.rx_descriptors=256", 'traffic.t0.size_mix="imix"', "traffic.t0.imbalance=2.5"]),
    "pause_64B": ("ddio/pause", ["traffic.t0.packet_size=64"]),
    "icelake_multi_core": ("ddio/multi_core", ['platform.preset="icelake-silver-4314"', "apps.fwd.cores=4"]),
}
SEEDS = (1, 2, 3)


def collect() -> dict:
    out = {}
    for name, (scenario, ov) in CASES.items():
        text = hostio.scenario_path(scenario).read_text()
        if any(o.startswith("traffic.t0.size_mix") for o in ov):
            text = text.replace("packet_size = 1500", "")
        for seed in SEEDS:
            r = hostio.run(text, set=SHORT + ov, seed=seed)
            out[f"{name}/seed{seed}"] = {"events": r["events"], "metrics": r["metrics"]}
            print(f"  {name} seed {seed}: {r['events']} events, {r['wall_seconds']:.2f} s", file=sys.stderr)
    return out


def diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            yield from diff(a.get(k), b.get(k), f"{path}/{k}")
    elif a != b:
        yield f"{path}: {a!r} -> {b!r}"


def load_reference(path: str) -> dict:
    """The runs saved by --save: a non-empty object of "case/seedN": {"events": int, "metrics": {...}}."""
    with open(path, "rb") as f:
        try:
            want = json.load(f)
        except (ValueError, RecursionError) as e:  # not JSON, not UTF-8, nested too deep
            raise ValueError(f"not readable JSON ({e})") from None
    if not (isinstance(want, dict) and want and all(
            isinstance(v, dict) and isinstance(v.get("events"), int) and isinstance(v.get("metrics"), dict)
            for v in want.values())):
        raise ValueError('not a file written by --save (a JSON object of "case/seedN": {"events": ..., "metrics": {...}})')
    return want


def main() -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE", help="write the reference here (- for standard output)")
    g.add_argument("--check", metavar="FILE", help="compare with the reference a --save wrote")
    args = ap.parse_args()
    # Bad paths and reference files are refused before the runs (minutes), and nothing is written.
    try:
        if args.save is not None:
            outfile.check("--save", args.save)
            if args.save != "-" and os.path.isfile(args.save) and os.path.getsize(args.save):  # an empty one (mktemp's) may go
                try:  # replace only a reference (never, say, this script)
                    load_reference(args.save)
                except (OSError, ValueError) as e:
                    ap.error(one_line(f"argument --save: {args.save!r}: a new file or a reference an earlier --save wrote "
                                      f"(this file is not: {e})"))
        else:
            want = load_reference(args.check)
    except USER_ERRORS as e:
        ap.error(one_line(e))
    except OSError as e:
        ap.error(one_line(f"argument --check: {args.check!r}: {e.strerror or e}"))
    except ValueError as e:
        ap.error(one_line(f"argument --check: {args.check!r}: {e}"))
    got = collect()
    if args.save is not None:
        text = json.dumps(got, indent=1, sort_keys=True)
        if args.save == "-":
            print(text)
        else:
            try:
                outfile.write_text(args.save, text, "--save")
            except USER_ERRORS as e:
                ap.error(one_line(e))
        print(f"saved {len(got)} runs to {args.save}", file=sys.stderr if args.save == "-" else sys.stdout)
        return
    d = list(diff(want, got))
    for line in d:
        print(line)
    print(f"{len(got)} runs compared: {'identical' if not d else f'{len(d)} differences'}")
    sys.exit(1 if d else 0)


if __name__ == "__main__":
    main()
