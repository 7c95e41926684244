"""Measurements from the DDIO paper's own testbed, for comparison with hostio's reproduction.

The paper's artifact (github.com/aliireza/ddio-bench, commit 55d0542) publishes the authors'
scripts for Figs. 6 and 8–11 with sample results from their testbed: a Xeon Gold 6140 with a
ConnectX-5 100 GbE, FastClick L2 forwarding (``EtherMirror``), 1500 B frames unless stated,
measured with Intel PCM (``pcm-pcie``: ItoM and PCIeRdCur hits and misses) and the FastClick
generator's counters. Each value here is the median of the 10 runs per point in
``experiments/<experiment>/sample-results/*/<metric>.csv``: the PCIe write (ItoM) and read
(PCIeRdCur) hit rates as fractions, and the received throughput in Gb/s as FastClick counts it
(with 24 B of framing per packet). The artifact's README warns that its DUT ran at 3 GHz rather
than the paper's 2.3 GHz, so these differ a little from the paper's figures.

The setups, from the artifact's ``.testie`` files (``NDESC`` is per queue in ``FromDPDKDevice``,
the DUT's ``ToDPDKDevice`` has a 1024-packet software queue, flow control is off):

* ``PKTSIZE_DESC`` (Fig. 6, ``pktsize-desc``): one core, ``rx_descriptors`` on its queue.
* ``PKT_RATE`` (Fig. 8, ``pkt-rate``): two cores, 4096 descriptors *per queue*; ``rate_gbps`` is
  the generator's measured rate, rounded.
* ``PROCESS_TIME`` (Fig. 9, ``process-time``): two cores, 4096 descriptors in total
  (``NDESC / NCORE``), ``mt19937_calls`` calls of the random number generator per packet.
* ``CORES`` (Fig. 10, ``cores``): 256 descriptors per core.
* ``CORES_VS_WAYS`` (Fig. 11, ``cores-vs-ways``): 4096 descriptors in total, split over the
  cores, ``ddio_ways`` I/O ways.

Each row's keys other than the three metrics are labels of hostio's points in :mod:`hostio.repro`;
rows where hostio runs no point (Fig. 9 beyond 100 calls, Fig. 10 at 6, 10, 12, 14 and 18 cores)
appear in the plots only.
"""
from __future__ import annotations

#: The metrics each row carries.
METRICS = ("write_hit", "read_hit", "throughput_gbps")


def _pt(**kw) -> dict:
    return kw


def labels(row: dict) -> dict:
    """A row's point labels: its keys other than the metrics."""
    return {k: v for k, v in row.items() if k not in METRICS}


PKTSIZE_DESC = [
    _pt(packet_size=256, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=26.68),
    _pt(packet_size=256, rx_descriptors=256, write_hit=1.0, read_hit=1.0, throughput_gbps=26.72),
    _pt(packet_size=256, rx_descriptors=512, write_hit=1.0, read_hit=1.0, throughput_gbps=26.74),
    _pt(packet_size=256, rx_descriptors=1024, write_hit=1.0, read_hit=1.0, throughput_gbps=26.71),
    _pt(packet_size=256, rx_descriptors=2048, write_hit=1.0, read_hit=1.0, throughput_gbps=26.74),
    _pt(packet_size=256, rx_descriptors=4096, write_hit=0.999, read_hit=1.0, throughput_gbps=26.71),
    _pt(packet_size=512, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=56.5),
    _pt(packet_size=512, rx_descriptors=256, write_hit=0.998, read_hit=0.999, throughput_gbps=67.66),
    _pt(packet_size=512, rx_descriptors=512, write_hit=0.998, read_hit=0.998, throughput_gbps=67.46),
    _pt(packet_size=512, rx_descriptors=1024, write_hit=0.996, read_hit=0.997, throughput_gbps=67.32),
    _pt(packet_size=512, rx_descriptors=2048, write_hit=0.985, read_hit=0.989, throughput_gbps=67.09),
    _pt(packet_size=512, rx_descriptors=4096, write_hit=0.921, read_hit=0.926, throughput_gbps=66.02),
    _pt(packet_size=1024, rx_descriptors=128, write_hit=1.0, read_hit=1.0, throughput_gbps=81.39),
    _pt(packet_size=1024, rx_descriptors=256, write_hit=0.989, read_hit=0.992, throughput_gbps=86.86),
    _pt(packet_size=1024, rx_descriptors=512, write_hit=0.982, read_hit=0.982, throughput_gbps=86.74),
    _pt(packet_size=1024, rx_descriptors=1024, write_hit=0.959, read_hit=0.959, throughput_gbps=86.42),
    _pt(packet_size=1024, rx_descriptors=2048, write_hit=0.89, read_hit=0.886, throughput_gbps=85.71),
    _pt(packet_size=1024, rx_descriptors=4096, write_hit=0.628, read_hit=0.631, throughput_gbps=84.44),
    _pt(packet_size=1500, rx_descriptors=128, write_hit=0.982, read_hit=0.984, throughput_gbps=91.94),
    _pt(packet_size=1500, rx_descriptors=256, write_hit=0.983, read_hit=0.984, throughput_gbps=92.34),
    _pt(packet_size=1500, rx_descriptors=512, write_hit=0.969, read_hit=0.971, throughput_gbps=92.12),
    _pt(packet_size=1500, rx_descriptors=1024, write_hit=0.893, read_hit=0.899, throughput_gbps=91.34),
    _pt(packet_size=1500, rx_descriptors=2048, write_hit=0.817, read_hit=0.82, throughput_gbps=90.48),
    _pt(packet_size=1500, rx_descriptors=4096, write_hit=0.399, read_hit=0.403, throughput_gbps=89.38),
]

PKT_RATE = [
    _pt(rate_gbps=10, write_hit=0.297, read_hit=1.0, throughput_gbps=9.75),
    _pt(rate_gbps=20, write_hit=0.293, read_hit=1.0, throughput_gbps=19.5),
    _pt(rate_gbps=39, write_hit=0.293, read_hit=1.0, throughput_gbps=39.01),
    _pt(rate_gbps=49, write_hit=0.287, read_hit=0.999, throughput_gbps=48.76),
    _pt(rate_gbps=59, write_hit=0.282, read_hit=0.999, throughput_gbps=58.51),
    _pt(rate_gbps=68, write_hit=0.259, read_hit=0.999, throughput_gbps=68.27),
    _pt(rate_gbps=78, write_hit=0.237, read_hit=0.998, throughput_gbps=78.02),
    _pt(rate_gbps=88, write_hit=0.199, read_hit=0.996, throughput_gbps=87.77),
    _pt(rate_gbps=93, write_hit=0.164, read_hit=0.993, throughput_gbps=92.63),
    _pt(rate_gbps=97, write_hit=0.126, read_hit=0.974, throughput_gbps=97.46),
    _pt(rate_gbps=99, write_hit=0.101, read_hit=0.661, throughput_gbps=99.2),
]

PROCESS_TIME = [
    _pt(mt19937_calls=0, write_hit=0.289, read_hit=0.665, throughput_gbps=99.21),
    _pt(mt19937_calls=20, write_hit=0.277, read_hit=0.622, throughput_gbps=99.24),
    _pt(mt19937_calls=40, write_hit=0.291, read_hit=0.686, throughput_gbps=99.24),
    _pt(mt19937_calls=60, write_hit=0.285, read_hit=0.675, throughput_gbps=99.22),
    _pt(mt19937_calls=80, write_hit=0.267, read_hit=0.644, throughput_gbps=99.24),
    _pt(mt19937_calls=100, write_hit=0.272, read_hit=0.679, throughput_gbps=99.23),
    _pt(mt19937_calls=120, write_hit=0.282, read_hit=0.702, throughput_gbps=99.21),
    _pt(mt19937_calls=140, write_hit=0.287, read_hit=0.705, throughput_gbps=99.23),
    _pt(mt19937_calls=160, write_hit=0.619, read_hit=0.652, throughput_gbps=97.31),
    _pt(mt19937_calls=180, write_hit=0.604, read_hit=0.61, throughput_gbps=88.42),
    _pt(mt19937_calls=200, write_hit=0.589, read_hit=0.6, throughput_gbps=81.69),
    _pt(mt19937_calls=220, write_hit=0.569, read_hit=0.578, throughput_gbps=75.71),
    _pt(mt19937_calls=240, write_hit=0.566, read_hit=0.569, throughput_gbps=70.53),
    _pt(mt19937_calls=260, write_hit=0.561, read_hit=0.568, throughput_gbps=66.15),
    _pt(mt19937_calls=280, write_hit=0.555, read_hit=0.566, throughput_gbps=62.23),
    _pt(mt19937_calls=300, write_hit=0.549, read_hit=0.558, throughput_gbps=58.7),
    _pt(mt19937_calls=320, write_hit=0.546, read_hit=0.55, throughput_gbps=55.65),
    _pt(mt19937_calls=340, write_hit=0.535, read_hit=0.541, throughput_gbps=52.82),
    _pt(mt19937_calls=360, write_hit=0.529, read_hit=0.542, throughput_gbps=50.28),
    _pt(mt19937_calls=380, write_hit=0.52, read_hit=0.532, throughput_gbps=47.86),
    _pt(mt19937_calls=400, write_hit=0.522, read_hit=0.537, throughput_gbps=45.91),
]

CORES = [
    _pt(cores=1, write_hit=0.979, read_hit=0.981, throughput_gbps=92.28),
    _pt(cores=2, write_hit=0.67, read_hit=0.728, throughput_gbps=99.28),
    _pt(cores=4, write_hit=0.995, read_hit=1.0, throughput_gbps=99.45),
    _pt(cores=6, write_hit=0.984, read_hit=0.999, throughput_gbps=99.41),
    _pt(cores=8, write_hit=0.913, read_hit=0.993, throughput_gbps=99.41),
    _pt(cores=10, write_hit=0.848, read_hit=0.99, throughput_gbps=99.45),
    _pt(cores=12, write_hit=0.756, read_hit=0.987, throughput_gbps=99.43),
    _pt(cores=14, write_hit=0.634, read_hit=0.984, throughput_gbps=99.45),
    _pt(cores=16, write_hit=0.531, read_hit=0.982, throughput_gbps=99.42),
    _pt(cores=18, write_hit=0.444, read_hit=0.981, throughput_gbps=99.43),
]

CORES_VS_WAYS = [
    _pt(cores=1, ddio_ways=2, write_hit=0.389, read_hit=0.4, throughput_gbps=89.52),
    _pt(cores=1, ddio_ways=4, write_hit=0.875, read_hit=0.88, throughput_gbps=91.12),
    _pt(cores=1, ddio_ways=6, write_hit=0.998, read_hit=0.998, throughput_gbps=92.88),
    _pt(cores=1, ddio_ways=8, write_hit=1.0, read_hit=1.0, throughput_gbps=92.96),
    _pt(cores=2, ddio_ways=2, write_hit=0.237, read_hit=0.562, throughput_gbps=99.31),
    _pt(cores=2, ddio_ways=4, write_hit=0.719, read_hit=0.945, throughput_gbps=99.37),
    _pt(cores=2, ddio_ways=6, write_hit=0.965, read_hit=1.0, throughput_gbps=99.44),
    _pt(cores=2, ddio_ways=8, write_hit=0.997, read_hit=1.0, throughput_gbps=99.45),
    _pt(cores=4, ddio_ways=2, write_hit=0.722, read_hit=0.994, throughput_gbps=99.43),
    _pt(cores=4, ddio_ways=4, write_hit=0.978, read_hit=1.0, throughput_gbps=99.44),
    _pt(cores=4, ddio_ways=6, write_hit=1.0, read_hit=1.0, throughput_gbps=99.45),
    _pt(cores=4, ddio_ways=8, write_hit=1.0, read_hit=1.0, throughput_gbps=99.45),
]


#: Experiment id in :mod:`hostio.repro` → its rows.
BY_EXPERIMENT = {
    "fig6": PKTSIZE_DESC,
    "fig8": PKT_RATE,
    "fig9": PROCESS_TIME,
    "fig10": CORES,
    "fig11": CORES_VS_WAYS,
}
