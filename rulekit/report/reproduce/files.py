"""Reading a work dir: its files (a link out of the tree is never followed), small JSON files within a
byte limit, prediction files and result sheets kept in memory within the readers' row limit."""
from __future__ import annotations

import functools
import os
import zlib
from pathlib import Path
from typing import Any

TREES: dict[Path, Path] = {}  # find_artifacts' files → the tree each was found in


def walk(root: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The regular files under the directory `root` (walked with a stack, E302 past `dir-depth` levels), and a
    note (path, text) for each symbolic link that leads out of it (never read: a work dir is untrusted, and its link to
    `~/.ssh/id_rsa` named `x_MMStar_acc.csv` must not have its content quoted in an error). Links to
    directories are not followed; a link to a file inside the tree is read like the file."""
    from rulekit.core.limits import walk_files

    top = os.path.realpath(root)
    files, notes = [], []
    for name in sorted(walk_files(str(root), links=True)):
        path = Path(name)
        if path.is_symlink() and not within(path, top):
            notes.append((path, f"a symbolic link to {'a folder' if path.is_dir() else 'a file'} outside "
                                f"{root}; not read"))
        elif path.is_file():
            files.append(path)
    return files, notes


def within(path: Path, top: str) -> bool:
    """Does `path`, its links followed, stay inside the real directory `top`?"""
    real = os.path.realpath(path)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def json_of(path: Path, limit: int = 5 << 20, strict: bool = False) -> Any:
    """A small JSON file (optionally gzipped) decoded, else None (too big, not JSON). Never more than `limit`
    bytes are read or inflated (a gzip bomb stops there); with `strict` (a file whose name says what it is:
    lmms-eval's results.json), over the limit is E302 instead of None."""
    import orjson

    from rulekit.core.limits import GunzipReader, LimitError, over

    try:
        if path.stat().st_size > limit:
            if strict:
                raise over("report-bytes", "the file is larger than", str(path))
            return None
        f = open(path, "rb")
        if f.peek(2)[:2] == b"\x1f\x8b":
            f = GunzipReader(f, str(path))
        with f:
            data = f.read(limit + 1)
        if len(data) > limit:
            if strict:
                raise over("report-bytes", "the file inflates past", str(path))
            return None
        return orjson.loads(data)
    except LimitError:
        if strict:
            raise
        return None
    except (OSError, EOFError, ValueError, zlib.error):
        return None


def short(value: Any) -> str:
    """A value of a file, shown in a message: its JSON text, cut at 60 characters."""
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def sheet_records(sheet: Path) -> tuple:
    """The rows of a framework's result sheet, read once (judge replies and `hit` both come from it)."""
    st = sheet.stat()
    return _read_sheet(str(sheet), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _read_sheet(path: str, mtime_ns: int, size: int) -> tuple:
    if path.endswith(".pkl"):
        return tuple(pickle_rows(Path(path)))
    return tuple(kept_records(Path(path)))


def pickle_rows(path: Path) -> list:
    """The rows of VLMEvalKit's per-row verdicts kept only in a pickle (`<stem>_<judge>_result.pkl`, e.g.
    `_openai_result.pkl`: {index: {'hit': 0 or 1, 'log': text}}), as a result sheet's records (id = the
    index, meta = the row's fields, response = the row's prediction from the prediction file the pickle's name
    starts with, as a result sheet repeats it). Read as plain data by rulekit/readers/plainpickle.py, never run
    (E303 for anything else); E300 when it is not that shape; at most `rows` rows."""
    from rulekit.core.errors import InputError, Loc
    from rulekit.core.limits import limit, over
    from rulekit.core.records import Record
    from rulekit.readers.plainpickle import read_plain_pickle

    data = read_plain_pickle(str(path))
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError("not VLMEvalKit's per-row verdicts ({index: {'hit': ..., 'log': ...}}): a "
                         f"{type(data).__name__}" + (" of other values" if isinstance(data, dict) else ""),
                         loc=Loc(str(path), 0, 0), code="E300")
    if len(data) > limit("rows"):
        raise over("rows", "the pickle has more rows than", str(path))
    # a result sheet repeats each row's prediction (its `log` names the judge's reply where it differs):
    # taken from the prediction file the pickle's name starts with, `<stem>[_<judge>]_result.pkl`
    said: dict[str, str] = {}
    cut = path.name[: -len("_result.pkl")]
    while "_" in cut:
        cut = cut.rsplit("_", 1)[0]
        pred = next((path.with_name(cut + s) for s in (".xlsx", ".tsv") if path.with_name(cut + s).is_file()), None)
        if pred is not None and within(pred, os.path.realpath(TREES.get(path, path.parent))):
            said = {r.id: r.response for r in kept_records(pred)}
            break
    rows = []
    for key, value in data.items():
        if type(key) not in (int, str):
            raise InputError(f"an index that is not a number or text: {short(key)}", loc=Loc(str(path), 0, 0),
                             code="E300")
        rows.append(Record(id=str(key), question_type="multiple-choice", response=said.get(str(key), ""),
                           meta={str(k): v for k, v in value.items()}, where=f"{path}[{key!r}]"))
    return rows


def kept_records(path: Path, fields: dict[str, str] | None = None) -> list:
    """Every record of a prediction file, result sheet or samples log, all kept in memory (what `reproduce`
    scores): at most `rows` of them (`rulekit.core.limits`). A line-based file (JSONL, CSV/TSV, gzipped or
    not) has its lines counted first, in 1 MiB pieces, so a 3-million-line samples log is refused before one
    record is parsed; a sheet's rows are checked by the reader before it yields one."""
    from rulekit.core.limits import count_lines
    from rulekit.readers import detect_format, read_records
    from rulekit.readers.jsonl import READ_ERRORS, open_bytes

    if detect_format(str(path)) in ("jsonl", "csv", "tsv"):
        with open_bytes(str(path)) as f:
            try:
                count_lines(f, str(path), "rows")
            except READ_ERRORS:
                pass  # a damaged file: the reader says where (E301)
    return list(read_records([str(path)], fields=fields))
