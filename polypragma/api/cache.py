"""The on-disk cache of compiled modules, so that a second process loads instead of compiling.

An entry is a directory named by a key: the hash of the source text, where it lives (its quoted
includes are found there), the options, the backend, polypragma's version and the identity of the
compilers (path, size and modification time: asking them for a version would run them on every hit).
Headers the source includes are not in the key, since listing them needs the preprocessor; the entry's
manifest lists them with the hash of their contents, and an entry whose headers changed is rebuilt, as
ccache's direct mode does.

An entry is complete when its ``manifest.json`` exists: it is written last, atomically.  Builds of one
key are serialised with a lock file, so two processes never build into the same directory; one waits
and then loads what the other built.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil

MANIFEST = "manifest.json"
_chosen: str | None = None


def cache_dir() -> str:
    """The cache directory: :func:`set_cache_dir`'s, else ``$POLYPRAGMA_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/polypragma`` (``~/.cache/polypragma``)."""
    if _chosen is not None:
        return _chosen
    if os.environ.get("POLYPRAGMA_CACHE_DIR"):
        return os.path.abspath(os.environ["POLYPRAGMA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "polypragma")


def set_cache_dir(path: str | os.PathLike | None) -> None:
    """Use ``path`` for the cache of this process (None: back to the environment's choice)."""
    global _chosen
    _chosen = None if path is None else os.path.abspath(os.fspath(path))


def clear_cache() -> None:
    """Remove every compiled module from the cache directory (modules loaded stay usable)."""
    directory = cache_dir()
    if not os.path.isdir(directory):
        return
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.remove(path)


def file_identity(path: str | None) -> list:
    """What tells a program apart without running it: its real path, size and modification time."""
    if not path:
        return [None]
    real = os.path.realpath(path)
    try:
        status = os.stat(real)
    except OSError:
        return [real]
    return [real, status.st_size, status.st_mtime_ns]


def key(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:40]


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def entry_dir(entry_key: str) -> str:
    return os.path.join(cache_dir(), entry_key)


def load_manifest(directory: str) -> dict | None:
    """The manifest of a complete entry whose headers are unchanged; None otherwise."""
    try:
        with open(os.path.join(directory, MANIFEST), encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, ValueError):
        return None
    for path, digest in manifest.get("headers", {}).items():
        if file_digest(path) != digest:
            return None
    if not os.path.exists(os.path.join(directory, manifest.get("library", ""))):
        return None
    return manifest


def write_manifest(directory: str, manifest: dict) -> None:
    temporary = os.path.join(directory, MANIFEST + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=1, sort_keys=True)
    os.replace(temporary, os.path.join(directory, MANIFEST))


@contextlib.contextmanager
def locked(entry_key: str):
    """Hold the build lock of ``entry_key`` (other processes building it wait)."""
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), entry_key + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
