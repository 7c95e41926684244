"""``hostio.pcie``: what the PCIe link costs a NIC — bandwidth, NIC transaction lists, latency.

Thin layer over the Rust crate ``hostio-pcie`` (see its module docs for the mechanisms and the
sources of every number). ``bandwidth``, ``nic``, ``nic_transactions`` and ``latency`` take the
link keyword arguments ``gen``, ``lanes``, ``mps``, ``mrrs``, ``rcb``, ``addr`` (32/64), ``ecrc``,
``rcb_chunks``; ``link_for`` all but ``gen`` and ``lanes`` (it searches them); ``experiment`` takes
the link inside ``platform``. Defaults come from the Rust declaration (gen 3, x8, MPS 256, MRRS
512, RCB 64, 64-bit).

>>> round(bandwidth([64])[0]["write_gbps"], 6)
42.098011
"""
from __future__ import annotations

import contextlib
import json
import math
import numbers
import re
from typing import Iterable

from hostio import _core
from hostio.errors import ConfigError, config_error, say

__all__ = [
    "ConfigError",
    "DESIGNS",
    "TESTS",
    "CACHE_STATES",
    "LOCATIONS",
    "default_link",
    "default_latency_params",
    "default_platform",
    "link_config",
    "bandwidth",
    "link_for",
    "nic",
    "nic_transactions",
    "latency",
    "experiment",
    "dllp_tables",
]

#: NIC designs, as declared in Rust.
DESIGNS: tuple[str, ...] = tuple(_core.pcie_nic_designs())
#: Ethernet frame sizes the NIC model takes, FCS included.
ETH_FRAMES = range(_core.PCIE_ETH_MIN_FRAME, _core.PCIE_ETH_MAX_FRAME + 1)
#: The largest transfer (DMA size, Ethernet frame) the models take: 1 GiB, hostio-pcie's
#: ``link::MAX_SIZE`` (far beyond any DMA, small enough to stay exact).
MAX_TRANSFER = 1 << 30
#: The largest host buffer window :func:`experiment` takes: 1 TiB, as hostio-pcie's bench checks.
MAX_WINDOW = 1 << 40
TESTS = ("LAT_RD", "LAT_WRRD", "BW_RD", "BW_WR", "BW_RDWR")
CACHE_STATES = ("cold", "warm", "device_warm", "thrash")
LOCATIONS = ("llc", "dram", "remote_llc", "remote_dram")
#: Highest Ethernet line rate the NIC model accepts, Gb/s.
MAX_ETH_GBPS = 10_000.0
LATENCY_KINDS = ("dma_read", "dma_write", "wrrd", "mmio_read", "mmio_write")


def default_link() -> dict:
    """The default link configuration (a fresh dict)."""
    return json.loads(_core.pcie_defaults("link"))


def default_latency_params() -> dict:
    """Default platform parameters of the latency model (calibrated on pcie-bench's NFP-6000/Haswell)."""
    return json.loads(_core.pcie_defaults("latency"))


def default_platform() -> dict:
    """Default pcie-bench platform: latency parameters, benchmarking device, LLC and DDIO sizes."""
    return json.loads(_core.pcie_defaults("platform"))


_LINK_KEYS = ("gen", "lanes", "mps", "mrrs", "rcb", "addr", "ecrc", "rcb_chunks")


#: Largest value of each numeric field of hostio-pcie's ``PcieLink`` (``gen`` is a u8, the rest u32).
_LINK_FIELD_MAX = {"gen": 0xFF, "lanes": 0xFFFF_FFFF, "mps": 0xFFFF_FFFF, "mrrs": 0xFFFF_FFFF,
                   "rcb": 0xFFFF_FFFF, "addr_bits": 0xFFFF_FFFF}


def link_config(**kw) -> dict:
    """Build a link config from keyword arguments (unknown keys are an error; ``None`` means default)."""
    cfg = default_link()
    given = {}
    for key, value in kw.items():
        if key not in _LINK_KEYS:
            raise config_error(key, value, f"a link setting: one of {', '.join(_LINK_KEYS)}")
        if value is None:
            continue
        if key in ("ecrc", "rcb_chunks"):
            _flags(**{key: value})
            cfg[key] = bool(value)
            continue
        field = "addr_bits" if key == "addr" else key
        cfg[field] = _int(key, value)
        given[field] = (key, value)
    for field, (key, value) in given.items():
        if cfg[field] > _LINK_FIELD_MAX[field]:
            _too_large(field, key, value)
    return cfg


def _link_allowed(field: str) -> str:
    """What the Rust declaration allows for link field ``field``: the check runs on the default
    link with this field 0 (outside every field's table)."""
    try:
        _core.pcie_bandwidth(json.dumps(dict(default_link(), **{field: 0})), [1])
    except ConfigError as exc:
        k, _, rest = str(exc).partition(" = 0: ")
        if k == field and rest:
            return rest
    return f"an integer of at most {_LINK_FIELD_MAX[field]}"


def _too_large(field: str, key: str, value) -> None:
    """Raise the error for a link value too large for its field, saying what is allowed."""
    raise config_error(key, value, _link_allowed(field))


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _int(key: str, value) -> int:
    """``value`` as an integer: an ``int``, or text of ASCII digits (``gen4`` and ``x16`` for
    ``gen`` and ``lanes``); never negative. Text of more than 40 digits stands for a number larger
    than any bound (the caller's range check then names the value as given)."""
    given = value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        text = value.strip().lower() if isinstance(value, str) else ""
        if key == "gen" and text.startswith("gen"):
            text = text[3:]
        if key == "lanes" and text.startswith("x"):
            text = text[1:]
        if not _INTEGER.fullmatch(text):
            raise config_error(key, given, "an integer (ASCII digits)")
        value = int(text) if len(text.lstrip("+-")) <= 40 else (-1 if text.startswith("-") else 10 ** 40)
    if value < 0:
        raise config_error(key, given, "a non-negative integer")
    return value


def byte_range(limit: int) -> str:
    """What a byte count bounded by ``limit`` may be, as errors say it: ``1..=1073741824 (1 GiB)``."""
    for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if limit >= 1 << shift and limit % (1 << shift) == 0:
            return f"1..={limit} ({limit >> shift} {unit})"
    return f"1..={limit}"


def _sizes(sizes: int | Iterable[int], key: str = "size", limit: int = MAX_TRANSFER) -> list[int]:
    if isinstance(sizes, (int, str, bytes)) or not isinstance(sizes, Iterable):
        sizes = [sizes]
    out = []
    for s in sizes:
        v = _int(key, s)
        if v <= 0 or v > limit:
            raise config_error(key, s, f"a byte count in {byte_range(limit)}")
        out.append(v)
    if not out:
        raise config_error(key, "", "at least one size")
    return out


def bandwidth(sizes: int | Iterable[int], **link) -> list[dict]:
    """Raw, TLP and effective DMA write/read/read+write rates (Gb/s per direction) and
    transactions per second, one dict per transfer size."""
    return json.loads(_core.pcie_bandwidth(json.dumps(link_config(**link)), _sizes(sizes)))


def link_for(rate_gbps: float, size: int, op: str = "write", **link) -> dict | None:
    """Smallest link (gen, lanes) whose effective ``op`` rate at ``size`` reaches ``rate_gbps``;
    MPS/MRRS/RCB/addressing come from ``link``. ``None`` if no gen 1–7 x1–x32 link does."""
    for key in ("gen", "lanes"):
        if link.get(key) is not None:
            raise config_error(key, link[key], "left out: link_for chooses the generation and the lanes")
    rate = gbps("rate_gbps", rate_gbps)
    return json.loads(_core.pcie_link_for(json.dumps(link_config(**link)), op, rate, _sizes(size)[0]))


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def gbps(key: str, value, upper: float = math.inf) -> float:
    """``value`` (a number, or text of ASCII digits such as ``40`` or ``2.5e1``) as a rate in Gb/s:
    finite, positive and at most ``upper``; else the error about ``key``."""
    allowed = "a positive finite number of Gb/s" if upper == math.inf else f"a line rate in (0, {upper:g}] Gb/s"
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)) \
            or (isinstance(value, str) and not _NUMBER.fullmatch(value.strip())):
        raise config_error(key, value, allowed)
    try:
        rate = float(value)
    except OverflowError:
        raise config_error(key, value, allowed) from None
    if not (math.isfinite(rate) and 0 < rate <= upper):
        raise config_error(key, value, allowed)
    return rate


def _flags(**flags) -> None:
    """Refuse a flag that is not a boolean (``"no"`` is true to Python, not to the user)."""
    for key, value in flags.items():
        if not isinstance(value, bool) and not (type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")):
            raise config_error(key, value, "True or False")


def _nic_query(design: str, frame: int, vlan: bool, compat: bool, eth_gbps: float) -> str:
    _flags(vlan=vlan, compat=compat)
    if design not in DESIGNS:
        raise config_error("design", design, f"one of {', '.join(DESIGNS)}")
    eth = gbps("eth_gbps", eth_gbps, MAX_ETH_GBPS)
    return json.dumps({"design": design, "frame": frame, "vlan": bool(vlan), "compat": bool(compat), "eth_gbps": eth})


def nic(design: str, frames: int | Iterable[int], vlan: bool = False, compat: bool = False,
        eth_gbps: float = 40.0, **link) -> list[dict]:
    """Throughput of a NIC design per Ethernet frame size (FCS included): ``bidir_gbps``,
    ``tx_gbps``, ``rx_gbps`` (data Gb/s the PCIe link sustains) and ``line_rate_gbps`` (what the
    Ethernet link delivers), plus packet rates and per-packet wire bytes by direction.

    ``compat=True`` reproduces the public pcie-bench model, slips included."""
    cfg = json.dumps(link_config(**link))
    return [json.loads(_core.pcie_nic(cfg, _nic_query(design, f, vlan, compat, eth_gbps)))["result"]
            for f in _sizes(frames, "frame")]


def nic_transactions(design: str, frame: int, vlan: bool = False, compat: bool = False,
                     eth_gbps: float = 40.0, **link) -> dict:
    """``{"result": ..., "tx": [...], "rx": [...]}``: every transaction of one packet with its
    direction, bytes per occurrence, amortisation and amortised wire bytes."""
    cfg = json.dumps(link_config(**link))
    return json.loads(_core.pcie_nic(cfg, _nic_query(design, _sizes(frame, "frame")[0], vlan, compat, eth_gbps)))


def latency(kind: str, size: int, location: str | None = None, engine: str | None = None, iotlb_miss: bool = False,
            iommu: bool = False, params: dict | None = None, **link) -> dict:
    """Latency of one transaction, part by part (ns): ``kind`` is one of dma_read, dma_write,
    wrrd, mmio_read, mmio_write; for the DMA kinds, ``location`` (where the host line is) one of
    llc (the default), dram, remote_llc, remote_dram, and ``engine`` dma (the default) or cmd.
    ``iotlb_miss`` (the translation misses the IO-TLB) implies ``iommu``, as ``--iotlb-miss`` does.
    An MMIO goes from a core to the device, through neither host memory, the device's DMA engine
    nor the IOMMU: it takes none of those four but at their defaults."""
    location = "llc" if location is None else location
    engine = "dma" if engine is None else engine
    for key, value, allowed in (("kind", kind, LATENCY_KINDS), ("location", location, LOCATIONS),
                                ("engine", engine, ("dma", "cmd"))):
        if not isinstance(value, str):  # the values themselves are checked by the Rust declaration
            raise config_error(key, value, f"one of {', '.join(allowed)}")
    _flags(iotlb_miss=iotlb_miss, iommu=iommu)
    if kind.startswith("mmio_"):
        # What would change nothing is refused rather than ignored (the defaults pass).
        for key, value, moot in (("location", location, location != "llc"), ("engine", engine, engine != "dma"),
                                 ("iommu", iommu, bool(iommu)), ("iotlb_miss", iotlb_miss, bool(iotlb_miss))):
            if moot:
                raise config_error(key, value, f"left out for {kind}: an MMIO goes from a core to the device, through neither "
                                               "host memory, the DMA engine nor the IOMMU")
    p = default_latency_params() if params is None else _merge(default_latency_params(), params, "params")
    if link:
        if isinstance(params, dict) and "link" in params:
            raise config_error("params.link", params["link"], f"left out when link keywords are given ({', '.join(link)}): "
                                                              "one or the other sets the link")
        p["link"] = link_config(**link)
    p["iommu"]["enabled"] = bool(iommu) or bool(iotlb_miss) or bool(p["iommu"].get("enabled"))
    n = _sizes(size)[0]
    with _named_in(params, "params"):
        return json.loads(_core.pcie_latency(json.dumps(p), kind, n, location, engine, bool(iotlb_miss)))


def _leaf_keys(table, prefix: str = "") -> set[str]:
    """Dotted keys of the leaves of a nested mapping."""
    out = set()
    for k, v in table.items():
        out |= _leaf_keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}"}
    return out


@contextlib.contextmanager
def _named_in(table, name: str):
    """An error the compiled module raises about a key the caller set in ``table`` names it as
    the caller's parameter ``name`` with its whole path (``params.dram_ns = ...``,
    ``params.link.gen = ...`` where the module names only ``gen``)."""
    try:
        yield
    except ConfigError as e:
        key, sep, rest = str(e).partition(" = ")
        if sep and isinstance(table, dict):
            leaves = _leaf_keys(table)
            found = [k for k in leaves if k == key] or [k for k in leaves if k.endswith("." + key)]
            if len(found) == 1:
                raise ConfigError(f"{name}.{found[0]} = {rest}") from None
        # A whole number too large for its field: the declaration's parser names neither.
        m = re.search(r"invalid value: integer `(\d+)`, expected u(8|16|32|64)\b", str(e))
        if m and isinstance(table, dict):
            leaves = [k for k, v in _leaf_items(table) if type(v) is int and v == int(m.group(1))]
            if len(leaves) == 1:
                field = leaves[0].rpartition(".")[2]
                allowed = (_link_allowed(field) if leaves[0].endswith("link." + field) and field in _LINK_FIELD_MAX
                           else f"a whole number in 0..={(1 << int(m.group(2))) - 1}")
                raise ConfigError(f"{name}.{leaves[0]} = {m.group(1)}: {allowed}") from None
        raise


def _leaf_items(table, prefix: str = ""):
    """(dotted key, value) of the leaves of a nested mapping."""
    for k, v in table.items():
        if isinstance(v, dict):
            yield from _leaf_items(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def _merge(base: dict, over: dict, where: str) -> dict:
    if not isinstance(over, dict):
        raise config_error(where, over, "a mapping of parameter names to values")
    out = dict(base)
    for k, v in over.items():
        if not isinstance(k, str):
            raise config_error(where, over, "parameter names that are strings")
        name, had = f"{where}.{k}", base.get(k)
        if isinstance(had, dict):
            out[k] = _merge(had, v, name)
        elif isinstance(had, bool):
            _flags(**{name: v})
            out[k] = bool(v)
        elif isinstance(had, int):
            # A count or size (unsigned in the Rust declaration, which checks the range).
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < 1 << 64:
                raise config_error(name, v, "a whole number >= 0")
            out[k] = int(v)
        elif isinstance(had, float):
            # A number where the default is one (NaN, infinities, booleans and numbers beyond a
            # float are no numbers here; the Rust declaration checks the range).
            try:
                ok = not isinstance(v, bool) and isinstance(v, numbers.Real) and math.isfinite(float(v))
            except OverflowError:
                ok = False
            if not ok:
                raise config_error(name, v, "a finite number")
            out[k] = float(v)
        elif isinstance(had, str) and not isinstance(v, str):
            raise config_error(name, v, "a string")
        elif k not in base:
            raise config_error(name, v, f"a known parameter of {where}: {', '.join(base)}")
        else:
            out[k] = v
    return out


def experiment(test: str, size: int, window: int, cache: str = "warm", numa: str = "local",
               iommu: bool = False, superpages: bool = True, engine: str = "dma",
               platform: dict | None = None) -> dict:
    """What pcie-bench would measure: ``test`` in LAT_RD, LAT_WRRD (median/mean ns and the parts
    of the median transaction) or BW_RD, BW_WR, BW_RDWR (Gb/s, transfers/s, bottleneck), for a
    transfer ``size``, a host buffer ``window``, a ``cache`` state (cold, warm, device_warm,
    thrash), ``numa`` local or remote, the IOMMU on/off and superpages on/off.

    ``platform`` overrides parts of :func:`default_platform` (nested dicts merge)."""
    if test not in TESTS:
        raise config_error("test", test, f"one of {', '.join(TESTS)}")
    if cache == "host_warm":
        cache = "warm"
    if cache not in CACHE_STATES:
        raise config_error("cache", cache, f"one of {', '.join(CACHE_STATES)}")
    if numa not in ("local", "remote"):
        raise config_error("numa", numa, "one of local, remote")
    if engine not in ("dma", "cmd"):
        raise config_error("engine", engine, "one of dma, cmd")
    _flags(iommu=iommu, superpages=superpages)
    if not superpages and not iommu:
        raise config_error("superpages", superpages, f"left out without the IOMMU ({say('--iommu', 'iommu=True')}): "
                                                     "superpages are its page size")
    plat = default_platform() if platform is None else _merge(default_platform(), platform, "platform")
    exp = {"test": test, "size": _sizes(size)[0], "window": _sizes(window, "window", MAX_WINDOW)[0], "cache": cache,
           "numa_remote": numa == "remote", "iommu": bool(iommu), "superpages": bool(superpages), "engine": engine}
    with _named_in(platform, "platform"):
        return json.loads(_core.pcie_experiment(json.dumps(plat), json.dumps(exp)))


def dllp_tables(gen: int, lanes: int, mps: int) -> tuple[int | None, int | None]:
    """(ACK limit, FC update interval) in bytes from the PCIe 5.0 tables, ``None`` outside them."""
    g, l, m = _int("gen", gen), _int("lanes", lanes), _int("mps", mps)
    if g > 255 or l > 2**32 - 1 or m > 2**32 - 1:
        return (None, None)
    return _core.pcie_dllp_tables(g, l, m)

