"""How fast the PCIe models answer (a figure, not a test): sizes/s for the bandwidth sweep, NIC
frames/s, experiments/s. Run: .venv/bin/python bench/pcie_speed.py"""
from __future__ import annotations

import argparse
import time

from _args import summary
from hostio import pcie


def rate(label: str, fn, units: int, repeat: int = 5) -> None:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    print(f"{label:40s} {units / best:12,.0f} /s")


def main() -> None:
    argparse.ArgumentParser(description=summary(__doc__)).parse_args()  # no options: refuse any
    sizes = list(range(1, 4097))
    rate("bandwidth sweep (sizes)", lambda: pcie.bandwidth(sizes), len(sizes))
    frames = list(range(64, 1519))
    rate("NIC throughput (frames, dpdk)", lambda: pcie.nic("dpdk", frames), len(frames))
    windows = [1 << k for k in range(12, 27)]
    rate("pcie-bench experiments (BW_RD windows)",
         lambda: [pcie.experiment("BW_RD", 64, w, cache="warm", iommu=True, superpages=False) for w in windows],
         len(windows))


if __name__ == "__main__":
    main()
