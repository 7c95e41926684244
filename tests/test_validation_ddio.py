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
        addrs = report.contiguous(n)
        assert report.ring_hit(addrs, 2) <= report.placement_bounds(addrs, 2)[1] + 0.005, f


def test_the_report_writes_its_tables(report, tmp_path):
    assert report.main(["--out", str(tmp_path)]) == 0
    text = (tmp_path / "README.md").read_text()
    assert text.startswith("# DDIO") and report.GENERATED_BY in text
    assert "| Fig. 10 | 8 cores × 256 descriptors | 2048 | 2 | 0.67 |" in text
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
