"""Dataset layouts as data: how a benchmark release's rows become the items `rulekit generate` asks.

A layout is a YAML file in `layouts/` (shipped in the wheel as `rulekit.layouts`), one per release
schema. It names the release (`source:`), writes down its columns as `datasets` Features
(`features:`, read from the dataset card's `dataset_info` and the code that loads it), and maps a row
to an item with a small vocabulary; nothing in it is executed:

```yaml
layout: mmstar
benchmark: MMStar
source: {dataset: Lin-Chen/MMStar, split: val, schema: "the dataset card's dataset_info", confirmed: true}
features: {index: int64, question: string, image: image, answer: string, meta_info: {source: string}}
id: index                                  # a column; {column: C, prefix: P}; {row: P} = "P/<split>/<row>"
question: question                         # a column, or a list: the first column the row has
hint: hint                                 # blank or "nan" is no hint
question-type: multiple-choice             # or open; or {column: C, open: [values]}; default: by options
options: {columns: [A, B, C, D]}           # or {columns: {A: choice_a, ...}}, {list: C}, {text: C, ...}
answer: answer                             # a column, or {column: C, index: true | strip: "()" | list: true}
images: [image]                            # columns; {columns: [...], encoding: base64}
meta: {category: category, source: meta_info.source}   # record meta: a column or COLUMN.FIELD of a struct
```

Features: `string`, `int64`, `int32`, `int16`, `float64`, `float32`, `bool`, `binary`, `image`, a list
`[string]` / `[image]`, a mapping for a struct. `detect:` (default: every feature) is the set of
columns that identifies the layout when `--layout auto` looks at a row.

Options (blank ones — None, NaN, whitespace — are skipped, the rest lettered in order):
- `{columns: [A, B, ...]}`: a column per option, its name the letter; `{columns: {A: choice_a, ...}}`
  names the letters.
- `{list: C}`: a list, or a string holding a Python/JSON list literal (read with
  `ast.literal_eval`, never `eval`); `labels: strip` removes "A. " / "(A) " when every option starts
  with its own letter in order.
- `{text: C, start: S, label: "{letter}: ", separator: ", "}`: options written inside a text (after
  the first `start`, or the whole text), "A: x, B: y": cut at each `separator` + the next letter's
  label. MMStar's release keeps its options in the question this way.

Answer: `index: true` reads a 0-based index (int or digit string) as its letter (AI2D's "1" is B);
`strip: "()"` strips those characters from both ends ("(A)" → "A", BLINK); `list: true` reads a
list literal string ("['a', 'b']") as a list of accepted answers; `letters: [..]`... see `Answer`.

Images: a column value may be a decoded image, a list of them (SEED-Bench-2 keeps a row's images in
one list column), a `datasets` {"bytes", "path"} dict, bytes, or a file path (relative paths are read
from the dataset's folder); with `encoding: base64` a string is base64 image bytes, or a list literal
of them (VLMEvalKit's TSV). Every image a row has goes into the item with its column name, in
column order; the prompt style chooses which to send (`which-images:`).

`each:` makes several items of one row (CharXiv's descriptive questions): `{n: [1, 2, 3, 4], when:
"descriptive_a{n}"}` makes an item for each n whose column is present, and `{n}` in any column name
of the layout is replaced by it; `lookup:` tables turn a column's value into text (`question: {column:
"descriptive_q{n}", lookup: questions}` with `tables: {questions: {1: "...", ...}}`).
"""
from __future__ import annotations

import ast
import base64
import binascii
import math
import re
from pathlib import Path
from typing import Any, Iterator, Literal, Optional, Union

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulekit.core.errors import UsageError
from rulekit.core.records import MULTIPLE_CHOICE, OPEN
from rulekit.core.resources import resource_dir

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SCALARS = ("string", "int64", "int32", "int16", "int8", "float64", "float32", "bool", "binary", "image")


def _dash(name: str) -> str:
    return name.replace("_", "-")


class _Word(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=_dash, populate_by_name=True)


class Source(_Word):
    """Where the release comes from and how sure its `features` are: `dataset` (a hub name), `config`
    and `split` as the original loads it, `reader` (the code that loads it), `schema` (where the
    columns were read), `confirmed` (false when they could not be checked against the card), `notes`."""

    dataset: str
    config: Optional[str] = None
    split: Optional[str] = None
    reader: Optional[str] = None
    schema_: Optional[str] = Field(default=None, alias="schema")
    confirmed: bool = True
    notes: Optional[str] = None


class Column(_Word):
    """A column with a prefix (`id: {column: index, prefix: "mmstar/"}`), read through a lookup table
    (`question: {column: descriptive_q{n}, lookup: questions}`), a regex's group 1 (`meta: {subject:
    {column: id, regex: "^[a-z]+_(.+?)_\\\\d+$"}}`), a list joined (`join: ","`), or the letter of the
    option whose text the value is (`option-letter: true`: MathVista's gold text → its letter)."""

    column: str
    prefix: str = ""
    lookup: Optional[str] = None
    regex: Optional[str] = None
    join: Optional[str] = None
    option_letter: bool = False


class Constant(_Word):
    """`meta: {mode: {value: descriptive}}`: the same value for every item."""

    value: Union[str, int, float, bool]


class IdFormat(_Word):
    """`id: {format: "{category}_{question_id}"}`: columns written into a text (`{{`/`}}` are braces)."""

    format: str


class RowId(_Word):
    """`id: {row: NAME}`: the release has no id column; an item is "NAME/<split>/<row number>"."""

    row: str


class QuestionType(_Word):
    """`question-type: {column: C, open: [values]}`: open when the column holds one of `open`, else
    multiple-choice (when it has options)."""

    column: str
    open: list[str]


class ColumnOptions(_Word):
    """`options: {columns: [A, B, ...]}` or `{columns: {A: choice_a, ...}}`: a column per option."""

    columns: Union[list[str], dict[str, str]]


class ListOptions(_Word):
    """`options: {list: C}`: a list column, or a list literal string; `labels: strip` removes "A. "
    labels when every option has its own letter in order."""

    list_: str = Field(alias="list")
    labels: Literal["keep", "strip"] = "keep"


class TextOptions(_Word):
    """`options: {text: C, start: S, end: E, label: "{letter}: ", separator: ", "}`: options written in a
    text, from the first `start` that the first option's label follows (without `start`: the text must
    begin with that label) up to the first `end` after them (else to its end), cut at each `separator`
    followed by the next letter's label; `{lower}` in `label` is the letter in lower case."""

    text: str
    start: Optional[str] = None
    end: Optional[str] = None
    label: str = "{letter}. "
    separator: str = "\n"


class Answer(_Word):
    """`answer: {column: C, ...}`: `index: true` a 0-based option index as its letter; `strip: "()"`
    characters stripped from both ends; `list: true` a list literal string read as a list; `upper:
    true` upper-cased; `text: true` a number written as text (an int 3 → "3"); `map: {"1": "Yes"}` a
    value (as text, after the rest) replaced (HallusionBench's "1"/"0" → VLMEvalKit's "Yes"/"No")."""

    column: Union[str, list[str]]
    index: bool = False
    strip: Optional[str] = None
    list_: bool = Field(default=False, alias="list")
    upper: bool = False
    text: bool = False
    map: dict[str, str] = {}


class Images(_Word):
    """`images: {columns: [...], encoding: base64}`: image columns; `encoding: base64` reads strings as
    base64 image bytes (VLMEvalKit's TSV), `path` (the default for strings) as file paths."""

    columns: list[str]
    encoding: Literal["auto", "base64", "path"] = "auto"


class Each(_Word):
    """`each: {n: [1, 2, 3, 4], when: "descriptive_a{n}"}`: an item per value of n whose `when` column
    is present and not blank; `{n}` in the layout's column names is replaced by it, and the item id
    gets "/n" appended."""

    n: list[Union[int, str]]
    when: str


class Layout(_Word):
    """A dataset layout file (see the module docstring)."""

    layout: str
    summary: str = ""
    benchmark: Optional[str] = None
    source: Optional[Source] = None
    features: dict[str, Any] = {}
    detect: Optional[list[str]] = None
    each: Optional[Each] = None
    tables: dict[str, dict[str, str]] = {}
    id: Union[str, Column, RowId, IdFormat]
    question: Union[str, list[str], Column] = "question"
    hint: Optional[str] = None
    question_type: Union[Literal["multiple-choice", "open"], QuestionType, None] = None
    options: Union[ColumnOptions, ListOptions, TextOptions, None] = None
    answer: Union[str, Answer, None] = None
    images: Union[list[str], Images] = []
    meta: dict[str, Union[str, Column, Constant]] = {}
    other_columns: Literal["drop", "meta"] = "drop"

    @model_validator(mode="after")
    def _check(self) -> "Layout":
        _feature_types(self.features)  # raises on an unknown type
        for name, value in self.meta.items():
            if isinstance(value, Column) and value.lookup and value.lookup not in self.tables:
                raise ValueError(f"meta `{name}`: no table `{value.lookup}`")
        if isinstance(self.question, Column) and self.question.lookup and self.question.lookup not in self.tables:
            raise ValueError(f"question: no table `{self.question.lookup}`")
        return self


def _feature_types(spec: Any, where: str = "features") -> None:
    if isinstance(spec, dict):
        for k, v in spec.items():
            _feature_types(v, f"{where}.{k}")
    elif isinstance(spec, str):
        inner = spec[1:-1] if spec.startswith("[") and spec.endswith("]") else spec
        if inner not in SCALARS and not (inner.startswith("[") and inner.endswith("]")):
            raise ValueError(f"{where}: unknown type `{spec}` (known: {', '.join(SCALARS)}, [TYPE], a mapping)")
        if inner != spec:
            _feature_types(inner, where)
    elif isinstance(spec, list) and len(spec) == 1:
        _feature_types(spec[0], where)
    else:
        raise ValueError(f"{where}: a type is a name, [TYPE] or a mapping, not {spec!r}")


# ---------------------------------------------------------------- loading
def builtin_layouts() -> dict[str, Path]:
    """Name → path of every built-in layout."""
    return {p.stem: p for p in sorted(resource_dir("layouts").glob("*.yaml"))}


_CACHE: dict[str, "Layout"] = {}


def load_layout(name_or_path: str) -> Layout:
    """A built-in layout by name, or a YAML file (E105 when neither; E113 when it does not validate)."""
    found = _CACHE.get(name_or_path)
    if found is not None:
        return found
    from rulekit.language.loader import load_named_yaml

    layout, _ = load_named_yaml("layout", name_or_path, builtin_layouts(), Layout)
    _CACHE[name_or_path] = layout
    return layout


def features(layout: Layout):
    """The layout's columns as `datasets.Features` (what a local copy of the release is built with)."""
    import datasets

    def build(spec: Any):
        if isinstance(spec, dict):
            return {k: build(v) for k, v in spec.items()}
        if isinstance(spec, list):
            return datasets.Sequence(build(spec[0]))
        if spec.startswith("["):
            return datasets.Sequence(build(spec[1:-1]))
        if spec == "image":
            return datasets.Image()
        return datasets.Value(spec)
    return datasets.Features({k: build(v) for k, v in layout.features.items()})


def detect(row: dict, candidates: list[str] | None = None) -> str | None:
    """The built-in layout a row's columns fit: of those whose `detect` columns (default: every feature)
    the row has, the one whose features are most like the row's columns (the share of columns in both,
    of columns in either); None when none fits. Two that fit equally well are a UsageError naming them
    (give `--layout`)."""
    cols = set(row)
    scored: list[tuple[float, str]] = []
    for name in candidates if candidates is not None else builtin_layouts():
        layout = load_layout(name)
        needed = set(layout.detect if layout.detect is not None else layout.features)
        if needed and needed <= cols:
            have = set(layout.features) | needed
            scored.append((len(have & cols) / len(have | cols), name))
    scored.sort(key=lambda x: -x[0])
    if not scored:
        return None
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        tied = [n for score, n in scored if score == scored[0][0]]
        raise UsageError(f"the data's columns fit the layouts {', '.join(tied)} equally well",
                         help="choose one with --layout", code="E400")
    return scored[0][1]


# ---------------------------------------------------------------- mapping
class Mapped:
    """What a layout makes of one row (the fields of a `benchmarks.Item`)."""

    __slots__ = ("id", "question_type", "question", "choices", "answer", "benchmark", "hint", "images",
                 "image_names", "meta")

    def __init__(self, **kw: Any):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def blank(value: Any) -> bool:
    """None, NaN, or a string of whitespace (a missing value, as pandas and `datasets` write one)."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def get(row: dict, column: str) -> Any:
    """A column's value; `COLUMN.FIELD` reads a field of a struct (a dict) column."""
    if column in row:
        return row[column]
    head, dot, tail = column.partition(".")
    if dot and isinstance(row.get(head), dict):
        return get(row[head], tail)
    return None


def has(row: dict, column: str) -> bool:
    """Whether the row has the column (a struct's field for `COLUMN.FIELD`)."""
    if column in row:
        return True
    head, dot, tail = column.partition(".")
    return bool(dot) and isinstance(row.get(head), dict) and has(row[head], tail)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and not math.isinf(value):
        return str(value)
    return str(value)


def literal(value: Any) -> Any:
    """A list/dict/tuple literal string read as data (`ast.literal_eval`, then JSON); other values as given."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in "[{(":
            try:
                return ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                try:
                    return orjson.loads(text)
                except orjson.JSONDecodeError:
                    raise ValueError(f"not a list literal: {text[:60]!r}") from None
    return value


_PLACE = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")
_LABEL = re.compile(r"^\s*\(?([A-Z])[\.\):]\s*")


def _lettered(options: list[str]) -> dict[str, str]:
    if len(options) > len(LETTERS):
        raise ValueError(f"{len(options)} options: at most 26 can be lettered")
    return {LETTERS[i]: o for i, o in enumerate(options)}


class _Row:
    """A row with `{n}` substituted in every column name read (for `each:`)."""

    def __init__(self, row: dict, n: Any = None):
        self.row, self.n = row, n

    def name(self, column: str) -> str:
        return column.replace("{n}", str(self.n)) if self.n is not None else column

    def get(self, column: str) -> Any:
        return get(self.row, self.name(column))

    def has(self, column: str) -> bool:
        return has(self.row, self.name(column))


def map_row(layout: Layout, row: dict, index: int, split: str | None, base: Path | None = None) -> Iterator[Mapped]:
    """The items of one row (one, or one per `each:` value); ValueError/KeyError/TypeError on a row that
    does not fit."""
    if layout.each is None:
        yield _map_one(layout, _Row(row), index, split, base)
        return
    for n in layout.each.n:
        r = _Row(row, n)
        if r.has(layout.each.when) and not blank(r.get(layout.each.when)):
            item = _map_one(layout, r, index, split, base)
            item.id = f"{item.id}/{n}"
            yield item


def _map_one(layout: Layout, r: _Row, index: int, split: str | None, base: Path | None) -> Mapped:
    rid = _id(layout, r, index, split)
    question = _question(layout, r)
    choices = _options(layout.options, r)
    qtype = _question_type(layout, r, choices)
    if qtype == OPEN:
        choices_out = None
    else:
        choices_out = choices or None
    answer = _answer(layout.answer, r, choices)
    hint = None
    if layout.hint and r.has(layout.hint):
        h = r.get(layout.hint)
        if not blank(h) and str(h).strip().lower() != "nan":
            hint = _text(h)
    images, names = _images(layout.images, r, base)
    meta: dict[str, Any] = {}
    for key, spec in layout.meta.items():
        value = _column_value(layout, spec, r)
        if not blank(value) and not (isinstance(value, (list, dict)) and not value):
            meta[key] = _plain(value)
    if layout.other_columns == "meta":
        for key in _unmapped(layout, r.row):
            value = r.row[key]
            if not blank(value) and not isinstance(value, (bytes, bytearray)) and not _is_image(value):
                meta.setdefault(key, _plain(value))
    if qtype == OPEN and choices:
        meta.setdefault("options", list(choices.values()))
    return Mapped(id=rid, question_type=qtype, question=question, choices=choices_out, answer=answer,
                  benchmark=layout.benchmark, hint=hint, images=images, image_names=names, meta=meta)


def _is_image(value: Any) -> bool:
    return hasattr(value, "getpixel") or (isinstance(value, dict) and "bytes" in value)


def _unmapped(layout: Layout, row: dict) -> list[str]:
    """The row's columns the layout reads for no field (`other-columns: meta` keeps them in meta)."""
    used: set[str] = set()

    def add(spec: Any) -> None:
        if isinstance(spec, str):
            used.add(spec.split(".")[0])
        elif isinstance(spec, list):
            for x in spec:
                add(x)
        elif isinstance(spec, dict):
            for x in spec.values():
                add(x)
        elif isinstance(spec, BaseModel):
            for name in ("column", "columns", "list_", "text", "when"):
                if hasattr(spec, name):
                    add(getattr(spec, name))
    for spec in (layout.id, layout.question, layout.hint, layout.options, layout.answer, layout.images,
                 layout.meta, layout.question_type):
        add(spec)
    return [k for k in row if k not in used]


def _plain(value: Any) -> Any:
    """A value for a JSON record: numpy scalars and arrays as Python values."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _column_value(layout: Layout, spec: Union[str, Column, Constant], r: _Row) -> Any:
    if isinstance(spec, str):
        return r.get(spec)
    if isinstance(spec, Constant):
        return spec.value
    value = r.get(spec.column)
    if spec.lookup is not None and not blank(value):
        value = layout.tables[spec.lookup].get(_text(value), value)
    if spec.regex is not None and value is not None:
        from rulekit.core.regex import REGEX_TIMEOUT, compile_regex

        m = compile_regex(spec.regex, None).search(_text(value), timeout=REGEX_TIMEOUT)
        value = m.group(1) if m else None
    if spec.join is not None and isinstance(_plain(value), list):
        value = spec.join.join(_text(v) for v in _plain(value))
    if spec.option_letter:
        choices = _options(layout.options, r) or {}
        value = next((k for k, v in choices.items() if v == _text(value)), None)
    if spec.prefix and value is not None:
        value = spec.prefix + _text(value)
    return value


def _id(layout: Layout, r: _Row, index: int, split: str | None) -> str:
    spec = layout.id
    if isinstance(spec, RowId):
        return f"{spec.row}/{split or 'data'}/{index}"
    if isinstance(spec, IdFormat):
        return _PLACE.sub(lambda m: "{" if m.group(0) == "{{" else "}" if m.group(0) == "}}"
                          else _text(r.get(m.group(1))), spec.format)
    value = _column_value(layout, spec, r)
    if blank(value):
        raise ValueError(f"no id in column `{spec if isinstance(spec, str) else spec.column}`")
    return _text(value)


def _question(layout: Layout, r: _Row) -> str:
    spec = layout.question
    if isinstance(spec, Column):
        value = _column_value(layout, spec, r)
        return "" if value is None else _text(value)
    for column in [spec] if isinstance(spec, str) else spec:
        if r.has(column):
            value = r.get(column)
            return "" if value is None else _text(value)
    return ""


def _question_type(layout: Layout, r: _Row, choices: dict | None) -> str:
    spec = layout.question_type
    if spec is None:
        return MULTIPLE_CHOICE if choices else OPEN
    if isinstance(spec, str):
        return spec
    value = r.get(spec.column)
    return OPEN if _text(value) in spec.open else MULTIPLE_CHOICE


def _options(spec: Any, r: _Row) -> dict[str, str] | None:
    if spec is None:
        return None
    if isinstance(spec, ColumnOptions):
        pairs = spec.columns.items() if isinstance(spec.columns, dict) else ((c, c) for c in spec.columns)
        out = {}
        for letter, column in pairs:
            value = r.get(column) if r.has(column) else None
            if not blank(value):
                out[letter] = _text(value)
        return out or None
    if isinstance(spec, ListOptions):
        value = literal(r.get(spec.list_))
        if blank(value):
            return None
        if isinstance(value, dict):
            return {str(k): _text(v) for k, v in value.items()} or None
        if hasattr(value, "tolist"):
            value = value.tolist()
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"options in `{spec.list_}` must be a list, got {type(value).__name__}")
        options = [_text(v) for v in value]
        if spec.labels == "strip":
            labels = [_LABEL.match(o) for o in options]
            if options and all(labels) and [m.group(1) for m in labels] == list(LETTERS[:len(options)]):
                options = [o[m.end():] for o, m in zip(options, labels)]
        return _lettered(options) if options else None
    text = r.get(spec.text)
    if blank(text):
        return None
    text = str(text)
    def label(i: int) -> str:
        return spec.label.replace("{letter}", LETTERS[i]).replace("{lower}", LETTERS[i].lower())
    first = label(0)
    if spec.start is not None:  # the options begin at the first `start` that the first label follows
        at = text.find(spec.start + first)
        if at < 0:
            return None
        text = text[at + len(spec.start):]
    elif not text.startswith(first):
        return None
    if spec.end is not None and spec.end in text:
        text = text[:text.find(spec.end)]
    out, rest, i = {}, text[len(first):], 0
    while True:
        nxt = spec.separator + label(i + 1) if i + 1 < len(LETTERS) else None
        cut = rest.find(nxt) if nxt else -1
        if cut < 0:
            out[LETTERS[i]] = rest
            return out
        out[LETTERS[i]] = rest[:cut]
        rest, i = rest[cut + len(nxt):], i + 1


def _answer(spec: Any, r: _Row, choices: dict | None) -> Any:
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = Answer(column=spec)
    columns = [spec.column] if isinstance(spec.column, str) else spec.column
    value = None
    for column in columns:
        if r.has(column) and not blank(r.get(column)):
            value = r.get(column)
            break
    if value is None:
        return None
    value = _plain(value)
    if spec.index:
        text = _text(value).strip()
        if isinstance(value, bool) or not (isinstance(value, int) or text.isdigit()):
            raise ValueError(f"answer {value!r} is not an option index")
        i = int(text)
        if i >= len(LETTERS):
            raise ValueError(f"answer index {i} is past Z")
        return LETTERS[i]
    if spec.list_:
        value = literal(value) if isinstance(value, str) and value.strip().startswith("[") else value
        if isinstance(value, (list, tuple)):
            return [_text(v) for v in value]
    if spec.text and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = _text(value)
    if isinstance(value, str):
        if spec.strip is not None:
            value = value.strip(spec.strip)
        if spec.upper:
            value = value.upper()
    if spec.map and not isinstance(value, list):
        value = spec.map.get(_text(value), value)
    return value


def _images(spec: Any, r: _Row, base: Path | None) -> tuple[list, list[str]]:
    if isinstance(spec, list):
        spec = Images(columns=spec)
    images, names = [], []
    for column in spec.columns:
        if not r.has(column):
            continue
        value = r.get(column)
        if spec.encoding == "base64" and isinstance(value, str) and value.strip().startswith("["):
            value = literal(value)
        values = value if isinstance(value, (list, tuple)) else [value]
        for n, v in enumerate(values):
            if blank(v) or (isinstance(v, dict) and not (v.get("bytes") or v.get("path"))):
                continue
            name = r.name(column) if len(values) == 1 else f"{r.name(column)}[{n}]"
            images.append(_image(v, spec.encoding, base, name))
            names.append(name)
    return images, names


def _image(value: Any, encoding: str, base: Path | None, name: str) -> Any:
    if isinstance(value, str):
        if encoding == "base64":
            try:
                return base64.b64decode(value, validate=False)
            except (binascii.Error, ValueError):
                raise ValueError(f"`{name}` is not base64 image data") from None
        path = Path(value)
        if not path.is_absolute() and base is not None:
            path = base / path
        return str(path)
    if isinstance(value, dict) and not value.get("bytes") and value.get("path") and base is not None:
        path = Path(value["path"])
        return str(path if path.is_absolute() else base / path)
    return value
