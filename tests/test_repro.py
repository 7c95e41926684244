"""The DDIO reproduction: aggregation over seeds, every claim's criterion on synthetic medians
(each passes on paper-like numbers and fails on numbers that contradict the paper), and one short
run of every experiment."""
from __future__ import annotations

import csv
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from hostio import repro, sim, testbed
from hostio.errors import ConfigError


def rows_of(points: list[tuple[dict, dict]]) -> list[dict]:
    """Aggregated rows as ``reproduce`` hands them to the claims: labels, medians, min = max = median."""
    out = []
    for labels, metrics in points:
        r = dict(labels, seeds=5)
        for k, v in metrics.items():
            r[k], r[f"{k}_min"], r[f"{k}_max"] = v, v, v
        out.append(r)
    return out


def verdicts(claims) -> list[bool]:
    for c in claims:
        assert c.criterion and isinstance(c.agrees, bool)
    return [c.agrees for c in claims]


# ------------------------------------------------------------------------------------------------
# Aggregation
# ------------------------------------------------------------------------------------------------


def test_trends_refuse_values_that_are_not_finite():
    assert repro._never_rises([1.0, 0.9, 0.8], 0.01) and repro._never_falls([0.8, 0.9, 1.0], 0.01)
    for bad in (math.nan, math.inf, None):
        assert not repro._never_rises([bad, 0.9, 0.8], 0.01) and not repro._never_rises([1.0, bad, 0.8], 0.01)
        assert not repro._never_falls([bad, 0.9, 1.0], 0.01) and not repro._never_falls([0.8, bad, 1.0], 0.01)


def test_aggregate_median_min_max():
    runs = [
        {"cores": 2, "seed": 1, "write_hit": 0.5, "p99_ns": 10.0, "x": None},
        {"cores": 2, "seed": 2, "write_hit": 0.9, "p99_ns": 30.0, "x": None},
        {"cores": 2, "seed": 3, "write_hit": 0.6, "p99_ns": 20.0, "x": None},
        {"cores": 2, "seed": 4, "write_hit": None, "p99_ns": 40.0, "x": None},
    ]
    a = repro.aggregate(runs, ["cores"])
    assert a["cores"] == 2 and a["seeds"] == 4 and "seed" not in a
    # A value one run lacks: no median (it would rest on fewer seeds than `seeds` says), the
    # others' range still shown.
    assert (a["write_hit"], a["write_hit_min"], a["write_hit_max"]) == (None, 0.5, 0.9)
    assert (a["p99_ns"], a["p99_ns_min"], a["p99_ns_max"]) == (25.0, 10.0, 40.0)  # even count: mean of the middle two
    assert a["x"] is None and a["x_min"] is None and a["x_max"] is None


def test_row_derives_per_run_quantities():
    r = sim.run("quickstart", set=["run.warmup_us=200", "run.duration_us=200"], seed=3)
    row = repro._row(repro.Point("quickstart", [], {"k": 1}), r)
    assert row["seed"] == 3 and row["k"] == 1
    m = r["metrics"]
    assert row["pause_per_mpkt"] == pytest.approx(m["pause_frames"] / m["rx_packets"] * 1e6)
    assert row["fwd.llc_misses_per_packet"] == pytest.approx(m["apps"]["fwd"]["llc_misses"] / m["apps"]["fwd"]["rx_packets"])


# ------------------------------------------------------------------------------------------------
# Claims: pass on paper-like medians, fail on contradicting ones
# ------------------------------------------------------------------------------------------------

# The testbed's run (hostio.testbed.PKTSIZE_DESC) has 0.89 at 1024 and 0.82 at 2048 descriptors.
FIG6_1500 = {64: 1.0, 128: 0.9, 256: 0.9, 512: 0.89, 1024: 0.88, 2048: 0.8, 4096: 0.4}
FIG6_1024 = {64: 1.0, 128: 0.95, 256: 0.9, 512: 0.85, 1024: 0.75, 2048: 0.65, 4096: 0.55}


def fig6_rows(w1500=FIG6_1500, w1024=FIG6_1024, small=0.95, read4096=0.42, read1024=None):
    pts = []
    for s in repro.SIZES:
        for d in repro.DESCS:
            w = w1500[d] if s == 1500 else w1024[d] if s == 1024 else small
            rd = read4096 if (s == 1500 and d == 4096) else w if s == 1500 else (read1024 or {}).get(d, 1.0) if s == 1024 else 1.0
            pts.append(({"rx_descriptors": d, "packet_size": s}, {"write_hit": w, "read_hit": rd}))
    return rows_of(pts)


def test_fig6_claims():
    assert verdicts(repro.fig6_claims(fig6_rows())) == [True] * 5
    # 0 % misses is not "~10 % misses"
    assert verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 128: 1.0})))[0] is False
    # the paper's ~10 % misses are of reads and writes: reads that all hit break it
    rows = fig6_rows()
    for r in rows:
        if r["packet_size"] == 1500 and r["rx_descriptors"] == 128:
            r["read_hit"] = 1.0
    assert verdicts(repro.fig6_claims(rows))[0] is False
    # reads hitting while writes miss is not "read hit similar"
    assert verdicts(repro.fig6_claims(fig6_rows(read4096=1.0)))[1] is False
    # "~40 %": 0.35–0.45 agrees, and the read hit within 0.05 of the write hit
    at4096 = lambda w, r: verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 4096: w}, read4096=r)))[1]  # noqa: E731
    assert [at4096(w, w) for w in (0.34, 0.35, 0.45, 0.46)] == [False, True, True, False]
    assert [at4096(0.40, r) for r in (0.34, 0.35, 0.45, 0.46)] == [False, True, True, False]
    # "~10 % misses" at 128 descriptors (to the nearest 10 points): 5–15 %, write and read alike
    assert [verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 128: w})))[0] for w in (0.96, 0.95, 0.85, 0.84)] == [False, True, True, False]
    assert verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 4096: 0.7})))[1] is False
    assert verdicts(repro.fig6_claims(fig6_rows(small=0.7)))[2] is False
    # ... and read hits count there too
    rows = fig6_rows()
    for r in rows:
        if r["packet_size"] == 256 and r["rx_descriptors"] == 4096:
            r["read_hit"] = 0.7
    assert verdicts(repro.fig6_claims(rows))[2] is False
    # a rise in the middle of the sweep, or too small a drop, breaks "falls with descriptors"
    assert verdicts(repro.fig6_claims(fig6_rows(w1024={**FIG6_1024, 1024: 0.9})))[3] is False
    flat = {d: 0.9 - 0.02 * i for i, d in enumerate(repro.DESCS)}
    assert verdicts(repro.fig6_claims(fig6_rows(w1500=flat)))[3] is False
    # read hits count too: a rise of 0.02 at 1024 B between 2048 and 4096 descriptors
    assert verdicts(repro.fig6_claims(fig6_rows(read1024={2048: 0.80, 4096: 0.82})))[3] is False
    # small rises add up: each step up is 0.01, but 0.99 at 2048 is 0.04 above 0.95 at 128
    climb = {64: 1.0, 128: 0.95, 256: 0.96, 512: 0.97, 1024: 0.98, 2048: 0.99, 4096: 0.9}
    assert verdicts(repro.fig6_claims(fig6_rows(w1024=climb, read1024=climb)))[3] is False
    assert "rises by 0.040 at 2048" in repro.fig6_claims(fig6_rows(w1024=climb, read1024=climb))[3].hostio
    # flat is not "falls": 1024 B must drop by SHARE_POINTS from 128 to 4096 descriptors
    assert verdicts(repro.fig6_claims(fig6_rows(w1024={d: 1.0 for d in repro.DESCS})))[3] is False
    drops = lambda f: verdicts(repro.fig6_claims(fig6_rows(w1024={**{d: 1.0 for d in repro.DESCS}, 4096: 1.0 - f})))[3]  # noqa: E731
    assert [drops(f) for f in (0.04, 0.05)] == [False, True]
    # the knee: 0.5 at 2048 descriptors is not the testbed's 0.82
    assert verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 2048: 0.5})))[4] is False
    assert verdicts(repro.fig6_claims(fig6_rows(w1500={**FIG6_1500, 1024: 0.75, 512: 0.75, 256: 0.8, 128: 0.9})))[4] is False


def test_fig6_haswell_claims():
    def rows(w):
        return rows_of([({"rx_descriptors": d, "packet_size": 1500}, {"write_hit": w[d], "read_hit": 1.0}) for d in repro.DESCS])

    assert verdicts(repro.fig6_haswell_claims(rows(FIG6_1500))) == [True]
    assert verdicts(repro.fig6_haswell_claims(rows({d: 0.8 for d in repro.DESCS}))) == [False]
    # the same fall as on Skylake: 0.25 is not enough (both parts' I/O ways hold 4.5 MiB); the
    # paper's ~90 % → ~40 %, each within 5 points, is a fall of at least 0.4 from 128 to 4096
    falls = lambda f: verdicts(repro.fig6_haswell_claims(rows({d: 0.9 - f * max(i - 1, 0) / 5 for i, d in enumerate(repro.DESCS)})))[0]  # noqa: E731
    assert [falls(f) for f in (0.25, 0.39, 0.40, 0.5)] == [False, False, True, True]


def test_fig5_claims():
    def rows(ws):
        return rows_of([({"ddio_ways": w}, {"write_hit": h, "read_hit": 1.0}) for w, h in zip(repro.WAYS, ws)])

    rising = [0.5 + 0.04 * i for i in range(len(repro.WAYS))]
    assert verdicts(repro.fig5_claims(rows(rising))) == [True]
    assert verdicts(repro.fig5_claims(rows([0.6 + 0.01 * i for i in range(len(repro.WAYS))]))) == [False]  # +0.09 only
    dip = list(rising)
    dip[5] = dip[4] - 0.05
    assert verdicts(repro.fig5_claims(rows(dip))) == [False]
    # small falls add up: 0.02 a step is within the step tolerance, 0.16 from 3 to 11 ways is not
    assert verdicts(repro.fig5_claims(rows([0.6, 1.0] + [1.0 - 0.02 * i for i in range(1, 9)]))) == [False]
    # read hits count too: writes rising while reads fall is not "higher hit rates"
    falling_reads = rows_of([({"ddio_ways": w}, {"write_hit": h, "read_hit": 1.0 - 0.05 * i}) for i, (w, h) in enumerate(zip(repro.WAYS, rising))])
    assert verdicts(repro.fig5_claims(falling_reads)) == [False]


def fig8_rows(read=1.0, top=0.7, mid=0.3, high=0.2):
    return rows_of([
        ({"rate_gbps": r}, {"read_hit": read if r <= 97 else top, "write_hit": mid if r < 90 else high}) for r in repro.RATES
    ])


def test_fig8_claims():
    # The testbed's mean write hit over 39–68 Gb/s is 0.28 (hostio.testbed.PKT_RATE).
    assert verdicts(repro.fig8_claims(fig8_rows())) == [True, True, True, True]
    assert verdicts(repro.fig8_claims(fig8_rows(read=0.94)))[0] is False and verdicts(repro.fig8_claims(fig8_rows(read=0.95)))[0] is True
    assert verdicts(repro.fig8_claims(fig8_rows(top=0.99)))[1] is False  # no fall at line rate
    # low at line rate but lower still below it: a rise, not a fall
    assert verdicts(repro.fig8_claims(fig8_rows(read=0.5, top=0.89)))[1] is False
    assert [verdicts(repro.fig8_claims(fig8_rows(read=r, top=0.85)))[1] for r in (0.89, 0.9)] == [False, True]
    assert verdicts(repro.fig8_claims(fig8_rows(mid=0.75, high=0.6)))[2] is False  # the prose's 0.75, not the testbed's
    assert verdicts(repro.fig8_claims(fig8_rows(mid=0.17, high=0.1)))[2] is False
    # within 5 points of the testbed's 0.28025 (its mean over 39–68 Gb/s)
    assert [verdicts(repro.fig8_claims(fig8_rows(mid=m, high=0.1)))[2] for m in (0.2302, 0.2303, 0.3302, 0.3303)] == [False, True, True, False]
    assert repro.fig8_claims(fig8_rows(mid=0.2, high=0.1))[2].missing == "placement"
    assert "lies below" in repro.fig8_claims(fig8_rows(mid=0.2, high=0.1))[2].note
    assert "lies above" in repro.fig8_claims(fig8_rows(mid=0.4, high=0.1))[2].note
    assert verdicts(repro.fig8_claims(fig8_rows(high=0.26)))[3] is False  # within 0.05 of the 39–68 mean
    # the same drop of 0.05 agrees wherever it lies (bounds are compared after rounding)
    assert [verdicts(repro.fig8_claims(fig8_rows(mid=m, high=round(m - 0.05, 2))))[3] for m in (0.3, 0.57)] == [True, True]


def test_fig8_points_warm_every_buffer_twice():
    for p in repro.fig8_points():
        rate = p.labels["rate_gbps"]
        warm = int(next(o for o in p.overrides if o.startswith("run.warmup_us=")).split("=")[1])
        packets = warm * rate * 1000 / ((1500 + 20) * 8)
        assert packets >= 2 * 2 * 4096, rate


def fig9_rows(t100=40.0, r60=0.9, w100=0.8, r0=0.85):
    pts = []
    for c in repro.CALLS:
        t = 93.0 if c < 100 else t100
        r = r0 if c < 60 else r60
        w = 0.6 if c < 100 else w100
        pts.append(({"mt19937_calls": c}, {"throughput_gbps": t, "read_hit": r, "write_hit": w}))
    return rows_of(pts)


def test_fig9_claims():
    assert verdicts(repro.fig9_claims(fig9_rows())) == [True, True, True]
    assert verdicts(repro.fig9_claims(fig9_rows(t100=90.0)))[0] is False
    assert verdicts(repro.fig9_claims(fig9_rows(r60=0.855)))[1] is False
    assert verdicts(repro.fig9_claims(fig9_rows(r0=0.6, r60=0.9)))[1] is False  # +0.30 is no slight improvement
    assert verdicts(repro.fig9_claims(fig9_rows(w100=0.6)))[2] is False
    assert verdicts(repro.fig9_claims(fig9_rows(w100=0.605)))[2] is False  # a rise within noise is no increase
    assert verdicts(repro.fig9_claims(fig9_rows(t100=93.0)))[2] is False  # a rise while the cores keep up is not the claim's
    # saturated points up to 60 calls with high hits, and no rise beyond 60 calls: not the claim
    early = rows_of([({"mt19937_calls": c}, {"throughput_gbps": 98.7 if c == 0 else 60.0, "read_hit": 0.9,
                                             "write_hit": {10: 0.7, 20: 0.7, 30: 0.6}.get(c, 0.4)}) for c in repro.CALLS])
    assert verdicts(repro.fig9_claims(early))[2] is False
    # the 60-call point counts with those up to 60: a high write hit there alone is no rise beyond
    at60 = rows_of([({"mt19937_calls": c}, {"throughput_gbps": 98.7 if c < 50 else 60.0, "read_hit": 0.9,
                                             "write_hit": 1.0 if c == 60 else 0.4}) for c in repro.CALLS])
    assert verdicts(repro.fig9_claims(at60))[2] is False


def test_fig10_claims():
    def rows(ws):
        return rows_of([({"cores": n}, {"write_hit": w, "read_hit": 1.0}) for n, w in zip(repro.CORES, ws)])

    assert verdicts(repro.fig10_claims(rows([0.6, 0.65, 0.7, 0.6, 0.5]))) == [True, True]
    assert verdicts(repro.fig10_claims(rows([0.6, 0.6, 0.6, 0.6, 0.6]))) == [False, False]
    assert verdicts(repro.fig10_claims(rows([0.6, 0.65, 0.7, 0.75, 0.8]))) == [False, False]  # best at 16
    assert verdicts(repro.fig10_claims(rows([0.69, 0.7, 0.7, 0.68, 0.67]))) == [False, False]  # a tie with 2 cores, −0.03
    assert verdicts(repro.fig10_claims(rows([0.695, 0.69, 0.7, 0.6, 0.5])))[0] is False  # best at 4 but only +0.005 over 1
    assert verdicts(repro.fig10_claims(rows([0.6, 0.72, 0.7, 0.6, 0.5])))[0] is False  # best at 2, not 4
    # a missing point could be the real peak
    gap = rows([0.6, 0.65, 0.7, 0.6, 0.5])
    gap[1]["write_hit"] = None
    assert verdicts(repro.fig10_claims(gap))[0] is False
    # read hits count too: a fall from 1 to 4 cores is no improvement
    reads = rows_of([({"cores": n}, {"write_hit": w, "read_hit": r}) for n, w, r in zip(repro.CORES, [0.6, 0.65, 0.7, 0.6, 0.5], [1.0, 0.95, 0.9, 0.9, 0.9])])
    assert verdicts(repro.fig10_claims(reads)) == [False, True]
    assert repro.fig10_claims(reads)[0].note == "the read hit falls from 1 to 4 cores" and "read 1.00 → 0.90" in repro.fig10_claims(reads)[0].hostio
    # beyond 4 cores: a rise at 8 is no degradation, even if 16 ends below 4
    assert verdicts(repro.fig10_claims(rows([0.6, 0.65, 0.8, 0.95, 0.7])))[1] is False


def test_fig11_claims():
    def rows(gain, c2w4, c4w2):
        pts = []
        for n in (1, 2, 4):
            for i, w in enumerate((2, 4, 6, 8, 11)):
                h = 0.4 + 0.1 * (n - 1) + gain * i / 4
                h = c2w4 if (n, w) == (2, 4) else c4w2 if (n, w) == (4, 2) else h
                pts.append(({"cores": n, "ddio_ways": w}, {"write_hit": h}))
        return rows_of(pts)

    assert verdicts(repro.fig11_claims(rows(0.3, 0.65, 0.65))) == [True, True]
    assert verdicts(repro.fig11_claims(rows(0.05, 0.7, 0.7)))[0] is False
    # a dip between 2 and 11 ways (2 cores: 0.7 at 4 ways, 0.65 at 6) is no steady help
    assert verdicts(repro.fig11_claims(rows(0.3, 0.7, 0.7)))[0] is False
    peak = rows_of([({"cores": n, "ddio_ways": w}, {"write_hit": h}) for n in (1, 2, 4) for w, h in zip((2, 4, 6, 8, 11), (0.4, 0.9, 1.0, 0.7, 0.55))])
    assert verdicts(repro.fig11_claims(peak))[0] is False
    assert verdicts(repro.fig11_claims(rows(0.3, 0.83, 0.41)))[1] is False  # hostio's gap
    assert verdicts(repro.fig11_claims(rows(0.3, 0.7, 0.59)))[1] is False
    # alike but neither helps over 2 cores × 2 ways (0.5 here): not "more ways ≈ more cores"
    assert verdicts(repro.fig11_claims(rows(0.3, 0.5, 0.5)))[1] is False
    assert [verdicts(repro.fig11_claims(rows(0.3, v, v)))[1] for v in (0.54, 0.55)] == [False, True]
    assert [verdicts(repro.fig11_claims(rows(0.3, 0.7, v)))[1] for v in (0.64, 0.65)] == [False, True]


def test_testbed_rows_match_hostio_points():
    """The testbed rows without a hostio point are exactly the documented ones (hostio.testbed);
    fractions are hit rates."""
    for exp_id, data in testbed.BY_EXPERIMENT.items():
        labels = {frozenset(p.labels.items()) for p in next(e for e in repro.EXPERIMENTS if e.id == exp_id).points()}
        matched = [t for t in data if frozenset(testbed.labels(t).items()) in labels]
        unmatched = {tuple(sorted(testbed.labels(t).items())) for t in data if t not in matched}
        expected = {"fig9": {(("mt19937_calls", c),) for c in range(120, 401, 20)},
                    "fig10": {(("cores", n),) for n in (6, 10, 12, 14, 18)}}.get(exp_id, set())
        assert unmatched == expected, exp_id
        for t in data:
            assert 0.0 <= t["write_hit"] <= 1.0 and 0.0 <= t["read_hit"] <= 1.0 and 0 < t["throughput_gbps"] <= 100
            # Each median lies within the range of its runs, and the range is not a label.
            for m in testbed.METRICS:
                assert t[f"{m}_min"] <= t[m] <= t[f"{m}_max"], (exp_id, t)
            assert not set(testbed.RANGES) & set(testbed.labels(t))
    # The bimodal 2-core point of Fig. 10 spans both of its states.
    two = next(t for t in testbed.CORES if t["cores"] == 2)
    assert two["write_hit_min"] < 0.65 and two["write_hit_max"] > 0.85
    fig6 = {(t["packet_size"], t["rx_descriptors"]) for t in testbed.PKTSIZE_DESC}
    assert fig6 == {(s, d) for s in (256, 512, 1024, 1500) for d in (128, 256, 512, 1024, 2048, 4096)}


def test_testbed_comparison():
    rows = rows_of([({"cores": n}, {"write_hit": 0.5, "read_hit": 1.0}) for n in repro.CORES])
    cmp = repro.testbed_comparison("fig10", rows)
    assert {c["cores"] for c in cmp} == set(repro.CORES) & {t["cores"] for t in testbed.CORES}
    one = next(c for c in cmp if c["cores"] == 16 and c["metric"] == "write_hit")
    assert one["testbed"] == 0.531 and one["hostio"] == 0.5 and abs(one["difference"] - (0.5 - 0.531)) < 1e-12
    assert one["testbed_min"] <= one["testbed"] <= one["testbed_max"] and one["testbed_max"] < 0.55
    assert repro.testbed_comparison("fig2", rows) == []
    lines = repro._testbed_section("fig10", cmp)
    assert "write hits: mean |hostio − testbed|" in lines[0] and "largest" in lines[0]

    def write_part(line):
        return line.split("write hits: ")[1].split("; read hits")[0]

    assert write_part(lines[0]).endswith("hostio's median within the range of the testbed's runs at 0 of them")
    assert "(5 more testbed points, where hostio runs none, are in the plot only)" in lines[0]
    assert "| cores | metric | testbed | hostio | difference |" in lines[2]
    # 0.7 lies within the runs of the bimodal 2-core point only.
    cmp7 = repro.testbed_comparison("fig10", rows_of([({"cores": n}, {"write_hit": 0.7, "read_hit": 1.0}) for n in repro.CORES]))
    line7 = repro._testbed_section("fig10", cmp7)[0]
    assert write_part(line7).endswith("within the range of the testbed's runs at 1 of them")
    # Read hits of 1.0 sit on the upper edge of the 4-core runs (0.999–1): an edge counts as within.
    assert line7.split("read hits: ")[1].split(" (")[0].endswith("within the range of the testbed's runs at 1 of them")
    # The table shows the testbed's range of runs beside its median.
    assert "| 2 | write_hit | 0.670 (0.613–0.876) |" in lines[2]


def test_testbed_latency_without_the_generators_queue():
    # The generator's queue, from Fig. 10's 4-18 cores: ~5,700 frames (4 cores: 696.5 us at 8.16 Mpps).
    assert 5600 < testbed.GENERATOR_QUEUE_FRAMES < 5800
    # The 256 B points (the generator's own limit, 11.9 Mpps) wait behind about as many frames.
    t256 = next(t for t in testbed.PKTSIZE_DESC if t["packet_size"] == 256 and t["rx_descriptors"] == 128)
    frames = t256["lat50_us"] * t256["generator_gbps"] * 1e3 / ((256 + 24) * 8)
    assert abs(frames / testbed.GENERATOR_QUEUE_FRAMES - 1) < 0.05
    # Below line rate the generator's queue state is unknown: no DUT latency.
    t512 = next(t for t in testbed.PKTSIZE_DESC if t["packet_size"] == 512 and t["rx_descriptors"] == 128)
    assert t512["generator_gbps"] < testbed.LINE_RATE_GBPS and testbed.dut_lat50_us(t512) is None
    assert all(testbed.dut_lat50_us(t) is None for t in testbed.PKT_RATE if t["rate_gbps"] < 99)
    # At line rate: the median less the queue's wait at the row's frame size and rate.
    one = next(t for t in testbed.CORES if t["cores"] == 1)
    mid, lo, hi = testbed.dut_lat50_us(one)
    wait = testbed.GENERATOR_QUEUE_FRAMES * (1500 + 24) * 8 / (one["generator_gbps"] * 1e3)
    assert abs(mid - (one["lat50_us"] - wait)) < 1e-9 and lo <= mid <= hi and 140 < mid < 160
    t1024 = next(t for t in testbed.PKTSIZE_DESC if t["packet_size"] == 1024 and t["rx_descriptors"] == 128)
    assert 5 < testbed.dut_lat50_us(t1024)[0] < 20  # 492 us, of which ~479 the generator's queue
    four = next(t for t in testbed.CORES if t["cores"] == 4)
    assert testbed.dut_lat50_us(four)[0] == 0  # the least one defines the queue


def test_testbed_comparison_of_latency_is_in_microseconds_at_line_rate_points():
    rows = rows_of([({"cores": n}, {"write_hit": 0.9, "read_hit": 1.0, "p50_ns": 150_000.0}) for n in repro.CORES])
    cmp = [c for c in repro.testbed_comparison("fig10", rows) if c["metric"] == "dut_p50_us"]
    assert {c["cores"] for c in cmp} == set(repro.CORES) & {t["cores"] for t in testbed.CORES}
    one = next(c for c in cmp if c["cores"] == 1)
    assert one["hostio"] == 150.0 and one["hostio_min"] == one["hostio_max"] == 150.0
    assert one["testbed"] == testbed.dut_lat50_us(next(t for t in testbed.CORES if t["cores"] == 1))[0]
    assert abs(one["difference"] - (150.0 - one["testbed"])) < 1e-9
    line = repro._testbed_section("fig10", repro.testbed_comparison("fig10", rows))[0]
    assert "median latency without the generator's queue, where it sent at line rate: mean |hostio − testbed|" in line
    assert " µs, largest " in line
    # Fig. 8: only the line-rate point has one.
    rows8 = rows_of([({"rate_gbps": r}, {"write_hit": 0.2, "read_hit": 1.0, "p50_ns": 3000.0}) for r in repro.RATES])
    assert [c["rate_gbps"] for c in repro.testbed_comparison("fig8", rows8) if c["metric"] == "dut_p50_us"] == [99]


def test_testbed_comparison_keeps_a_missing_hostio_range_missing():
    rows = [{"cores": n, "write_hit": 0.9, "read_hit": 1.0, "p50_ns": 150_000.0} for n in repro.CORES]
    cmp = repro.testbed_comparison("fig10", rows)
    lat = next(c for c in cmp if c["cores"] == 1 and c["metric"] == "dut_p50_us")
    assert lat["hostio"] == 150.0 and lat["hostio_min"] is None and lat["hostio_max"] is None


def test_fig11_one_core_points_run_until_their_rings_are_full():
    """One core falls ~3 Gb/s short at 8 ways: its 4096 + 1024 buffers take ~20 ms to fill, and only
    then is its latency the full rings' (the testbed's, less its generator's queue: ~0.65 ms)."""
    p = next(p for p in repro.fig11_points() if p.labels == {"cores": 1, "ddio_ways": 8})
    m = sim.run(p.scenario, set=p.overrides, seed=1)["metrics"]
    assert m["latency_ns"]["p50"] > 550_000, m["latency_ns"]["p50"]


def test_claims_quote_the_range_of_the_testbeds_runs():
    assert repro._testbed_runs("fig6", "write_hit", rx_descriptors=1024, packet_size=1500) == "runs 0.84–0.96"
    assert repro._testbed_runs("fig10", "write_hit", cores=3) == "runs n/a"
    knee = next(c for c in repro.fig6_claims([]) if c.claim.startswith("1500 B, 1024–2048"))
    assert "(runs 0.84–0.96, runs 0.72–0.85)" in knee.paper


def test_testbed_marks_draw_the_range_of_the_runs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    repro._testbed_marks(ax, "fig10", "cores", "write_hit", "testbed")
    bars = ax.containers[0].lines[2][0].get_segments()
    two = next(seg for seg in bars if seg[0][0] == 2)
    assert two[0][1] == pytest.approx(0.613) and two[1][1] == pytest.approx(0.876)
    plt.close(fig)


def test_fig2_claims():
    def rows(p):
        return rows_of([({"rx_descriptors": d, "ddio_ways": w}, {"p99_ns": p(d, w)}) for w in repro.FIG2_WAYS for d in repro.FIG2_DESCS])

    # more descriptors raise the p99 with 2 ways, 8 ways bring it back
    assert verdicts(repro.fig2_claims(rows(lambda d, w: 10_000 * (1 + (d / 2048) * (2 / w) ** 2)))) == [True, True]
    # ways do nothing
    assert verdicts(repro.fig2_claims(rows(lambda d, w: 10_000 * (1 + d / 2048)))) == [False, False]
    # nothing matters: a flat p99 keeps "8 ways at 2048 ≲ 2 ways at 256" without showing anything
    assert verdicts(repro.fig2_claims(rows(lambda d, w: 10_000.0))) == [False, False]


def test_fig12_claims():
    def rows(cut_hi, cut_lo, thr=(97.0, 94.0)):
        # offered 98 Gb/s of frames (100 Gb/s on the wire), `thr` the share forwarded in % with
        # 2 ways (the 4-way points forward everything: the claim reads the 2-way ones)
        return rows_of([
            ({"imbalance": imb, "rules": "r", "ddio_ways": w}, {"p99_ns": 100.0 * (1 - (cut if w == 4 else 0)), "throughput_gbps": 0.98 * (t if w == 2 else 100.0), "offered_gbps": 98.0})
            for imb, cut, t in ((1.69, cut_lo, thr[0]), (2.78, cut_hi, thr[1]))
            for w in (2, 4)
        ])

    assert verdicts(repro.fig12_claims(rows(0.21, 0.02))) == [True, True, True, True]
    assert verdicts(repro.fig12_claims(rows(0.21, 0.21)))[:3] == [True, False, False]
    # no effect at high imbalance: "barely matter at low imbalance" has nothing to contrast with
    assert verdicts(repro.fig12_claims(rows(0.02, 0.05)))[:3] == [False, False, False]
    assert verdicts(repro.fig12_claims(rows(0.0, 0.0)))[:3] == [False, False, False]
    assert verdicts(repro.fig12_claims(rows(0.5, 0.02)))[0] is False
    # "~21 %" and "~2 %", each within 5 points; the gap at least 21 − 2 − 2 × 5 = 9 points
    assert [verdicts(repro.fig12_claims(rows(c, 0.0)))[0] for c in (0.15, 0.16, 0.26, 0.27)] == [False, True, True, False]
    assert [verdicts(repro.fig12_claims(rows(0.21, c)))[1] for c in (-0.04, -0.03, 0.07, 0.08)] == [False, True, True, False]
    assert verdicts(repro.fig12_claims(rows(0.16, 0.08)))[:3] == [True, False, False]
    assert verdicts(repro.fig12_claims(rows(0.21, -0.2)))[:3] == [True, False, True]
    # a cut above the window is explained as such, in every claim that rests on it
    over = repro.fig12_claims(rows(0.40, 0.02))
    assert "by more than the paper's" in over[0].note and "not the paper's" in over[1].note and over[2].note == over[0].note
    assert over[0].missing == "" and "by less than" in repro.fig12_claims(rows(0.10, 0.02))[0].note
    # the share forwarded: within 1.5 points of 97 % and 94 %, dropping by 3 ± 1.5 points
    share = lambda a, b: verdicts(repro.fig12_claims(rows(0.0, 0.0, (a, b))))[3]  # noqa: E731
    assert share(97.5, 94.1) is True
    assert [share(a, 94.0) for a in (95.4, 95.6, 98.4, 98.6)] == [False, True, True, False]
    assert [share(97.0, b) for b in (92.4, 92.6, 95.4, 95.6)] == [False, True, True, False]
    # the drop alone: 1.4 and 4.6 points fail, 1.6 and 4.4 pass (levels within 1.5 points)
    assert [share(a, b) for a, b in ((96.0, 94.6), (96.0, 94.4), (98.0, 93.6), (98.0, 93.4))] == [False, True, True, False]
    assert share(100.0, 94.1) is False
    assert share(98.0, 98.0) is False
    assert share(94.0, 97.0) is False
    # nonsense levels with a paper-like drop do not agree
    assert share(3.0, 0.0) is False and share(50.0, 47.0) is False
    # an infinite offered rate is no share
    assert verdicts(repro.fig12_claims([{**r, "offered_gbps": math.inf} for r in rows(0.0, 0.0)]))[3] is False
    # no offered rate: no share, no verdict
    assert verdicts(repro.fig12_claims([{**r, "offered_gbps": None} for r in rows(0.0, 0.0)]))[3] is False


def fig3_rows(io: dict, co: dict):
    pts = [({"corunner_mask": f"{m:#05x}"}, {"io.llc_misses_per_packet": io.get(m, 1.0), "corunner.llc_misses_per_us": co.get(m, 10.0)})
           for m in repro.MASKS]
    pts.append(({"corunner_mask": "none"}, {"io.llc_misses_per_packet": 0.5, "corunner.llc_misses_per_us": None}))
    return rows_of(pts)


def test_fig3_claims():
    assert verdicts(repro.fig3_claims(fig3_rows({0x003: 2.5, 0x0C0: 2.0}, {0x600: 28.0}))) == [True, True, True]
    assert verdicts(repro.fig3_claims(fig3_rows({0x003: 1.5, 0x0C0: 1.2}, {0x600: 15.0}))) == [False, False, False]
    # the paper gives magnitudes for 0x003 (~2.5×) and 0x600 (almost 3×), only a peak for 0x0C0
    assert verdicts(repro.fig3_claims(fig3_rows({0x003: 4.5, 0x0C0: 10.0}, {0x600: 55.0}))) == [False, True, False]
    # "~2.5×" to the nearest half: 2.25–2.75; "almost 3×": 2.5–3
    at003 = lambda v: verdicts(repro.fig3_claims(fig3_rows({0x003: v, 0x0C0: 2.0}, {0x600: 28.0})))[0]  # noqa: E731
    assert [at003(v) for v in (2.24, 2.25, 2.75, 2.76)] == [False, True, True, False]
    at600 = lambda v: verdicts(repro.fig3_claims(fig3_rows({0x003: 2.5, 0x0C0: 2.0}, {0x600: v})))[2]  # noqa: E731
    assert [at600(v) for v in (24.9, 25.0, 30.0, 30.1)] == [False, True, True, False]
    # a bound reached through an inexact floor: 1.925 / 0.7 is 2.7500000000000004
    inexact = {m: 0.7 for m in repro.MASKS} | {0x003: 1.925, 0x0C0: 2.0}
    assert repro.fig3_claims(fig3_rows(inexact, {0x600: 28.0}))[0].agrees is True
    # a peak is above its neighbouring masks, not only above the floor
    assert verdicts(repro.fig3_claims(fig3_rows({0x003: 2.5, 0x0C0: 2.0, 0x180: 2.5}, {0x600: 28.0})))[1] is False
    assert verdicts(repro.fig3_claims(fig3_rows({0x003: 2.5, 0x0C0: 2.0, 0x060: 2.0}, {0x600: 28.0})))[1] is False
    # a ratio outside the window names what it rests on
    c003 = repro.fig3_claims(fig3_rows({0x003: 2.0, 0x0C0: 2.0}, {0x600: 20.0}))
    assert c003[0].missing == "forwarder-data" and c003[2].missing == "co-runner"
    # ... in the direction it misses
    assert "by less than" in c003[2].note and "by more than" in repro.fig3_claims(fig3_rows({0x003: 2.5, 0x0C0: 2.0}, {0x600: 55.0}))[2].note


def test_fig3_zero_floor_is_undefined_not_infinite():
    claims = repro.fig3_claims(fig3_rows({m: 0.0 for m in repro.MASKS} | {0x003: 2.0}, {0x030: 0.0, 0x600: 30.0}))
    assert verdicts(claims) == [False, False, False]
    assert all("ratio undefined" in c.note and "inf" not in c.hostio for c in claims)


def test_remote_claims():
    def rows(loc, rem):
        return rows_of([({"nic_socket": 0}, {"io.llc_misses_per_packet": loc}), ({"nic_socket": 1}, {"io.llc_misses_per_packet": rem})])

    assert verdicts(repro.remote_claims(rows(0.1, 2.0))) == [True]
    assert verdicts(repro.remote_claims(rows(0.1, 0.5))) == [False]
    # The note explains a shortfall only: an agreeing ratio carries none.
    assert repro.remote_claims(rows(0.1, 2.0))[0].note == ""
    assert "Missing: which baseline the paper divides by" in repro.remote_claims(rows(0.1, 0.5))[0].note
    (c,) = repro.remote_claims(rows(0.1, 5.0))  # 50×: beyond the paper's ~20×
    assert c.agrees is False and "exceed 25×" in c.note
    # "20×" to the nearest 10: 15–25
    assert [verdicts(repro.remote_claims(rows(0.1, v)))[0] for v in (1.49, 1.5, 2.5, 2.51)] == [False, True, True, False]
    (c,) = repro.remote_claims(rows(0.0, 2.0))
    assert c.agrees is False and "local has 0 misses" in c.note and "∞" not in c.hostio and "inf" not in c.hostio


def test_fig14_claims():
    def rows(i, ii, iii, iv, v):
        return rows_of([({"case": c, "description": d}, {"hp.p99_ns": p}) for (c, d, _, _), p in zip(repro.CASES, (i, ii, iii, iv, v))])

    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1020, 1080))) == [True] * 4
    # (ii) raised nothing: (iv) ≈ (i) restores nothing, and the cures cannot help
    assert verdicts(repro.fig14_claims(rows(1000, 1000, 1000, 1000, 1000))) == [False] * 4
    assert verdicts(repro.fig14_claims(rows(1000, 2000, 1100, 1020, 1080)))[0] is False  # +100 %
    # "~30 %" to the nearest 10 points: +25 % and +35 % agree, +24 % and +36 % do not
    assert [verdicts(repro.fig14_claims(rows(1000, ii, 1100, 1020, 1080)))[0] for ii in (1240, 1250, 1350, 1360)] == [False, True, True, False]
    # a rise of 24 %, under the "~30 %" bound: nothing for the cures to undo
    assert verdicts(repro.fig14_claims(rows(1000, 1240, 1000, 1000, 1010)))[1:] == [False, False, False]
    # an infinite or unknown (ii) is no rise
    assert verdicts(repro.fig14_claims(rows(1000, math.inf, 1100, 1020, 1080))) == [False] * 4
    assert verdicts(repro.fig14_claims(rows(1000, math.nan, 1100, 1020, 1080))) == [False] * 4
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1200, 1250)))[1] is False  # (iv) 20 % above (i)
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1250, 1020, 1080)))[2] is False
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1020, 1010)))[3] is False  # (v) below (iv)
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1000, 1000)))[3] is False  # (v) equal to (iv), not above
    assert [verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1000, v)))[3] for v in (1009, 1010)] == [False, True]  # 1 % above at least
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1160, 1020, 1080)))[2] is False  # (iii) 14 % above (iv)
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1100, 1020, 1160)))[3] is False  # (v) 14 % above (iv)
    # no rise in (ii): lower (iii) and (v) cure nothing
    assert verdicts(repro.fig14_claims(rows(1000, 1100, 900, 1000, 1000)))[2:] == [False, False]


def test_pause_claims():
    def rows(per_m):
        return rows_of([({"rx_descriptors": 1024}, {"pause_per_mpkt": per_m})])

    assert verdicts(repro.pause_claims(rows(2000.0))) == [True]
    assert verdicts(repro.pause_claims(rows(300.0))) == [False]  # within 10x but not 2x
    assert verdicts(repro.pause_claims(rows(5000.0))) == [False]
    assert verdicts(repro.pause_claims(rows(None))) == [False]


def test_ccnic_latency_claims():
    def rows(pcie, cc, bell, padded, packed=600):
        return rows_of([({"design": d}, {"p50_ns": v}) for d, v in
                        (("pcie", pcie), ("cc-nic", cc), ("doorbell", bell), ("padded", padded), ("packed", packed))])

    assert verdicts(repro.ccnic_latency_claims(rows(2000, 400, 640, 410))) == [True, True, True]
    # grouped matching padded is no finding when packing keeps that latency too
    assert verdicts(repro.ccnic_latency_claims(rows(2000, 400, 640, 410, packed=420)))[2] is False
    assert verdicts(repro.ccnic_latency_claims(rows(2000, 800, 900, 1000))) == [False, False, False]
    assert verdicts(repro.ccnic_latency_claims(rows(2000, 100, 640, 410)))[0] is False  # 95 %: beyond the paper's range
    assert verdicts(repro.ccnic_latency_claims(rows(None, 400, None, None))) == [False, False, False]


def test_ccnic_rate_claims():
    def rows(pcie, cc, bell, padded, packed, big=(100, 180)):
        pts = [({"design": d, "packet_size": 64}, {"throughput_mpps": v}) for d, v in
               (("pcie", pcie), ("cc-nic", cc), ("doorbell", bell), ("padded", padded), ("packed", packed))]
        pts += [({"design": d, "packet_size": 1500}, {"throughput_mpps": v}) for d, v in zip(("pcie", "cc-nic"), big)]
        return rows_of(pts)

    assert verdicts(repro.ccnic_rate_claims(rows(10, 30, 23, 10, 29))) == [True] * 5
    assert verdicts(repro.ccnic_rate_claims(rows(10, 10, 10, 10, 10, (100, 100)))) == [False] * 5
    assert verdicts(repro.ccnic_rate_claims(rows(10, 50, 23, 10, 29)))[0] is False  # 5x: above 4.3x


def test_netdimm_claims():
    def rows(pcie, die, nd, flush=0.12):
        return rows_of([({"attachment": k, "packet_size": s}, {"p50_ns": v, "fwd.flush_ns": v * flush})
                        for k, vals in (("pcie", pcie), ("integrated", die), ("memory-channel", nd))
                        for s, v in zip(repro.NETDIMM_SIZES, vals)])

    good = rows((2100, 2540, 3100), (1500, 1800, 2200), (1130, 1210, 1560))
    # The paper's latencies give every claim but the switch one (index 5): a 175 ns longer switch
    # barely dilutes a ~1 µs saving; the paper's fall needs a path of a few hundred ns.
    assert verdicts(repro.netdimm_latency_claims(good)) == [True] * 5 + [False, True]
    assert verdicts(repro.netdimm_latency_claims(rows((260,) * 3, (200,) * 3, (143,) * 3)))[5] is True
    bad = rows((2100, 2540, 3100), (400, 400, 400), (600, 600, 600), flush=0.3)
    assert verdicts(repro.netdimm_latency_claims(bad)) == [False] * 7
    # the flush share against the paper's 9.7–15.8 %, widened by 5 points: 4.7–20.8 %
    flush = lambda share: verdicts(repro.netdimm_latency_claims(rows((2100, 2540, 3100), (1500, 1800, 2200), (1130, 1210, 1560), flush=share)))[4]  # noqa: E731
    assert [flush(v) for v in (0.046, 0.048, 0.207, 0.209)] == [False, True, True, False]
    # at 64 B: the cut, 46.1 % within 5 points, and the time saved, 0.97 µs within 10 %
    at64 = lambda pcie, nd: repro.netdimm_latency_claims(rows((pcie, 2540, 3100), (1500, 1800, 2200), (nd, 1210, 1560)))[0]  # noqa: E731
    assert [at64(970 / c, 970 / c - 970).agrees for c in (0.4105, 0.4115, 0.5105, 0.5115)] == [False, True, True, False]
    assert [at64(2100, 2100 - saved).agrees for saved in (872, 874, 1066, 1068)] == [False, True, True, False]
    # a cut as the paper's with less time saved: the simulated PCIe link, not the rest of the path
    c = at64(1700, 1700 - 780)
    assert not c.agrees and c.missing == "sim-pcie" and "hostio saves 0.78 µs against the paper's 0.97" in c.note
    assert repro.netdimm_latency_claims(rows((2100, 2540, 3100), (1500, 1800, 2200), (900, 1210, 1560)))[0].missing == "host-path"
    assert "a larger share" in repro.netdimm_latency_claims(rows((2100, 2540, 3100), (1500, 1800, 2200), (900, 1210, 1560)))[0].note
    assert "a smaller share" in repro.netdimm_latency_claims(rows((2100, 2540, 3100), (1500, 1800, 2200), (1400, 1210, 1560)))[0].note
    kept = lambda a, b: rows_of([({"pressure": "none"}, {"fwd.throughput_gbps": a}), ({"pressure": "max"}, {"fwd.throughput_gbps": b})])  # noqa: E731
    assert verdicts(repro.netdimm_pressure_claims(kept(40, 11))) == [True]
    assert verdicts(repro.netdimm_pressure_claims(kept(40, 39))) == [False]
    assert verdicts(repro.netdimm_pressure_claims(kept(0, 0))) == [False]
    # A disagreement names the missing mechanism and says which way hostio is off; an agreement names none.
    more, less, ok = (repro.netdimm_pressure_claims(kept(40, b))[0] for b in (16, 8, 11))
    assert more.missing == less.missing == "sim-memory" and "keeps more" in more.note and "keeps less" in less.note
    assert ok.missing == "" and "keeps" not in ok.note and ok.caveat


def test_netdimm_clone_claims():
    def rows(sub, copy):
        return rows_of([({"clone": c, "packet_size": s}, {"fwd.copy_ns": v})
                        for c, vals in (("rowclone-subarray", sub), ("core-copy", copy))
                        for s, v in zip(repro.NETDIMM_CLONE_SIZES, vals)])

    assert verdicts(repro.netdimm_clone_claims(rows((5, 100, 200, 270), (7, 127, 334, 491)))) == [True]
    # The copy wins at 64 B, or at 1024 B (1500 B is plotted, not judged: not one of the paper's sizes).
    assert verdicts(repro.netdimm_clone_claims(rows((270,) * 4, (7, 127, 334, 491)))) == [False]
    assert verdicts(repro.netdimm_clone_claims(rows((5, 100, 200, 270), (7, 127, 150, 491)))) == [False]
    assert verdicts(repro.netdimm_clone_claims(rows((5, 100, 200, 600), (7, 127, 334, 491)))) == [True]
    assert verdicts(repro.netdimm_clone_claims(rows_of([]))) == [False]


def test_every_experiment_has_tested_claims():
    tested = {"fig2", "fig6", "fig6-haswell", "fig5", "fig8", "fig9", "fig10", "fig11", "fig12", "fig3", "remote", "fig14", "pause",
              "ccnic-latency", "ccnic-rate", "netdimm-latency", "netdimm-clone", "netdimm-pressure"}
    assert {e.id for e in repro.EXPERIMENTS} == tested


# ------------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------------


def _runs(e) -> bool:
    """Whether every point of the experiment is a valid scenario here."""
    try:
        for p in e.points():
            sim.check(sim.scenario_path(p.scenario).read_text(), set=p.overrides)
    except ConfigError:
        return False
    return True


def _csv(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _strict(text: str):
    def bad(c):
        raise ValueError(f"non-finite number {c} in summary.json")

    return json.loads(text, parse_constant=bad)


def test_each_claim_is_also_judged_on_each_seed_alone():
    """A claim whose median agrees can rest on some seeds only: the per-seed verdicts show it.
    Fig. 3's 0x003 ratio (~2.5×: 2.25–2.75) over a floor of 1.0 on three seeds: 2.4×, 2.0× and
    2.6× (the median, 2.4×, agrees), so two of the three seeds agree alone."""
    pts = repro.fig3_points()
    at_0x003 = {1: 2.4, 2: 2.0, 3: 2.6}
    per_point = []
    for p in pts:
        mask = p.labels["corunner_mask"]
        per_point.append([dict(p.labels, seed=k, **{
            "io.llc_misses_per_packet": v if mask == "0x003" else 3.0 if mask == "0x0c0" else 1.0,
            "corunner.llc_misses_per_us": None if mask == "none" else 28.0 if mask == "0x600" else 10.0})
            for k, v in at_0x003.items()])
    exp = next(e for e in repro.EXPERIMENTS if e.id == "fig3")
    rows = [repro.aggregate(rs, list(p.labels)) for p, rs in zip(pts, per_point)]
    claims = exp.claims(rows)
    verdicts = repro.seed_verdicts(exp, pts, per_point)
    assert len(verdicts) == len(claims) and all(len(v) == 3 for v in verdicts)
    i = next(j for j, c in enumerate(claims) if "0x003" in c.claim)
    assert claims[i].agrees and [s.agrees for s in verdicts[i]] == [True, False, True]
    row = repro._claim_row("fig3", claims[i], "", 3, verdicts[i])
    assert row["seeds_agreeing"] == 2 and row["hostio_by_seed"].startswith("2.40× ") and " | 2.00× " in row["hostio_by_seed"], row
    # The other two agree on every seed (their values do not change with it).
    assert all([s.agrees for s in v] == [c.agrees] * 3 for j, (c, v) in enumerate(zip(claims, verdicts)) if j != i)


def test_reproduce_every_experiment_short(tmp_path):
    """A short run of every experiment on 2 seeds: files, columns and claims are all there."""
    ok = repro.reproduce(tmp_path, quick=True, seeds=2, jobs=2, progress=False,
                         overrides=["run.warmup_us=300", "run.duration_us=300"])
    runnable = {e.id: _runs(e) for e in repro.EXPERIMENTS}
    assert ok == all(runnable.values())
    summary = (tmp_path / "summary.md").read_text()
    claims = _strict((tmp_path / "summary.json").read_text())
    assert claims and (tmp_path / "claims.csv").read_text().splitlines()[0].split(",") == [
        "experiment", "claim", "paper", "hostio", "agrees", "note", "seeds", "criterion", "missing", "seeds_agreeing", "hostio_by_seed"]
    for c in claims:
        assert set(c) == {"experiment", "claim", "paper", "hostio", "agrees", "note", "seeds", "criterion", "missing", "seeds_agreeing", "hostio_by_seed"}
        assert c["seeds"] == 2 and c["criterion"] and isinstance(c["agrees"], bool) and 0 <= c["seeds_agreeing"] <= 2
        assert c["hostio_by_seed"].count(" | ") == 1, c["hostio_by_seed"]
        assert c["missing"] == "" or c["missing"] in repro.MISSING
        assert not (c["agrees"] and c["missing"]), c
    # the disagreements grouped by what hostio lacks: every disagreeing claim once
    if any(not c["agrees"] for c in claims):
        table = summary.split("The claims that disagree, by what hostio lacks")[1].split("\n\n")[1]
        counts = [int(r.split(" | ")[1]) for r in table.splitlines()[2:]]
        assert sum(counts) == sum(not c["agrees"] for c in claims)
    for e in repro.EXPERIMENTS:
        section = summary.split(f"## {e.figure}: {e.title}")[1].split("\n## ")[0]
        if not runnable[e.id]:
            assert "runs failed; no claims evaluated" in section, e.id
            continue
        assert (tmp_path / f"{e.id}.png").stat().st_size > 0
        per_seed = _csv(tmp_path / f"{e.id}.csv")
        assert sorted(r["seed"] for r in per_seed) == sorted(["1", "2"] * len(e.points())), e.id
        agg = _csv(tmp_path / f"{e.id}_summary.csv")
        assert len(agg) == len(e.points()) and all(r["seeds"] == "2" for r in agg)
        assert {"throughput_gbps", "throughput_gbps_min", "throughput_gbps_max"} <= set(agg[0])
        assert any(c["experiment"] == e.id for c in claims), e.id
        if e.id in testbed.BY_EXPERIMENT:
            tb = _csv(tmp_path / f"{e.id}_testbed.csv")
            assert tb and {"metric", "testbed", "hostio", "difference"} <= set(tb[0]), e.id
            assert "Against the testbed's own measurements" in section, e.id
    # a table shows the metrics its claims were decided on, beside the common ones
    for eid, key in [("fig14", "hp.p99_ns"), ("remote", "io.llc_misses_per_packet"), ("pause", "pause_per_mpkt"), ("netdimm-clone", "fwd.copy_ns")]:
        e = next(x for x in repro.EXPERIMENTS if x.id == eid)
        header = summary.split(f"## {e.figure}: {e.title}")[1].split("</summary>\n\n")[1].splitlines()[0]
        assert f"| {key} |" in header and "| write_hit |" in header and f"{key}_min" not in header, (eid, header)


def test_reproduce_rejects_bad_seeds(tmp_path):
    with pytest.raises(ConfigError, match="seeds = 0"):
        repro.reproduce(tmp_path, seeds=0, progress=False)
    p = subprocess.run([sys.executable, "-m", "hostio", "reproduce", "--seeds", "many", "--out", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.strip() == "hostio: error: --seeds = 'many': an integer >= 1"
    p = subprocess.run([sys.executable, "-m", "hostio", "reproduce", "--seeds", "0", "--out", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.strip() == "hostio: error: --seeds = 0: an integer >= 1", "an integer shown as one"
    f = tmp_path / "a_file"
    f.write_text("x")
    with pytest.raises(ConfigError, match="a folder"):
        repro.reproduce(f, only=["netdimm-clone"], progress=False)
    assert f.read_text() == "x"


def test_reproduce_checks_its_overrides_before_writing_anything(tmp_path):
    out = tmp_path / "r"
    for bad, msg in ((None, r"^overrides = None: a list"), ("run.duration_us=100", r"^overrides = 'run.duration_us=100': .*not one string"),
                     (5, r"^overrides = 5: a list"), (["foo.bar=1"], "unknown field `foo`"), (["run.duration_us=-1"], r"run.duration_us = -1")):
        with pytest.raises(ConfigError, match=msg):
            repro.reproduce(out, only=["ccnic-latency"], quick=True, seeds=1, overrides=bad, progress=False)
        assert not out.exists(), bad
    # NumPy integers are integers
    assert repro.reproduce(out, only=["ccnic-latency"], quick=True, seeds=np.int64(1), progress=False) is True


def test_reproduce_reports_unknown_scenario(tmp_path, monkeypatch):
    exp = repro.Experiment("nope", "missing scenario", "Fig. 0", lambda: [repro.Point("ddio/none", [], {"k": 1})],
                           repro.pause_plot, repro.pause_claims)
    monkeypatch.setattr(repro, "EXPERIMENTS", [exp])
    assert repro.reproduce(tmp_path, seeds=2, progress=False) is False
    summary = (tmp_path / "summary.md").read_text()
    assert "2 of 2 runs failed" in summary and "ddio/none" in summary
    assert _strict((tmp_path / "summary.json").read_text()) == []


def test_bars_in_table_cells_do_not_break_summary_tables(tmp_path, monkeypatch):
    from hostio import report

    def claims(rows):
        return [repro.Claim("a | b", "|x|", "1 | 2", False, "|1 − r| <= 0.08", "why | not")]

    def points():
        return [repro.Point("ddio/pause", [], {"rx_descriptors": 1024, "label": "l|m"})]

    exp = repro.Experiment("bars", "bars in cells", "Fig. 0", points, repro.pause_plot, claims)
    monkeypatch.setattr(repro, "EXPERIMENTS", [exp])
    assert repro.reproduce(tmp_path, seeds=1, progress=False, overrides=["run.warmup_us=100", "run.duration_us=100"])
    md = (tmp_path / "summary.md").read_text()
    head, section = md.split("## Fig. 0")
    missing_rows = [ln for ln in head.splitlines() if ln.startswith("|")]
    assert len(missing_rows) == 3 and "bars: a \\| b" in missing_rows[2]
    for ln in missing_rows:  # 3 cells: 4 bars that are not escaped
        assert len(re.findall(r"(?<!\\)\|", ln)) == 4, ln
    rows = [ln for ln in section.splitlines() if ln.startswith("|")]
    claim_rows, table_rows = rows[:3], rows[3:]
    assert len(table_rows) == 3
    for ln in claim_rows:  # 6 cells: 7 bars that are not escaped
        assert len(re.findall(r"(?<!\\)\|", ln)) == 7, ln
    for ln in table_rows:  # every cell of the summary table, the labels included
        assert len(re.findall(r"(?<!\\)\|", ln)) == len(re.findall(r"(?<!\\)\|", table_rows[0])), ln
    page = report.markdown(md, tmp_path)
    assert "<td>|1 − r| &lt;= 0.08</td>" in page and "<td>why | not</td>" in page and "<td>l|m</td>" in page


def test_fig12_criterion_has_no_bar():
    assert all("|" not in c.criterion for c in repro.fig12_claims([]))


@pytest.mark.parametrize("ov", ["run.seed=7", " run.seed = 7", "run={seed=7}", "run.\"seed\"=7", "\"run\".'seed'=7"])
def test_reproduce_refuses_a_seed_override(tmp_path, ov):
    with pytest.raises(ConfigError, match=r"overrides = .*run.seed"):
        repro.reproduce(tmp_path / "o", only=["pause"], seeds=2, progress=False, overrides=["run.duration_us=100", ov])
    assert not (tmp_path / "o").exists()


def test_quick_keeps_a_points_own_warmup(tmp_path, monkeypatch):
    """--quick shortens the warm-up only where a point does not set its own (Fig. 8 warms every
    buffer twice); an explicit override still applies to every point."""
    seen = []

    def run_points(todo, **kw):
        seen.extend(ov for _, ov in todo)
        kw["out"].mkdir(parents=True, exist_ok=True)  # the run log, as the real one keeps it
        (kw["out"] / "points.jsonl").touch()
        return [{"error": "not run"} for _ in todo]

    monkeypatch.setattr(repro.sweep, "run_points", run_points)
    repro.reproduce(tmp_path, only=["fig8", "fig9"], quick=True, seeds=1, progress=False)
    warm = [[o for o in ov if o.startswith("run.warmup_us=")] for ov in seen]
    fig8 = warm[:len(repro.RATES)]
    assert all(len(w) == 1 and w[0] != "run.warmup_us=1500" for w in fig8), fig8
    assert all(w == ["run.warmup_us=1500"] for w in warm[len(repro.RATES):])
    seen.clear()
    repro.reproduce(tmp_path, only=["fig8"], quick=True, seeds=1, progress=False, overrides=["run.warmup_us=300"])
    assert all(ov[-1] == "run.warmup_us=300" for ov in seen)


def test_failed_experiment_leaves_no_stale_figure_or_comparison(tmp_path, monkeypatch):
    (tmp_path / "points" / "fig10").mkdir(parents=True)  # an earlier reproduction's folder
    (tmp_path / "points" / "fig10" / "points.jsonl").touch()
    (tmp_path / "fig10.png").write_text("old")
    (tmp_path / "fig10_testbed.csv").write_text("old")
    monkeypatch.setattr(repro.sweep, "run_points", lambda todo, **kw: [{"error": "boom"} for _ in todo])
    assert repro.reproduce(tmp_path, only=["fig10"], seeds=1, progress=False) is False
    assert not (tmp_path / "fig10.png").exists() and not (tmp_path / "fig10_testbed.csv").exists()


def test_testbed_comparison_refuses_unknown_experiments_and_skips_non_finite():
    with pytest.raises(ConfigError, match="experiment"):
        repro.testbed_comparison("FIG8", [])
    rows = rows_of([({"cores": n}, {"write_hit": float("nan"), "read_hit": 1.0}) for n in repro.CORES])
    cmp = repro.testbed_comparison("fig10", rows)
    assert cmp and all(c["metric"] == "read_hit" for c in cmp)


def test_summary_shows_notes_of_disagreements_and_caveats_only():
    c = lambda agrees, caveat: repro.Claim("c", "p", "h", agrees, "crit", "the note", caveat)  # noqa: E731
    assert repro._shown_note(c(False, False)) == "the note"
    assert repro._shown_note(c(True, False)) == ""
    assert repro._shown_note(c(True, True)) == "the note"


def test_failure_notes_follow_the_failure():
    # Fig. 10: the peak-at-2 note only when the peak is at 2 cores
    def f10(ws):
        return repro.fig10_claims(rows_of([({"cores": n}, {"write_hit": w, "read_hit": 1.0}) for n, w in zip(repro.CORES, ws)]))[0]
    assert "peaks at 2 cores" in f10([0.6, 0.72, 0.7, 0.6, 0.5]).note
    assert "peaks at 2 cores" not in f10([0.6, 0.65, 0.7, 0.75, 0.8]).note
    # Fig. 14: "no rise" notes only without a rise
    def f14(*p):
        return repro.fig14_claims(rows_of([({"case": c, "description": d}, {"hp.p99_ns": v}) for (c, d, _, _), v in zip(repro.CASES, p)]))
    flat, rose = f14(1000, 1000, 1000, 1000, 1000), f14(1000, 1300, 1250, 1020, 1250)
    assert all("no rise" in x.note for x in flat[2:]) and not any("no rise" in x.note for x in rose[2:])
    assert "more than the paper's ~30 %" in f14(1000, 1500, 1100, 1020, 1080)[0].note
    # A fall the seeds can make is no rise, named by what hostio lacks; a larger one is not
    small_fall, big_fall = f14(1000, 980, 1000, 1000, 1000), f14(1000, 850, 1000, 1000, 1000)
    assert all(c.missing == "core-cost" for c in small_fall) and small_fall[0].note == repro.FIG14_FLAT_NOTE
    assert all(c.missing == "" for c in big_fall) and "falls by more than 10 %" in big_fall[0].note


def test_disagreements_are_grouped_by_what_hostio_lacks():
    row = lambda e, m, agrees=False: {"experiment": e, "claim": e * 2, "agrees": agrees, "missing": m}  # noqa: E731
    rows = [row("d", "fabric"), row("a", "tx-backlog"), row("b", "core-cost"), row("c", "core-cost"),
            row("u", ""), row("v", ""), row("w", ""), row("e", "", agrees=True)]
    table = repro._missing_table(rows)
    body = [r for r in table if r.startswith("| `") or r.startswith("| (not")]
    heads = [r.split(" | ")[0] for r in body]
    # the largest named group first, equal ones in MISSING's order, the unnamed last however many
    assert heads == ["| `core-cost`: " + repro.MISSING["core-cost"], "| `tx-backlog`: " + repro.MISSING["tx-backlog"],
                     "| `fabric`: " + repro.MISSING["fabric"], "| (not named)"]
    assert [int(r.split(" | ")[1]) for r in body] == [2, 1, 1, 3]
    assert "b: bb; c: cc" in body[0] and "e: ee" not in "\n".join(table)
    assert repro._missing_table([dict(r, agrees=True) for r in rows]) == []


def test_claim_rows_name_what_is_missing_only_when_a_claim_disagrees():
    c = repro.Claim("c", "p", "h", True, "crit", missing="core-cost")
    assert repro._claim_row("x", c, "", 5)["missing"] == ""
    c.agrees = False
    assert repro._claim_row("x", c, "why", 5)["missing"] == "core-cost"


def test_a_claim_names_only_a_known_missing_mechanism():
    assert repro.Claim("c", "p", "h", False, "crit", missing="core-cost").missing == "core-cost"
    with pytest.raises(ValueError, match="Claim.missing = 'warp-drive'"):
        repro.Claim("c", "p", "h", False, "crit", missing="warp-drive")


def test_every_missing_mechanism_is_some_claims_tag():
    """No entry of MISSING is dead text: each is a string in some claim's ``missing=`` argument."""
    import ast
    import inspect
    used = set()
    for node in ast.walk(ast.parse(inspect.getsource(repro))):
        if isinstance(node, ast.keyword) and node.arg == "missing":
            used |= {n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "tag" for t in node.targets):
            used |= {n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert set(repro.MISSING) <= used, set(repro.MISSING) - used


def test_conditional_tags_follow_the_failure_their_note_explains():
    tags = lambda claims: [c.missing for c in claims]  # noqa: E731
    # Fig. 12: no cut at high imbalance is the explained failure; 4 ways raising the p99 is not
    f12 = lambda hi, lo: rows_of([({"imbalance": imb, "rules": "r", "ddio_ways": w},  # noqa: E731
                                   {"p99_ns": 100.0 * (1 - (cut if w == 4 else 0)), "throughput_gbps": 98.0, "offered_gbps": 98.0})
                                  for imb, cut in ((1.69, lo), (2.78, hi)) for w in (2, 4)])
    assert tags(repro.fig12_claims(f12(0.0, 0.0)))[:3] == ["core-cost"] * 3
    assert tags(repro.fig12_claims(f12(-0.3, 0.0)))[:3] == ["", "", ""]
    assert tags(repro.fig12_claims(f12(0.21, 0.02)))[:3] == ["", "", ""]
    # the forwarded share: all forwarded at 1.69x while 2.78x sits at the calibration
    share = lambda a, b: rows_of([({"imbalance": imb, "rules": "r", "ddio_ways": w},  # noqa: E731
                                   {"p99_ns": 100.0, "throughput_gbps": 0.98 * t, "offered_gbps": 98.0})
                                  for imb, t in ((1.69, a), (2.78, b)) for w in (2, 4)])
    assert tags(repro.fig12_claims(share(100.0, 94.0)))[3] == "load-spread"
    assert tags(repro.fig12_claims(share(99.0, 85.0)))[3] == ""
    assert tags(repro.fig12_claims(share(97.0, 94.0)))[3] == ""
    # Fig. 14: a flat p99 is the explained failure; a falling one is not
    f14 = lambda ii: rows_of([({"case": c, "description": d}, {"hp.p99_ns": p})  # noqa: E731
                              for (c, d, _, _), p in zip(repro.CASES, (1000, ii, 1000, 1000, 1000))])
    assert tags(repro.fig14_claims(f14(1000))) == ["core-cost"] * 4
    assert tags(repro.fig14_claims(f14(600))) == [""] * 4
    assert "falls" in repro.fig14_claims(f14(600))[0].note
    assert tags(repro.fig14_claims(f14(1300)))[0] == ""
    # the remote socket: any ratio outside 20x within 1.5x names the forwarder's data; no ratio, nothing
    rem = lambda a, b: rows_of([({"nic_socket": 0}, {"io.llc_misses_per_packet": a}), ({"nic_socket": 1}, {"io.llc_misses_per_packet": b})])  # noqa: E731
    assert [tags(repro.remote_claims(rem(0.1, b)))[0] for b in (0.8, 2.0, 4.0)] == ["forwarder-data", "", "forwarder-data"]
    assert tags(repro.remote_claims(rem(0.0, 1.0)))[0] == ""
    # CC-NIC at 1.5 KB: only a ratio above the paper's names the prototype's limit
    big = lambda cc, pc: rows_of([({"design": d, "packet_size": s}, {"throughput_mpps": v})  # noqa: E731
                                  for d, s, v in (("cc-nic", 64, 10.0), ("pcie", 64, 10.0), ("doorbell", 64, 10.0), ("padded", 64, 10.0),
                                                  ("packed", 64, 10.0), ("cc-nic", 1500, cc), ("pcie", 1500, pc))])
    assert tags(repro.ccnic_rate_claims(big(25.0, 8.0)))[4] == "prototype"
    assert tags(repro.ccnic_rate_claims(big(7.0, 8.0)))[4] == ""
    assert "gains less" in repro.ccnic_rate_claims(big(7.0, 8.0))[4].note
    # Fig. 10: a peak at 2 cores is the explained failure
    f10 = lambda ws: rows_of([({"cores": n}, {"write_hit": w}) for n, w in zip(repro.CORES, ws)])  # noqa: E731
    assert tags(repro.fig10_claims(f10([0.85, 0.99, 0.93, 0.63, 0.41])))[0] == "tx-backlog"
    assert tags(repro.fig10_claims(f10([0.85, 0.9, 0.93, 0.95, 0.97])))[0] == ""


# ------------------------------------------------------------------------------------------------
# Bounds of the criteria: the value on each side of every threshold
# ------------------------------------------------------------------------------------------------


def test_a_rise_of_exactly_flat_is_a_tie_and_a_larger_one_is_a_rise():
    # Fig. 6 "> 512 B falls" and its Haswell counterpart: +FLAT between two descriptor counts is
    # within the seed's spread; +0.011 is a rise.
    for rise, want in ((repro.FLAT, True), (0.011, False)):
        w = {**FIG6_1500, 2048: 0.39, 4096: round(0.39 + rise, 6)}
        assert verdicts(repro.fig6_claims(fig6_rows(w1500=w, read4096=w[4096])))[3] is want, rise
        rows = rows_of([({"rx_descriptors": d, "packet_size": 1500}, {"write_hit": w[d], "read_hit": w[d]}) for d in repro.DESCS])
        assert verdicts(repro.fig6_haswell_claims(rows)) == [want], rise


def test_fig5_allows_a_fall_of_two_flat_per_step_and_no_more():
    def rows(ws):
        return rows_of([({"ddio_ways": w}, {"write_hit": h, "read_hit": 1.0}) for w, h in zip(repro.WAYS, ws)])

    rising = [0.5 + 0.04 * i for i in range(len(repro.WAYS))]
    for dip, want in ((2 * repro.FLAT, True), (0.03, False)):
        ws = list(rising)
        ws[5] = round(ws[4] - dip, 6)
        assert verdicts(repro.fig5_claims(rows(ws))) == [want], dip


def test_fig8_bounds_97_gbps_reads_and_the_93_to_100_mean():
    # 97 Gb/s belongs to "good until ~98": a low read hit there alone breaks the claim.
    rows = fig8_rows()
    for r in rows:
        if r["rate_gbps"] == 97:
            r["read_hit"] = 0.90
    assert verdicts(repro.fig8_claims(rows))[0] is False
    # "above ~75 Gb/s" is the mean over 93–100 Gb/s: 0.35 at 93 and 97 and 0.2 at 99 and 100 is a
    # drop of 0.025 from 0.3, no worsening (the mean over 99–100 alone would be 0.1).
    rows = fig8_rows(mid=0.3)
    for r in rows:
        r["write_hit"] = 0.3 if r["rate_gbps"] < 90 else 0.35 if r["rate_gbps"] in (93, 97) else 0.2
    assert verdicts(repro.fig8_claims(rows))[3] is False


def test_fig9_points_between_95_and_99_percent_count_for_neither_side():
    rows = []
    for c in repro.CALLS:
        t, w = (93.0, 0.6) if c <= 50 else (90.0, 0.9) if c < 100 else (40.0, 0.7)  # 90 is 96.8 % of 93
        rows.append(({"mt19937_calls": c}, {"throughput_gbps": t, "read_hit": 0.9, "write_hit": w}))
    assert verdicts(repro.fig9_claims(rows_of(rows)))[2] is True  # 0.7 >= 0.6 + 0.05


def test_pause_count_within_a_factor_two_of_the_papers():
    def rows(per_m):
        return rows_of([({"rx_descriptors": 1024}, {"pause_per_mpkt": per_m})])

    assert [verdicts(repro.pause_claims(rows(v)))[0] for v in (1100.0, 1120.0, 4470.0, 4480.0)] == [False, True, True, False]


def test_fig14_more_ways_must_cut_the_p99_by_a_tenth():
    def rows(i, ii, iii, iv, v):
        return rows_of([({"case": c, "description": d}, {"hp.p99_ns": p}) for (c, d, _, _), p in zip(repro.CASES, (i, ii, iii, iv, v))])

    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1200, 1150, 1200)))[2] is False  # 1200 / 1300 = 0.92
    assert verdicts(repro.fig14_claims(rows(1000, 1300, 1170, 1150, 1200)))[2] is True  # 0.90


def test_claim_rows_keep_the_criterion_apart_from_the_claim():
    c = repro.Claim("the claim", "paper", "hostio", True, "x >= 1")
    row = repro._claim_row("e", c, "", 5)
    assert row["criterion"] == "x >= 1" and row["claim"] == "the claim" and row["seeds"] == 5


def test_summary_counts_claims_that_agree_on_every_seed_alone(tmp_path, monkeypatch):
    # One claim agrees on the medians but on one seed of two only: not "on every seed alone".
    def claims(rows):
        v = rows[0]["pause_frames"] if rows else 0
        return [repro.Claim("no pause", "0", str(v), v == 0, "pause frames == 0")]

    def points():
        return [repro.Point("ddio/pause", [], {"rx_descriptors": 1024})]

    exp = repro.Experiment("split", "split verdicts", "Fig. 0", points, repro.pause_plot, claims)
    monkeypatch.setattr(repro, "EXPERIMENTS", [exp])
    monkeypatch.setattr(repro, "aggregate", lambda runs, labels, _agg=repro.aggregate: (
        {**_agg(runs, labels), "pause_frames": 0} if len(runs) > 1 else {**_agg(runs, labels), "pause_frames": runs[0]["seed"] - 1}))
    assert repro.reproduce(tmp_path, seeds=2, progress=False, overrides=["run.warmup_us=20", "run.duration_us=20"])
    md = (tmp_path / "summary.md").read_text()
    assert "1 of 1 claims agree, 0 of them on every seed alone; 1 claim agrees on some seeds and not on others." in md, md[:400]
    row = json.loads((tmp_path / "summary.json").read_text())[0]
    assert row["agrees"] and row["seeds_agreeing"] == 1 and row["seeds"] == 2


def test_claims_are_decided_on_the_medians_not_on_the_extremes_over_seeds():
    # The same medians with a wide min–max give the same verdicts: the range only shows the spread.
    def spread(rows):
        out = []
        for r in rows:
            r = dict(r)
            for k in [k for k in r if f"{k}_min" in r]:
                v = r[k]
                if isinstance(v, (int, float)) and math.isfinite(v):
                    r[f"{k}_min"], r[f"{k}_max"] = v - abs(v) - 1, v + abs(v) + 1
            out.append(r)
        return out

    fig14 = rows_of([({"case": c, "description": d}, {"hp.p99_ns": p}) for (c, d, _, _), p in zip(repro.CASES, (1000, 1300, 1100, 1020, 1080))])
    pause = rows_of([({"rx_descriptors": 1024}, {"pause_per_mpkt": 2000.0})])
    for claims, rows in ((repro.fig6_claims, fig6_rows()), (repro.fig8_claims, fig8_rows()), (repro.fig9_claims, fig9_rows()),
                         (repro.fig14_claims, fig14), (repro.pause_claims, pause)):
        want = verdicts(claims(rows))
        assert all(want), claims.__name__
        assert verdicts(claims(spread(rows))) == want, claims.__name__



def test_an_interrupted_rerun_leaves_no_summary_or_table_of_the_run_before(tmp_path, monkeypatch):
    for name in ("summary.md", "summary.json", "claims.csv", "fig10.csv", "fig10_summary.csv", "fig10.png", "fig9.csv"):
        (tmp_path / name).write_text("an earlier run's")
    (tmp_path / "points" / "fig10").mkdir(parents=True)  # an earlier reproduction's folder
    (tmp_path / "points" / "fig10" / "points.jsonl").touch()

    def interrupted(todo, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(repro.sweep, "run_points", interrupted)
    with pytest.raises(KeyboardInterrupt):
        repro.reproduce(tmp_path, only=["fig10"], seeds=1, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "fig9.csv", "points"]  # fig9 is not this run's to replace


def test_a_reproduction_into_a_folder_in_use_removes_nothing(tmp_path):
    from hostio import sweep

    for name in ("summary.md", "fig10.csv"):
        (tmp_path / name).write_text("the running one's")
    (tmp_path / "points" / "fig10").mkdir(parents=True)
    (tmp_path / "points" / "fig10" / "points.jsonl").touch()
    import threading

    held, done = threading.Event(), threading.Event()

    def hold():
        with sweep.locked(tmp_path / "points" / "fig10"):
            held.set()
            done.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        held.wait(30)
        with pytest.raises(ConfigError, match="no other hostio run is writing"):
            repro.reproduce(tmp_path, only=["fig10"], seeds=1, progress=False)
    finally:
        done.set()
        t.join()
    assert (tmp_path / "summary.md").read_text() == (tmp_path / "fig10.csv").read_text() == "the running one's"


def test_a_reproduction_refuses_a_linked_run_log_before_removing_anything(tmp_path):
    (tmp_path / "summary.md").write_text("kept")
    (tmp_path / "points" / "fig10").mkdir(parents=True)
    (tmp_path / "elsewhere.jsonl").touch()
    (tmp_path / "points" / "fig10" / "points.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(ConfigError, match="a symbolic link"):
        repro.reproduce(tmp_path, only=["fig10"], seeds=1, progress=False)
    assert (tmp_path / "summary.md").read_text() == "kept"


def test_a_broken_run_log_is_named_not_taken_for_someone_elses_folder(tmp_path):
    (tmp_path / "claims.csv").write_text("kept")
    (tmp_path / "points" / "fig10").mkdir(parents=True)
    os.mkfifo(tmp_path / "points" / "fig10" / "points.jsonl")
    with pytest.raises(ConfigError, match="points.jsonl = '\\(not a regular file\\)'"):
        repro.reproduce(tmp_path, only=["fig10"], seeds=1, progress=False)
    assert (tmp_path / "claims.csv").read_text() == "kept"


def test_an_out_with_no_room_for_a_tables_temporary_file_is_refused_before_any_run(tmp_path, monkeypatch):
    # Room for every run log (points/<id>/points.jsonl) but not for the longest table's
    # temporary file beside the tables.
    longest_log = max(len(os.path.join("points", e.id, "points.jsonl")) for e in repro.EXPERIMENTS)
    out = str(tmp_path)
    while len(out) + 1 + longest_log + 200 < 4095:
        out = os.path.join(out, "d" * 200)
    out = os.path.join(out, "d" * (4094 - len(out) - 1 - longest_log))
    os.makedirs(out)
    assert len(os.path.join(out, "points", "x" * (longest_log - len("points//points.jsonl")), "points.jsonl")) < 4096
    monkeypatch.setattr(repro.sweep, "run_points", lambda *a, **k: pytest.fail("ran"))
    with pytest.raises(ConfigError, match="^out = .*a folder path the file system can name"):
        repro.reproduce(out, only=["fig10"], seeds=1, progress=False)


@pytest.mark.parametrize("entry", ["empty folder", "file", "dangling link"])
def test_a_foreign_folder_with_an_experiments_name_under_points_is_not_taken_for_a_reproduction(tmp_path, entry):
    (tmp_path / "summary.md").write_text("mine")
    (tmp_path / "points").mkdir()
    where = tmp_path / "points" / "pause"
    {"empty folder": where.mkdir, "file": where.touch, "dangling link": lambda: where.symlink_to(tmp_path / "gone")}[entry]()
    with pytest.raises(ConfigError, match="a new folder, or one hostio reproduce wrote"):
        repro.reproduce(tmp_path, only=["remote"], seeds=1, progress=False)
    assert (tmp_path / "summary.md").read_text() == "mine"


def test_a_run_folder_that_is_a_file_is_named(tmp_path):
    (tmp_path / "points" / "fig10").mkdir(parents=True)
    (tmp_path / "points" / "fig10" / "points.jsonl").touch()
    (tmp_path / "points" / "pause").touch()
    with pytest.raises(ConfigError, match="points/pause': a folder of runs \\(it is a file or a link to nothing here\\)"):
        repro.reproduce(tmp_path, only=["pause"], seeds=1, progress=False)
