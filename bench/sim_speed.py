"""Simulator speed: wall-clock seconds per simulated second (slowdown) and simulated packets per
wall-clock second, for L2 forwarding at 100 Gb/s on the Skylake preset.

    .venv/bin/python bench/sim_speed.py [--sim-ms 200] [--repeat 5] [--case 1500B ...] [--attachment coherent ...]
    .venv/bin/python bench/sim_speed.py --print-scenario 1500B > /tmp/1500B.toml

Cases: one core at 1500 B and at 64 B, eight cores at 1500 B. Each case runs `--repeat` times in
this process (the simulator is single-threaded); the table gives the median slowdown and the
min–max of the runs, and the median CPU-time slowdown (the process's CPU seconds per simulated
second: what wall time would be on an unshared core). Targets: <= 3x real time for one core, <= 10x for eight.
`--attachment` (repeatable) runs the cases behind other NIC attachments too (default: pcie only).
"""
import argparse
import statistics
import time

import hostio
from _args import int_in, number_in, summary

SCENARIO = """
[run]
seed = 1
duration_us = {dur}
warmup_us = 0
[platform]
preset = "skylake-gold-6140"
[nics.nic0]
attachment = "{attachment}"
rx_descriptors = {rxd}
tx_descriptors = 1024
[traffic.t0]
nic = "nic0"
packet_size = {size}
flows = 4096
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
cores = {cores}
"""

# name: (frame bytes, cores, RX descriptors per core, target slowdown)
CASES = {
    "1500B": (1500, 1, 1024, 3.0),
    "64B": (64, 1, 1024, 3.0),
    "8core-1500B": (1500, 8, 512, 10.0),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--sim-ms", type=number_in(0.001, 10000, " ms (run.duration_us 1..=1e7)"), default=200.0,
                    help="simulated milliseconds per run, 0.001..=10000 (default 200)")
    ap.add_argument("--repeat", type=int_in(1, 1000), default=5, help="runs per case, 1..=1000 (default 5)")
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases (repeatable)")
    ap.add_argument("--attachment", action="append", choices=["pcie", "integrated", "coherent", "memory-channel"],
                    help="NIC attachments to run the cases with (repeatable; default pcie)")
    ap.add_argument("--print-scenario", choices=sorted(CASES), metavar="CASE",
                    help="print CASE's scenario (with --sim-ms and the first --attachment) as TOML and exit, e.g. "
                         "for crates/hostio-sim/examples/speed.rs or a profiler")
    args = ap.parse_args()
    if args.print_scenario:
        size, cores, rxd, _ = CASES[args.print_scenario]
        print(SCENARIO.format(dur=args.sim_ms * 1000, size=size, cores=cores, rxd=rxd, attachment=(args.attachment or ["pcie"])[0]).strip())
        return
    print(f"hostio {hostio.__version__}: l2fwd, 100 Gb/s offered, Skylake Gold 6140, {args.sim_ms:g} ms simulated, "
          f"{args.repeat} runs per case")
    print(f"{'case':>28} {'slowdown':>9} {'(min-max)':>13} {'target':>7} {'cpu':>7} {'sim pkts/wall s':>16} {'arrivals/wall s':>16} {'events/wall s':>14}")
    for attachment, name in [(a, c) for a in args.attachment or ["pcie"] for c in args.case or CASES]:
        size, cores, rxd, target = CASES[name]
        runs, cpu = [], []
        for _ in range(args.repeat):
            c0 = time.process_time()
            r = hostio.run(SCENARIO.format(dur=args.sim_ms * 1000, size=size, cores=cores, rxd=rxd, attachment=attachment))
            cpu.append(time.process_time() - c0)
            runs.append(r)
        sim_s = runs[0]["simulated_us"] * 1e-6
        slow = sorted(r["wall_seconds"] / sim_s for r in runs)
        cpu_slow = statistics.median(cpu) / sim_s
        med = statistics.median(slow)
        wall = med * sim_s
        m = runs[0]["metrics"]
        arrivals = m["offered_mpps"] * 1e6 * sim_s
        ok = "ok" if med <= target else "MISSED"
        label = name if attachment == "pcie" else f"{attachment}:{name}"
        print(f"{label:>28} {med:>8.2f}x {f'({slow[0]:.2f}-{slow[-1]:.2f})':>13} {f'<={target:g}x':>7} {cpu_slow:>6.2f}x "
              f"{m['tx_packets'] / wall:>16,.0f} {arrivals / wall:>16,.0f} {runs[0]['events'] / wall:>14,.0f}  {ok}")


if __name__ == "__main__":
    main()
