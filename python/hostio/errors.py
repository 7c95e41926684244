"""hostio's error types. ``HostioError`` is the base of hostio's own errors (the operating
system's, such as ``OSError``, pass through). Every error a user can cause is a ``ConfigError`` (a
``HostioError`` and a ``ValueError``) whose message names the key, the value and what is allowed;
the CLI prints it on one line and exits 2. Other failures a run can report (e.g. a machine that
refuses a measurement) are plain ``HostioError``; ``USER_ERRORS`` is the tuple the command line
turns into exit status 2."""
from hostio._core import ConfigError, HostioError

__all__ = ["ConfigError", "HostioError", "USER_ERRORS", "checked_text", "config_error"]

USER_ERRORS = (ConfigError, HostioError)


def config_error(key: str, value, allowed: str) -> ConfigError:
    """Build the standard message: ``key = value: allowed``."""
    return ConfigError(f"{key} = {value!r}: {allowed}")


def checked_text(key: str, value, allowed: str = "valid Unicode text") -> str:
    """`value` if it is a string the core can take (no unpaired surrogates), else the error."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            pass
    raise config_error(key, value, allowed)
