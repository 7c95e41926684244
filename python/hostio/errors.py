"""hostio's error types. ``HostioError`` is the base of hostio's own errors (the operating
system's, such as ``OSError``, pass through). Every error a user can cause is a ``ConfigError`` (a
``HostioError`` and a ``ValueError``) whose message names the key, the value and what is allowed;
the CLI prints it on one line and exits 2. Other failures a run can report (e.g. a machine that
refuses a measurement) are plain ``HostioError``; ``USER_ERRORS`` is the tuple the command line
turns into exit status 2."""
from hostio._core import ConfigError, HostioError

__all__ = ["ConfigError", "HostioError", "USER_ERRORS", "config_error"]

USER_ERRORS = (ConfigError, HostioError)


def config_error(key: str, value, allowed: str) -> ConfigError:
    """Build the standard message: ``key = value: allowed``."""
    return ConfigError(f"{key} = {value!r}: {allowed}")
