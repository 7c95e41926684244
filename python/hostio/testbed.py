"""Measurements from the DDIO paper's own testbed, for comparison with hostio's reproduction.

The paper's artifact (github.com/aliireza/ddio-bench, commit 55d0542) publishes the authors'
scripts for Figs. 6 and 8–11 with sample results from their testbed: a Xeon Gold 6140 with a
ConnectX-5 100 GbE, FastClick L2 forwarding (``EtherMirror``), 1500 B frames unless stated,
measured with Intel PCM (``pcm-pcie``: ItoM and PCIeRdCur hits and misses) and the FastClick
generator's counters. Each value here is the median of the 10 runs per point in
``experiments/<experiment>/sample-results/*/<metric>.csv``: the PCIe write (ItoM) and read
(PCIeRdCur) hit rates as fractions, and the received throughput in Gb/s as FastClick counts it
(with 24 B of framing per packet), and beside it the lowest and highest of the 10 runs
(``<metric>_min``, ``<metric>_max``). The artifact's README warns that its DUT ran at 3 GHz
rather than the paper's 2.3 GHz, so these differ a little from the paper's figures.

Some points are bimodal over their runs, the same runs low in both hit rates while the
throughput stays put, so their median lies between two states and the range shows both: two
cores at 256 descriptors each (``CORES``: write hits 0.61–0.63 in five runs, 0.82–0.88 in four,
0.71 in one) and two cores at 20 and 80 mt19937 calls (``PROCESS_TIME``: read hits 0.52–0.56
against 0.68–0.72, and 0.55–0.62 against 0.66–0.74, five runs each); from 0 to 140 calls two to
five runs per point are low in both hit rates (write hits ~0.07–0.09, read hits ~0.13–0.17 lower).

The setups, from the artifact's ``.testie`` files (``NDESC`` is per queue in ``FromDPDKDevice``;
the DUT's ``ToDPDKDevice`` blocks when full and has a 1024-packet software queue in front of a TX
ring of 256 descriptors, the mlx5 PMD's default, which FastClick reads before configuring the
port; flow control is off; the generator replays, from 4 threads at its maximum rate, frames of
4096 UDP flows, each frame's flow drawn at random (a flow's ports change every 128 of its frames),
and measures the latency from before its own TX queue):

* ``PKTSIZE_DESC`` (Fig. 6, ``pktsize-desc``): one core, ``rx_descriptors`` on its queue.
* ``PKT_RATE`` (Fig. 8, ``pkt-rate``): two cores, 4096 descriptors *per queue*; ``rate_gbps`` is
  the generator's measured rate, rounded.
* ``PROCESS_TIME`` (Fig. 9, ``process-time``): two cores, 4096 descriptors in total
  (``NDESC / NCORE``), ``mt19937_calls`` calls of the random number generator per packet.
* ``CORES`` (Fig. 10, ``cores``): 256 descriptors per core.
* ``CORES_VS_WAYS`` (Fig. 11, ``cores-vs-ways``): 4096 descriptors in total, split over the
  cores, ``ddio_ways`` I/O ways.

Latency: ``lat50_us`` is the median latency the generator measures (from before its own TX queue
to its receipt of the forwarded frame; the mean over its four threads of each one's median),
``generator_gbps`` the rate it sent at (24 B of framing counted, so 100 Gb/s at most). When the
generator sends at its NIC's line rate (``LINE_RATE_GBPS`` or more: the 1024 B and 1500 B points,
and Fig. 8's last), its own queue is full and its wait dominates: with 4 to 18 DUT cores, which
forward everything, the median is 697–715 µs (``CORES``), and in ``PKT_RATE`` (two cores, 4096
descriptors per queue) it is 47–99 µs from 10 to 97 Gb/s, then 866 µs at the generator's full
99.4 Gb/s. That queue holds ``GENERATOR_QUEUE_FRAMES`` (~5,700) frames, and the 256 B points' 486
µs at the 11.9 Mpps the generator reached there is about as many (~5,800). ``dut_lat50_us`` takes
its wait out at line-rate points, leaving the DUT's queueing and wires beyond those of the 4-core
point that sizes the queue (so a few µs either side of 0 where the DUT keeps up): what hostio's
latency (NIC arrival to the DUT's TX wire) measures, less its few µs there. The paper's latency
figures (Figs. 2, 12, 14) come from the same kind of generator: where it sent at line rate, their
relative changes are relative to a baseline that includes that wait.

Each row's keys other than the metrics and their ranges are labels of hostio's points in
:mod:`hostio.repro`;
rows where hostio runs no point (Fig. 9 beyond 100 calls, Fig. 10 at 6, 10, 12, 14 and 18 cores)
appear in the plots only.
"""
from __future__ import annotations

#: The metrics each row carries, as the median over the runs.
METRICS = ("write_hit", "read_hit", "throughput_gbps", "lat50_us", "generator_gbps")
#: The lowest and the highest run of each metric.
RANGES = tuple(f"{m}_{end}" for m in METRICS for end in ("min", "max"))


def _pt(runs: tuple, **kw) -> dict:
    """A row: its labels and medians, with ``runs`` the (min, max) over the runs of each metric,
    in the order of ``METRICS``."""
    assert len(runs) == len(METRICS)
    for m, (lo, hi) in zip(METRICS, runs):
        assert lo <= kw[m] <= hi, (kw, m)
        kw[f"{m}_min"], kw[f"{m}_max"] = lo, hi
    return kw


def labels(row: dict) -> dict:
    """A row's point labels: its keys other than the metrics and their ranges."""
    return {k: v for k, v in row.items() if k not in METRICS and k not in RANGES}


PKTSIZE_DESC = [
    _pt(packet_size=256, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=26.68, lat50_us=485.62, generator_gbps=26.78, runs=((1, 1), (1, 1), (26.55, 26.71), (485.5, 488.5), (26.64, 26.81))),
    _pt(packet_size=256, rx_descriptors=256, write_hit=1.0, read_hit=1.0, throughput_gbps=26.72, lat50_us=485.75, generator_gbps=26.74, runs=((1, 1), (1, 1), (26.56, 26.77), (484, 489.5), (26.58, 26.79))),
    _pt(packet_size=256, rx_descriptors=512, write_hit=1.0, read_hit=1.0, throughput_gbps=26.74, lat50_us=485.38, generator_gbps=26.75, runs=((1, 1), (1, 1), (26.49, 26.78), (484.5, 486.25), (26.51, 26.79))),
    _pt(packet_size=256, rx_descriptors=1024, write_hit=1.0, read_hit=1.0, throughput_gbps=26.71, lat50_us=485.75, generator_gbps=26.72, runs=((1, 1), (1, 1), (26.44, 26.76), (484.5, 491.75), (26.45, 26.77))),
    _pt(packet_size=256, rx_descriptors=2048, write_hit=1.0, read_hit=1.0, throughput_gbps=26.74, lat50_us=485.12, generator_gbps=26.75, runs=((1, 1), (1, 1), (26.63, 26.79), (484, 487.25), (26.64, 26.8))),
    _pt(packet_size=256, rx_descriptors=4096, write_hit=0.999, read_hit=1.0, throughput_gbps=26.71, lat50_us=485.62, generator_gbps=26.72, runs=((0.998, 0.999), (1, 1), (26.46, 26.78), (485, 491.5), (26.48, 26.79))),
    _pt(packet_size=512, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=56.5, lat50_us=59.38, generator_gbps=91.11, runs=((1, 1), (1, 1), (56.37, 56.6), (58.75, 59.5), (89.77, 91.19))),
    _pt(packet_size=512, rx_descriptors=256, write_hit=0.998, read_hit=0.999, throughput_gbps=67.66, lat50_us=139.5, generator_gbps=90.96, runs=((0.997, 0.999), (0.998, 0.999), (67.55, 67.87), (139, 140), (89.94, 91.25))),
    _pt(packet_size=512, rx_descriptors=512, write_hit=0.998, read_hit=0.998, throughput_gbps=67.46, lat50_us=157, generator_gbps=91.1, runs=((0.997, 0.999), (0.998, 1), (66.96, 67.56), (156.75, 157.25), (90.4, 91.19))),
    _pt(packet_size=512, rx_descriptors=1024, write_hit=0.996, read_hit=0.997, throughput_gbps=67.32, lat50_us=190.25, generator_gbps=90.4, runs=((0.994, 0.997), (0.996, 0.998), (66.99, 67.56), (189.5, 190.75), (89.98, 91.05))),
    _pt(packet_size=512, rx_descriptors=2048, write_hit=0.985, read_hit=0.989, throughput_gbps=67.09, lat50_us=256, generator_gbps=90.8, runs=((0.981, 0.988), (0.982, 0.99), (66.88, 67.22), (255.25, 256.5), (89.95, 91.08))),
    _pt(packet_size=512, rx_descriptors=4096, write_hit=0.921, read_hit=0.926, throughput_gbps=66.02, lat50_us=391.12, generator_gbps=90.41, runs=((0.91, 0.926), (0.909, 0.936), (65.87, 66.28), (389.75, 392), (89.9, 91.12))),
    _pt(packet_size=1024, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=81.39, lat50_us=492.12, generator_gbps=99.41, runs=((1, 1), (1, 1), (81.18, 81.45), (492, 492.5), (99.28, 99.45))),
    _pt(packet_size=1024, rx_descriptors=256, write_hit=0.989, read_hit=0.992, throughput_gbps=86.86, lat50_us=606.75, generator_gbps=99.38, runs=((0.984, 0.992), (0.986, 0.993), (86.68, 86.94), (606.5, 607.5), (99.28, 99.42))),
    _pt(packet_size=1024, rx_descriptors=512, write_hit=0.982, read_hit=0.982, throughput_gbps=86.74, lat50_us=631.75, generator_gbps=99.3, runs=((0.979, 0.987), (0.975, 0.988), (86.54, 86.99), (631.5, 632.5), (99.24, 99.42))),
    _pt(packet_size=1024, rx_descriptors=1024, write_hit=0.959, read_hit=0.959, throughput_gbps=86.42, lat50_us=682.25, generator_gbps=99.32, runs=((0.946, 0.971), (0.951, 0.97), (85.78, 86.66), (681.75, 683), (98.73, 99.44))),
    _pt(packet_size=1024, rx_descriptors=2048, write_hit=0.89, read_hit=0.886, throughput_gbps=85.71, lat50_us=783.62, generator_gbps=99.35, runs=((0.86, 0.919), (0.857, 0.92), (85.56, 85.84), (783, 784.5), (99.01, 99.45))),
    _pt(packet_size=1024, rx_descriptors=4096, write_hit=0.628, read_hit=0.631, throughput_gbps=84.44, lat50_us=990.25, generator_gbps=99.34, runs=((0.609, 0.659), (0.603, 0.651), (84.27, 84.64), (988.75, 991.75), (99.04, 99.4))),
    _pt(packet_size=1500, rx_descriptors=128, write_hit=0.982, read_hit=0.984, throughput_gbps=91.94, lat50_us=843, generator_gbps=99.34, runs=((0.966, 0.989), (0.966, 0.991), (91.21, 92.13), (835.5, 845.5), (99.05, 99.43))),
    _pt(packet_size=1500, rx_descriptors=256, write_hit=0.983, read_hit=0.984, throughput_gbps=92.34, lat50_us=845.88, generator_gbps=99.35, runs=((0.961, 0.99), (0.959, 0.992), (91.57, 92.61), (844.75, 849.75), (98.76, 99.39))),
    _pt(packet_size=1500, rx_descriptors=512, write_hit=0.969, read_hit=0.971, throughput_gbps=92.12, lat50_us=878.38, generator_gbps=99.33, runs=((0.932, 0.984), (0.936, 0.986), (91.74, 92.43), (877.75, 878.75), (99.19, 99.41))),
    _pt(packet_size=1500, rx_descriptors=1024, write_hit=0.893, read_hit=0.899, throughput_gbps=91.34, lat50_us=947.25, generator_gbps=99.35, runs=((0.838, 0.964), (0.837, 0.966), (90.62, 92.03), (945.75, 950.75), (99.25, 99.42))),
    _pt(packet_size=1500, rx_descriptors=2048, write_hit=0.817, read_hit=0.82, throughput_gbps=90.48, lat50_us=1087.75, generator_gbps=99.3, runs=((0.724, 0.854), (0.72, 0.857), (89.75, 90.92), (1085.75, 1089.75), (99.08, 99.47))),
    _pt(packet_size=1500, rx_descriptors=4096, write_hit=0.399, read_hit=0.403, throughput_gbps=89.38, lat50_us=1371.12, generator_gbps=99.33, runs=((0.355, 0.418), (0.35, 0.423), (89.04, 89.64), (1369.5, 1374.75), (99.28, 99.44))),
]

PKT_RATE = [
    _pt(rate_gbps=10, write_hit=0.297, read_hit=1.0, throughput_gbps=9.75, lat50_us=99, generator_gbps=9.75, runs=((0.287, 0.302), (0.999, 1), (9.75, 9.75), (95.25, 110), (9.75, 9.75))),
    _pt(rate_gbps=20, write_hit=0.293, read_hit=1.0, throughput_gbps=19.5, lat50_us=64.5, generator_gbps=19.51, runs=((0.287, 0.299), (1, 1), (19.5, 19.5), (61.25, 72.25), (19.51, 19.51))),
    _pt(rate_gbps=39, write_hit=0.293, read_hit=1.0, throughput_gbps=39.01, lat50_us=49.12, generator_gbps=39.02, runs=((0.282, 0.298), (0.999, 1), (39, 39.01), (47.5, 52.75), (39.01, 39.02))),
    _pt(rate_gbps=49, write_hit=0.287, read_hit=0.999, throughput_gbps=48.76, lat50_us=47.38, generator_gbps=48.77, runs=((0.27, 0.29), (0.999, 1), (48.75, 48.76), (45.25, 50.75), (48.76, 48.77))),
    _pt(rate_gbps=59, write_hit=0.282, read_hit=0.999, throughput_gbps=58.51, lat50_us=48.25, generator_gbps=58.53, runs=((0.242, 0.297), (0.998, 0.999), (58.5, 58.52), (46.75, 50), (58.51, 58.53))),
    _pt(rate_gbps=68, write_hit=0.259, read_hit=0.999, throughput_gbps=68.27, lat50_us=51, generator_gbps=68.28, runs=((0.25, 0.284), (0.998, 0.999), (68.23, 68.27), (50, 52), (68.25, 68.29))),
    _pt(rate_gbps=78, write_hit=0.237, read_hit=0.998, throughput_gbps=78.02, lat50_us=53.12, generator_gbps=78.04, runs=((0.227, 0.254), (0.997, 0.998), (78.01, 78.02), (52.75, 53.5), (78.03, 78.04))),
    _pt(rate_gbps=88, write_hit=0.199, read_hit=0.996, throughput_gbps=87.77, lat50_us=58.25, generator_gbps=87.79, runs=((0.188, 0.213), (0.989, 0.996), (87.73, 87.78), (58, 58.5), (87.75, 87.8))),
    _pt(rate_gbps=93, write_hit=0.164, read_hit=0.993, throughput_gbps=92.63, lat50_us=61.75, generator_gbps=92.65, runs=((0.158, 0.171), (0.988, 0.995), (92.61, 92.65), (61.5, 62), (92.63, 92.67))),
    _pt(rate_gbps=97, write_hit=0.126, read_hit=0.974, throughput_gbps=97.46, lat50_us=71.62, generator_gbps=97.49, runs=((0.119, 0.135), (0.948, 0.985), (97.37, 97.49), (70.75, 73), (97.39, 97.52))),
    _pt(rate_gbps=99, write_hit=0.101, read_hit=0.661, throughput_gbps=99.2, lat50_us=866.38, generator_gbps=99.36, runs=((0.097, 0.104), (0.621, 0.694), (98.91, 99.25), (860.5, 885), (99.07, 99.4))),
]

PROCESS_TIME = [
    _pt(mt19937_calls=0, write_hit=0.289, read_hit=0.665, throughput_gbps=99.21, lat50_us=889.62, generator_gbps=99.36, runs=((0.216, 0.311), (0.512, 0.718), (98.72, 99.28), (861.25, 1003), (98.89, 99.4))),
    _pt(mt19937_calls=20, write_hit=0.277, read_hit=0.622, throughput_gbps=99.24, lat50_us=931.62, generator_gbps=99.38, runs=((0.222, 0.33), (0.522, 0.718), (99.1, 99.31), (839.75, 998.5), (99.27, 99.43))),
    _pt(mt19937_calls=40, write_hit=0.291, read_hit=0.686, throughput_gbps=99.24, lat50_us=880.38, generator_gbps=99.38, runs=((0.218, 0.333), (0.516, 0.71), (99.15, 99.3), (798.25, 987.75), (99.27, 99.42))),
    _pt(mt19937_calls=60, write_hit=0.285, read_hit=0.675, throughput_gbps=99.22, lat50_us=895.38, generator_gbps=99.35, runs=((0.216, 0.348), (0.507, 0.71), (99.07, 99.33), (832.25, 997.75), (99.25, 99.47))),
    _pt(mt19937_calls=80, write_hit=0.267, read_hit=0.644, throughput_gbps=99.24, lat50_us=895.38, generator_gbps=99.37, runs=((0.21, 0.304), (0.545, 0.741), (99.05, 99.28), (804.5, 991.5), (99.17, 99.41))),
    _pt(mt19937_calls=100, write_hit=0.272, read_hit=0.679, throughput_gbps=99.23, lat50_us=851.5, generator_gbps=99.35, runs=((0.206, 0.323), (0.542, 0.753), (99.12, 99.3), (751.75, 983.25), (99.25, 99.43))),
    _pt(mt19937_calls=120, write_hit=0.282, read_hit=0.702, throughput_gbps=99.21, lat50_us=818.38, generator_gbps=99.35, runs=((0.21, 0.335), (0.549, 0.755), (99.06, 99.27), (741.25, 983.25), (99.22, 99.4))),
    _pt(mt19937_calls=140, write_hit=0.287, read_hit=0.705, throughput_gbps=99.23, lat50_us=793.62, generator_gbps=99.36, runs=((0.203, 0.32), (0.52, 0.764), (99.14, 99.29), (744.5, 995.25), (99.31, 99.44))),
    _pt(mt19937_calls=160, write_hit=0.619, read_hit=0.652, throughput_gbps=97.31, lat50_us=1168.12, generator_gbps=99.36, runs=((0.611, 0.654), (0.632, 0.689), (96.51, 97.68), (1163.75, 1169.75), (99.24, 99.42))),
    _pt(mt19937_calls=180, write_hit=0.604, read_hit=0.61, throughput_gbps=88.42, lat50_us=1208.75, generator_gbps=99.35, runs=((0.586, 0.617), (0.592, 0.623), (88.08, 88.7), (1206.75, 1210.75), (99.32, 99.46))),
    _pt(mt19937_calls=200, write_hit=0.589, read_hit=0.6, throughput_gbps=81.69, lat50_us=1251.38, generator_gbps=99.36, runs=((0.575, 0.604), (0.567, 0.616), (81.53, 81.88), (1249.75, 1252.5), (99.23, 99.44))),
    _pt(mt19937_calls=220, write_hit=0.569, read_hit=0.578, throughput_gbps=75.71, lat50_us=1295.5, generator_gbps=99.34, runs=((0.565, 0.587), (0.567, 0.593), (75.5, 75.92), (1294.5, 1297.5), (99.16, 99.4))),
    _pt(mt19937_calls=240, write_hit=0.566, read_hit=0.569, throughput_gbps=70.53, lat50_us=1341, generator_gbps=99.35, runs=((0.55, 0.576), (0.543, 0.588), (70.29, 70.69), (1339.75, 1343.75), (99.22, 99.4))),
    _pt(mt19937_calls=260, write_hit=0.561, read_hit=0.568, throughput_gbps=66.15, lat50_us=1385.75, generator_gbps=99.35, runs=((0.545, 0.573), (0.555, 0.581), (66.1, 66.29), (1384.75, 1386.75), (99.25, 99.4))),
    _pt(mt19937_calls=280, write_hit=0.555, read_hit=0.566, throughput_gbps=62.23, lat50_us=1431.88, generator_gbps=99.34, runs=((0.544, 0.565), (0.562, 0.575), (61.84, 62.38), (1429.75, 1433), (98.64, 99.43))),
    _pt(mt19937_calls=300, write_hit=0.549, read_hit=0.558, throughput_gbps=58.7, lat50_us=1478.75, generator_gbps=99.34, runs=((0.535, 0.562), (0.531, 0.573), (58.62, 58.82), (1477.75, 1480), (99.18, 99.44))),
    _pt(mt19937_calls=320, write_hit=0.546, read_hit=0.55, throughput_gbps=55.65, lat50_us=1524.75, generator_gbps=99.36, runs=((0.525, 0.558), (0.529, 0.562), (55.5, 55.71), (1523.75, 1526.5), (99.24, 99.41))),
    _pt(mt19937_calls=340, write_hit=0.535, read_hit=0.541, throughput_gbps=52.82, lat50_us=1571.75, generator_gbps=99.38, runs=((0.527, 0.54), (0.521, 0.553), (52.55, 52.88), (1570.5, 1573.5), (98.91, 99.42))),
    _pt(mt19937_calls=360, write_hit=0.529, read_hit=0.542, throughput_gbps=50.28, lat50_us=1618.5, generator_gbps=99.33, runs=((0.514, 0.538), (0.528, 0.548), (50.08, 50.4), (1617, 1621.25), (99.25, 99.42))),
    _pt(mt19937_calls=380, write_hit=0.52, read_hit=0.532, throughput_gbps=47.86, lat50_us=1667.5, generator_gbps=99.34, runs=((0.513, 0.536), (0.517, 0.547), (47.66, 48.08), (1663, 1669.75), (98.97, 99.39))),
    _pt(mt19937_calls=400, write_hit=0.522, read_hit=0.537, throughput_gbps=45.91, lat50_us=1711.5, generator_gbps=99.37, runs=((0.506, 0.53), (0.515, 0.545), (45.62, 45.99), (1709.25, 1717.25), (99.29, 99.43))),
]

CORES = [
    _pt(cores=1, write_hit=0.979, read_hit=0.981, throughput_gbps=92.28, lat50_us=846.75, generator_gbps=99.46, runs=((0.948, 0.99), (0.947, 0.991), (91.69, 92.65), (844.75, 850.75), (99.38, 99.53))),
    _pt(cores=2, write_hit=0.67, read_hit=0.728, throughput_gbps=99.28, lat50_us=948.5, generator_gbps=99.43, runs=((0.613, 0.876), (0.628, 0.911), (99.22, 99.35), (809, 974.75), (99.33, 99.49))),
    _pt(cores=4, write_hit=0.995, read_hit=1.0, throughput_gbps=99.45, lat50_us=696.5, generator_gbps=99.48, runs=((0.992, 0.995), (0.999, 1), (99.28, 99.49), (692.75, 696.75), (99.32, 99.53))),
    _pt(cores=6, write_hit=0.984, read_hit=0.999, throughput_gbps=99.41, lat50_us=705.75, generator_gbps=99.45, runs=((0.98, 0.985), (0.998, 0.999), (99.33, 99.48), (702.75, 705.75), (99.37, 99.51))),
    _pt(cores=8, write_hit=0.913, read_hit=0.993, throughput_gbps=99.41, lat50_us=714.75, generator_gbps=99.46, runs=((0.906, 0.928), (0.992, 0.994), (99.19, 99.46), (712.75, 715.5), (99.24, 99.51))),
    _pt(cores=10, write_hit=0.848, read_hit=0.99, throughput_gbps=99.45, lat50_us=714.75, generator_gbps=99.49, runs=((0.827, 0.87), (0.987, 0.992), (99.34, 99.51), (712.75, 715), (99.38, 99.54))),
    _pt(cores=12, write_hit=0.756, read_hit=0.987, throughput_gbps=99.43, lat50_us=713.75, generator_gbps=99.46, runs=((0.717, 0.768), (0.984, 0.988), (99.38, 99.52), (711.75, 714), (99.42, 99.56))),
    _pt(cores=14, write_hit=0.634, read_hit=0.984, throughput_gbps=99.45, lat50_us=712.88, generator_gbps=99.49, runs=((0.604, 0.653), (0.981, 0.985), (99.36, 99.49), (710.75, 713.75), (99.41, 99.53))),
    _pt(cores=16, write_hit=0.531, read_hit=0.982, throughput_gbps=99.42, lat50_us=712.75, generator_gbps=99.46, runs=((0.526, 0.54), (0.981, 0.984), (99.38, 99.47), (709.75, 713), (99.43, 99.5))),
    _pt(cores=18, write_hit=0.444, read_hit=0.981, throughput_gbps=99.43, lat50_us=713.75, generator_gbps=99.47, runs=((0.439, 0.453), (0.981, 0.983), (99.05, 99.51), (710.5, 714), (99.1, 99.55))),
]

CORES_VS_WAYS = [
    _pt(cores=1, ddio_ways=2, write_hit=0.389, read_hit=0.4, throughput_gbps=89.52, lat50_us=1370.75, generator_gbps=99.45, runs=((0.374, 0.411), (0.385, 0.411), (89.17, 89.62), (1369.5, 1374.5), (99.32, 99.57))),
    _pt(cores=1, ddio_ways=4, write_hit=0.875, read_hit=0.88, throughput_gbps=91.12, lat50_us=1356.88, generator_gbps=99.46, runs=((0.836, 0.909), (0.84, 0.913), (91.01, 91.52), (1353.75, 1358.25), (99.29, 99.54))),
    _pt(cores=1, ddio_ways=6, write_hit=0.998, read_hit=0.998, throughput_gbps=92.88, lat50_us=1344.12, generator_gbps=99.47, runs=((0.993, 0.998), (0.994, 0.999), (92.59, 93.02), (1342.75, 1346.5), (99.39, 99.54))),
    _pt(cores=1, ddio_ways=8, write_hit=1.0, read_hit=1.0, throughput_gbps=92.96, lat50_us=1342.88, generator_gbps=99.44, runs=((1, 1), (1, 1), (92.86, 93.08), (1341.75, 1344), (99.29, 99.52))),
    _pt(cores=2, ddio_ways=2, write_hit=0.237, read_hit=0.562, throughput_gbps=99.31, lat50_us=982.88, generator_gbps=99.44, runs=((0.223, 0.325), (0.502, 0.708), (99.01, 99.43), (830.5, 1020), (99.24, 99.53))),
    _pt(cores=2, ddio_ways=4, write_hit=0.719, read_hit=0.945, throughput_gbps=99.37, lat50_us=861.12, generator_gbps=99.45, runs=((0.599, 0.78), (0.919, 0.973), (99.23, 99.43), (764.25, 955.5), (99.33, 99.49))),
    _pt(cores=2, ddio_ways=6, write_hit=0.965, read_hit=1.0, throughput_gbps=99.44, lat50_us=731.5, generator_gbps=99.49, runs=((0.952, 0.969), (0.999, 1), (99.32, 99.5), (719.75, 743.75), (99.36, 99.55))),
    _pt(cores=2, ddio_ways=8, write_hit=0.997, read_hit=1.0, throughput_gbps=99.45, lat50_us=718.12, generator_gbps=99.49, runs=((0.995, 0.999), (1, 1), (99.17, 99.5), (714.75, 756.75), (99.21, 99.54))),
    _pt(cores=4, ddio_ways=2, write_hit=0.722, read_hit=0.994, throughput_gbps=99.43, lat50_us=699.75, generator_gbps=99.47, runs=((0.718, 0.752), (0.993, 0.995), (99.33, 99.5), (695.75, 700.75), (99.37, 99.53))),
    _pt(cores=4, ddio_ways=4, write_hit=0.978, read_hit=1.0, throughput_gbps=99.44, lat50_us=696.75, generator_gbps=99.48, runs=((0.973, 0.98), (1, 1), (99.34, 99.54), (691.75, 697), (99.37, 99.57))),
    _pt(cores=4, ddio_ways=6, write_hit=1.0, read_hit=1.0, throughput_gbps=99.45, lat50_us=695.75, generator_gbps=99.48, runs=((1, 1), (1, 1), (99.37, 99.52), (691.5, 696.5), (99.41, 99.55))),
    _pt(cores=4, ddio_ways=8, write_hit=1.0, read_hit=1.0, throughput_gbps=99.45, lat50_us=695.75, generator_gbps=99.48, runs=((1, 1), (1, 1), (99.38, 99.5), (694.75, 696.25), (99.41, 99.53))),
]


#: Experiment id in :mod:`hostio.repro` → its rows.
BY_EXPERIMENT = {
    "fig6": PKTSIZE_DESC,
    "fig8": PKT_RATE,
    "fig9": PROCESS_TIME,
    "fig10": CORES,
    "fig11": CORES_VS_WAYS,
}


#: The generator's rate (Gb/s, framing counted) at or above which it sent at its NIC's line rate:
#: the artifact's runs at the generator's maximum rate sent 98.6–99.6 Gb/s (every 1024 B and
#: 1500 B point), and its paced runs at most 97.5 (``PKT_RATE``).
LINE_RATE_GBPS = 99.0
#: Bytes FastClick's rates count per frame beyond the frame's own: the 24 B of framing of the
#: artifact's rate counters (its generator's ``sndavg.link_rate``; see the module docs).
FRAMING_BYTES = 24


def _frames_per_us(gbps: float, size: int) -> float:
    return gbps * 1e3 / ((size + FRAMING_BYTES) * 8)


#: Frames in the generator's own queue when it sends at line rate: the least, over Fig. 10's 4 to
#: 18 cores (the DUT forwards everything there, read hits >= 0.98), of the median latency times
#: the generator's frame rate (4 cores: 696.5 µs at 8.16 Mpps). The DUT can only add to it, so the
#: least is the closest bound; it still includes the DUT's own few µs there.
GENERATOR_QUEUE_FRAMES = min(t["lat50_us"] * _frames_per_us(t["generator_gbps"], 1500) for t in CORES if t["cores"] >= 4)


def dut_lat50_us(row: dict) -> tuple[float, float, float] | None:
    """The median latency of ``row`` (and its lowest and highest run) without the generator's own
    queue, where the generator sent at line rate; None elsewhere (its queue's state is not known
    there). Frames are 1500 B unless the row says ``packet_size``."""
    if row["generator_gbps"] < LINE_RATE_GBPS:
        return None
    wait = GENERATOR_QUEUE_FRAMES / _frames_per_us(row["generator_gbps"], row.get("packet_size", 1500))
    return row["lat50_us"] - wait, row["lat50_us_min"] - wait, row["lat50_us_max"] - wait
