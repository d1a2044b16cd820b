"""JSON-array readers: the official MMEvalPro output file, plus arrays of our schema / lmms-eval.

MMEvalPro (``auto_score.py`` input; a JSON list of objects ``index, triplet_id, model_output,
answer, source, eval_type``, possibly gzipped) is detected by ``triplet_id`` and ``model_output``
in the first object and maps as: id <- str(index); response <- model_output (null -> "");
answer <- answer; question_type multiple-choice; choices None (the file ships none; a
``choices`` field, if present, is used); benchmark "MMEvalPro"; question <- question when present;
meta <- triplet_id, eval_type, source and any other keys. The triplet (the unit of MMEvalPro's
Genuine Accuracy) is ``meta.triplet_id``.

Any other ``.json`` file must be a JSON array of objects in our schema or lmms-eval
``--log_samples`` objects, or an object whose ``logs`` key holds such an array (older lmms-eval
``*.json`` sample files); a single object with an ``id`` reads as one record. JSON arrays are
loaded whole (not streamed), up to the `document-bytes` limit (`rulekit.core.limits`). Record.where
is ``file#N`` (1-based position in the array).
"""
from __future__ import annotations

from typing import IO, Any, Iterator

import orjson

from rulekit.core.errors import InputError, Loc
from rulekit.core.limits import read_capped
from rulekit.core.records import MULTIPLE_CHOICE, Record
from rulekit.readers.jsonl import READ_ERRORS, corrupt, fail, is_lmms, make_record, open_bytes, record_from_obj

BENCHMARK = "MMEvalPro"
_MAPPED = {"index", "model_output", "answer", "choices", "question"}


def is_mmevalpro(obj: Any) -> bool:
    """True when a decoded JSON object is a row of the MMEvalPro output file."""
    return isinstance(obj, dict) and "triplet_id" in obj and "model_output" in obj


def mmevalpro_base(obj: dict) -> tuple[dict, dict]:
    """(base, extras) for one MMEvalPro output row (mapping in the module docstring)."""
    base = {"response": obj.get("model_output"), "answer": obj.get("answer"),
            "question_type": MULTIPLE_CHOICE, "choices": obj.get("choices"),
            "question": obj.get("question"), "benchmark": BENCHMARK}
    if "index" in obj:
        base["id"] = obj["index"]
    return base, {k: v for k, v in obj.items() if k not in _MAPPED}


def load_json(path: str, f: IO[bytes] | None = None) -> Any:
    """Decode a whole JSON file (optionally gzipped, or the opened stream `f` named `path`);
    InputError with line:column when invalid, E302 past the `document-bytes` limit (no more is read)."""
    with f if f is not None else open_bytes(path) as f:
        try:
            data = read_capped(f, path, "document-bytes", "the JSON document is larger than")
        except READ_ERRORS as e:
            raise corrupt(path, e) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", loc=Loc(path, e.lineno, e.colno)) from None


def read_json(path: str, fields: dict[str, str] | None = None,
              fmt: str | None = None, f: IO[bytes] | None = None) -> Iterator[Record]:
    """Records from a JSON file: MMEvalPro output (auto-detected or `fmt="mmevalpro"`), or an
    array of our-schema / lmms-eval objects (`fmt="lmms-eval"` forces the lmms-eval mapping)."""
    data = load_json(path, f)
    if isinstance(data, dict):
        if isinstance(data.get("logs"), list):
            data = data["logs"]
        elif "id" in data or is_lmms(data) or is_mmevalpro(data):
            data = [data]
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON array of records, got {type(data).__name__}")
    mmep = fmt == "mmevalpro" or (bool(data) and is_mmevalpro(data[0]))
    lmms = True if fmt == "lmms-eval" else None
    for i, obj in enumerate(data, 1):
        where = f"{path}#{i}"
        if mmep:
            if not isinstance(obj, dict):
                raise fail(f"expected a JSON object, got {type(obj).__name__}", path, 0, where)
            base, extras = mmevalpro_base(obj)
            yield make_record(base, obj, fields, path, 0, where, extras)
        else:
            yield record_from_obj(obj, fields, path, 0, where, lmms)
