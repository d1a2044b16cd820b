"""The compiled-ruleset cache: a validated ruleset kept as plain JSON, so the next load skips YAML,
pydantic validation and the Lark parser.

Loading a ruleset the long way reads its YAML (with every node's file:line:col), validates it against
the vocabulary's pydantic models and parses its conditions with Lark: ~0.1 s of a short run. After
one such load the result is written here; a later load of the same bytes rebuilds the same models
with `model_construct` (no validation: the entry says only what a validated load said) and the same
condition ASTs, and compiles them as before. Decisions, metrics and fingerprints are the same either
way (tests/test_ruleset_cache.py compares every built-in ruleset both ways).

An entry is named by a hash of: this format, the bytes of the vocabulary's code
(`rulekit/language/*.py`, the compiler, the condition grammar), the interpreter's and the regex
module's versions and the interpreter's Unicode version (`core.pydialect.interpreter_versions`: what
a `(?py)` pattern means, and what validated, depends on them), the built-in rulesets' names, the
working directory, the name given and the bytes of the file it names. It lists every file the
ruleset read (`extends:`, `from:`) with a hash of its bytes; a changed file is a miss.

The cache is untrusted input like a ruleset: JSON only (never pickle), every model named in an entry
must be one of the vocabulary's, every field one of that model's, every condition AST of the grammar's
shape; an entry that fails any check is ignored and rewritten. An entry could still say something its
ruleset does not (a forged step under the genuine fingerprint, which is computed from the entry's
data), so an entry is read only when it carries an HMAC under this user's key (`core.cachefiles.seal`:
32 random bytes in `key`, mode 0600, beside the entries), and the directory is used only when no other
user can write it (`core.cachefiles.private_dir`): a writable-by-others or foreign directory turns the
cache off. Where it lives: `$RULEKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/rulekit`, else
`~/.cache/rulekit`; `RULEKIT_CACHE_DIR=off` turns it off. Writes go to an unguessable temporary name
created exclusively (never through a link) and are renamed, so concurrent runs never read half an
entry; a cache that cannot be written is skipped silently.
"""
from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from rulekit.core.cachefiles import cache_dir, cache_key, seal, unseal, write_atomically

FORMAT = 2  # 2: sealed with the user's key (1 had an unkeyed checksum)
MAX_ENTRY_BYTES = 64 << 20  # an entry, or a file it lists, larger than this is not read (a miss)
MAX_FILES = 64              # files one entry may list (the loader's MAX_RULESET_FILES)
_CODE_KEY: list[str] = []


class _Uncacheable(Exception):
    """A value the entry format does not carry (the ruleset is then simply not cached)."""


class _BadEntry(Exception):
    """An entry that fails a check: ignored (a miss)."""


def _code_key() -> str:
    """A hash of what decides what an entry holds: the vocabulary's source files (its models and their
    validation), the compiler, the condition grammar and the interpreter's, its Unicode tables' and the
    regex module's versions, so an edited checkout, another release or another Python never reads an
    entry another one wrote."""
    if not _CODE_KEY:
        from rulekit.core.pydialect import interpreter_versions
        from rulekit.core.resources import resource_dir

        here = Path(__file__).resolve().parent
        digest = hashlib.sha256(f"{FORMAT}\0{interpreter_versions()}".encode())
        for path in [*sorted(here.glob("*.py")), here.parent / "engine" / "compiler.py",
                     resource_dir("grammars") / "condition.lark"]:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _CODE_KEY.append(digest.hexdigest())
    return _CODE_KEY[0]


def _entry_path(directory: Path, name_or_path: str, top: Path, top_bytes: bytes, builtins: dict) -> Path:
    digest = hashlib.sha256()
    for part in (_code_key(), "\0".join(builtins), os.getcwd(), name_or_path, str(top.resolve())):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(top_bytes)
    return directory / f"{digest.hexdigest()[:40]}.json"


@dataclass
class Entry:
    """A cache hit: what `load_ruleset` needs to compile without reading YAML or validating."""

    model: Any             # the validated schema.Ruleset, rebuilt
    data: dict             # the merged ruleset as plain data (`fingerprint.plain_data`: what the fingerprint hashes)
    files: list[str]       # every file the ruleset read, as the long load listed them
    step_locs: dict        # section → one (file, line, col) or None per step, for traces and `explain`


def lookup(name_or_path: str) -> tuple[Entry | None, Any]:
    """(entry, token): the entry for this ruleset when one is cached and still current, else None; the
    token is what `store` needs to write one after a long load (None when the cache is off or the file
    cannot be read here — then the long load reports the problem)."""
    from rulekit.core.resources import builtin_rulesets

    directory = cache_dir()
    key = cache_key(directory) if directory is not None else None
    if key is None:  # off, or a directory another user could write: not used
        return None, None
    builtins = builtin_rulesets()
    try:
        top = builtins[name_or_path] if name_or_path in builtins else Path(name_or_path)
        top_bytes = top.read_bytes()
        path = _entry_path(directory, name_or_path, top, top_bytes, builtins)
    except (OSError, ValueError, TypeError):
        return None, None
    token = (path, top, top_bytes, key)
    try:
        raw = unseal(_read_small(path), key)
    except OSError:
        return None, token
    if raw is None:  # not written by this user's rulekit (forged, damaged, another format): a miss
        return None, token
    try:
        return _read_entry(raw, top, top_bytes), token
    except (_BadEntry, orjson.JSONDecodeError, KeyError, TypeError, ValueError, OSError, RecursionError):
        return None, token


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_small(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_ENTRY_BYTES (an entry names files: never a device or
    a FIFO, never without end), checked on the descriptor that is read."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
            raise OSError(f"{path}: not a regular file of at most {MAX_ENTRY_BYTES} bytes")
        return f.read(MAX_ENTRY_BYTES + 1)


def _read_entry(raw: bytes, top: Path, top_bytes: bytes) -> Entry:
    from rulekit.language.expr import PARSED, valid_ast

    blob = orjson.loads(raw)
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise _BadEntry("format")
    body = blob["body"]
    if not isinstance(body["hashes"], list) or len(body["hashes"]) > MAX_FILES:
        raise _BadEntry("files")
    for file, digest in body["hashes"]:
        current = top_bytes if file == str(top) else _read_small(Path(file))
        if _sha(current) != digest:
            raise _BadEntry("a file changed")
    conditions = body["conditions"]
    if not isinstance(conditions, dict) or not all(isinstance(k, str) and valid_ast(v) for k, v in conditions.items()):
        raise _BadEntry("conditions")
    model = _decode(body["model"], _registry())
    from rulekit.language.schema import Ruleset

    if not isinstance(model, Ruleset) or not isinstance(body["data"], dict):
        raise _BadEntry("model")
    step_locs = body["step_locs"]
    if not isinstance(step_locs, dict) or not all(
            isinstance(v, list) and all(loc is None or (isinstance(loc, list) and len(loc) == 3) for loc in v)
            for v in step_locs.values()):
        raise _BadEntry("locations")
    for source, ast in conditions.items():
        PARSED.setdefault(source, ast)
    return Entry(model, body["data"], [str(f) for f in body["files"]], step_locs)


def store(token: Any, model: Any, data: Any, files: list, step_locs: dict, conditions: dict) -> None:
    """Write the entry of a ruleset just loaded the long way (silently nothing when the cache is off,
    not writable, or the ruleset holds a value the format does not carry)."""
    from rulekit.language.fingerprint import plain_data

    if token is None:
        return
    path, top, top_bytes, key = token
    try:
        hashes = [[str(f), _sha(top_bytes if Path(f) == top else Path(f).read_bytes())] for f in files]
        body = {"model": _encode(model), "data": plain_data(data), "files": [str(f) for f in files],
                "hashes": hashes, "step_locs": step_locs, "conditions": conditions}
        blob = orjson.dumps({"format": FORMAT, "body": body})
    except (_Uncacheable, TypeError, OSError, RecursionError):
        return
    write_atomically(path, seal(blob, key))


# ---------------------------------------------------------------- models as plain data
def _registry() -> dict[str, type]:
    """Every pydantic model of the vocabulary, by `module:qualname` (what an entry may name)."""
    from pydantic import BaseModel

    import rulekit.language.schema  # noqa: F401  (defines them all)

    out: dict[str, type] = {}
    todo = list(BaseModel.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("rulekit.language."):
            out[f"{cls.__module__}:{cls.__qualname__}"] = cls
    return out


def _encode(value: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        cls = type(value)
        if getattr(value, "__pydantic_private__", None) or getattr(value, "__pydantic_extra__", None):
            raise _Uncacheable(cls.__name__)
        return {"$m": f"{cls.__module__}:{cls.__qualname__}",
                "f": {name: _encode(getattr(value, name)) for name in cls.model_fields},
                "s": sorted(value.model_fields_set)}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str(value)
    if type(value) is int:
        if value.bit_length() > 63:
            raise _Uncacheable("a big integer")
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"$f": repr(value)}
    if isinstance(value, list):  # the loader's LocList too (an `Any` field keeps what YAML gave)
        return [_encode(v) for v in value]
    if type(value) is tuple:
        return {"$t": [_encode(v) for v in value]}
    if isinstance(value, dict):
        return {"$d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise _Uncacheable(type(value).__name__)


def _decode(value: Any, models: dict[str, type]) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, list):
        return [_decode(v, models) for v in value]
    if not isinstance(value, dict):
        raise _BadEntry("a value")
    if set(value) == {"$m", "f", "s"}:
        cls = models.get(value["$m"])
        fields = value["f"]
        if cls is None or not isinstance(fields, dict) or set(fields) != set(cls.model_fields):
            raise _BadEntry("a model")
        given = value["s"]
        if not isinstance(given, list) or not set(given) <= set(cls.model_fields):
            raise _BadEntry("a model's fields")
        return cls.model_construct(set(given), **{k: _decode(v, models) for k, v in fields.items()})
    if set(value) == {"$t"} and isinstance(value["$t"], list):
        return tuple(_decode(v, models) for v in value["$t"])
    if set(value) == {"$d"} and isinstance(value["$d"], list):
        pairs = value["$d"]
        if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise _BadEntry("a mapping")
        return {_decode(k, models): _decode(v, models) for k, v in pairs}
    if set(value) == {"$f"} and value["$f"] in ("inf", "-inf", "nan"):
        return float(value["$f"])
    raise _BadEntry("a value")
