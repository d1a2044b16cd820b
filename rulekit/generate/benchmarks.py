"""Questions to generate answers for: our JSONL records, or benchmarks through Hugging Face `datasets`.

`load_items(data, split=..., config=..., layout=...)` yields `Item`s from

- a local `.jsonl` in our record schema (`id`, `question`, `choices`, `answer`, `question_type`,
  `benchmark`, `meta`; optional `hint` and `images`, a list of image file paths; `response` is
  not needed);
- a directory written by `Dataset.save_to_disk` / `DatasetDict.save_to_disk` (`load_from_disk`);
- a local data file (`.parquet`, `.json`, `.jsonl`, `.csv`) read with `load_dataset(builder,
  data_files=...)`;
- anything else `datasets.load_dataset(data, config, split=split)` accepts: a local dataset
  directory, or a hub name such as `MMMU/MMMU` (needs the network, or a local cache with
  `HF_DATASETS_OFFLINE=1`).

Rows are mapped by the benchmark's layout (`layout="auto"` detects it from the columns):

=========  ==================================================================================
mmmu       `id`; `question_type` ("multiple-choice"/"open"); `options` is a Python-literal
           string (`ast.literal_eval`), lettered A, B, ...; `answer` a letter (open: the text,
           a list when it is a list literal); images = the `image_N` columns the question or
           options mention as `<image N>` (all non-empty ones when none is mentioned);
           meta: subfield, topic_difficulty, img_type, subject (from the id)
mmevalpro  id = str(`index`); `triplet_id`, `eval_type`, `source`, `question_category` into meta
           (the triplet is `meta.triplet_id`, as the `mmevalpro` rulesets group it); `choices`
           a list (leading "A. " / "(A) " labels are removed), a dict or a literal string;
           `image`; benchmark "MMEvalPro"
scienceqa  no id column: id = "scienceqa/<split>/<row>"; `choices` a list; `answer` the index of
           the right choice (→ its letter); `hint` → the `{hint}` variable; `image` (may be empty);
           meta: subject, topic, category, skill, grade, task
records    our schema (as for .jsonl)
=========  ==================================================================================
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from rulekit.core.errors import InputError, Loc, UsageError
from rulekit.core.records import MULTIPLE_CHOICE, OPEN

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LAYOUTS = ("auto", "mmmu", "mmevalpro", "scienceqa", "records")
_DATA_FILE_BUILDERS = {".parquet": "parquet", ".json": "json", ".jsonl": "json", ".csv": "csv"}
_LABEL = re.compile(r"^\s*\(?([A-Z])[\.\):]\s*")


@dataclass
class Item:
    """One question to ask a model: what the prompt needs, plus what the output record keeps."""

    id: str
    question_type: str
    question: str
    choices: dict[str, str] | None = None
    answer: Any = None
    benchmark: str | None = None
    hint: str | None = None
    images: list = field(default_factory=list)   # PIL images or image file paths
    meta: dict = field(default_factory=dict)

    def record(self) -> dict:
        """The output record (our JSONL schema) without `response`, `model` and generation meta."""
        return {"id": self.id, "question_type": self.question_type, "question": self.question,
                "choices": self.choices, "answer": self.answer, "benchmark": self.benchmark,
                "meta": dict(self.meta)}


# ---------------------------------------------------------------- entry point
def load_items(data: str, *, split: str | None = None, config: str | None = None, layout: str = "auto",
               limit: int | None = None) -> Iterator[Item]:
    """Items from a local records file or a `datasets` dataset (see the module docstring)."""
    if layout not in LAYOUTS:
        raise UsageError(f"unknown layout `{layout}`", help=f"one of: {', '.join(LAYOUTS)}", code="E400")
    path = Path(data)
    items: Iterable[Item]
    if path.is_file() and path.suffix in (".jsonl", ".ndjson") and layout in ("auto", "records"):
        items = _records_file(path, layout)
    else:
        rows, split_name = _dataset_rows(data, split, config)
        items = map_rows(rows, layout, split_name, source=data)
    for n, item in enumerate(items):
        if limit is not None and n >= limit:
            return
        yield item


def map_rows(rows: Iterable[dict], layout: str, split: str | None, source: str = "") -> Iterator[Item]:
    """Map dataset rows (dicts, as `datasets` yields them) to Items by layout ("auto": detected)."""
    mapper = None
    for i, row in enumerate(rows):
        if mapper is None:
            name = detect_layout(row) if layout == "auto" else layout
            mapper = _MAPPERS[name]
        try:
            yield mapper(row, i, split)
        except (KeyError, ValueError, SyntaxError, TypeError) as exc:
            raise InputError(f"row {i} does not fit the `{mapper.__name__[4:]}` layout: {exc}",
                             Loc(source, 0, 0), code="E300") from None


def detect_layout(row: dict) -> str:
    """The layout a row's columns look like."""
    cols = set(row)
    if "triplet_id" in cols and "eval_type" in cols:
        return "mmevalpro"
    if "options" in cols and "question_type" in cols and any(c.startswith("image_") for c in cols):
        return "mmmu"
    if "choices" in cols and isinstance(row.get("answer"), int) and ("hint" in cols or "lecture" in cols):
        return "scienceqa"
    return "records"


# ---------------------------------------------------------------- sources
def _dataset_rows(data: str, split: str | None, config: str | None) -> tuple[Iterable[dict], str | None]:
    try:
        import datasets
    except ImportError:
        raise UsageError("reading a benchmark needs the `datasets` package",
                         help="pip install 'rulekit-eval[datasets]'", code="E400") from None
    path = Path(data)
    try:
        if path.is_dir() and ((path / "dataset_info.json").is_file() or (path / "dataset_dict.json").is_file()
                              or (path / "state.json").is_file()):
            ds = datasets.load_from_disk(str(path))
        elif path.is_file() and path.suffix in _DATA_FILE_BUILDERS:
            ds = datasets.load_dataset(_DATA_FILE_BUILDERS[path.suffix], data_files=str(path), split=split or "train")
            split = split or "train"
        else:
            ds = datasets.load_dataset(data, config, split=split)
    except (FileNotFoundError, ValueError, ConnectionError, OSError) as exc:
        offline = os.environ.get("HF_DATASETS_OFFLINE") == "1" or os.environ.get("HF_HUB_OFFLINE") == "1"
        raise UsageError(f"cannot load dataset `{data}`: {exc}".splitlines()[0],
                         help=("offline mode is on: use a local copy (save_to_disk directory or data files)"
                               if offline else "a local path, or a hub name with --split (and --config)"),
                         code="E401") from None
    if isinstance(ds, datasets.DatasetDict):
        if split is None:
            if len(ds) != 1:
                raise UsageError(f"`{data}` has splits {', '.join(ds)}: choose one with --split", code="E400")
            split = next(iter(ds))
        if split not in ds:
            raise UsageError(f"`{data}` has no split `{split}`", help=f"splits: {', '.join(ds)}", code="E400")
        ds = ds[split]
    return ds, split


def _records_file(path: Path, layout: str) -> Iterator[Item]:
    from rulekit.core.limits import limit, line_too_long, over
    from rulekit.readers.jsonl import bounded_lines

    cap = limit("line-bytes")
    with path.open("rb") as f:
        rows = []
        for n, line in enumerate(bounded_lines(f), 1):  # a 1.9 GB line is never read whole: E302
            if len(line) > cap and line_too_long(line, cap):
                raise over("line-bytes", f"line {n} is longer than", Loc(str(path), n, 0))
            if not line.strip():
                continue
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg}", Loc(str(path), n, exc.colno), code="E300") from None
            if not isinstance(row, dict) or "id" not in row:
                raise InputError("a record needs an `id`", Loc(str(path), n, 1), code="E300")
            rows.append(row)
    if layout == "auto" and rows and detect_layout(rows[0]) != "records":
        yield from map_rows(rows, "auto", None, str(path))
        return
    for row in rows:
        yield _map_records(row, 0, None, base=path.parent)


# ---------------------------------------------------------------- layouts
def _letters(options: list) -> dict[str, str]:
    if len(options) > len(LETTERS):
        raise ValueError(f"{len(options)} options: at most 26 can be lettered")
    return {LETTERS[i]: str(o) for i, o in enumerate(options)}


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in "[{(":
            try:
                return ast.literal_eval(text)
            except (ValueError, SyntaxError):
                return orjson.loads(text)
    return value


def _choices(value: Any) -> dict[str, str] | None:
    value = _literal(value)
    if value is None or value == "":
        return None
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        options = [str(v) for v in value]
        labels = [_LABEL.match(o) for o in options]
        if options and all(labels) and [m.group(1) for m in labels] == list(LETTERS[:len(options)]):
            options = [o[m.end():] for o, m in zip(options, labels)]
        return _letters(options) if options else None
    raise ValueError(f"choices must be a list or mapping, got {type(value).__name__}")


def _present(value: Any) -> bool:
    return value is not None and value != "" and not (isinstance(value, float) and value != value)


def _map_mmmu(row: dict, i: int, split: str | None) -> Item:
    qtype = OPEN if str(row.get("question_type", "")).startswith("open") else MULTIPLE_CHOICE
    options = _literal(row.get("options") or "[]")
    choices = _letters(list(options)) if options and qtype == MULTIPLE_CHOICE else None
    answer = row.get("answer")
    if qtype == OPEN and isinstance(answer, str) and answer.strip().startswith("["):
        try:
            parsed = ast.literal_eval(answer.strip())
            answer = [str(a) for a in parsed] if isinstance(parsed, (list, tuple)) else answer
        except (ValueError, SyntaxError):
            pass
    text = str(row.get("question") or "") + " " + " ".join(str(o) for o in (options or []))
    mentioned = sorted({int(n) for n in re.findall(r"<image (\d+)>", text)})
    keys = [f"image_{n}" for n in mentioned] or sorted((k for k in row if re.fullmatch(r"image_\d+", k)),
                                                        key=lambda k: int(k[6:]))
    images = [row[k] for k in keys if _present(row.get(k))]
    rid = str(row["id"])
    meta = {k: row[k] for k in ("subfield", "topic_difficulty", "img_type") if _present(row.get(k))}
    m = re.match(r"^[a-z]+_(.+?)_\d+$", rid)
    if m:
        meta["subject"] = m.group(1)
    if options and qtype == OPEN:
        meta["options"] = [str(o) for o in options]
    return Item(rid, qtype, str(row.get("question") or ""), choices, answer, "MMMU", None, images, meta)


def _map_mmevalpro(row: dict, i: int, split: str | None) -> Item:
    choices = _choices(row.get("choices"))
    meta = {k: row[k] for k in ("triplet_id", "eval_type", "source", "question_category") if _present(row.get(k))}
    images = [row[k] for k in ("image", "images") if _present(row.get(k))]
    images = [x for img in images for x in (img if isinstance(img, list) else [img])]
    rid = str(row["index"]) if _present(row.get("index")) else str(row.get("id", i))
    return Item(rid, MULTIPLE_CHOICE, str(row.get("question") or ""), choices, row.get("answer"), "MMEvalPro",
                None, images, meta)


def _map_scienceqa(row: dict, i: int, split: str | None) -> Item:
    choices = _choices(row["choices"])
    answer = row.get("answer")
    if isinstance(answer, int) and choices:
        answer = list(choices)[answer]
    meta = {k: row[k] for k in ("subject", "topic", "category", "skill", "grade", "task") if _present(row.get(k))}
    images = [row["image"]] if _present(row.get("image")) else []
    rid = str(row["id"]) if _present(row.get("id")) else f"scienceqa/{split or 'data'}/{i}"
    hint = row.get("hint") if _present(row.get("hint")) else None
    return Item(rid, MULTIPLE_CHOICE if choices else OPEN, str(row.get("question") or ""), choices, answer,
                "ScienceQA", hint, images, meta)


def _map_records(row: dict, i: int, split: str | None, base: Path | None = None) -> Item:
    choices = _choices(row.get("choices"))
    qtype = row.get("question_type") or (MULTIPLE_CHOICE if choices else OPEN)
    if qtype not in (MULTIPLE_CHOICE, OPEN):
        raise ValueError(f"question_type must be multiple-choice or open, got {qtype!r}")
    images = row.get("images") or []
    if base is not None:
        images = [str(base / p) if isinstance(p, str) and not os.path.isabs(p) else p for p in images]
    meta = dict(row.get("meta") or {})
    for k, v in row.items():
        if k not in ("id", "question_type", "question", "choices", "answer", "benchmark", "meta", "hint", "images",
                     "response", "model") and k not in meta:
            meta[k] = v
    return Item(str(row["id"]), qtype, str(row.get("question") or ""), choices, row.get("answer"),
                row.get("benchmark"), row.get("hint"), list(images), meta)


_MAPPERS = {"mmmu": _map_mmmu, "mmevalpro": _map_mmevalpro, "scienceqa": _map_scienceqa, "records": _map_records}
