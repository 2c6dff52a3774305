"""A report folder written as one unit.

``<out>/<name>/`` holds one report: the workbook, summary.md, the PNG charts
and a manifest (``.econ-manifest.sha256``, the SHA-256 of every generated file,
in ``sha256sum`` format). A run

1. takes an exclusive lock on the output folder ``<out>`` (``fcntl.flock``;
   a second run waits up to ``LOCK_WAIT_S`` seconds, then refuses),
2. finishes what an interrupted run left (see :func:`recover`) and removes
   its temporaries,
3. refuses to replace a generated file that was changed since econ wrote it
   (or that econ did not write), unless forced, and a folder that is open in a
   spreadsheet application or read-only,
4. writes every file into a fresh folder ``<out>/.econ-new.<name>.XXXX``,
   makes it durable, writes the manifest last,
5. swaps that folder with ``<out>/<name>`` in one atomic step (Linux
   ``renameat2(RENAME_EXCHANGE)``; elsewhere two renames, which
   :func:`recover` completes if a run dies between them), and deletes the old one.

So after a kill at any point ``<out>/<name>`` is the complete old report or
the complete new one, or it is missing and the next run puts the complete new
one (or, failing that, the old one) back. Files of the user's own in the
report folder (not generated, not named like a generated file) are carried
into the new folder.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from xlsxwriter.exceptions import FileCreateError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock
    fcntl = None  # type: ignore[assignment]

WORKBOOK = "payback_analysis.xlsx"
SUMMARY = "summary.md"
MANIFEST = ".econ-manifest.sha256"
LEGACY_STAMP = f".{WORKBOOK}.sha256"  # earlier versions stamped the workbook only
# every other name econ writes into a report folder, this version's and earlier ones': in a
# folder of an earlier version (no manifest) a file so named is econ's, not the user's, and
# goes with the old report
LEGACY_GENERATED = frozenset(
    {
        SUMMARY,
        "payback_curve.png",
        "frontier.png",
        "tornado_npv.png",
        "montecarlo_npv.png",
        "montecarlo_fan.png",
        "explain_npv.png",
    }
)
_LEGACY_TEMP = re.compile(r"\.payback_analysis-.*\.xlsx\.tmp|\.summary\.md\.tmp|\..*\.png\.tmp")
_TEMP = re.compile(r"\.econ-(new|old)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_]+")
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_DIGEST = re.compile(r"([0-9a-f]{64})  (.+)")

SOURCE = ".econ-data"  # which data folder a report came from (a generated file)

LOCK_WAIT_S = 30.0  # how long a run waits for another run writing into the same output folder


class OutputError(OSError):
    """The report cannot be written where asked (locked, read-only, or edited by hand)."""


class RecoveredWarning(UserWarning):
    """A report folder was put back from an interrupted run."""


def checkpoint(step: str) -> None:
    """Called after each step of a report write (tests replace it to kill the process there)."""


# ---------------------------------------------------------------------------
# stamps


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(folder: Path) -> dict[str, str] | None:
    """{file name: SHA-256} of a report folder's manifest, or None if it has none."""
    path = folder / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    out = {}
    for line in text.splitlines():
        m = _DIGEST.fullmatch(line)
        if m and "/" not in m[2] and m[2] not in (".", ".."):
            out[m[2]] = m[1]
    return out


def _legacy_stamp(folder: Path) -> str | None:
    try:
        return (folder / LEGACY_STAMP).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


# ---------------------------------------------------------------------------
# checks


def check_folder(folder: Path, force: bool, names: Iterable[str] = (WORKBOOK, SUMMARY)) -> None:
    """Refuse, with OutputError naming the file, to write a report into ``folder`` where it would
    lose something: a generated file changed by hand (unless ``force``), a file open in a
    spreadsheet application, a read-only folder or file. ``names``: the files the new report writes.
    """
    folder = Path(folder)
    out = folder.parent
    check_name(folder.name)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: cannot create the output folder (it is a file)")
    if folder.is_symlink():
        raise OutputError(
            f"{folder}: the report folder is a symbolic link; econ replaces the report folder as a "
            "whole, so it writes only into a real folder (write elsewhere with --out)"
        )
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: not a folder; move it away or write elsewhere with --out")
    if not folder.exists():
        if out.exists() and not os.access(out, os.W_OK):
            raise OutputError(f"{out}: the output folder is read-only")
        return
    entries = {p.name: p for p in folder.iterdir()}
    for name, p in entries.items():
        for lock in (f".~lock.{name}#", f"~${name}"):
            if lock in entries:
                what = "workbook" if name.endswith(".xlsx") else "file"
                raise OutputError(
                    f"{p}: the {what} is open in a spreadsheet application (lock file {lock}); "
                    "close it and run again, or write elsewhere with --out"
                )
    if not force:
        changed = [entries[n] for n in sorted(entries) if _replaces_edit(folder, n, set(names))]
        if changed:
            p = changed[0]
            what = "workbook" if p.suffix == ".xlsx" else "file"
            also = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
            raise OutputError(
                f"{p}: this {what} was changed after econ wrote it (or econ did not write it){also}; "
                "not overwriting it. Move it away, write elsewhere with --out, or pass --force"
            )
    for p in (folder, out):
        if not os.access(p, os.W_OK):
            raise OutputError(f"{p}: the output folder is read-only")
    for n in sorted(set(names) & set(entries)):
        if not os.access(entries[n], os.W_OK):
            what = "workbook" if n.endswith(".xlsx") else "file"
            raise OutputError(
                f"{entries[n]}: the {what} is read-only; make it writable or write elsewhere with --out"
            )


def source_text(data: str, bundled: bool, sha256: str) -> str:
    """The content of a report's SOURCE file: the data folder it came from and its hash."""
    return json.dumps(
        {"data": "bundled" if bundled else data, "bundled": bundled, "sha256": sha256}
    )


def check_source(folder: Path, source: str, replace: bool = False) -> None:
    """Refuse, in one line, to replace a report built from another data folder (unless
    ``replace``); a report from the same folder, or an older one that does not say, is replaced
    silently. ``source`` is the new report's :func:`source_text`."""
    try:
        old = json.loads((Path(folder) / SOURCE).read_text(encoding="utf-8"))
        new = json.loads(source)
    except (OSError, ValueError):
        return
    if replace or not isinstance(old, dict) or old.get("data") == new["data"]:
        return
    was = "the bundled data" if old.get("bundled") else f"data folder {old.get('data')}"
    now = "the bundled data" if new["bundled"] else f"data folder {new['data']}"
    raise OutputError(
        f"{folder}: holds the report of {was} (data SHA-256 {str(old.get('sha256'))[:12]}); this "
        f"run reads {now}: write it elsewhere with --out, or replace that report with --replace"
    )


def _replaces_edit(folder: Path, name: str, new: set[str]) -> bool:
    """Would writing the new report lose a change made by hand to ``folder/name``?"""
    manifest = read_manifest(folder)
    p = folder / name
    if manifest is not None and name in manifest:
        return not p.is_file() or p.is_symlink() or digest(p) != manifest[name]
    if name not in new:
        return False  # the user's own file: carried over, or an old temporary
    if manifest is None:
        legacy = _legacy_stamp(folder)
        if legacy is not None and name == WORKBOOK:
            return not p.is_file() or digest(p) != legacy
        if legacy is not None and name in LEGACY_GENERATED:
            return False  # written by an earlier econ, which stamped only the workbook
    return True  # a generated name that econ did not stamp


def check_name(name: str) -> str:
    if not _FOLDER_NAME.fullmatch(name):
        raise OutputError(
            f"{name!r}: not a report folder name (1 to 64 letters, digits, _ or -); "
            "a scenario is a name, not a path"
        )
    return name


# ---------------------------------------------------------------------------
# lock, recovery


def _lock(out: Path, wait: float, folder: Path):
    """An exclusive lock on ``out`` (the folder itself: no lock file), or None where unsupported."""
    if fcntl is None:  # pragma: no cover
        return None
    try:
        fd = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise OutputError(f"{out}: cannot open the output folder ({exc.strerror})") from None
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise OutputError(
                    f"{folder}: another econ run is writing a report into {out} (waited "
                    f"{wait:g} s); try again when it has finished, or write elsewhere with --out"
                ) from None
            time.sleep(0.05)
        except OSError as exc:  # a file system without locks: go on, and say so
            os.close(fd)
            warnings.warn(
                f"{out}: cannot lock the output folder ({exc.strerror}); two econ runs writing "
                "here at once could collide",
                stacklevel=3,
            )
            return None


def _unlock(fd) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the flock


def recover(out: Path) -> None:
    """Finish or undo what interrupted runs left in ``out`` (call with the lock held).

    A report folder that is missing while a complete new folder (one with a
    manifest) exists gets the newest such folder: the run died between moving
    the old report away and the new one in. Failing that, the old report goes
    back. Every other temporary is removed.
    """
    temps: dict[str, list[tuple[str, Path]]] = {}
    for p in out.iterdir():
        m = _TEMP.fullmatch(p.name)
        if m and p.is_dir() and not p.is_symlink():
            temps.setdefault(m[2], []).append((m[1], p))
    for name, found in temps.items():
        folder = out / name
        if not folder.exists() and not folder.is_symlink():

            def newest(kind: str, found=found) -> list[Path]:
                ps = [
                    p for k, p in found if k == kind and (kind == "old" or (p / MANIFEST).is_file())
                ]
                return sorted(ps, key=lambda p: p.stat().st_mtime, reverse=True)

            pick = (newest("new") + newest("old"))[:1]
            if pick:
                os.rename(pick[0], folder)
                _fsync_dir(out)
                warnings.warn(
                    f"{folder}: put back the report of an interrupted run", RecoveredWarning, 2
                )
        for _, p in found:
            if p.exists():
                shutil.rmtree(p, ignore_errors=True)


# ---------------------------------------------------------------------------
# the unit


class ReportFolder:
    """``with ReportFolder(out / name, force) as unit: unit.write(...)``: see the module docstring.

    Nothing is visible in ``out / name`` until the ``with`` block ends without
    an exception; then the whole folder is replaced at once.
    """

    def __init__(self, folder: Path, force: bool = False, lock_wait: float | None = None):
        self.folder = Path(folder)
        self.out = self.folder.parent
        self.force = force
        self.lock_wait = LOCK_WAIT_S if lock_wait is None else lock_wait
        self.tmp: Path | None = None
        self.generated: list[str] = []
        self._fd = None

    @property
    def name(self) -> str:
        return self.folder.name

    def __enter__(self) -> ReportFolder:
        check_folder(self.folder, self.force)
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(
                f"{self.out}: cannot create the output folder ({exc.strerror})"
            ) from None
        self._fd = _lock(self.out, self.lock_wait, self.folder)
        try:
            recover(self.out)
            check_folder(self.folder, self.force)
            self.tmp = Path(tempfile.mkdtemp(prefix=f".econ-new.{self.name}.", dir=self.out))
            os.chmod(self.tmp, 0o777 & ~_umask())
            checkpoint("created")
        except BaseException:
            self._cleanup()
            raise
        return self

    def write(self, name: str, build: Callable[[Path], object]) -> object:
        """``build(path)`` writes the generated file ``name`` (at ``path``, in the new folder)."""
        with self._naming(self.folder / name):
            result = build(self._new / name)
        self.generated.append(name)
        checkpoint(name)
        return result

    def write_many(self, step: str, build: Callable[[Path], list[Path]]) -> list[Path]:
        """``build(folder)`` writes generated files into the new folder and returns their paths."""
        with self._naming(self.folder, plural=True):
            paths = build(self._new)
        self.generated += [p.name for p in paths]
        checkpoint(step)
        return [self.folder / p.name for p in paths]

    @contextlib.contextmanager
    def _naming(self, target: Path, plural: bool = False):
        """OSError (and XlsxWriter's wrapper of one) -> OutputError naming the file."""
        try:
            yield
        except OutputError:
            raise
        except OSError as exc:
            raise OutputError(_cannot_write(target, exc, plural)) from None
        except FileCreateError as exc:  # XlsxWriter wraps the OSError of its close()
            inner = (
                exc.args[0] if exc.args and isinstance(exc.args[0], OSError) else OSError(str(exc))
            )
            raise OutputError(_cannot_write(target, inner, plural)) from None

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            if exc_type is None:
                self._commit()
        finally:
            self._cleanup()
        return False

    @property
    def _new(self) -> Path:
        if self.tmp is None:
            raise RuntimeError("ReportFolder.write outside its with block")
        return self.tmp

    def _commit(self) -> None:
        check_folder(self.folder, self.force, self.generated)
        with self._naming(self.folder, plural=True):
            self._carry_over()
            for n in self.generated:
                _fsync_file(self._new / n)
        with self._naming(self.folder / MANIFEST):
            lines = "".join(f"{digest(self._new / n)}  {n}\n" for n in sorted(self.generated))
            part = self._new / f"{MANIFEST}.part"
            part.write_text(lines, encoding="utf-8")
            _fsync_file(part)
            os.rename(part, self._new / MANIFEST)  # present = every generated file is complete
            _fsync_dir(self._new)
        checkpoint("manifest")
        with self._naming(self.folder, plural=True):
            old = self._swap()
        checkpoint("swapped")
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        _fsync_dir(self.out)
        checkpoint("cleaned")

    def _swap(self) -> Path | None:
        """Put the new folder in place; returns the folder now holding the old report, if any."""
        new, folder = self._new, self.folder
        if not folder.exists():
            os.rename(new, folder)
            self.tmp = None
            return None
        if exchange(new, folder):
            return new  # the old report now sits at the temporary name
        old = Path(tempfile.mkdtemp(prefix=f".econ-old.{self.name}.", dir=self.out))
        os.rmdir(old)
        os.rename(folder, old)
        checkpoint("renamed-old")
        try:
            os.rename(new, folder)
        except OSError:
            os.rename(old, folder)  # put the old report back
            raise
        self.tmp = None
        return old

    def _carry_over(self) -> None:
        """Link the user's own files of the old report folder into the new one."""
        if not self.folder.is_dir():
            return
        manifest = read_manifest(self.folder) or {}
        legacy = _legacy_stamp(self.folder) is not None
        skip = {MANIFEST, LEGACY_STAMP, *manifest, *self.generated}
        for p in self.folder.iterdir():
            n = p.name
            if n in skip or _LEGACY_TEMP.fullmatch(n) or (legacy and n in LEGACY_GENERATED):
                continue
            dest = self._new / n
            if p.is_symlink():
                os.symlink(os.readlink(p), dest)
            elif p.is_dir():
                shutil.copytree(p, dest, symlinks=True, copy_function=_link_or_copy)
            elif stat.S_ISREG(p.lstat().st_mode):
                _link_or_copy(p, dest)
            else:
                raise OutputError(
                    f"{p}: not a file or folder, and econ replaces the report folder as a whole; "
                    "move it away"
                )

    def _cleanup(self) -> None:
        try:
            if self.tmp is not None and self.tmp.exists():
                shutil.rmtree(self.tmp, ignore_errors=True)
        finally:
            _unlock(self._fd)
            self._fd = None


def _cannot_write(target: Path, exc: OSError, plural: bool) -> str:
    what = exc.strerror or str(exc)
    if isinstance(exc, PermissionError):
        which = "files" if plural else "file"
        them = "is one of them" if plural else "is it"
        return f"{target}: cannot replace the {which} ({what}); {them} open or read-only?"
    return f"{target}: cannot write ({what}); the previous report is unchanged"


# ---------------------------------------------------------------------------
# file system helpers


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def _link_or_copy(src, dst) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a folder
        pass
    finally:
        os.close(fd)


_RENAMEAT2 = None


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    global _RENAMEAT2
    if _RENAMEAT2 is None:
        _RENAMEAT2 = False
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
            fn.argtypes += [ctypes.c_uint]
            fn.restype = ctypes.c_int
            _RENAMEAT2 = fn
        except (OSError, AttributeError):
            pass
    if not _RENAMEAT2:
        return False
    import ctypes

    at_fdcwd, rename_exchange = -100, 2
    if _RENAMEAT2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))
