"""Temporary files beside an output, named so that a later run can tell its own leftovers.

An output is written to ``.<name>.econ-<pid>-<random>.tmp`` beside it and renamed into
place when complete, so a file under the output's name is always whole. A run that ends
normally, on an error, on Ctrl-C or on SIGTERM removes its temporary; one killed outright
(SIGKILL, a power cut) cannot, and the next run writing the same output removes every
temporary of that name whose process is gone (:func:`clean_stale`). A temporary of a run
still going is left alone.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import secrets
from pathlib import Path

_PID = re.compile(r"\.econ-(\d+)-[^.]*\.tmp$|\.(\d+)\.tmp$")


def temporary(path: Path) -> tuple[int, Path]:
    """A new temporary file beside ``path`` for this process: (open descriptor, its path)."""
    # as tempfile.mkstemp, but by a path relative to path's folder as given: mkstemp opens
    # the absolute path, which in a deep working folder is longer than the system takes
    # (File name too long) where the relative path is not
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = path.parent / f".{path.name}.econ-{os.getpid()}-{secrets.token_hex(4)}.tmp"
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found", str(path))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # someone else's process, or no way to tell: leave it
    return True


def clean_stale(path: Path) -> list[Path]:
    """Remove the temporaries of ``path`` left by econ runs that are no longer running
    (``.<name>.econ-<pid>-*.tmp``, and ``.<name>.<pid>.tmp`` of earlier versions).
    Returns what was removed; a file that cannot be removed is left (the write that follows
    reports any real problem with the folder)."""
    removed = []
    prefix = f".{path.name}."
    try:
        names = glob.glob(glob.escape(str(path.parent / prefix)) + "*.tmp")
    except OSError:
        return removed
    for name in names:
        p = Path(name)
        m = _PID.search(p.name[len(prefix) - 1 :])
        if m is None:
            continue
        pid = int(m.group(1) or m.group(2))
        if _alive(pid):
            continue
        try:
            if p.is_file() and not p.is_symlink():
                p.unlink()
                removed.append(p)
        except OSError:
            pass
    return removed
