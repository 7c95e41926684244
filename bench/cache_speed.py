"""Cache simulation speed: accesses per second of `hostio.cache.Hierarchy` and, when installed,
of pycachesim, on the same traces through an LLC of the Skylake preset's geometry with LRU.

    .venv/bin/python bench/cache_speed.py [--accesses 2000000] [--repeat 5] [--footprint-mib 64]

--accesses is 1..=20,000,000 (memory grows by about 90 B per access with pycachesim's address
list: some 2 GB at the limit); --repeat is 1..=1000; --footprint-mib (1..=4096, default 64) is
the span of both traces: at 64 MiB hostio's directory (8 B per line) and set records no longer
fit the host's caches, smaller spans show the simulator's own cost per access.

hostio is driven with device writes and all 11 ways open to them (`ddio_ways=11`), inserted at
the most recently used position (`ddio_insertion="mru"`): DDIO's write-allocate path is then an
11-way LRU LLC (18 slices x 2048 sets, the slice chosen by hostio's address hash), the policy
pycachesim simulates, so both give the same hit rates but for the slice hash's spread (the
simulator's default, set dueling, keeps part of the stream cached where LRU keeps none).
pycachesim gets one LRU cache of 36864 sets x 11 ways x 64 B, fed the same addresses through its
bulk `load(iterable)` call (the address list is built before timing).
Traces: uniform random lines over the footprint, and a sequential stream over it. Each figure is the
median of `--repeat` runs on fresh caches; the two simulators take turns (one run each per
round, each first in every other round), so that both see the same host, and the ratio is the
median of the rounds' ratios.
numpy's OpenBLAS worker thread is switched off (neither simulator uses BLAS; on a 2-core host
the idle worker's spinning took ~8 % of the samples).
Target: hostio >= 3x pycachesim's accesses per second on both traces.
"""
import argparse
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from _args import int_in, summary  # noqa: E402
from hostio.cache import Hierarchy  # noqa: E402

FOOTPRINT = 64 << 20
MAX_ACCESSES = 20_000_000
SETS, WAYS = 36864, 11  # Skylake Gold 6140: 18 slices x 2048 sets, 11 ways


def traces(n: int, footprint: int = FOOTPRINT) -> dict:
    rng = np.random.default_rng(1)
    lines = footprint // 64
    return {
        "uniform": rng.integers(0, lines, n, dtype=np.uint64) * 64,
        "stream": (np.arange(n, dtype=np.uint64) % lines) * 64,
    }


def run_hostio(a: np.ndarray) -> tuple[float, float]:
    h = Hierarchy("skylake-gold-6140", ddio_ways=WAYS, ddio_insertion="mru")
    t = time.perf_counter()
    lv = h.access(a, "dev_write")
    dt = time.perf_counter() - t
    return dt, float(np.count_nonzero(lv) / len(a))


def run_pycachesim(addrs: list) -> tuple[float, float]:
    from cachesim import Cache, CacheSimulator, MainMemory

    mem = MainMemory()
    llc = Cache("LLC", SETS, WAYS, 64, "LRU")
    mem.load_to(llc)
    mem.store_from(llc)
    cs = CacheSimulator(llc, mem)
    t = time.perf_counter()
    cs.load(addrs)
    dt = time.perf_counter() - t
    st = next(iter(cs.stats()))
    return dt, st["HIT_count"] / len(addrs)


def main() -> None:
    ap = argparse.ArgumentParser(description=summary(__doc__))
    ap.add_argument("--accesses", type=int_in(1, MAX_ACCESSES, " accesses per trace"), default=2_000_000)
    ap.add_argument("--repeat", type=int_in(1, 1000, " runs"), default=5)
    ap.add_argument("--footprint-mib", type=int_in(1, 4096, " MiB"), default=FOOTPRINT >> 20)
    args = ap.parse_args()
    try:
        import cachesim  # noqa: F401

        have_peer = True
    except ImportError:
        have_peer = False
        print("pycachesim is not installed (pip install pycachesim): hostio's figures only")
    print(f"LLC 36864 sets x 11 ways, LRU; {args.accesses:,} accesses per trace over {args.footprint_mib} MiB; median of {args.repeat} runs")
    print(f"{'trace':>8} {'hostio acc/s':>14} {'hit rate':>9} {'pycachesim acc/s':>17} {'hit rate':>9} {'ratio (min-max)':>17}")
    for name, a in traces(args.accesses, args.footprint_mib << 20).items():
        addrs = a.tolist() if have_peer else None
        h, p = [], []
        for k in range(args.repeat):
            # Each simulator goes first in every other round.
            if have_peer and k % 2:
                p.append(run_pycachesim(addrs))
            h.append(run_hostio(a))
            if have_peer and not k % 2:
                p.append(run_pycachesim(addrs))
        h_rate = args.accesses / statistics.median(x[0] for x in h)
        line = f"{name:>8} {h_rate:>14,.0f} {h[0][1]:>9.3f}"
        if have_peer:
            p_rate = args.accesses / statistics.median(x[0] for x in p)
            ratios = [y[0] / x[0] for x, y in zip(h, p)]
            ratio = statistics.median(ratios)
            line += (f" {p_rate:>17,.0f} {p[0][1]:>9.3f} {ratio:>6.2g}x ({min(ratios):.2g}-{max(ratios):.2g})"
                     f"  {'ok' if ratio >= 3 else 'MISSED'} (target >= 3x)")
        print(line)


if __name__ == "__main__":
    main()
