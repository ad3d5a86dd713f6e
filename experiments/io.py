"""Atomic file writes (temporary file + rename) and the metadata every result file carries
(code version, machine, time)."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["atomic_write_text", "atomic_write_bytes", "write_json", "jsonable", "read_json",
           "out_lock", "code_version", "machine_info", "cpu_model"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, flushed and
    fsynced, then renamed over ``path`` (a reader never sees a half-written file).
    Creates missing parent folders. Raises ``OSError`` from the file system, naming ``path``
    (never the temporary file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:  # name the file the caller asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def jsonable(x: Any):
    """The ``default`` hook of ``json.dumps`` for what boardlab writes: numpy arrays as lists,
    numpy scalars as numbers, sets and tuples as lists, paths as text. Raises ``TypeError``
    for anything else."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, (set, tuple)):
        return list(x)
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented JSON, atomically (numpy scalars and arrays become numbers and
    lists)."""
    atomic_write_text(path, json.dumps(obj, indent=2, default=jsonable) + "\n")


LOCK_FILE = "run.lock"


@contextlib.contextmanager
def out_lock(folder: str | os.PathLike):
    """Hold ``<folder>/run.lock`` while a run writes into ``folder`` (created if needed).

    An exclusive ``flock`` on the file (POSIX advisory lock, released by the kernel when the
    holder exits, so a killed run never leaves a lock behind); the file names the holder's
    process and is removed at the end. If another process holds it, raises ``ValueError``
    naming that process (two runs on one output folder would both play every game). Where
    ``fcntl`` does not exist (not POSIX) nothing is locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield None
        return
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    with open(path, "a+", encoding="utf-8") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            owner = f.read().strip() or "unknown"
            raise ValueError(f"{folder} is in use by another run (process {owner}): wait for "
                             "it to finish, or choose another output folder") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        try:
            yield path
        finally:
            with contextlib.suppress(OSError):
                path.unlink()  # while still holding it: no file is left in the folder
            fcntl.flock(f, fcntl.LOCK_UN)


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON file. Raises ``ValueError`` naming the file when it is not valid JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc


def code_version() -> str:
    """``git describe --always --dirty --tags`` of the source tree, or ``"unknown"``."""
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=root,
                             capture_output=True, text=True, timeout=10, check=True)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine_info() -> dict[str, Any]:
    """Where a result was computed: host, processor, CPU count, Python and library versions,
    and the UTC time."""
    import numba
    import pandas

    return {
        "hostname": platform.node(),
        "machine": platform.machine(),
        "processor": cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "pandas": pandas.__version__,
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo``), else the platform's processor or machine string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
