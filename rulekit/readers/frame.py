"""DataFrames as input: the rows of a pandas or polars DataFrame become `Record`s (`rulekit.score`).

A row is mapped as a row of a table file is (`rulekit.readers.table`: ``id`` else ``index``, ``response``
else ``prediction``, ``choices`` or the option columns A..Z, every other column into ``meta``), or, when
it has an lmms-eval ``--log_samples`` line's keys (``doc_id``, ``target``, ``resps``...), as that line is
(`rulekit.readers.jsonl`); `fields` maps columns as ``--field`` does on the command line, through the
same code (`make_record`), so an unknown column is the same E300. pandas and polars are never imported
here: a DataFrame is recognised by the module of its type, which is loaded whenever one exists.

Cells are made plain Python first: pandas' missing values (``NaN``, ``None``, ``pd.NA``, ``NaT``) read
as empty, numpy scalars as Python numbers, numpy arrays (a list column read from parquet) as lists; a
polars struct's null fields are left out (a struct column has every field in every row). As in a table
file, an empty text cell reads as missing.
Record.where is ``DataFrame row N`` (N counted from 0 in the frame's order, as ``df.iloc[N]``).
"""
from __future__ import annotations

import math
import sys
from typing import Any, Iterator

from rulekit.core.errors import UsageError
from rulekit.core.records import Record
from rulekit.readers.jsonl import is_lmms, lmms_base, make_record
from rulekit.readers.table import table_base

__all__ = ["frame_kind", "frame_rows", "read_frame"]


def frame_kind(data: Any) -> str:
    """``"pandas"`` or ``"polars"`` for a DataFrame of that library; UsageError (E400) for anything else
    (a polars LazyFrame is told to `collect()` first)."""
    for kind in ("pandas", "polars"):
        module = sys.modules.get(kind)
        if module is not None and isinstance(data, module.DataFrame):
            return kind
    name = f"{type(data).__module__}.{type(data).__qualname__}"
    if name.startswith("polars") and hasattr(data, "collect"):
        raise UsageError(f"a polars {type(data).__name__} is not a DataFrame", help="pass `lazy.collect()`")
    raise UsageError(f"expected a pandas or polars DataFrame, got {name}",
                     help="pandas.DataFrame(records) or polars.DataFrame(records) makes one from a list of dicts")


def _plain(value: Any) -> Any:
    """A cell as plain Python: numpy scalars and arrays, pandas' NA/NaT and NaN become Python values/None."""
    if value is None or type(value) in (str, int, bool, dict, list):
        if type(value) is dict:
            return {k: _plain(v) for k, v in value.items()}
        if type(value) is list:
            return [_plain(v) for v in value]
        return value
    if type(value) is float:
        return None if math.isnan(value) else value
    module = type(value).__module__.split(".")[0]
    if module == "numpy":
        if hasattr(value, "tolist"):  # an array (a list column) or a scalar
            return _plain(value.tolist())
    if module == "pandas":
        pd = sys.modules["pandas"]
        if value is pd.NA or value is pd.NaT:
            return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def frame_rows(data: Any) -> Iterator[dict]:
    """Each row of a pandas or polars DataFrame as {column: plain Python value}, in the frame's order."""
    kind = frame_kind(data)
    if kind == "polars":
        for row in data.iter_rows(named=True):
            yield {k: _struct(v) for k, v in row.items()}
        return
    columns = list(data.columns)
    for values in data.itertuples(index=False, name=None):
        yield {k: _plain(v) for k, v in zip(columns, values)}


def _struct(value: Any) -> Any:
    """A polars cell: a struct (a dict) holds every field of its column in every row, null where the row had
    none, so null fields are left out (read as absent, as a JSON line without that key)."""
    if type(value) is dict:
        return {k: _struct(v) for k, v in value.items() if v is not None}
    if type(value) is list:
        return [_struct(v) for v in value]
    return _plain(value)


def read_frame(data: Any, fields: dict[str, str] | None = None, name: str = "DataFrame") -> Iterator[Record]:
    """Stream the Records of a pandas or polars DataFrame, one per row in order (mapping in the module
    docstring); `fields` maps our field names to columns as ``--field`` does (`parse_field_map`). A row
    that lacks a required field or names an unknown column raises InputError (E300) at ``DataFrame row N``."""
    for n, raw in enumerate(frame_rows(data)):
        where = f"{name} row {n}"
        base, extras = lmms_base(raw) if is_lmms(raw) else table_base(raw)
        yield make_record(base, raw, fields, name, 0, where, extras)
