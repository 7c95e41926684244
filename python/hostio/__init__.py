"""hostio: simulate, measure and tune the host network I/O path (NIC, PCIe, DDIO, LLC, cores)."""
from hostio._core import __version__
from hostio.errors import ConfigError, HostioError
from hostio.sim import check, presets, run, scenario_path

__all__ = ["__version__", "ConfigError", "HostioError", "check", "presets", "run", "scenario_path"]
