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

Rows are mapped by a layout (`layout="auto"` detects it from the columns): a YAML file in `layouts/`
(`rulekit/generate/layouts.py` documents the vocabulary) for each release the seed suite reads — MMMU,
MMMU-Pro, MMBench, MMStar, ..., VLMEvalKit's TSV — and MMEvalPro and ScienceQA; `records` is our own
schema (as for .jsonl). A local `.tsv` is read as VLMEvalKit writes and reads its TSVs
(`pandas.read_csv(sep="\t")`).
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
_DATA_FILE_BUILDERS = {".parquet": "parquet", ".json": "json", ".jsonl": "json", ".csv": "csv"}
_LABEL = re.compile(r"^\s*\(?([A-Z])[\.\):]\s*")


def layout_names() -> tuple[str, ...]:
    """`auto`, every built-in layout, and `records` (our schema)."""
    from rulekit.generate.layouts import builtin_layouts

    return ("auto", *builtin_layouts(), "records")


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
    images: list = field(default_factory=list)   # PIL images, image bytes or image file paths
    meta: dict = field(default_factory=dict)
    image_names: list = field(default_factory=list)  # each image's column ("image_2"), for `which-images`
    options_source: str = ""                          # where the options were read (prompts' `options-source`)
    line: int = 0                                # its line in a records file (0: not from one)

    def record(self) -> dict:
        """The output record (our JSONL schema) without `response`, `model` and generation meta."""
        return {"id": self.id, "question_type": self.question_type, "question": self.question,
                "choices": self.choices, "answer": self.answer, "benchmark": self.benchmark,
                "meta": dict(self.meta)}


# ---------------------------------------------------------------- entry point
def load_items(data: str, *, split: str | None = None, config: str | None = None, layout: str = "auto",
               limit: int | None = None) -> Iterator[Item]:
    """Items from a local records file or a `datasets` dataset (see the module docstring). `layout` is
    `auto`, `records`, a built-in layout's name or a layout YAML file."""
    if layout not in ("auto", "records") and not layout.endswith((".yaml", ".yml")) and layout not in layout_names():
        raise UsageError(f"unknown layout `{layout}`", help=f"one of: {', '.join(layout_names())}", code="E400")
    path = Path(data)
    base = path if path.is_dir() else path.parent
    items: Iterable[Item]
    if path.is_file() and path.suffix in (".jsonl", ".ndjson"):
        items = _records_file(path, layout)
    elif path.is_file() and path.suffix == ".tsv":
        items = map_rows(_tsv_rows(path), "vlmevalkit-tsv" if layout == "auto" else layout, split, str(path), base)
    else:
        rows, split_name = _dataset_rows(data, split, config)
        items = map_rows(rows, layout, split_name, source=data, base=base if path.exists() else None)
    for n, item in enumerate(items):
        if limit is not None and n >= limit:
            return
        yield item


def map_rows(rows: Iterable[dict], layout: str, split: str | None, source: str = "",
             base: Path | None = None) -> Iterator[Item]:
    """Map dataset rows (dicts, as `datasets` yields them) to Items by layout ("auto": detected from the
    first row); image paths in the data are read from `base`."""
    from rulekit.generate.layouts import load_layout, map_row

    spec = None
    name = layout
    for i, row in enumerate(rows):
        if spec is None:
            name = detect_layout(row) if layout == "auto" else layout
            if name == "records":
                spec = "records"
            else:
                spec = load_layout(name)
                name = spec.layout
        if spec == "records":
            yield _map_records(row, i, split, base)
            continue
        try:
            for m in map_row(spec, row, i, split, base):
                yield Item(m.id, m.question_type, m.question, m.choices, m.answer, m.benchmark, m.hint,
                           m.images, m.meta, m.image_names, options_source=_options_source(spec))
        except (KeyError, ValueError, SyntaxError, TypeError, IndexError) as exc:
            raise InputError(f"row {i} does not fit the `{name}` layout: {exc}",
                             Loc(source, 0, 0), code="E300") from None


def _options_source(spec) -> str:
    """`columns`, `list:COLUMN` or `text:COLUMN`: where a layout reads options (a prompt's `options-source`)."""
    from rulekit.generate.layouts import ColumnOptions, ListOptions, TextOptions

    if isinstance(spec.options, ColumnOptions):
        return "columns"
    if isinstance(spec.options, ListOptions):
        return f"list:{spec.options.list_}"
    if isinstance(spec.options, TextOptions):
        return f"text:{spec.options.text}"
    return ""


def detect_layout(row: dict) -> str:
    """The layout a row's columns look like: a built-in layout (`layouts.detect`), else `records`."""
    from rulekit.generate.layouts import detect

    return detect(row) or "records"


def _tsv_rows(path: Path) -> Iterable[dict]:
    """A VLMEvalKit TSV's rows, read as VLMEvalKit reads them (`pd.read_csv(sep="\t")`: empty cells NaN,
    numbers inferred) and prepared as ImageBaseDataset.__init__ does: rows without an image dropped, and
    an `image` of at most 64 characters is the index of the row whose image it shares."""
    import pandas as pd

    try:
        frame = pd.read_csv(path, sep="\t")
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {path} as a TSV: {exc}".splitlines()[0], Loc(str(path), 0, 0),
                         code="E301") from None
    rows = frame.to_dict("records")
    if rows and "image" in rows[0]:
        rows = [r for r in rows if not (isinstance(r["image"], float) and r["image"] != r["image"])]
        images = {str(r.get("index")): str(r["image"]) for r in rows}
        for r in rows:
            ref = str(r["image"])
            if 0 < len(ref) <= 64:
                if len(images.get(ref, "")) <= 64:
                    raise InputError(f"row {r.get('index')}: `image` {ref!r} names no row with an image",
                                     Loc(str(path), 0, 0), code="E300")
                r["image"] = images[ref]
    return rows


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
            # one file is one split (`datasets` calls it train); --split only names it (in row-number ids)
            ds = datasets.load_dataset(_DATA_FILE_BUILDERS[path.suffix], data_files=str(path), split="train")
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
        rows, lines = [], []
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
            lines.append(n)
    if layout != "records" and rows and (layout != "auto" or detect_layout(rows[0]) != "records"):
        yield from map_rows(rows, layout, None, str(path), base=path.parent)
        return
    for row, n in zip(rows, lines):
        item = _map_records(row, 0, None, base=path.parent)
        item.line = n
        yield item


# ---------------------------------------------------------------- our records
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

