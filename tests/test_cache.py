"""The trace-driven cache API (`hostio.cache.Hierarchy`)."""
import re
import subprocess
import sys
import numpy as np
import pytest

import hostio
from hostio.cache import Hierarchy


def pd_series(values):
    """A pandas Series of Python objects."""
    import pandas as pd

    return pd.Series(values, dtype=object)


def pd_nullable(values, dtype):
    """A pandas Series of a nullable integer type."""
    import pandas as pd

    return pd.Series(values, dtype=dtype)


def lines(n, start=0):
    return np.arange(start, start + n, dtype=np.uint64) * 64


def test_ddio_allocates_then_core_hits_in_llc_and_l2():
    h = Hierarchy("skylake-gold-6140")
    a = lines(8)
    assert h.access(a, "dev_write").tolist() == [0] * 8
    assert h.access(a, "dev_read").tolist() == [3] * 8, "device reads hit the LLC"
    assert h.access(a, "core_read").tolist() == [3] * 8
    assert h.access(a, "core_read").tolist() == [1] * 8, "non-inclusive: the line moved to the L2"
    assert h.access(a, "core_read", core=1).tolist() == [2] * 8, "another core's L2"
    s = h.stats()
    assert s["dev_write"]["memory"] == 8 and s["core_read"]["accesses"] == 24
    assert s["io_allocations"] == 8


def test_ddio_ways_limit_device_lines_per_set():
    # 2 I/O ways: a third device line in the same LLC set evicts the first. Lines 36864 sets
    # apart share set bits but not always the slice, so count evictions instead of naming sets.
    h = Hierarchy("skylake-gold-6140")
    big = Hierarchy("skylake-gold-6140", ddio_ways=11)
    a = lines(200_000)
    h.access(a, "dev_write")
    big.access(a, "dev_write")
    assert h.stats()["io_evictions"] > big.stats()["io_evictions"]
    # Device reads never allocate.
    r = Hierarchy("skylake-gold-6140")
    assert r.access(lines(4), "dev_read").tolist() == [0] * 4
    assert r.access(lines(4), "dev_read").tolist() == [0] * 4


def test_llc_sets_name_the_sets_the_cache_uses():
    # Three device lines that `llc_sets` puts in one set evict each other from the two I/O ways;
    # three it puts in three sets do not. Nothing is touched by asking.
    h = Hierarchy("skylake-gold-6140")
    cand = np.arange(4096, dtype=np.uint64) * np.uint64(2048 * 64)  # same set bits, varied slices
    sets = h.llc_sets(cand)
    assert h.stats()["pages"] == 0 and sets.dtype == np.uint32 and np.all(sets % 2048 == 0)
    vals, first, counts = np.unique(sets, return_index=True, return_counts=True)
    same = cand[sets == vals[np.argmax(counts)]][:3]
    apart = cand[first[:3]]
    assert len(same) == 3 and len(set(h.llc_sets(apart).tolist())) == 3
    for trio, read in ((same, [0, 3, 3]), (apart, [3, 3, 3])):
        g = Hierarchy("skylake-gold-6140")
        g.access(trio, "dev_write")
        assert g.access(trio, "dev_read").tolist() == read


def test_a_ctypes_array_is_a_trace():
    # ctypes names its byte order in the buffer format ("<Q"); the addresses are still addresses.
    import ctypes

    c = (ctypes.c_uint64 * 3)(0, 64, 1 << 40)
    h = Hierarchy("skylake-gold-6140")
    assert h.llc_sets(c).tolist() == h.llc_sets(np.array(c, dtype=np.uint64)).tolist()
    assert h.access(c, "dev_write").tolist() == [0, 0, 0]


def test_ddio_off_does_not_allocate_and_cat_is_accepted():
    h = Hierarchy("skylake-gold-6140", ddio=False)
    h.access(lines(4), "dev_write")
    assert h.access(lines(4), "dev_read").tolist() == [0] * 4
    h.set_cat(0, 0x3)
    assert h.access(lines(4), "core_write").tolist() == [0] * 4


def test_lru_matches_a_reference_model_on_one_set():
    # One slice, so set = line number mod sets: an exact LRU check against a Python model.
    with pytest.warns(UserWarning, match="not 1 of 2048"):
        h = Hierarchy("skylake-gold-6140", llc_slices=1, ddio_ways=11)
    sets = 2048
    rng = np.random.default_rng(3)
    trace = rng.integers(0, 16, 3000).astype(np.uint64) * sets * 64  # 16 lines, one set
    got = h.access(trace, "dev_write")
    lru, want = [], []
    for a in trace.tolist():
        hit = a in lru
        if hit:
            lru.remove(a)
        elif len(lru) == 11:
            lru.pop(0)
        lru.append(a)
        want.append(3 if hit else 0)
    assert got.tolist() == want


@pytest.mark.parametrize("call, key", [
    (lambda h: h.access(lines(1), "write"), "kind"),
    (lambda h: h.access(lines(1), core=18), "core"),
    (lambda h: h.access(np.array([-64])), "addresses"),
    (lambda h: h.access(np.zeros((2, 2), dtype=np.uint64)), "addresses"),
    (lambda h: h.access([2**64, 0]), "addresses"),
    (lambda h: h.access([-1, 2**63]), "addresses"),
    (lambda h: h.access([0.5, 2**63]), "addresses"),
    (lambda h: h.access([64, True]), "addresses = 'a list holding True'"),
    (lambda h: h.access([True, 2**63]), "addresses = 'a list holding True'"),
    (lambda h: h.access([64, np.bool_(True)]), "addresses"),
    (lambda h: h.access([[0], [64, 128]]), "addresses = 'a ragged list'"),
    # The first element that is no address is named, in a list or an object array.
    (lambda h: h.access([64, 1.5]), "^addresses = 'a list holding 1.5'"),
    (lambda h: h.access([64, None]), "^addresses = 'a list holding None'"),
    (lambda h: h.access(np.array([0, -64], dtype=object)), "^addresses = 'an object array holding -64'"),
    (lambda h: h.access(np.array([[0, 64]], dtype=object)), "^addresses = 'array of object with shape \\(1, 2\\)'"),
    # A 0-d array in a list is its scalar; an integer too long for text is described.
    (lambda h: h.access([0, np.array(-64)]), "^addresses = 'a list holding np.int64\\(-64\\)'"),
    (lambda h: h.access([0, 10**5000]), "^addresses = 'a list holding <an integer of 16610 bits>'"),
    (lambda h: h.access([0], core=-10**5000), "^core = <an integer of 16610 bits>"),
    (lambda h: h.access(pd_series([0, -1])), "^addresses = 'a Series of objects holding -1'"),
    # A pandas nullable array with a missing value is named as such (NumPy would make it float64).
    (lambda h: h.access(pd_nullable([64, None], "UInt64")), "^addresses = 'a Series of UInt64 holding a missing value'"),
    (lambda h: h.access(pd_nullable([64, None], "Int64").array), "^addresses = 'an IntegerArray of Int64 holding a missing value'"),
    # An empty array is refused for its type as a longer one would be (an empty float one is
    # NumPy's empty list).
    (lambda h: h.access(np.zeros(0, dtype=[("a", "u8"), ("b", "u8")])), "^addresses = \"array of \\[\\('a'"),
    (lambda h: h.access(np.zeros(0, dtype=complex)), "^addresses = 'array of complex128 with shape \\(0,\\)'"),
    (lambda h: Hierarchy("nope"), "platform.preset"),
    (lambda h: Hierarchy(ddio_ways=1), "platform.ddio_ways"),
    (lambda h: Hierarchy(colour=1), "^override = 'colour': one of the \\[platform\\] keys a Hierarchy takes: ddio, ddio_ways, "),
    (lambda h: h.set_cat(0, 0), "mask"),
    (lambda h: h.set_cat(0, 0x800), "mask"),
    (lambda h: h.set_cat(18, 0x3), "core"),
    (lambda h: h.set_cat(0, -1), "mask"),
    (lambda h: h.set_cat(0, 1.5), "mask"),
    (lambda h: h.set_cat(True, 1), "core"),
    (lambda h: h.access(lines(1), "\udcff"), "kind"),
    (lambda h: h.access(lines(1), None), "kind"),
    (lambda h: h.access(lines(1), core=10**30), "core"),
    (lambda h: Hierarchy("\udcff"), "preset"),
    (lambda h: Hierarchy(llc_slices="\udcff"), "llc_slices"),
    # A keyword name cannot carry TOML of its own; a NumPy boolean is a boolean.
    (lambda h: Hierarchy(**{"llc_ways=1 #": 5}), "^override = 'llc_ways=1 #': a \\[platform\\] key name"),
    (lambda h: Hierarchy(llc_slices=np.bool_(True)), "^platform.llc_slices = true: an integer: 1..=64$"),
    # An integer beyond TOML's is named as given (TOML would make it a float).
    (lambda h: Hierarchy(ddio_mask=2**64), "^platform.ddio_mask = 18446744073709551616: an integer within TOML's 64 bits"),
    # Not a sequence (a scalar too): named by its type; timedeltas are not addresses.
    (lambda h: h.access(x * 64 for x in range(3)), "^addresses = 'generator object'"),
    (lambda h: h.access({0, 64}), "^addresses = 'set object'"),
    (lambda h: h.access(64), "^addresses = 'int object'"),
    (lambda h: h.access(np.array(64)), "^addresses = 'ndarray object'"),
    (lambda h: h.access(np.array([0, 64], dtype="m8[s]")), "^addresses = 'array of timedelta64"),
    # A string override is one TOML string whatever it holds.
    (lambda h: Hierarchy(replacement='lru"\n'), r'^platform.replacement = "lru\\"\\n": one of `lru`, `plru`, `qlru`, `random`$'),
    # Raw bytes are not addresses; list elements outside 0..2**64 are named.
    (lambda h: h.access(bytearray(8)), "^addresses = 'bytearray object'"),
    (lambda h: h.access(b"\0" * 8), "^addresses = 'bytes object'"),
    (lambda h: h.access(memoryview(bytearray(8))), "^addresses = 'memoryview object'"),
    (lambda h: h.access([-1, 2**64 - 1]), "^addresses = 'a list holding -1'"),
    (lambda h: h.access((0, 2**64)), "^addresses = 'a tuple holding 18446744073709551616'"),
    # `llc_sets` takes addresses as `access` does.
    (lambda h: h.llc_sets([-1]), "^addresses = 'a list holding -1'"),
    (lambda h: h.llc_sets(64), "^addresses = 'int object'"),
    (lambda h: h.llc_sets(np.array([[0, 64]])), "^addresses = 'array of int64 with shape \\(1, 2\\)'"),
    # Distinct pages beyond 32-bit line numbers are refused before any is added.
    (lambda h: h.access(np.arange(140_000, dtype=np.uint64) << np.uint64(21)), "^addresses = at least 131072 new 2 MiB pages with 0 already held: at most 131071"),
])
def test_bad_input_names_the_key(call, key):
    with pytest.raises(hostio.ConfigError, match=key):
        call(Hierarchy())


def test_the_overrides_a_hierarchy_takes_are_the_platform_keys_but_preset_and_sockets():
    from hostio import cache

    with pytest.raises(hostio.ConfigError) as e:
        hostio.check("quickstart", set=["platform.colour=1"])
    engine = re.findall(r"`(\w+)`", str(e.value).split("expected one of", 1)[1])
    assert sorted(cache.OVERRIDES) == sorted(set(engine) - {"colour", "platform", "preset", "sockets"})


def test_page_limit_counts_distinct_pages_not_their_span():
    # Two pages 2^60 bytes apart are two pages; a refused call adds none (page 0 was added by the
    # first call and is not counted again).
    h = Hierarchy()
    far = np.array([0, 1 << 60, 64, (1 << 60) + 64], dtype=np.uint64)
    assert list(h.access(far, "core_read")) == [0, 0, 0, 0]
    # Two addresses per page: pages are counted, not addresses.
    many = np.repeat(np.arange(140_000, dtype=np.uint64) << np.uint64(21), 2) + np.tile(np.array([0, 64], np.uint64), 140_000)
    assert h.stats()["pages"] == 2
    for _ in range(2):
        with pytest.raises(hostio.ConfigError, match="^addresses = at least 131070 new 2 MiB pages with 2 already held: at most 131071"):
            h.access(many, "core_read")
    assert h.stats()["pages"] == 2
    assert list(h.access(far, "core_read")) == [1, 1, 1, 1]
    # 200,000 addresses on two pages far apart: pages are counted, not addresses.
    assert h.access(np.tile(np.array([0, 1 << 50], np.uint64), 100_000), "core_read").size == 200_000
    assert list(h.access(np.array([2**64 - 1, 0], dtype=np.uint64), "core_read")) == [0, 1]
    assert list(h.access([2**64 - 64, 64], "core_read")) == [1, 1]


def test_results_do_not_depend_on_how_the_trace_is_split():
    # The binding resolves addresses a block at a time; one call and many calls of odd sizes
    # over the same trace must agree access by access, for every kind.
    rng = np.random.default_rng(5)
    trace = rng.integers(0, 3 << 20, 20_000).astype(np.uint64) * 64  # 192 MiB: many pages
    kinds = rng.integers(0, 4, 20_000)
    whole, parts = Hierarchy("skylake-gold-6140"), Hierarchy("skylake-gold-6140")
    got_whole, got_parts = [], []
    for lo in range(0, 20_000, 5000):
        k = ("core_read", "core_write", "dev_write", "dev_read")[kinds[lo]]
        got_whole += whole.access(trace[lo:lo + 5000], k).tolist()
        for a in range(lo, lo + 5000, 777):
            got_parts += parts.access(trace[a:min(a + 777, lo + 5000)], k).tolist()
    assert got_whole == got_parts
    assert whole.stats() == parts.stats()


@pytest.mark.parametrize("preset", ["skylake-gold-6140", "haswell-e5-2699v3"])
def test_device_writes_in_one_call_equal_writes_one_at_a_time(preset):
    # One call keeps each device write's eviction waiting for up to 63 evicting writes; one
    # access per call settles it at once. Both must give the same levels, counts and state: with a line written again
    # right after its eviction (12 lines cycled through one set of 11 ways), with dirty victims
    # written back, and, on the inclusive Haswell, victims whose L2 copies are invalidated.
    probe = Hierarchy(preset)
    cand = np.arange(8192, dtype=np.uint64) * np.uint64(2048 * 64)
    sets = probe.llc_sets(cand)
    vals, counts = np.unique(sets, return_counts=True)
    ways = {"skylake-gold-6140": 11, "haswell-e5-2699v3": 20}[preset]
    one_set = cand[sets == vals[np.argmax(counts)]][:ways + 1]
    assert len(one_set) == ways + 1
    rng = np.random.default_rng(9)
    spread = rng.integers(0, 1 << 20, 6000).astype(np.uint64) * 64
    cycle = np.tile(one_set, 40)
    trace = np.concatenate([spread, cycle, spread[:3000], np.repeat(cycle[:50], 2)])
    whole, single = Hierarchy(preset, ddio_ways=ways), Hierarchy(preset, ddio_ways=ways)
    for h in (whole, single):
        h.access(spread[::3], "core_write", core=1)  # L2 copies and dirty lines
    got = whole.access(trace, "dev_write").tolist()
    want = [x for a in trace for x in single.access(a[None], "dev_write").tolist()]
    assert got == want
    assert 0 < got.count(0) < len(got) and got.count(3) > 0
    assert whole.stats() == single.stats() and whole.stats()["writebacks"] > 0
    after = np.concatenate([spread, one_set])
    assert whole.access(after, "core_read").tolist() == single.access(after, "core_read").tolist()


def test_a_line_evicted_by_one_call_is_gone_for_the_next():
    # Twelve lines through one set of 11 ways, device-written in one call: the first is evicted
    # (its eviction waits inside the call, and must be done by its end), so a device read in the
    # next call misses it and hits the other eleven.
    h = Hierarchy("skylake-gold-6140", ddio_ways=11, ddio_insertion="mru")
    cand = np.arange(8192, dtype=np.uint64) * np.uint64(2048 * 64)
    sets = h.llc_sets(cand)
    vals, counts = np.unique(sets, return_counts=True)
    twelve = cand[sets == vals[np.argmax(counts)]][:12]
    assert h.access(twelve, "dev_write").tolist() == [0] * 12
    assert h.access(twelve, "dev_read").tolist() == [0] + [3] * 11
    assert h.stats()["io_evictions"] == 1


def test_empty_traces_and_the_slice_map_fallback_warning():
    h = Hierarchy()
    assert h.access([]).tolist() == [] and h.warnings == []
    # NumPy scalars are numbers.
    assert Hierarchy("icelake-silver-4314", llc_slices=np.int64(8), llc_ways=np.int32(12)).access(lines(2)).tolist() == [0, 0]
    # The measured Skylake map covers 18 slices of 2048 sets; another geometry says so.
    with pytest.warns(UserWarning, match="simulating the parity slice hash"):
        h = Hierarchy(llc_mib_per_slice=2.75)
    assert len(h.warnings) == 1


def test_a_list_of_integers_beyond_int64_is_a_trace():
    # NumPy makes such a list float64; its integers are still exact addresses.
    a, b = Hierarchy(), Hierarchy()
    big = [2**63, 2**63 + 64, 0, 2**63]
    assert a.access(big).tolist() == b.access(np.array(big, dtype=np.uint64)).tolist() == [0, 0, 0, 1]  # the repeat hits the L2
    # An object array (or a Series of objects) of integers is a trace as the same list is, and a
    # 0-d array in a list is the integer it holds.
    assert Hierarchy().access(np.array(big, dtype=object)).tolist() == [0, 0, 0, 1]
    assert Hierarchy().access(pd_series(big)).tolist() == [0, 0, 0, 1]
    assert Hierarchy().access([np.array(x, dtype=np.uint64) for x in big]).tolist() == [0, 0, 0, 1]
    # A nullable Series with no missing value is the same trace (built from an array: pandas
    # builds one from a list of such integers through float64).
    assert Hierarchy().access(pd_nullable(np.array(big, dtype=np.uint64), "UInt64")).tolist() == [0, 0, 0, 1]


class Stubborn(int):
    """An int whose conversions refuse: its own value is still the integer it holds."""

    def __int__(self):
        raise ValueError("no")

    __index__ = __int__


def test_an_int_subclass_is_its_own_value():
    assert Hierarchy().access([Stubborn(64), 64]).tolist() == [0, 1]
    with pytest.raises(hostio.ConfigError, match="^core = "):
        Hierarchy().access([0], core=Stubborn(18))


def test_masked_arrays_are_refused_and_misaligned_ones_read():
    with pytest.raises(hostio.ConfigError, match="^addresses = 'a masked array'"):
        Hierarchy().access(np.ma.array([0, 64], mask=[0, 1], dtype=np.uint64))
    misaligned = np.frombuffer(bytearray(8 * 4 + 1), dtype=np.uint64, offset=1)
    assert not misaligned.flags.aligned
    assert list(Hierarchy().access(misaligned, "dev_write")) == list(Hierarchy().access(np.zeros(4, np.uint64), "dev_write"))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_host_without_room_for_the_directory_refuses_the_call():
    # 8000 new pages need 2 GiB of directory: with 1 GiB of address space left the call is
    # refused with a ConfigError (not an abort), and the hierarchy still works afterwards. Two
    # addresses 100,000 pages apart are two pages, not their span.
    code = """
import resource, numpy as np, hostio
from hostio.cache import Hierarchy
h = Hierarchy("skylake-gold-6140")
vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:")) << 10
resource.setrlimit(resource.RLIMIT_AS, (vm + (1 << 30), vm + (1 << 30)))
print(h.access(np.array([0, 100_000 << 21], dtype=np.uint64), "core_read").tolist())
try:
    h.access(np.arange(8000, dtype=np.uint64) << np.uint64(21), "core_read")
except hostio.ConfigError as e:
    print("refused:", e)
print(h.access(np.array([0, 0], dtype=np.uint64), "core_read").tolist())
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "refused: addresses = 7999 new 2 MiB pages: as many as the process may allocate (256 KiB of directory per page; growing the directory of the 2 pages held" in r.stdout
    assert r.stdout.startswith("[0, 0]\n") and r.stdout.strip().endswith("[1, 1]")


def test_a_hierarchy_refuses_to_be_copied_or_pickled():
    # Its state lives in the binding: a shallow copy would share it, a deep copy cannot be made.
    import copy
    import pickle

    h = Hierarchy()
    for f in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="^a Hierarchy cannot be copied or pickled"):
            f(h)


def test_a_second_thread_is_told_the_hierarchy_is_busy():
    import threading

    h = Hierarchy()
    trace = np.arange(4_000_000, dtype=np.uint64) * 64
    done = []
    t = threading.Thread(target=lambda: done.append(h.access(trace, "dev_write").size))
    t.start()
    calls = {"stats": h.stats, "access": lambda: h.access([0], "core_read", core=1), "set_cat": lambda: h.set_cat(1, 0x1)}
    refused = {name: [] for name in calls}
    inside = False
    while t.is_alive():
        # Only once the thread is inside (stats refused) may the other calls be tried: one that
        # came first would hold the hierarchy and turn the thread away instead.
        for name, call in calls.items() if inside else [("stats", h.stats)]:
            try:
                call()
            except RuntimeError as e:
                refused[name].append(str(e))
                inside = True
    t.join()
    assert done == [len(trace)]
    assert all(refused.values()) and all("serves one call at a time" in m for ms in refused.values() for m in ms)
    assert h.stats()["dev_write"]["accesses"] == len(trace)

def _started_inside(h, t) -> bool:
    """Start thread `t`, whose call uses hierarchy `h`, and return once the call is inside `h`
    (another call is then refused as busy): True, or False if the thread ended first."""
    t.start()
    while t.is_alive():
        try:
            h.stats()
        except RuntimeError:
            return True
    return False


def test_an_array_changed_during_the_call_is_refused_where_it_reaches_uncounted_pages():
    # The addresses are read in place, block by block, while the simulation releases the GIL
    # between blocks: another thread that writes addresses of pages the call did not count
    # stops it there, with an error, instead of growing the directory past what was reserved.
    import threading

    h = Hierarchy()
    trace = np.zeros(4_000_000, dtype=np.uint64)  # one 2 MiB page
    errors = []

    def call():
        try:
            h.access(trace, "dev_write")
        except RuntimeError as e:
            errors.append(str(e))

    t = threading.Thread(target=call)
    inside = _started_inside(h, t)
    trace[-1] = 1 << 40  # a page the call did not count
    t.join()
    assert inside, "the call ended before the array could be changed"
    assert len(errors) == 1 and errors[0].startswith("addresses: the array changed while access() read it"), errors
    s = h.stats()
    assert s["pages"] == 1 and 0 < s["dev_write"]["accesses"] < len(trace), s
    assert h.access(trace[:1], "dev_write").tolist() == [3], "the hierarchy still serves calls"


def test_an_array_read_in_place_cannot_be_resized_during_the_call():
    # Resizing would free the memory the call reads between blocks: NumPy refuses it while the
    # call holds its weak reference, and the call completes.
    import threading

    h = Hierarchy()
    trace = np.zeros(4_000_000, dtype=np.uint64)
    done = []
    t = threading.Thread(target=lambda: done.append(h.access(trace, "dev_write").size))
    inside = _started_inside(h, t)
    with pytest.raises(ValueError, match="cannot resize"):
        trace.resize(1, refcheck=False)
    t.join()
    assert inside and done == [len(trace)]
    trace.resize(1, refcheck=False)  # once the call has returned


def test_cat_masks_cores_and_sockets_follow_the_scenarios_rules():
    ConfigError = hostio.ConfigError
    h = Hierarchy()
    with pytest.raises(ConfigError, match=r"^mask = 0x5: a nonzero contiguous mask"):
        h.set_cat(0, 0b101)
    for core in (-1, 18):
        with pytest.raises(ConfigError, match=rf"^core = {core}: an integer in 0\.\.=17 \(cores per socket: 18\)"):
            h.access([0], core=core)
    with pytest.raises(ConfigError, match=r"^sockets = 2: left out: a Hierarchy is one socket"):
        Hierarchy(sockets=2)
    with pytest.raises(ConfigError, match=r"^mask = 4294967296: an integer in 0\.\.=4294967295 \(below 2\*\*32\)"):
        h.set_cat(0, 2**32)
    h.set_cat(17, 0x7F0)


def test_ddio_insertion_mru_is_strict_lru_and_adaptive_keeps_part_of_a_thrashing_stream():
    """A stream over twice the LLC: strict LRU (``mru``) evicts every line before its reuse, set
    dueling (the default) keeps part of it cached."""
    h = Hierarchy("skylake-gold-6140", ddio_ways=11)
    lines = 2 * 18 * 2048 * 11  # twice the Skylake preset LLC's lines
    trace = (np.arange(3 * lines, dtype=np.uint64) % lines) * 64
    mru = Hierarchy("skylake-gold-6140", ddio_ways=11, ddio_insertion="mru").access(trace, "dev_write")
    adaptive = h.access(trace, "dev_write")
    assert np.count_nonzero(mru) == 0
    assert np.count_nonzero(adaptive[lines:]) > 0.05 * 2 * lines
    with pytest.raises(hostio.ConfigError, match="ddio_insertion"):
        Hierarchy("skylake-gold-6140", ddio_insertion="lru")
