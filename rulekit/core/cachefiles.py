"""Where rulekit keeps what it caches between runs (compiled rulesets, the condition parser's tables), and
how every file rulekit writes whole is written: `AtomicFile` (a temporary file beside the target, created
with O_EXCL|O_NOFOLLOW under an unpredictable name, renamed into place when complete), `sweep_stale`
(what a killed run left), `private_dir` (a directory no other user can write) and `seal`/`unseal` (an
HMAC with a per-user key, so a cache entry is read only if this user's rulekit wrote it).

Every writer of the package goes through `AtomicFile` or `write_atomically`: the decisions files
(`run.evaluate`), the compiled-ruleset cache (`language.cache`), the condition parser's tables
(`language.expr`). A planted link at a temporary name is never followed (the name is not guessable, and
the file is created exclusively, never through a link), and the rename replaces a link at the target
instead of writing through it.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import socket
import stat
from pathlib import Path

TEMP_SUFFIX = ".rulekit-tmp"
# `.<file name>.<pid>@<machine>.<random>.rulekit-tmp`: whose it is, so `sweep_stale` deletes only its own
_TEMP_NAME = re.compile(r"^\..+\.(\d+)@([0-9a-f]{12})\.[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX) + r"$")
_OTHER_TEMP = re.compile(r"^\..+\.\d+\.[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX) + r"$")  # earlier: no machine
_LEGACY_TEMP = re.compile(r"^\..+\.decisions\.jsonl\.[A-Za-z0-9_]{8}\.tmp$")  # older still: no pid either
LEGACY_TEMP_AGE = 3600.0
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
KEY_BYTES = 32
_MAC_MARK = b"\nrulekit-hmac-sha256:"
_MACHINE: list[str] = []
_KEYS: dict[str, bytes] = {}


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


# ---------------------------------------------------------------- who may write a directory
def _own_private_group(gid: int) -> bool:
    """Is `gid` this user's own group (a user-private group: the primary group, no other members)?"""
    try:
        import grp
        import pwd

        user = pwd.getpwuid(os.geteuid())
        return gid == user.pw_gid and set(grp.getgrgid(gid).gr_mem) <= {user.pw_name}
    except (ImportError, KeyError):
        return False


def others_may_write(info: os.stat_result) -> bool:
    """Can a user other than this one (or root) change what is in a directory with this `stat`: another
    owner, or write permission for the group (unless it is this user's private group) or for everyone.
    The sticky bit does not help a cache: others can still add names to it."""
    if info.st_uid not in (os.geteuid(), 0):
        return True
    if info.st_mode & stat.S_IWOTH:
        return True
    return bool(info.st_mode & stat.S_IWGRP) and not _own_private_group(info.st_gid)


def private_dir(path: Path, create: bool = True) -> str | None:
    """Make sure `path` is a directory only this user can write (created 0700 when missing): None when it
    is, else why not ("writable by others", "owned by uid N", "not a directory", an OS error)."""
    try:
        if create and not path.is_dir():
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.stat(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISDIR(info.st_mode):
        return "not a directory"
    if info.st_uid != os.geteuid():
        return f"owned by uid {info.st_uid}, not by this user"
    if others_may_write(info):
        return f"writable by other users (mode {stat.filemode(info.st_mode)})"
    return None


# ---------------------------------------------------------------- whose temporary file
def machine_tag() -> str:
    """12 hex digits naming this machine, boot and pid namespace (hostname, `/proc/sys/kernel/random/
    boot_id`, the `/proc/self/ns/pid` link): two processes with the same tag see each other's pids, so
    one may tell whether the other is gone. Another container (its own pid namespace), another host or
    an earlier boot has another tag."""
    if not _MACHINE:
        parts = [socket.gethostname()]
        for read in (lambda: Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
                     lambda: os.readlink("/proc/self/ns/pid")):
            try:
                parts.append(read())
            except OSError:
                parts.append("")
        _MACHINE.append(hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12])
    return _MACHINE[0]


def _alive(pid: int) -> bool:
    """Is process `pid` running (in this pid namespace)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, run by another user
        return True
    return True


def sweep_stale(directory: Path) -> tuple[list[str], list[str]]:
    """Delete the temporary files a killed run left in `directory` (SIGKILL, a power cut): files of
    rulekit's naming written on this machine, boot and pid namespace (`machine_tag`) whose process is
    gone, and the oldest names (no pid) when over an hour old. Returns (names deleted, names left:
    temporary files of a run elsewhere — another container or host sharing the directory, whose pid
    says nothing here — or of a rulekit that did not name its machine; they may still be written)."""
    removed: list[str] = []
    left: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed, left
    import time

    now, mine = time.time(), machine_tag()
    for entry in entries:
        m = _TEMP_NAME.match(entry.name)
        if m is not None and m.group(2) == mine:
            stale = not _alive(int(m.group(1)))
        elif m is not None or _OTHER_TEMP.match(entry.name):
            stale = False
            left.append(entry.name)
        else:
            stale = _LEGACY_TEMP.match(entry.name) is not None and _older(entry, now, LEGACY_TEMP_AGE)
        if stale and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed.append(entry.name)
            except OSError:
                pass
    return removed, left


def _older(entry: os.DirEntry, now: float, seconds: float) -> bool:
    try:
        return now - entry.stat(follow_symlinks=False).st_mtime > seconds
    except OSError:
        return False


def _umask() -> int:
    """This process's umask (read by setting it, then putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ---------------------------------------------------------------- writing a file whole
class AtomicFile:
    """A file written under a temporary name beside `path` and renamed into place by `commit` (never
    half a file at `path`); `abort` drops it. The temporary file is created with O_CREAT|O_EXCL|O_NOFOLLOW
    under `.<name>.<pid>@<machine>.<random>.rulekit-tmp` (128 random bits), so no link planted in the
    directory is ever written through, and the rename replaces a link at `path` rather than following
    it. `mode` defaults to 0666 less the umask (what `open` gives); caches pass 0600. OSError on failure."""

    def __init__(self, path: Path, mode: int | None = None, buffering: int = 1 << 20):
        self.path = Path(path)
        mode = (0o666 & ~_umask()) if mode is None else mode
        prefix = f".{self.path.name[:120]}.{os.getpid()}@{machine_tag()}."
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        for _ in range(100):
            self.tmp = self.path.with_name(prefix + secrets.token_hex(16) + TEMP_SUFFIX)
            try:
                fd = os.open(self.tmp, flags, mode)
                break
            except FileExistsError:
                continue
        else:  # pragma: no cover - 100 collisions of 128 random bits
            raise FileExistsError(f"no free temporary name beside {self.path}")
        os.fchmod(fd, mode)  # exactly `mode`, whatever the umask
        self.fh = os.fdopen(fd, "wb", buffering=buffering)

    def write(self, blob: bytes) -> None:
        """Append bytes to the temporary file."""
        self.fh.write(blob)

    def commit(self) -> None:
        """Flush, fsync and rename into place (the temporary file is removed if that fails)."""
        try:
            self.fh.flush()
            os.fsync(self.fh.fileno())
            self.fh.close()
            os.replace(self.tmp, self.path)
        except OSError:
            self.abort()
            raise

    def abort(self) -> None:
        """Drop the temporary file."""
        try:
            self.fh.close()
        except OSError:
            pass
        try:
            os.unlink(self.tmp)
        except FileNotFoundError:
            pass

    def __enter__(self) -> "AtomicFile":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def write_atomically(path: Path, blob: bytes, mode: int | None = 0o600, quiet: bool = True) -> bool:
    """Write `blob` to `path` through an `AtomicFile` (so a concurrent run never reads half a file); True
    when written. With `quiet` (caches: never required) a failure is False, else the OSError is raised."""
    try:
        with AtomicFile(path, mode=mode, buffering=0) as f:
            f.write(blob)
        return True
    except OSError:
        if not quiet:
            raise
        return False


# ---------------------------------------------------------------- what only this user's rulekit wrote
def cache_key(directory: Path) -> bytes | None:
    """This user's secret for the cache in `directory`: `directory/key`, 32 random bytes made on first use
    (mode 0600). None — the cache is not used — when `directory` is not `private_dir` or the key file is
    not a regular file of this user that nobody else can read."""
    found = _KEYS.get(str(directory))
    if found is not None:
        return found
    if private_dir(directory) is not None:
        return None
    path = directory / "key"
    for _ in range(2):
        key = _read_key(path)
        if key is not None:
            _KEYS[str(directory)] = key
            return key
        if path.exists() or os.path.islink(path):
            return None  # there, but not a key this user can trust
        try:  # written whole under a temporary name, then linked: a reader never sees half a key
            f = AtomicFile(path, mode=0o600, buffering=0)
        except OSError:
            return None
        try:
            f.write(secrets.token_bytes(KEY_BYTES))
            f.fh.close()
            os.link(f.tmp, path)
        except OSError:
            pass  # another run made it first: read theirs
        finally:
            f.abort()
    return None


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077 \
                or info.st_size != KEY_BYTES:
            return None
        key = os.read(fd, KEY_BYTES + 1)
        return key if len(key) == KEY_BYTES else None
    finally:
        os.close(fd)


def seal(blob: bytes, key: bytes) -> bytes:
    """`blob` followed by a line with its HMAC-SHA256 under `key` (what `unseal` checks)."""
    return blob + _MAC_MARK + hmac.new(key, blob, hashlib.sha256).hexdigest().encode() + b"\n"


def unseal(raw: bytes, key: bytes) -> bytes | None:
    """The blob `seal` wrote, or None when `raw` carries no valid HMAC under `key` (forged, damaged, or
    written by another user's rulekit or another format)."""
    at = raw.rfind(_MAC_MARK)
    if at < 0:
        return None
    blob, mac = raw[:at], raw[at + len(_MAC_MARK):].rstrip(b"\n")
    return blob if hmac.compare_digest(mac, hmac.new(key, blob, hashlib.sha256).hexdigest().encode()) else None
