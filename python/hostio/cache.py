"""Trace-driven use of the simulator's cache hierarchy.

>>> import numpy as np
>>> from hostio.cache import Hierarchy
>>> h = Hierarchy("skylake-gold-6140")
>>> a = np.arange(0, 64 * 4, 64, dtype=np.uint64)
>>> h.access(a, "dev_write").tolist()      # DDIO write-allocates into the I/O ways: misses
[0, 0, 0, 0]
>>> h.access(a, "core_read").tolist()      # the core then finds the lines in the LLC
[3, 3, 3, 3]
>>> h.stats()["core_read"]["llc"]
4

One socket of a preset (``hostio.presets()``), with the same code the simulator runs: private L2s
and a sliced LLC with DDIO (device writes allocate into the I/O ways), CAT (:meth:`set_cat`) and
the recycled-line region. Keyword overrides are the scenario's ``[platform]`` keys: ``ddio``,
``ddio_ways``, ``ddio_mask``, ``llc_ways``, ``llc_slices``, ``llc_mib_per_slice``, ``replacement``
(``lru``, ``plru``, ``qlru``, ``random``), ``ddio_insertion`` (``adaptive``, ``mru``). Addresses are byte addresses taken as physical (bits
6.. choose the set and the slice). The Skylake preset's slices follow the map measured on 18-slice
Skylake-SP parts, which reads address bits up to 37: it repeats every 256 GiB, so addresses
2**38 apart share a set. Other presets use a pseudo-random map with the structure of Intel's
(Haswell's 18 slices: a balanced base sequence of 4096 lines permuted by parities of address bits
18..41, repeating every 4 TiB; Ice Lake's 16: XOR parities).

:meth:`access` returns one hit level per address: 0 memory (missed this socket), 1 the core's own
L2 (for device accesses: some core's L2), 2 another core's L2, 3 the LLC. Core accesses follow the
platform's inclusion policy (Skylake-SP: an LLC hit moves the line to the L2, DRAM fills bypass
the LLC); ``dev_read`` neither allocates nor changes any set's LRU order (a miss still counts in
the set dueling that chooses where DDIO's write-allocates enter). :meth:`llc_sets` gives each
address's LLC set, ``slice * sets_per_slice + set``, without touching the hierarchy.
"""
from __future__ import annotations

import re
import warnings
import weakref

import numpy as np

from hostio import _core
from hostio.errors import checked_text, config_error, show
from hostio.sim import TOML_INT, integer

KINDS = ("core_read", "core_write", "dev_write", "dev_read")
#: The ``[platform]`` keys a Hierarchy takes as keyword overrides (the preset is its first
#: argument; ``sockets`` does not apply to one socket).
OVERRIDES = ("ddio", "ddio_ways", "ddio_mask", "llc_ways", "llc_slices", "llc_mib_per_slice", "replacement", "ddio_insertion")
LEVELS = ("memory", "l2", "other_l2", "llc")


def _index(key: str, v) -> int:
    """A core index or a way mask: an integer (not a bool) in 0..=2**32 - 1."""
    i = integer(v)
    if i is None or not 0 <= i < 2**32:
        raise config_error(key, v, "an integer in 0..=4294967295 (below 2**32)")
    return i


#: A keyword override names one ``[platform]`` key: a bare TOML key, so that the name cannot
#: carry TOML of its own (``llc_ways=1 #``).
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _toml_value(key: str, v) -> str:
    if not _KEY.fullmatch(key):
        raise config_error("override", key, "a [platform] key name: letters, digits and underscores")
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (np.integer, np.floating)):
        v = v.item()
    if isinstance(v, int) and not TOML_INT[0] <= v <= TOML_INT[1]:
        # TOML would read it as a float, and the message would show that float.
        raise config_error(f"platform.{key}", v, f"an integer within TOML's 64 bits ({TOML_INT[0]}..={TOML_INT[1]}), and then within the key's own range")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        v = checked_text(key, v)
        # A TOML basic string: backslash, quote and control characters escaped.
        return '"' + "".join(f"\\u{ord(c):04x}" if c in '\\"' or ord(c) < 0x20 or ord(c) == 0x7F else c for c in v) + '"'
    raise config_error(key, v, "a number, a string or a boolean")


ADDRESSES = "a one-dimensional array of non-negative integer byte addresses"


def _scalar(x):
    """A 0-d array as the scalar it holds; anything else as it is."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _addresses(addresses) -> np.ndarray:
    """`addresses` as a C-contiguous native ``uint64`` array (the caller's own when it is one,
    else a copy), or a ConfigError naming what is wrong with them."""
    if isinstance(addresses, (bytes, bytearray)) or (isinstance(addresses, memoryview) and addresses.itemsize == 1):
        # Raw bytes are not addresses (read them with np.frombuffer(..., dtype=np.uint64)).
        raise config_error("addresses", f"{type(addresses).__name__} object", ADDRESSES)
    if isinstance(addresses, np.ma.MaskedArray):
        raise config_error("addresses", "a masked array", ADDRESSES)
    dtype = getattr(addresses, "dtype", None)
    if dtype is not None and not isinstance(dtype, np.dtype) and callable(getattr(addresses, "isna", None)):
        # A pandas array or Series of a nullable type: a missing value is no address (NumPy
        # would turn the whole array into float64).
        if bool(np.asarray(addresses.isna()).any()):
            name = type(addresses).__name__
            raise config_error("addresses", f"{'an' if name[0] in 'AEIOUaeiou' else 'a'} {name} of {dtype} holding a missing value", ADDRESSES)
    listed = isinstance(addresses, (list, tuple))
    if not listed and np.ndim(addresses) == 0:  # a scalar, a generator, a set, ...
        raise config_error("addresses", f"{type(addresses).__name__} object", ADDRESSES)
    def whole():
        try:
            return np.ascontiguousarray(addresses)
        except ValueError:  # a ragged nested sequence
            raise config_error("addresses", f"a ragged {type(addresses).__name__}", ADDRESSES) from None

    seq, a = (addresses, None) if listed else (None, whole())
    if a is not None and a.dtype.kind == "O" and a.ndim == 1:
        seq = a  # an object array (or a Series of objects): its elements are checked one by one
    if seq is not None:
        # A sequence of scalars: its first element that is no address is named, and the
        # integers themselves are the addresses (NumPy would make a list holding one of 2**63 or
        # more float64). A nested sequence is left to the shape check below.
        what = f"a {type(addresses).__name__}" if listed else "an object array" if isinstance(addresses, np.ndarray) else f"a {type(addresses).__name__} of objects"
        vals = []
        for x in seq:
            i = integer(_scalar(x))
            if i is None or not 0 <= i < 2**64:
                if isinstance(x, (list, tuple)) or isinstance(x, np.ndarray) and x.ndim:
                    vals = None
                    break
                raise config_error("addresses", f"{what} holding {show(_scalar(x))}", ADDRESSES)
            vals.append(i)
        a = np.array(vals, dtype=np.uint64) if vals is not None else whole()
    # An empty array of floats is NumPy's empty list; other non-integer types are refused, empty
    # or not.
    if a.ndim != 1 or not (a.dtype.kind in "iu" or a.dtype.kind == "f" and a.size == 0) or (a.size and np.issubdtype(a.dtype, np.signedinteger) and a.min() < 0):
        raise config_error("addresses", f"array of {a.dtype} with shape {a.shape}", ADDRESSES)
    if a.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if a.dtype == np.dtype(np.uint64) and a.dtype.byteorder == "=" and a.flags.c_contiguous and a.flags.aligned and a.flags.owndata:
        # Read in place (a copy of a large trace costs as much as simulating it): an array that
        # owns its memory, which `access` holds a weak reference to meanwhile, so that NumPy
        # refuses to resize it (a view's base, a memory map or a ctypes buffer could be freed).
        return a
    # A native-order copy: a buffer that names its byte order (a ctypes array's "<Q") is not
    # one the binding's u64 buffer accepts.
    return a.astype(np.uint64, order="C", copy=True)


def _one_at_a_time(f, *args):
    """Call a method of the binding; a call while another thread is inside the same hierarchy
    (its simulation releases the GIL) is refused with a message that says so."""
    try:
        return f(*args)
    except RuntimeError as e:
        if "borrowed" not in str(e):
            raise
        raise RuntimeError("this Hierarchy is busy with a call from another thread: a Hierarchy serves one call at a time (use one per thread)") from None


class Hierarchy:
    """One socket's L2s and LLC, driven by address traces."""

    def __init__(self, preset: str = "skylake-gold-6140", **overrides):
        checked_text("preset", preset, "a preset name or file:PATH")
        if "sockets" in overrides:
            raise config_error("sockets", overrides["sockets"], "left out: a Hierarchy is one socket (simulate two with hostio.run)")
        for k, v in overrides.items():
            if k not in OVERRIDES and _KEY.fullmatch(k):
                raise config_error("override", k, f"one of the [platform] keys a Hierarchy takes: {', '.join(OVERRIDES)}")
        ov = [f"platform.{k}={_toml_value(k, v)}" for k, v in overrides.items()]
        self._h = _core.TraceCache(preset, ov)
        self._cores = self._h.cores
        self.preset = preset
        self.overrides = dict(overrides)
        #: What resolving the platform warned about (also issued as Python warnings), e.g. a
        #: measured slice map that does not fit the overridden geometry.
        self.warnings = list(self._h.warnings())
        for w in self.warnings:
            warnings.warn(w, stacklevel=2)

    def _no_copy(self, *_):
        raise TypeError("a Hierarchy cannot be copied or pickled (its state lives in the simulator): build another with the same preset and overrides and replay its trace")

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = _no_copy

    def access(self, addresses, kind: str = "core_read", core: int = 0) -> np.ndarray:
        """Access every address in order; returns a ``uint8`` array of hit levels. A native,
        C-contiguous NumPy ``uint64`` array that owns its memory is read in place (other inputs
        are copied): leave it unchanged until the call returns."""
        checked_text("kind", kind, f"one of {', '.join(KINDS)}")
        # The simulation releases the GIL between blocks and reads the array in place (when it
        # is a native uint64 array that owns its memory), so another thread could change it
        # meanwhile: values it changes are read as they are when their block is reached, and a
        # change that reaches more new 2 MiB pages than were counted at the start stops the call
        # there with a RuntimeError. The weak reference makes NumPy refuse to resize it.
        a = _addresses(addresses)
        pin = weakref.ref(a)
        out = _one_at_a_time(self._h.access, a, kind, self._core(core))
        del pin
        return np.frombuffer(out, dtype=np.uint8)

    def llc_sets(self, addresses) -> np.ndarray:
        """The LLC set of every address, ``slice * sets_per_slice + set`` (``uint32``), as this
        hierarchy places it (the slice map, then address bits 6..); changes nothing."""
        return np.frombuffer(_one_at_a_time(self._h.llc_sets, _addresses(addresses)), dtype="<u4")

    def set_cat(self, core: int, mask: int) -> None:
        """Restrict `core`'s fills to the LLC ways in `mask` (it still hits in any way)."""
        _one_at_a_time(self._h.set_cat, self._core(core), _index("mask", mask))

    def _core(self, core) -> int:
        """A core index of this socket."""
        i = integer(core)
        if i is None or not 0 <= i < self._cores:
            raise config_error("core", core, f"an integer in 0..={self._cores - 1} (cores per socket: {self._cores})")
        return i

    def stats(self) -> dict:
        """Accesses per kind and hit level, the hierarchy's write-backs and DDIO counters, and the
        2 MiB pages it holds directory entries for (256 KiB of memory each)."""
        counts, wb, alloc, evict, pages = _one_at_a_time(self._h.counters)
        out = {k: dict(zip(LEVELS, counts[i])) for i, k in enumerate(KINDS)}
        for k in KINDS:
            out[k]["accesses"] = sum(out[k][lv] for lv in LEVELS)
        out.update(writebacks=wb, io_allocations=alloc, io_evictions=evict, pages=pages)
        return out
