"""Temporary files beside an output, named so that a later run can tell its own leftovers.

An output is written to ``.<name>.econ-<pid>-<random>.tmp`` beside it and renamed into
place when complete, so a file under the output's name is always whole. A run that ends
normally, on an error, on Ctrl-C or on SIGTERM removes its temporary; one killed outright
(SIGKILL, a power cut) cannot, and the next run writing the same output removes every
temporary of that name whose process is gone (:func:`clean_stale`). A temporary of a run
still going is left alone.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
from pathlib import Path

_PID = re.compile(r"\.econ-(\d+)-[^.]*\.tmp$|\.(\d+)\.tmp$")


def temporary(path: Path) -> tuple[int, Path]:
    """A new temporary file beside ``path`` for this process: (open descriptor, its path)."""
    fd, name = tempfile.mkstemp(
        prefix=f".{path.name}.econ-{os.getpid()}-", suffix=".tmp", dir=path.parent
    )
    return fd, Path(name)


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
