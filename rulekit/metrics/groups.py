"""Group metrics: one primitive for benchmarks that score sets of related rows together.

A *group* is the set of rows sharing a value of the `group-by` field. Examples:

* MMEvalPro: ``group-by: triplet_id``, ``role: eval_type``,
  ``roles: [Origin, Perception, Knowledge]``, ``require: all``, ``breakdown: source``. A triplet
  counts for *genuine accuracy* only when all three of its questions are right.
* CircularEval (MMBench): ``group-by: g_index``, ``require: all`` (every rotation right), no roles.
* "at least k of n samples right": ``require: at-least 3``.

What :func:`group_metrics` reports (fractions in [0, 1], unrounded):

* ``genuine_accuracy``: fraction of *valid* groups that satisfy `require`.
* ``average_accuracy``: correct rows / rows.
* ``<role>_accuracy`` for every declared role, lower-cased (``origin_accuracy``,
  ``perception_accuracy``, ``knowledge_accuracy``; the paper's PA and KA are the latter two).
* With an ``anchor`` role (default ``Origin`` when the roles include it; ``anchor: null`` turns it
  off), the fine-grained scores of the MMEvalPro paper (arXiv 2407.00468, §3.3):
  ``consistency_gap`` = ``<anchor>_accuracy - genuine_accuracy`` (CG; exactly the difference of
  the two reported columns) and, for every other role R, ``<r>_consistency`` =
  P(R right | anchor right) over valid groups (``perception_consistency`` = PC,
  ``knowledge_consistency`` = KC).
* ``n_rows`` and ``n_groups`` (valid groups) beside the metrics.
* With ``breakdown: FIELD``: ``by_<FIELD>`` (a ``meta.`` prefix dropped, so ``source`` and
  ``meta.source`` both give ``by_source``) maps every value of the field to the same metrics;
  with ``macro: true`` (default) ``macro.<name>`` is the mean of the per-value figures.
* ``invalid_group_count`` and ``invalid_groups`` (``[{"group": id, "problem": "..."}]``), always
  present, 0 / [] when every group is well formed.

Decisions on counting (the official MMEvalPro ``auto_score.py`` checks nothing and counts every
row, see reference/behaviour.md §3):

* A group is *invalid* when, with declared roles, a role is missing, a role appears twice, or a
  row carries a label outside `roles`; or, with a breakdown, its rows span several breakdown
  values; rows without a `group-by` value form one invalid entry (``group: null``). Invalid
  groups are excluded from every *group-level* figure (genuine accuracy, consistency, n_groups)
  and listed, never dropped silently.
* *Row-level* figures (average and per-role accuracy) count every row, those of invalid groups
  included, as the official script does; a row with an undeclared role label counts in
  ``average_accuracy`` and in no role accuracy. On well-formed data (the official demo: 2,138
  triplets of exactly one row per role) both views coincide.
* Each row counts in the breakdown bucket of its own value; a valid group in the bucket of its
  (single) value.
* ``macro`` is the mean of the *unrounded* per-value fractions over the values where the figure is
  defined. The official Macro_Average is the mean of per-source percentages already rounded to
  two decimals, re-rounded; the two agree to within 0.01 percentage points (checked on the
  official demo in tests/test_groups.py).
* A decision whose ``correct`` is None counts as wrong.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rulekit.records import Record
from rulekit.trace import Decision

__all__ = ["GroupSpec", "group_metrics", "render_group_table", "group_key", "pair_rows",
           "MISSING"]

MISSING = "(missing)"
"""Breakdown key used for rows whose breakdown field is absent."""

_AT_LEAST = re.compile(r"^at[-_ ]least\s+(\d+)$")


def group_key(value: Any) -> str:
    """String key of a breakdown value: strings as is, None → ``"(missing)"``, others ``str()``."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return value
    return str(value)


def pair_rows(decisions: Sequence[Decision], records: Sequence[Record]) -> list[tuple[Decision, Record]]:
    """Zip parallel decisions and records, checking that lengths and ids agree (ValueError)."""
    if len(decisions) != len(records):
        raise ValueError(f"{len(decisions)} decisions for {len(records)} records: "
                         "metrics need one decision per record, in record order")
    pairs = list(zip(decisions, records))
    for i, (d, r) in enumerate(pairs):
        if d.id != r.id:
            raise ValueError(f"decision {i} has id {d.id!r} but record {i} has id {r.id!r}")
    return pairs


def _slug(label: str) -> str:
    """Metric-name form of a role label: ``"Origin"`` → ``"origin"``."""
    return re.sub(r"[^0-9a-z]+", "_", str(label).lower()).strip("_")


class GroupSpec(BaseModel):
    """How to form groups and what to report (the `groups:` section of a ruleset).

    YAML keys use dashes (``group-by``); Python names work too (``group_by``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    group_by: str = Field(alias="group-by", min_length=1,
                          description="record field whose value identifies a group, e.g. triplet_id")
    role: str | None = Field(default=None,
                             description="record field giving a row's role, e.g. eval_type")
    roles: tuple[str, ...] | None = Field(
        default=None, description="declared role labels, e.g. [Origin, Perception, Knowledge]")
    require: str = Field(default="all",
                         description="when a group counts as right: all, any or 'at-least N'")
    anchor: str | None = Field(
        default=None, description="role the consistency metrics condition on; defaults to "
                                  "Origin when the roles include it")
    breakdown: str | None = Field(default=None,
                                  description="record field to break figures down by, e.g. source")
    macro: bool = Field(default=True, description="report the mean over breakdown values")
    metrics: tuple[str, ...] | None = Field(
        default=None, description="names of the group metrics to report; default all")

    @model_validator(mode="before")
    @classmethod
    def _default_anchor(cls, data: Any) -> Any:
        if isinstance(data, dict) and "anchor" not in data:
            roles = data.get("roles")
            if isinstance(roles, (list, tuple)) and "Origin" in roles:
                data = {**data, "anchor": "Origin"}
        return data

    @field_validator("require")
    @classmethod
    def _parse_require(cls, v: str) -> str:
        s = " ".join(str(v).strip().lower().split())
        if s in ("all", "any"):
            return s
        m = _AT_LEAST.match(s)
        if m:
            k = int(m.group(1))
            if k < 1:
                raise ValueError("require: at-least N needs N >= 1")
            return f"at-least {k}"
        raise ValueError(f"require must be 'all', 'any' or 'at-least N', got {v!r}")

    @model_validator(mode="after")
    def _check(self) -> GroupSpec:
        if (self.role is None) != (self.roles is None):
            raise ValueError("`role` (the field) and `roles` (its labels) go together")
        if self.roles is not None:
            if not self.roles:
                raise ValueError("`roles` must list at least one label")
            if len(set(self.roles)) != len(self.roles):
                raise ValueError(f"`roles` lists a label twice: {list(self.roles)}")
            slugs = [_slug(r) for r in self.roles]
            if "" in slugs or len(set(slugs)) != len(slugs):
                raise ValueError(f"role labels must differ once lower-cased: {list(self.roles)}")
            if {"genuine", "average"} & set(slugs):
                raise ValueError("a role may not be called 'genuine' or 'average'")
            k = self.at_least
            if k is not None and k > len(self.roles):
                raise ValueError(f"require: at-least {k} can never hold for groups of "
                                 f"{len(self.roles)} roles")
        if self.anchor is not None and (self.roles is None or self.anchor not in self.roles):
            raise ValueError(f"anchor {self.anchor!r} is not one of the declared roles")
        if self.metrics is not None:
            known = self.metric_names
            unknown = [m for m in self.metrics if m not in known]
            if unknown:
                raise ValueError(f"unknown group metric(s) {unknown}; available: {known}")
        return self

    @property
    def at_least(self) -> int | None:
        """N of ``require: at-least N``, else None."""
        if self.require.startswith("at-least "):
            return int(self.require.split()[1])
        return None

    def min_correct(self, size: int) -> int:
        """Correct rows a group of `size` rows needs to count as right under `require`."""
        if self.require == "all":
            return size
        if self.require == "any":
            return 1
        return int(self.at_least)  # type: ignore[arg-type]

    @property
    def metric_names(self) -> list[str]:
        """Every metric name this spec can report, in report order."""
        names = ["genuine_accuracy", "average_accuracy"]
        if self.roles:
            names += [f"{_slug(r)}_accuracy" for r in self.roles]
        if self.anchor is not None:
            names.append("consistency_gap")
            names += [f"{_slug(r)}_consistency" for r in self.roles if r != self.anchor]
        return names

    @property
    def reported(self) -> list[str]:
        """The metric names actually reported (`metrics`, or all), in report order."""
        if self.metrics is None:
            return self.metric_names
        chosen = set(self.metrics)
        return [m for m in self.metric_names if m in chosen]

    @property
    def breakdown_key(self) -> str | None:
        """Result key of the breakdown: ``by_<field>`` with a ``meta.`` prefix dropped."""
        if self.breakdown is None:
            return None
        name = self.breakdown[5:] if self.breakdown.startswith("meta.") else self.breakdown
        return f"by_{name}"


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


class _Group:
    __slots__ = ("gid", "rows", "bucket", "satisfied", "by_role")

    def __init__(self, gid: Any, rows: list[int]):
        self.gid = gid
        self.rows = rows
        self.bucket: str | None = None
        self.satisfied = False
        self.by_role: dict[Any, bool] = {}


def _figures(spec: GroupSpec, row_ids: list[int], correct: list[bool], labels: list[Any],
             groups: list[_Group]) -> dict:
    """Every metric of `spec` over the given rows (row-level) and valid groups (group-level)."""
    out: dict[str, Any] = {}
    out["genuine_accuracy"] = _ratio(sum(g.satisfied for g in groups), len(groups))
    out["average_accuracy"] = _ratio(sum(correct[i] for i in row_ids), len(row_ids))
    if spec.roles:
        for r in spec.roles:
            idx = [i for i in row_ids if labels[i] == r]
            out[f"{_slug(r)}_accuracy"] = _ratio(sum(correct[i] for i in idx), len(idx))
    if spec.anchor is not None:
        anchor_acc = out[f"{_slug(spec.anchor)}_accuracy"]
        genuine = out["genuine_accuracy"]
        out["consistency_gap"] = (anchor_acc - genuine
                                  if anchor_acc is not None and genuine is not None else None)
        anchored = [g for g in groups if g.by_role[spec.anchor]]
        for r in spec.roles:  # type: ignore[union-attr]
            if r != spec.anchor:
                out[f"{_slug(r)}_consistency"] = _ratio(sum(g.by_role[r] for g in anchored),
                                                        len(anchored))
    chosen = {name: out[name] for name in spec.reported}
    chosen["n_rows"] = len(row_ids)
    chosen["n_groups"] = len(groups)
    return chosen


def group_metrics(spec: GroupSpec, decisions: Sequence[Decision],
                  records: Sequence[Record]) -> dict:
    """Group metrics of parallel `decisions` and `records` as described by `spec`.

    Returns the micro figures at top level (``genuine_accuracy``, ``average_accuracy``,
    ``<role>_accuracy``, ``consistency_gap``, ``<role>_consistency``, ``n_rows``, ``n_groups``),
    ``by_<breakdown>`` and ``macro`` when a breakdown is configured, and always
    ``invalid_group_count`` / ``invalid_groups``. See the module docstring for how invalid groups
    and rows are counted. A figure with an empty denominator is None.
    """
    pairs = pair_rows(decisions, records)
    n = len(pairs)
    correct = [d.correct is True for d, _ in pairs]
    labels = [_hashable(r.field(spec.role)) for _, r in pairs] if spec.role else [None] * n
    buckets = ([group_key(r.field(spec.breakdown)) for _, r in pairs]
               if spec.breakdown else [None] * n)

    members: dict[Any, list[int]] = {}
    no_group: list[int] = []
    for i, (_, r) in enumerate(pairs):
        gid = r.field(spec.group_by)
        if gid is None:
            no_group.append(i)
        else:
            members.setdefault(_hashable(gid), []).append(i)

    invalid: list[dict] = []
    if no_group:
        invalid.append({"group": None,
                        "problem": f"{len(no_group)} row(s) without {spec.group_by}"})
    valid: list[_Group] = []
    for gid, rows in members.items():
        g = _Group(gid, rows)
        problems: list[str] = []
        if spec.roles:
            seen: dict[Any, int] = {}
            for i in rows:
                seen[labels[i]] = seen.get(labels[i], 0) + 1
            for lab in seen:
                if lab not in spec.roles:
                    problems.append(f"row without {spec.role}" if lab is None
                                    else f"undeclared role {lab!r}")
            for r in spec.roles:
                if seen.get(r, 0) > 1:
                    problems.append(f"duplicate role {r}")
                elif seen.get(r, 0) == 0:
                    problems.append(f"missing role {r}")
        if spec.breakdown:
            values = list(dict.fromkeys(buckets[i] for i in rows))
            if len(values) > 1:
                problems.append(f"spans {spec.breakdown} values {', '.join(values)}")
            g.bucket = values[0]
        if problems:
            invalid.append({"group": gid, "problem": "; ".join(problems)})
            continue
        g.satisfied = sum(correct[i] for i in rows) >= spec.min_correct(len(rows))
        if spec.roles:
            g.by_role = {labels[i]: correct[i] for i in rows}
        valid.append(g)

    result = _figures(spec, list(range(n)), correct, labels, valid)
    if spec.breakdown:
        rows_of: dict[str, list[int]] = {}
        for i, value in enumerate(buckets):
            rows_of.setdefault(value, []).append(i)
        groups_of: dict[str, list[_Group]] = {}
        for g in valid:
            groups_of.setdefault(g.bucket, []).append(g)  # type: ignore[arg-type]
        per_value = {value: _figures(spec, rows, correct, labels, groups_of.get(value, []))
                     for value, rows in rows_of.items()}
        result[spec.breakdown_key] = per_value  # type: ignore[index]
        if spec.macro:
            macro = {}
            for name in spec.reported:
                vals = [m[name] for m in per_value.values() if m[name] is not None]
                macro[name] = sum(vals) / len(vals) if vals else None
            result["macro"] = macro
    result["invalid_group_count"] = len(invalid)
    result["invalid_groups"] = invalid
    return result


_FIXED_HEADERS = {"genuine_accuracy": "genuine", "average_accuracy": "average",
                  "consistency_gap": "CG"}


def _columns(result: dict) -> list[tuple[str, str]]:
    """(metric name, header) pairs present in `result`, in table order."""
    names = [k for k, v in result.items()
             if (k in _FIXED_HEADERS or k.endswith(("_accuracy", "_consistency")))
             and (v is None or isinstance(v, (int, float)))]
    acc = [k for k in names if k.endswith("_accuracy") and k not in _FIXED_HEADERS]
    cons = [k for k in names if k.endswith("_consistency")]
    initials = [k[0].upper() for k in cons]
    cols: list[tuple[str, str]] = []
    for k in ("genuine_accuracy", "average_accuracy"):
        if k in names:
            cols.append((k, _FIXED_HEADERS[k]))
    cols += [(k, k[: -len("_accuracy")]) for k in acc]
    if "consistency_gap" in names:
        cols.append(("consistency_gap", "CG"))
    for k, ini in zip(cons, initials):
        role = k[: -len("_consistency")]
        cols.append((k, f"{ini}C" if initials.count(ini) == 1 else f"{role} cons."))
    return cols


def _pct(v: Any) -> str:
    return "—" if v is None else f"{v * 100:.2f}"


def render_group_table(result: dict, title: str):
    """A ``rich.table.Table`` of a :func:`group_metrics` result, in percent with two decimals.

    One row per breakdown value, then ``macro`` and ``micro`` (the top-level figures); columns
    genuine, average, one per role accuracy, CG and the consistency scores (PC, KC), only those
    present in `result`. A caption gives the number of invalid groups when there are any.
    """
    from rich.table import Table

    cols = _columns(result)
    table = Table(title=title)
    table.add_column("")
    for _, header in cols:
        table.add_column(header, justify="right")
    by = next((v for k, v in result.items() if k.startswith("by_") and isinstance(v, dict)), None)
    if by:
        for value, figures in by.items():
            table.add_row(str(value), *(_pct(figures.get(k)) for k, _ in cols))
    if isinstance(result.get("macro"), dict):
        table.add_row("macro", *(_pct(result["macro"].get(k)) for k, _ in cols))
    table.add_row("micro", *(_pct(result.get(k)) for k, _ in cols))
    bad = result.get("invalid_group_count", 0)
    if bad:
        table.caption = f"{bad} invalid group(s) excluded from group figures"
    return table
