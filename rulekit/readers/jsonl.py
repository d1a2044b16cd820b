"""JSONL readers: our corpus schema and lmms-eval ``--log_samples`` lines, detected per line.

Our schema (``../shared/corpus/README.md``): ``id``, ``question_type``, ``choices``, ``answer``,
``response``, ``meta``, ``benchmark``, ``model``, ``question``. ``id`` and ``response`` are required
(a ``null`` response reads as ""); ``question_type`` defaults to multiple-choice when choices exist,
else open; answers keep their JSON type (numbers stay numbers). Any other top-level key (e.g.
``source``) goes into ``meta`` unless ``meta`` already has it.

lmms-eval ``--log_samples`` lines (keys ``doc_id``, ``doc``, ``target``, ``resps`` and/or
``filtered_resps``; lmms-eval 0.4+ leaves ``doc`` out unless asked, so a line with ``doc_id`` and
``target`` beside the replies is one too) map as follows:

=============  ===========================================================================
id             ``doc.id`` when present and non-empty, else ``doc_id``
response       ``filtered_resps[0]`` (falls back to ``resps[0]``), nested lists unwrapped to
               their first element
answer         ``target``
choices        ``doc.options`` (MMMU stores it as a Python-literal string, parsed with
               ``ast.literal_eval``) or ``doc.choices``, a list lettered A, B, C... in order;
               else the single-letter keys A..Z of ``doc``; else its numbered keys ``option0``,
               ``option1``, ... lettered A, B, ... up to the first missing, blank or "N/A" (Q-Bench)
question_type  ``doc.question_type`` ("multiple-choice"/"open"; "multi_choice"/"free_form"
               accepted), else multiple-choice when choices exist, else open; a dataset's own
               ``question_type`` that is none of these (OK-VQA's "other", "eight") stays in meta
question       ``doc.question``
benchmark      ``task`` when the line carries it (newer lmms-eval), else None
meta           ``doc_id``, ``filter``, the scalar fields of ``doc`` not mapped above, the raw
               ``resps[0]`` when it differs from the response, the per-sample metric dicts under
               ``metrics``, and ``reference_extraction`` from a metric's ``parsed_pred``; a line
               without ``doc`` also gets the scalar fields of its metric dicts (MME's
               ``question_id``, ``category``) except verdicts (``score``, ``parsed_pred``, ...)
=============  ===========================================================================

The helpers here (`open_bytes`, `make_record`, `normalize_choices`, ...) are shared by the other
readers.
"""
from __future__ import annotations

import ast
import functools
import math
import sys
import zlib
from typing import IO, Any, Iterable, Iterator

import orjson

from rulekit.core.errors import CorruptInput, InputError, Loc
from rulekit.core.limits import GunzipReader, int_too_big, limit, line_too_long, over
from rulekit.core.records import MULTIPLE_CHOICE, OPEN, QUESTION_TYPES, Record

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
OUR_FIELDS = ("id", "question_type", "choices", "answer", "response", "meta", "benchmark",
              "model", "question")
REQUIRED = ("id", "response")
_QT_ALIASES = {
    "multiple-choice": MULTIPLE_CHOICE, "multiple_choice": MULTIPLE_CHOICE,
    "multi_choice": MULTIPLE_CHOICE, "multi-choice": MULTIPLE_CHOICE, "mcq": MULTIPLE_CHOICE,
    "mc": MULTIPLE_CHOICE, "open": OPEN, "open-ended": OPEN, "open_ended": OPEN,
    "free_form": OPEN, "free-form": OPEN,
}
_LMMS_KEYS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "doc_hash",
              "prompt_hash", "target_hash", "filter", "task", "split", "input_text", "input",
              "image_paths", "token_counts", "success", "input_media"}
_LMMS_DOC_MAPPED = {"id", "options", "choices", "question", "question_type", "answer"}


# ---------------------------------------------------------------- shared helpers

def open_bytes(path: str) -> IO[bytes]:
    """Open `path` for binary reading, transparently gunzipping (by magic bytes, within the inflate limits of
    `rulekit.core.limits`); "-" is stdin."""
    if path == "-":
        return sys.stdin.buffer
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError(f"cannot open {path}: {e.strerror or e}") from None
    if f.peek(2)[:2] == b"\x1f\x8b":
        return GunzipReader(f, path)
    return f


def bounded_lines(f: IO[bytes]) -> Iterable[bytes]:
    """The lines of the binary file `f`, each read with at most `line-bytes` + 1 bytes: a line longer than
    the limit is never read whole (`records_from_lines` refuses it, E302, at its line)."""
    return iter(functools.partial(f.readline, limit("line-bytes") + 1), b"")


READ_ERRORS = (OSError, EOFError, zlib.error)  # what a truncated or corrupt (gzip) stream raises


def corrupt(path: str, e: BaseException, line: int = 0, unit: str = "line") -> CorruptInput:
    """The E301 error for a file that broke off while read: `line` is the last line (or row, per
    `unit`) read in full, 0 when it broke before the first."""
    what = str(e) or type(e).__name__
    after = f" after {unit} {line}" if line > 0 else ""
    return CorruptInput(f"the file is truncated or corrupt{after}: {what}",
                        loc=Loc(path, line, 0) if line > 0 else Loc(path, 0, 0),
                        help="re-download or re-export it; a gzip file can be checked with `gzip -t`")


def is_blank(value: Any) -> bool:
    """True for None and float NaN (how pandas/pyarrow spell an empty cell)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def fail(msg: str, path: str, line: int, where: str, help: str | None = None) -> InputError:
    """An InputError located at `path:line`, or prefixed with `where` when there is no line."""
    if line > 0:
        return InputError(msg, loc=Loc(path, line, 0), help=help)
    return InputError(f"{where}: {msg}", help=help)


def lookup(row: Any, name: str) -> tuple[bool, Any]:
    """(found, value) of column `name` in `row`; a dotted name walks nested dicts, and into a text cell
    holding a JSON object or a Python dict literal (VLMEvalKit's MathVerse sheets keep problem_version,
    subject and subfield in a `metadata` cell "{'subject': ..., ...}": `metadata.subject`). A part
    ending in `[]` must hold a list, and the rest of the name is looked up in each of its items, giving
    the list of what they hold (lmms-eval's VQAv2 doc: `doc.answers[].answer`, the ten answer texts of
    its `{answer, answer_id, ...}` items); an item without it makes the whole name not found."""
    if isinstance(row, dict) and name in row:
        return True, row[name]
    cur = row
    parts = name.split(".")
    for i, part in enumerate(parts):
        if isinstance(cur, str):
            cur = _object_in(cur)
        each = part.endswith("[]") and len(part) > 2
        key = part[:-2] if each else part
        if not isinstance(cur, dict) or key not in cur:
            return False, None
        cur = cur[key]
        if each:
            if not isinstance(cur, list):
                return False, None
            rest = ".".join(parts[i + 1:])
            if not rest:
                return True, cur
            found = [lookup(item, rest) for item in cur]
            if not all(ok for ok, _ in found):
                return False, None
            return True, [value for _, value in found]
    return True, cur


def _object_in(text: str) -> Any:
    """The dict a text cell holds as JSON or as a Python literal (parsed, never run), else None."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    from rulekit.core.pyliteral import Unreadable, read_literal

    try:
        value = read_literal(text)
    except (Unreadable, RecursionError):
        return None
    return None if int_too_big(value) else value  # `10**5000`: not a value a field can hold (nor print)


def lookup_first(row: Any, spec: str) -> tuple[bool, Any]:
    """(found, value) of a `--field` source: the column `spec` itself when the row has it, else for
    `a|b|...` the first of those columns that holds a value (not blank), else the last of them found
    (blank). VLMEvalKit's MathVista sheets keep a multiple-choice gold in `answer_option` and a
    free-form one in `answer`: `--field answer=answer_option|answer`."""
    found, value = lookup(row, spec)
    if found or "|" not in spec:
        return found, value
    found_any, last = False, None
    for name in spec.split("|"):
        found, value = lookup(row, name.strip())
        if found:
            if not is_blank(value) and value != "":
                return True, value
            found_any, last = True, value
    return found_any, last


@functools.lru_cache(maxsize=256)
def _source_columns(src: str) -> frozenset[str]:
    """The columns an `a|b` `--field` source reads: each of them, and the literal name `a|b`."""
    return frozenset((src, *(part.strip() for part in src.split("|"))))


def normalize_choices(value: Any) -> dict[str, str] | None:
    """Options as {letter: text}: dicts kept (blank entries dropped), lists lettered A, B, C...,
    JSON or Python-literal strings parsed first. Raises ValueError on anything else."""
    if value is None:
        return None
    if type(value) is dict and all(type(v) is str for v in value.values()):
        return value or None  # fast path: already {letter: text}
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise ValueError(f"cannot parse choices {text[:60]!r}") from None
            if int_too_big(value):
                raise ValueError(f"choices {text[:60]!r}... hold an integer of more digits than Python turns "
                                 f"into text ({sys.get_int_max_str_digits() or 4300:,})")
    if isinstance(value, dict):
        out = {str(k): v if isinstance(v, str) else str(v)
               for k, v in value.items() if not is_blank(v)}
    elif isinstance(value, (list, tuple)):
        if len(value) > len(LETTERS):
            raise ValueError(f"{len(value)} choices; at most {len(LETTERS)} can be lettered")
        out = {LETTERS[i]: v if isinstance(v, str) else str(v) for i, v in enumerate(value)}
    else:
        raise ValueError(f"choices must be an object, a list or a string, not {type(value).__name__}")
    return out or None


def _text(value: Any) -> str | None:
    return None if is_blank(value) else value if isinstance(value, str) else str(value)


def _id(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def make_record(base: dict, raw: dict, fields: dict[str, str] | None, path: str, line: int,
                where: str, extras: dict | None = None) -> Record:
    """Validate a format-mapped dict of our field names (`base`) and build a Record.

    `fields` (our name -> source column) overrides `base` with values looked up in the source
    row `raw`; `extras` are merged into meta without overwriting its keys.
    """
    if fields:
        base = dict(base)
        for name, src in fields.items():
            found, value = lookup(raw, src) if "|" not in src else lookup_first(raw, src)
            if not found:
                raise fail(f"column {src!r} (mapped to {name}) not found",
                           path, line, where, help=f"columns: {', '.join(map(str, raw))}")
            if name.startswith("meta."):
                meta = base.get("meta")
                if not isinstance(meta, dict):
                    if not is_blank(meta) and meta != "":
                        raise fail("meta must be a JSON object", path, line, where)
                    meta = {}
                base["meta"] = {**meta, name[5:]: value}
            else:
                base[name] = value
            if extras:  # a mapped column is not also meta (`a|b`: neither of them)
                if "|" not in src:
                    if src in extras:
                        extras = {k: v for k, v in extras.items() if k != src}
                else:
                    used = _source_columns(src)
                    extras = {k: v for k, v in extras.items() if k not in used}
    missing = [f for f in REQUIRED if f not in base or (f == "id" and is_blank(base[f]))]
    if missing:
        s = "s" if len(missing) > 1 else ""
        raise fail(f"missing required field{s}: {', '.join(missing)}", path, line, where,
                   help=f"fields present: {', '.join(map(str, raw)) or 'none'}; "
                        f"map another column with --field {missing[0]}=COLUMN")
    try:
        choices = normalize_choices(base.get("choices"))
    except ValueError as e:
        raise fail(str(e), path, line, where) from None
    qt = base.get("question_type")
    if is_blank(qt) or qt == "":
        qt = MULTIPLE_CHOICE if choices else OPEN
    elif qt not in QUESTION_TYPES:
        norm = _QT_ALIASES.get(str(qt).strip().lower())
        if norm is None:
            raise fail(f"unknown question_type {qt!r} (expected one of {', '.join(QUESTION_TYPES)})",
                       path, line, where)
        qt = norm
    meta = base.get("meta")
    if is_blank(meta) or meta == "":
        meta = {}
    elif isinstance(meta, str):
        try:
            meta = orjson.loads(meta)
        except orjson.JSONDecodeError:
            meta = None
    if not isinstance(meta, dict):
        raise fail("meta must be a JSON object", path, line, where)
    if extras:
        meta = {**extras, **meta}
    response = base["response"]
    answer = base.get("answer")
    return Record(
        id=_id(base["id"]), question_type=qt,
        response="" if is_blank(response) else response if isinstance(response, str) else str(response),
        answer=None if is_blank(answer) else answer, choices=choices,
        benchmark=_text(base.get("benchmark")), model=_text(base.get("model")),
        question=_text(base.get("question")), meta=meta, where=where)


# ---------------------------------------------------------------- format mappings

def is_lmms(obj: dict) -> bool:
    """True when a JSON object looks like an lmms-eval --log_samples line: with its `doc`, or, as
    lmms-eval 0.4+ logs by default, only `doc_id` and `target` beside the replies."""
    return (("doc" in obj or ("doc_id" in obj and "target" in obj))
            and ("filtered_resps" in obj or "resps" in obj) and "response" not in obj)


def ours_base(obj: dict) -> tuple[dict, dict]:
    """(base, extras) for an object in our schema: extras are the non-schema keys."""
    base = {k: obj[k] for k in OUR_FIELDS if k in obj}
    extras = {k: v for k, v in obj.items() if k not in base and k not in OUR_FIELDS}
    return base, extras


def _first(value: Any) -> Any:
    while isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return value


def _numbered_options(doc: dict) -> dict:
    """Q-Bench's / A-Bench's doc keeps its options in `option0`, `option1`, ...: lettered A, B, ... up to
    the first key missing, blank or "N/A" (the datasets pad their four columns with "N/A", and
    q_bench_process_results stops at the first)."""
    out = {}
    for i, letter in enumerate(LETTERS):
        value = doc.get(f"option{i}")
        if is_blank(value) or value == "N/A":
            break
        out[letter] = value
    return out


def lmms_base(obj: dict) -> tuple[dict, dict]:
    """(base, extras) for an lmms-eval --log_samples line (mapping in the module docstring)."""
    doc = obj.get("doc") if isinstance(obj.get("doc"), dict) else {}
    resp = _first(obj["filtered_resps"] if "filtered_resps" in obj else obj.get("resps"))
    options = doc.get("options", doc.get("choices"))
    if is_blank(options) and any(k in doc for k in LETTERS):
        options = {k: doc[k] for k in LETTERS if k in doc and not is_blank(doc[k])}
    elif is_blank(options) and "option0" in doc:
        options = _numbered_options(doc)
    qt = doc.get("question_type")
    known = isinstance(qt, str) and (qt in QUESTION_TYPES or qt.strip().lower() in _QT_ALIASES)
    base = {"response": resp, "answer": obj.get("target"), "choices": options,
            "question_type": qt if known else None, "question": doc.get("question"),
            "benchmark": obj.get("task")}
    if not is_blank(doc.get("id")) and doc.get("id") != "":
        base["id"] = doc["id"]
    elif "doc_id" in obj:
        base["id"] = obj["doc_id"]
    meta: dict = {"doc_id": obj.get("doc_id")}
    if "filter" in obj:
        meta["filter"] = obj["filter"]
    meta.update({k: v for k, v in doc.items() if (k not in _LMMS_DOC_MAPPED or (k == "question_type" and not known))
                 and k not in LETTERS and (v is None or isinstance(v, (str, int, float, bool)))})
    raw = _first(obj.get("resps"))
    if "resps" in obj and raw != resp:
        meta["resps"] = raw
    metrics = {k: v for k, v in obj.items() if k not in _LMMS_KEYS}
    if metrics:
        meta["metrics"] = metrics
        for v in metrics.values():
            if isinstance(v, dict) and "parsed_pred" in v:
                meta["reference_extraction"] = v["parsed_pred"]
                break
        if not doc:  # a slim line: what the task noted per sample (MME's question_id and category) stands in
            for v in metrics.values():
                if isinstance(v, dict):
                    meta.update({k: x for k, x in v.items() if k not in meta and k not in _SAMPLE_VERDICT
                                 and (x is None or isinstance(x, (str, int, float, bool)))})
    return base, meta


# per-sample metric fields that are the framework's verdict, not facts about the document
_SAMPLE_VERDICT = {"id", "score", "answer", "parsed_pred", "pred", "prediction", "correct", "exact_match"}


_OURS = frozenset(OUR_FIELDS)


def _plain_record(obj: dict, where: str) -> Record | None:
    """The Record of an object in our schema whose every field already has its final type
    (string id and response, {letter: text} choices, a canonical question type, dict or no meta),
    or None when anything needs `make_record`'s conversions or error messages. Same result."""
    get = obj.get
    rid, response = get("id"), get("response")
    if type(rid) is not str or not rid or type(response) is not str:
        return None
    choices, qt, meta = get("choices"), get("question_type"), get("meta")
    if choices is not None and not (type(choices) is dict and choices and set(map(type, choices.values())) == _STR):
        return None
    if qt is None:
        qt = MULTIPLE_CHOICE if choices else OPEN
    elif qt not in QUESTION_TYPES:
        return None
    if meta is None:
        meta = {}
    elif type(meta) is not dict:
        return None
    layout = tuple(obj)  # the lines of a file share a few key layouts: their extra keys are looked up once
    extras = _EXTRAS.get(layout)
    if extras is None:
        if len(_EXTRAS) > 1000:
            _EXTRAS.clear()
        extras = _EXTRAS[layout] = tuple(k for k in layout if k not in _OURS)
    if extras:  # keys outside our schema go to meta, in the line's order (meta's own keys win)
        meta = {extras[0]: obj[extras[0]], **meta} if len(extras) == 1 else {**{k: obj[k] for k in extras}, **meta}
    answer, benchmark, model, question = get("answer"), get("benchmark"), get("model"), get("question")
    if type(answer) is float and answer != answer:  # NaN: an empty cell
        answer = None
    return Record(rid, qt, response, answer, choices,
                  benchmark if benchmark is None or type(benchmark) is str else _text(benchmark),
                  model if model is None or type(model) is str else _text(model),
                  question if question is None or type(question) is str else _text(question), meta, where)


_STR = {str}
_EXTRAS: dict[tuple, tuple] = {}


def record_from_obj(obj: Any, fields: dict[str, str] | None, path: str, line: int, where: str,
                    lmms: bool | None = None) -> Record:
    """Build a Record from one decoded JSON object, our schema or lmms-eval (auto when None)."""
    if not fields and lmms is not True and type(obj) is dict and "response" in obj:
        record = _plain_record(obj, where)
        if record is not None:
            return record
    return _converted_record(obj, fields, path, line, where, lmms)


def _converted_record(obj: Any, fields: dict[str, str] | None, path: str, line: int, where: str,
                      lmms: bool | None) -> Record:
    """`record_from_obj` for an object `_plain_record` did not take: other formats, mappings,
    conversions and the errors that name what is wrong."""
    if not isinstance(obj, dict):
        raise fail(f"expected a JSON object, got {type(obj).__name__}", path, line, where)
    if lmms if lmms is not None else is_lmms(obj):
        base, extras = lmms_base(obj)
    else:
        base, extras = ours_base(obj)
    return make_record(base, obj, fields, path, line, where, extras)


# ---------------------------------------------------------------- reader

def read_jsonl(path: str, fields: dict[str, str] | None = None,
               lmms: bool | None = None, f: IO[bytes] | None = None) -> Iterator[Record]:
    """Stream Records from a JSONL file (optionally gzipped) in constant memory.

    Each line is our schema or an lmms-eval --log_samples line (detected per line unless `lmms`
    forces it). Blank lines are skipped; a line that is not valid JSON raises InputError at
    ``path:LINE``. `f`, when given, is the already opened stream of `path` (a pipe, stdin).
    """
    f = f if f is not None else open_bytes(path)
    name = "<stdin>" if path == "-" else path
    try:
        yield from records_from_lines(bounded_lines(f), name, 1, fields, lmms)
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _json_error(line: bytes, name: str, n: int) -> InputError:
    """The InputError for a line that is not valid JSON, its column counted in the line itself
    (without its line end, which orjson would count as the start of a second line)."""
    end = len(line)
    while end and line[end - 1] in b"\r\n":
        end -= 1
    try:
        orjson.loads(memoryview(line)[:end])  # a view: a 500 MB line is not copied again
    except orjson.JSONDecodeError as e:
        return InputError(f"invalid JSON: {e.msg}", loc=Loc(name, n, e.colno))
    return InputError("invalid JSON", loc=Loc(name, n, 0))  # pragma: no cover - the line failed above


def records_from_lines(lines: Iterable[bytes], name: str, first_line: int = 1,
                       fields: dict[str, str] | None = None, lmms: bool | None = None,
                       bom: bool = True) -> Iterator[Record]:
    """Records of JSONL `lines` (bytes, newline-terminated or not) whose first is line `first_line`
    of file `name`: blank lines skipped, a byte-order mark on line 1 dropped (when `bom`: the lines
    start the file), bad JSON an InputError at ``name:LINE``, a stream that breaks off (truncated gzip)
    E301 after the last whole line (also used by rulekit.run.parallel on byte ranges of a file). A line
    longer than the `line-bytes` limit is E302 (`bounded_lines` reads no more of it than that)."""
    loads, plain = orjson.loads, not fields and lmms is not True
    n = first_line - 1
    cap = limit("line-bytes")
    try:  # only the line iterator can raise a read error (a gzip stream that breaks off)
        for n, line in enumerate(lines, first_line):
            if len(line) > cap and line_too_long(line, cap):
                raise over("line-bytes", f"line {n} is longer than", Loc(name, n, 0))
            if n == 1 and bom and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except orjson.JSONDecodeError:
                raise _json_error(line, name, n) from None
            where = f"{name}:{n}"
            if plain and type(obj) is dict and "response" in obj:  # record_from_obj, inline
                record = _plain_record(obj, where)
                if record is not None:
                    yield record
                    continue
            yield _converted_record(obj, fields, name, n, where, lmms)
    except READ_ERRORS as e:
        raise corrupt(name, e, n) from None
