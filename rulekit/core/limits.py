"""The readers' limits: how much one input file may make rulekit inflate, read, hold or walk.

Every reader applies the same limits, so a small hostile file (a zip or gzip bomb, a sheet whose one
row is numbered 100,000,000, a 1.9 GB line) ends in seconds with a located error `E302` naming the
file, its line / row / cell, the limit and how to raise it, instead of running for minutes or
exhausting memory. The defaults are generous for real files (VLMEvalKit sheets of ~50k rows, JSONL
files of millions of records, replies of a million characters) and can be raised, per run, with
the environment variable ``RULEKIT_LIMITS`` (``RULEKIT_LIMITS="line-bytes=256MiB,rows=5000000"``;
sizes take KiB, MiB and GiB).

==================  ===============  ===============================================================
limit               default          what it bounds
==================  ===============  ===============================================================
inflated-bytes      4 GiB            what one compressed input inflates to: a gzip stream, the
                                     members of an .xlsx together (counted while streaming)
inflate-ratio       100              inflated / compressed bytes of a gzip stream or an .xlsx
                                     member, once past its first 16 MiB (a bomb inflates ~1000x)
line-bytes          64 MiB           one JSONL line; one CSV/TSV line, field and record (characters)
document-bytes      256 MiB          a JSON input read whole (a JSON array, MMEvalPro output)
report-bytes        64 MiB           a file `reproduce` reads whole (_acc.csv, _score.json,
                                     results.json), inflated
rows                1,048,576        rows of a sheet (Excel's own limit); records `reproduce` keeps
                                     of one prediction file or samples log
columns             16,384           columns of a sheet or a CSV/TSV header (Excel's own limit)
cells               20,000,000       cells of one sheet
dir-depth           64               directory levels `reproduce` walks below a path it is given
image-pixels        89,478,485       pixels of one image `generate` sends, and of all the images
                                     of one item together (PIL's MAX_IMAGE_PIXELS)
==================  ===============  ===============================================================

Not a setting: an integer a literal in a cell, a gold or a `--field` may hold has at most as many digits
as Python turns into text (`sys.get_int_max_str_digits()`, 4,300): `10**5000` or a 5,000-digit hex
literal is not a value (`int_too_big`).
"""
from __future__ import annotations

import io
import os
import sys
from typing import IO, Any

from rulekit.core.errors import InputError, Loc, UsageError

ENV = "RULEKIT_LIMITS"
GRACE_BYTES = 16 << 20  # inflated bytes of a stream or member before the ratio is checked

DEFAULTS: dict[str, int] = {
    "inflated-bytes": 4 << 30,
    "inflate-ratio": 100,
    "line-bytes": 64 << 20,
    "document-bytes": 256 << 20,
    "report-bytes": 64 << 20,
    "rows": 1_048_576,
    "columns": 16_384,
    "cells": 20_000_000,
    "dir-depth": 64,
    "image-pixels": 89_478_485,
}
_SIZES = {"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3}
_BYTES = {"inflated-bytes", "line-bytes", "document-bytes", "report-bytes"}
_PARSED: tuple[str, dict[str, int]] | None = None


class LimitError(InputError):
    """An input file over one of the readers' limits (E302): located at its line, row or cell, without an
    excerpt (the offending line is what is too big to show)."""

    code = "E302"
    show_excerpt = False


def limits() -> dict[str, int]:
    """Every limit, with RULEKIT_LIMITS applied (read again whenever the variable changes)."""
    global _PARSED
    raw = os.environ.get(ENV, "")
    if _PARSED is None or _PARSED[0] != raw:
        _PARSED = (raw, {**DEFAULTS, **_parse(raw)})
    return _PARSED[1]


def limit(name: str) -> int:
    """The value of one limit (see the module docstring)."""
    return limits()[name]


def _parse(raw: str) -> dict[str, int]:
    out = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip().replace("_", "")
        if not sep or name not in DEFAULTS:
            raise UsageError(f"bad {ENV} item {item!r}: expected NAME=VALUE",
                             help=f"limits: {', '.join(DEFAULTS)}", code="E400")
        unit = next((u for u in _SIZES if value.lower().endswith(u)), None)
        number = value[: -len(unit)] if unit else value
        if not number.isdigit() or len(number) > 18 or int(number) <= 0:
            raise UsageError(f"bad {ENV} item {item!r}: the value must be a positive whole number"
                             + (" (with KiB, MiB or GiB)" if name in _BYTES else ""), code="E400")
        out[name] = int(number) * (_SIZES[unit] if unit else 1)
    return out


def shown(name: str, value: int | None = None) -> str:
    """A limit's value as docs/untrusted.md writes it (sizes in KiB / MiB / GiB)."""
    value = limit(name) if value is None else value
    if name in _BYTES:
        for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if value >= size and value % size == 0:
                return f"{value // size:,} {unit}"
        return f"{value:,} bytes"
    return f"{value:,}"


def over(name: str, what: str, loc: Loc | str | None = None) -> LimitError:
    """The E302 error for `what` (e.g. "line 12 is longer than") going over limit `name`, located at
    `loc` (a Loc, or a file name)."""
    if isinstance(loc, str):
        loc = Loc(loc, 0, 0)
    return LimitError(f"{what} the `{name}` limit of {shown(name)}",
                      loc=loc, help=f"if the file is genuine, raise the limit for this run: {ENV}={name}=VALUE "
                                    "(docs/untrusted.md lists the readers' limits)")


# ---------------------------------------------------------------- compressed input
class InflateGuard:
    """Counts the bytes a compressed stream inflates to and stops it at the `inflated-bytes` limit or past
    the `inflate-ratio` (after GRACE_BYTES): `check(inflated, compressed)` is called as data comes."""

    def __init__(self, name: str, what: str = "it"):
        self.name, self.what = name, what
        self.cap, self.ratio = limit("inflated-bytes"), limit("inflate-ratio")

    def check(self, inflated: int, compressed: int) -> None:
        """Raise E302 when `inflated` bytes (from `compressed` bytes read so far) are over a limit."""
        if inflated > self.cap:
            raise over("inflated-bytes", f"{self.what} inflates past", self.name)
        if inflated > GRACE_BYTES and inflated > self.ratio * max(compressed, 1):
            raise over("inflate-ratio", f"{self.what} inflates to more than {inflated // max(compressed, 1):,} times "
                                        f"its compressed size, past", self.name)


class _Tally:
    """A binary stream's `read`, counting the bytes it gave (a pipe has no `tell`)."""

    def __init__(self, f: IO[bytes]):
        self.f, self.n = f, 0

    def read(self, size: int = -1) -> bytes:
        data = self.f.read(size)
        self.n += len(data)
        return data


class _Counted(io.RawIOBase):
    """The bytes of a gzip stream, counted against the InflateGuard as they are read."""

    def __init__(self, gz: Any, compressed: _Tally, guard: InflateGuard):
        self._gz, self._compressed, self._guard, self._n = gz, compressed, guard, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        # read1: what one inflate step gives, so the bytes before a truncated stream's end come out first
        data = self._gz.read1(len(buffer))
        n = len(data)
        buffer[:n] = data
        self._n += n
        self._guard.check(self._n, self._compressed.n)
        return n

    def close(self) -> None:
        self._gz.close()
        super().close()


class GunzipReader(io.BufferedReader):
    """A buffered reader of the inflated bytes of a gzip stream, bounded by the inflate limits. `fileobj` is
    the compressed stream (how far into it a progress bar is), as for gzip.GzipFile."""

    def __init__(self, compressed: IO[bytes], name: str):
        import gzip

        self.fileobj = compressed
        tally = _Tally(compressed)
        super().__init__(_Counted(gzip.GzipFile(fileobj=tally, mode="rb"), tally, InflateGuard(name)),  # type: ignore[arg-type]
                         buffer_size=1 << 16)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.fileobj.close()


def read_capped(f: IO[bytes], name: str, cap_name: str, what: str = "the file is larger than") -> bytes:
    """All the bytes of `f`, or E302 when they are more than the limit `cap_name` (at most that many are
    read)."""
    cap = limit(cap_name)
    data = f.read(cap + 1)
    if len(data) > cap:
        raise over(cap_name, what, name)
    return data


def check_zip(source: Any, name: str) -> None:
    """Refuse a zip file (an .xlsx) whose members inflate past the limits, by the sizes its central directory
    declares (Python's zipfile never inflates a member past its declared size: it stops there, with a CRC
    error). `source` is a path or a seekable file, left at its start."""
    import zipfile

    cap, total = limit("inflated-bytes"), 0
    try:
        with zipfile.ZipFile(source) as z:
            for info in z.infolist():
                InflateGuard(name, f"its member {info.filename!r}").check(info.file_size, info.compress_size)
                total += info.file_size
                if total > cap:
                    raise over("inflated-bytes", "its members together inflate past", name)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        pass  # not a zip, or a damaged one: the reader says so (E301)
    finally:
        if hasattr(source, "seek"):
            source.seek(0)


# ---------------------------------------------------------------- lines
def line_too_long(line: bytes | str, cap: int) -> bool:
    """True when `line`, read with `readline(cap + 1)`, is longer than `cap` (its line end not counted)."""
    return len(line) > cap and not (len(line) == cap + 1 and line[-1:] in (b"\n", "\n"))


def count_lines(f: IO[bytes], name: str, cap_name: str = "rows", unit: str = "lines") -> int:
    """The lines of `f` (read in 1 MiB pieces, never a line at a time), or E302 past the limit `cap_name`."""
    cap, n, last = limit(cap_name), 0, b"\n"
    while True:
        chunk = f.read(1 << 20)
        if not chunk:
            break
        n += chunk.count(b"\n")
        last = chunk[-1:]
        if n > cap:
            raise over(cap_name, f"it has more {unit} than", name)
    return n + (last != b"\n")


# ---------------------------------------------------------------- values
def int_too_big(value: Any, depth: int = 0) -> bool:
    """True when `value` is, or holds (in lists, tuples, sets, dicts), an integer with more digits than Python
    turns into text (`sys.get_int_max_str_digits()`, 4,300 by default): str() of it would raise."""
    if type(value) is int:
        cap = sys.get_int_max_str_digits() or 4_300
        approx = value.bit_length() * 0.30103  # log10(2): digits from bits, within one
        if approx < cap - 2:
            return False
        if approx > cap + 2:
            return True
        try:
            return len(str(abs(value))) > cap
        except ValueError:  # past sys.get_int_max_str_digits()
            return True
    if depth > 100:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(int_too_big(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(int_too_big(k, depth + 1) or int_too_big(v, depth + 1) for k, v in value.items())
    return False


# ---------------------------------------------------------------- directories
def walk_files(root: str, name: str | None = None, links: bool = False) -> list[str]:
    """Every regular file below the directory `root` (symbolic links to directories are not followed, as
    pathlib's rglob does not; `links`: they are listed too, for the caller to judge), walked with a stack,
    not recursion; E302 past `dir-depth` levels."""
    cap = limit("dir-depth")
    out: list[str] = []
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable: rglob skips it too
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 > cap:
                        raise over("dir-depth", f"{entry.path} is nested deeper than", name or root)
                    stack.append((entry.path, depth + 1))
                elif entry.is_file() or links and entry.is_symlink():
                    out.append(entry.path)
            except OSError:
                continue
    return out
