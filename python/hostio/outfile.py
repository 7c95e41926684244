"""Output paths the user names (``--json PATH``, ``--csv PATH``, ...).

:func:`check` runs before any work, so that a path that cannot be written is reported at once
rather than after a long simulation or measurement. :func:`write_text` replaces a regular file
atomically (:func:`replace`), and writes through to anything else: ``/dev/null``, a FIFO or a
device stays what it is, and a symbolic link keeps pointing at its target, which is updated.
:func:`replace` writes a uniquely named temporary file beside the destination (never a fixed
``PATH.tmp`` that could be the user's own file) and renames it over the destination.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from typing import Callable

from hostio.errors import config_error


def check(key: str, path: str | None) -> None:
    """Refuse an output path that cannot be written (``-`` is stdout: fine while it is open)."""
    if path == "-" and sys.stdout is None:  # the process started with its standard output closed
        raise config_error(key, path, "a file path, or - with standard output open (it is closed)")
    if path is None or path == "-":
        return
    if path == "":
        raise config_error(key, path, "a file path, or - for stdout")
    if path.endswith(os.sep):
        raise config_error(key, path, "a file path, not a directory")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None  # a new file, or a symbolic link to one
    except OSError as exc:  # a loop of symbolic links, a component that is not a folder, ...
        raise config_error(key, path, f"a path that can be opened ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise config_error(key, path, "a file path, not a directory")
        if not os.access(path, os.W_OK):
            raise config_error(key, path, "a file this user may write (permission denied)")
        if not stat.S_ISREG(st.st_mode):
            return  # written through (a pipe behind /dev/stdout has no path to resolve)
    target = os.path.realpath(path)
    parent = os.path.dirname(target) or "."
    if not os.path.isdir(parent):
        raise config_error(key, path, f"a path in an existing directory ({parent} does not exist)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise config_error(key, path, f"a path in a directory this user may write ({parent})")
    # A file is written beside its destination and renamed over it (see replace): try that now,
    # since permission bits do not tell everything (a read-only file system, /proc, root).
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(target) + ".", suffix=".part")
    except OSError as exc:
        raise config_error(key, path, f"a path this user may write ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(tmp)


#: What :func:`destination` returns for standard output.
STDOUT = ("stdout",)


def check_folder_names(key: str, path: str | os.PathLike, deepest: str) -> None:
    """Refuse an output folder the file system cannot name, nor ``deepest``, the longest path
    under it that the command writes (a name longer than the file system's limit, 255 bytes on
    most; a path longer than 4096 bytes)."""
    inner = os.path.join(os.fspath(path), deepest)
    for p in (os.fspath(path), inner):
        try:
            os.lstat(p)
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                raise config_error(key, os.fspath(path), "a folder path the file system can name, with room for the files "
                                                         f"written in it ({exc.strerror})") from None


def folder_error(path: str | os.PathLike, exc: OSError) -> str:
    """Why a folder could not be made at ``path``, in words. A link to nothing on the way is named
    as such, with the missing path it leads to (``mkdir`` would say only "File exists")."""
    if exc.errno != errno.EEXIST:
        return exc.strerror or str(exc)
    p = os.path.join(os.getcwd(), os.fspath(path))
    while True:
        if os.path.islink(p) and not os.path.exists(p):
            end, seen = p, set()
            while os.path.islink(end):
                if end in seen:
                    return f"{os.path.normpath(p)} is a link that leads into a loop of links"
                if len(seen) == 40:  # the kernel's limit on links followed
                    return f"{os.path.normpath(p)} starts a chain of more than 40 links, more than the system follows"
                seen.add(end)
                end = os.path.normpath(os.path.join(os.path.dirname(end), os.readlink(end)))
            if os.path.lexists(end):
                return exc.strerror or str(exc)
            return f"{os.path.normpath(p)} is a link to {end}, which does not exist"
        up = os.path.dirname(p)
        if up == p:
            return exc.strerror or str(exc)
        p = up


def _stdout_id() -> tuple | None:
    try:
        st = os.fstat(1)
    except OSError:  # standard output closed
        return None
    return (st.st_dev, st.st_ino)


def destination(path: str):
    """What ``path`` writes to, for telling two outputs apart: :data:`STDOUT` for ``-`` and for
    any path to the file standard output is (``/dev/stdout``, ``/proc/self/fd/1``, the file the
    shell redirected it to), the file's identity for an existing file, the resolved path for a new
    one; None for ``/dev/null``, which any number of outputs may share."""
    if path == "-":
        return STDOUT
    try:
        st = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path))
    null = os.stat(os.devnull)
    if (st.st_dev, st.st_ino) == (null.st_dev, null.st_ino):
        return None
    if (st.st_dev, st.st_ino) == _stdout_id():
        return STDOUT
    return ("file", st.st_dev, st.st_ino)


def check_distinct(outputs) -> None:
    """Refuse two outputs that write to the same place (``--json -`` with ``--csv /dev/stdout``,
    one path twice): the second would overwrite or interleave with the first. ``outputs`` is
    (option, path) pairs, in the order of the command's options."""
    seen: dict = {}
    for key, path in outputs:
        where = destination(path)
        if where is None:
            continue
        if where in seen:
            other, before = seen[where]
            same = "standard output" if where == STDOUT else "the same file"
            raise config_error(key, path, f"a destination other than {other}'s ({before!r}, {same}): each output is written in full")
        seen[where] = (key, path)


def check_not_inputs(outputs, files=(), folders=()) -> None:
    """Refuse an output that would replace what the command reads or keeps: one of ``files``
    (``(what, path)``: the scenario file, ...) or an existing file inside one of ``folders``
    (``(what, folder, allowed)``: a sweep or reproduce folder, whose files are its results unless
    ``allowed(relative path)`` says otherwise). ``outputs`` is (option, path) pairs."""
    for key, path in outputs:
        if path == "-":
            continue
        where = destination(path)
        if where is None or where == STDOUT:
            continue
        for what, f in files:
            if os.path.isfile(f) and where == destination(f):
                raise config_error(key, path, f"a path other than the {what} the command reads ({f!r})")
        if not os.path.isfile(path):
            continue
        target = os.path.realpath(path)
        for what, folder, allowed in folders:
            root = os.path.realpath(folder)
            rel = os.path.relpath(target, root)
            if os.path.isdir(root) and os.path.commonpath([root, target]) == root and not allowed(rel):
                raise config_error(key, path, f"a path other than the results in the {what} ({rel!r} in {folder!r} is one)")


def write_text(path: str, text: str | bytes, key: str) -> None:
    """Write ``text`` (UTF-8 text, or bytes as they are) to ``path``, the value of option ``key``
    (see the module doc for how special files are treated). A write the system refuses (a full
    device, a read-only file system, a folder removed meanwhile) is the user's error about
    ``key``."""
    target = os.path.realpath(path)
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            with open(path, "wb") as f:
                f.write(data)
            return

        def write(tmp: str) -> None:
            with open(tmp, "wb") as f:
                f.write(data)

        replace(target, write)
    except OSError as exc:
        raise config_error(key, path, f"a path this user may write ({exc.strerror or exc})") from None


def replace(path: str | os.PathLike, write: Callable[[str], None]) -> None:
    """``write(tmp)`` to a new, uniquely named file beside ``path``, then rename it over ``path``
    (which keeps its permissions, or gets the umask's); the temporary file never outlives a failure."""
    path = os.fspath(path)
    parent = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(path) + ".", suffix=".part")
    except OSError as exc:  # name the user's path, not the temporary file's
        raise type(exc)(exc.errno, exc.strerror, path) from None
    os.close(fd)
    try:
        write(tmp)
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
