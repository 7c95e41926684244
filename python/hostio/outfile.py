"""Output paths the user names (``--json PATH``, ``--csv PATH``, ...).

:func:`check` runs before any work, so that a path that cannot be written is reported at once
rather than after a long simulation or measurement. :func:`write_text` replaces a regular file
atomically through a uniquely named temporary file beside it (never a fixed ``PATH.tmp`` that
could be the user's own file), and writes through to anything else: ``/dev/null``, a FIFO or a
device stays what it is, and a symbolic link keeps pointing at its target, which is updated.
"""
from __future__ import annotations

import os
import stat
import tempfile

from hostio.errors import config_error


def check(key: str, path: str | None) -> None:
    """Refuse an output path that cannot be written (``-`` is stdout and always fine)."""
    if path is None or path == "-":
        return
    if path == "":
        raise config_error(key, path, "a file path, or - for stdout")
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise config_error(key, path, "a file path, not a directory")
    if os.path.exists(target):
        if not os.access(target, os.W_OK):
            raise config_error(key, path, "a file this user may write (permission denied)")
        return
    parent = os.path.dirname(target) or "."
    if not os.path.isdir(parent):
        raise config_error(key, path, f"a path in an existing directory ({parent} does not exist)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise config_error(key, path, f"a path in a directory this user may write ({parent})")


def write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (see the module doc for how special files are treated)."""
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "w") as f:
            f.write(text)
        return
    parent = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(target) + ".", suffix=".part")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
