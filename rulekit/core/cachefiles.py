"""Where rulekit keeps what it caches between runs (compiled rulesets, the condition parser's tables),
and how a cache file is written: under a temporary name, then renamed."""
from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """rulekit's directory under the user's cache: `$XDG_CACHE_HOME/rulekit`, else `~/.cache/rulekit`
    (the judge's replies, and the compiled rulesets unless `RULEKIT_CACHE_DIR` says otherwise)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rulekit"


def cache_dir() -> Path | None:
    """The cache directory — compiled rulesets (`rulekit.language.cache`) and the condition parser's kept
    tables: `$RULEKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulekit`, else `~/.cache/rulekit`, each with
    `rulesets/` below it; None when `RULEKIT_CACHE_DIR=off` (or `0`, `none`, empty)."""
    configured = os.environ.get("RULEKIT_CACHE_DIR")
    if configured is not None and configured.strip().lower() in ("off", "0", "none", ""):
        return None
    return (Path(configured) if configured else cache_home()) / "rulesets"


def write_atomically(path: Path, blob: bytes) -> None:
    """Write `blob` to `path` under a temporary name and rename it, so a concurrent run never reads half
    a file; a directory that cannot be written is skipped silently (a cache is never required)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
