"""The DDIO ring-fill report (`validation/ddio/report.py`): its bounds and its use of the cache."""
import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("ddio_report", ROOT / "validation/ddio/report.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bounds_order_and_limits(report):
    for ways in (2, 4, 11):
        prev = (1.0, 1.0)
        for f in (0.01, 0.1, 0.3, 0.67, 1.0, 1.5, 3.0):
            lru, opt = report.lru_bound(ways, f), report.optimal_bound(ways, f)
            assert 0 < lru <= opt <= 1 and lru <= prev[0] + 1e-12 and opt <= prev[1] + 1e-12, (ways, f)
            prev = (lru, opt)
        assert report.optimal_bound(ways, 1e-4) > 0.999
    # Two ways at two thirds' fill: Poisson(4/3) per pair; LRU keeps pairs of at most two lines.
    lam = 4 / 3
    assert report.lru_bound(2, 2 / 3) == pytest.approx(math.exp(-lam) * (1 + lam), abs=1e-9)


def belady_hits(k, c, laps=60):
    """Hits per access of Belady's policy (evict the line used furthest ahead; every miss
    allocates) on lines 0..k-1 accessed cyclically through a c-line set, after one warm lap."""
    seq = list(range(k)) * laps
    cache, hits = set(), 0
    for i, x in enumerate(seq):
        if x in cache:
            hits += i >= k
            continue
        if len(cache) == c:
            ahead = {y: next((j for j in range(i + 1, len(seq)) if seq[j] == y), len(seq)) for y in cache}
            cache.remove(max(ahead, key=ahead.get))
        cache.add(x)
    return hits / (len(seq) - k)


@pytest.mark.parametrize("k, c", [(3, 2), (4, 2), (5, 2), (5, 3), (7, 4)])
def test_the_optimal_share_of_a_cyclic_pattern_is_what_belady_gets(report, k, c):
    assert belady_hits(k, c) == pytest.approx(float(report.cyclic_optimum(k, c)), abs=0.02)
    assert float(report.cyclic_optimum(c, c)) == 1.0


def test_the_analytic_bounds_match_a_randomly_placed_ring(report):
    # Lines placed at random, counted per pair as the cache places them, against the Poisson sums.
    for f in (0.33, 0.67, 1.33):
        n = round(f * report.capacity_lines(2) / report.LINES)
        lru, opt = report.placement_bounds(report.scattered(n), 2)
        assert lru == pytest.approx(report.lru_bound(2, f), abs=0.02), f
        assert opt == pytest.approx(report.optimal_bound(2, f), abs=0.02), f


def test_placement_bounds_count_lines_per_set(report):
    # A ring that fits one line per pair hits fully; four lines of one pair in two ways: LRU none,
    # an optimal policy (2 - 1) / (4 - 1) of them.
    from hostio.cache import Hierarchy
    import numpy as np

    cand = np.arange(4096, dtype=np.uint64) * np.uint64(2048 * 64)
    sets = Hierarchy(report.PRESET).llc_sets(cand)
    vals, counts = np.unique(sets, return_counts=True)
    four = cand[sets == vals[np.argmax(counts)]][:4]
    assert len(four) == 4
    assert report.placement_bounds(four, 2) == pytest.approx((0.0, 1 / 3))
    assert report.placement_bounds(four[:2], 2) == (1.0, 1.0)


def test_the_simulated_ring_never_beats_the_optimum_of_its_own_placement(report):
    # The cache model may keep less than Belady would, never more; a small ring stays cached.
    assert report.ring_hit(report.contiguous(64), 2) == 1.0
    for f in (0.33, 0.67, 1.33):
        n = round(f * report.capacity_lines(2) / report.LINES)
        for start in report.starts(n, 3):
            addrs = report.contiguous(n, start)
            assert report.ring_hit(addrs, 2) <= report.placement_bounds(addrs, 2)[1] + 0.005, (f, start)


def test_where_the_ring_starts_moves_its_hit_rate(report):
    # The measured slice map spreads contiguous lines unevenly by an amount that depends on the
    # start: the report's conclusion rests on this spread.
    n = round(2 / 3 * report.capacity_lines(2) / report.LINES)
    hits = report.over_starts(n, 2, 12)
    assert max(hits) - min(hits) > 0.2


def test_a_point_is_outside_the_range_only_when_all_its_runs_are(report):
    # hostio's range over starts is [0.60, 0.70]; a point's runs overlapping it by any amount are within.
    assert report.where(0.50, 0.61, 0.60, 0.70) == "within" == report.where(0.69, 0.90, 0.60, 0.70)
    assert report.where(0.40, 0.59, 0.60, 0.70) == "below" and report.where(0.71, 0.90, 0.60, 0.70) == "above"
    # The bimodal 2-core point of Fig. 10 reaches into a range its median lies below.
    two = next(p for p in report.testbed_points() if p["setup"] == "2 cores × 256 descriptors")
    assert two["hit"] < 0.70 < two["hit_max"] and report.where(two["hit_min"], two["hit_max"], 0.80, 0.95) == "within"


def test_the_report_says_what_its_table_shows(report, tmp_path):
    import re

    assert report.main(["--out", str(tmp_path), "--starts", "4"]) == 0
    text = (tmp_path / "README.md").read_text()
    assert text.startswith("# DDIO") and report.GENERATED_BY in text and "from each of 4 random" in text
    rows = [r.split(" | ") for r in text.splitlines() if r.startswith("| Fig. ")]
    assert len(rows) == len(report.testbed_points()) and "| Fig. 10 | 8 cores × 256 descriptors | 2048 | 2 | 0.67 |" in text
    said = re.search(r"(\d+) lie within the\s+range .*?, (\d+) below it and (\d+) above it", text, re.S)
    assert said, text[-800:]
    counts = {w: sum(r[10] == w for r in rows) for w in ("within", "below", "above")}
    assert [int(x) for x in said.groups()] == [counts["within"], counts["below"], counts["above"]]
    for r in rows:
        hit, (run_lo, run_hi), lo, med, hi = float(r[5]), map(float, r[6].split("–")), float(r[7]), float(r[8]), float(r[9])
        assert run_lo <= hit <= run_hi and lo <= med <= hi and r[10] == report.where(run_lo, run_hi, lo, hi)
        if r[10] == "above":
            assert f"{r[0][2:]} {r[1]}: runs {r[6]} against at most {hi:.3f}" in text
        if r[10] == "below":
            assert f"{r[0][2:]} {r[1]}: runs {r[6]} against at least {lo:.3f}" in text
    beyond = sum(float(r[6].split("–")[0]) > float(r[11].rstrip(" |")) and float(r[11].rstrip(" |")) < 0.95 for r in rows)
    if beyond:
        assert f"Where that optimum is below 0.95, {beyond} points' runs all exceed" in text
    else:
        assert "Where that optimum is below 0.95" not in text
    assert (tmp_path / "ring_fill.png").stat().st_size > 10_000


@pytest.mark.parametrize("out, says", [
    ("", "an empty path"),
    ("{tmp}/a_file", "exists and is not a directory"),
    ("{tmp}/a_file/sub", "cannot create the directory"),
    ("{tmp}/has_dir", "README.md there is not a file"),
    ("x" * 300, "File name too long"),
])
def test_a_bad_out_is_refused_in_one_line(tmp_path, out, says):
    (tmp_path / "a_file").write_text("")
    (tmp_path / "has_dir" / "README.md").mkdir(parents=True)
    r = subprocess.run([sys.executable, str(ROOT / "validation/ddio/report.py"), "--out", out.format(tmp=tmp_path)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "has_dir" / "ring_fill.png").exists() and not (tmp_path / "ring_fill.png").exists()


@pytest.mark.parametrize("starts", ["1", "x", "1001", ""])
def test_a_bad_starts_is_refused(tmp_path, starts):
    r = subprocess.run([sys.executable, str(ROOT / "validation/ddio/report.py"), "--out", str(tmp_path), "--starts", starts],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "an integer in 2..=1000" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "README.md").exists()
