"""Simulator speed: wall-clock seconds per simulated second (slowdown) and simulated packets per
wall-clock second, for one core of L2 forwarding at 100 Gb/s on the Skylake preset.

    .venv/bin/python bench/sim_speed.py [--sim-ms 20] [--repeat 3]

Runs in this process (one core); prints the best of the repeats for each packet size.
"""
import argparse

import hostio

SCENARIO = """
[run]
seed = 1
duration_us = {dur}
warmup_us = 0
[platform]
preset = "skylake-gold-6140"
[nics.nic0]
rx_descriptors = 1024
tx_descriptors = 1024
[traffic.t0]
nic = "nic0"
packet_size = {size}
[apps.fwd]
kind = "l2fwd"
nic = "nic0"
cores = 1
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim-ms", type=float, default=20.0, help="simulated milliseconds per run")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"hostio {hostio.__version__}: 1 core l2fwd, 100 Gb/s offered, Skylake Gold 6140, {args.sim_ms:g} ms simulated")
    print(f"{'frame':>6} {'slowdown':>10} {'sim pkts/wall s':>16} {'arrivals/wall s':>16} {'events/wall s':>14}")
    for size in (1500, 64):
        best = None
        for _ in range(args.repeat):
            r = hostio.run(SCENARIO.format(dur=args.sim_ms * 1000, size=size))
            if best is None or r["wall_seconds"] < best["wall_seconds"]:
                best = r
        m, wall = best["metrics"], best["wall_seconds"]
        sim_s = best["simulated_us"] * 1e-6
        arrivals = m["offered_mpps"] * 1e6 * sim_s
        print(f"{size:>5}B {wall / sim_s:>10.2f} {m['tx_packets'] / wall:>16,.0f} {arrivals / wall:>16,.0f} {best['events'] / wall:>14,.0f}")


if __name__ == "__main__":
    main()
