"""Group metrics: one primitive for benchmarks that score sets of related rows together.

A *group* is the set of rows sharing a value of the `group-by` field. Examples:

* MMEvalPro: ``group-by: triplet_id``, ``role: eval_type``,
  ``roles: [Origin, Perception, Knowledge]``, ``require: all``, ``breakdown: source``. A triplet
  counts for *genuine accuracy* only when all three of its questions are right.
* CircularEval (MMBench): ``group-by: g_index``, ``require: all`` (every rotation right), no roles.
* "at least k of n samples right": ``require: at-least 3``.
* WeMath's four dimensions: ``group-by: ID``, ``whole: {field: key, pattern: "multi$"}`` — each
  group is a multi-step problem (its ``whole`` row) and its one-step sub-problems (the other rows).

CircularEval (VLMEvalKit ``mcq_circular_eval``, reference/behaviour.md §2.5) is ``group-by:
[g_index, id]`` with ``key-modulo: 1000000`` (VLMEvalKit's g_index column, else the row index mod
1e6) and ``require: all``; ``report-pending: true`` adds ``pending_groups``. A wrong rule decision
— a wrong prefetch, ``Z`` included — fails its group at once, whatever the other rotations; a group
with no wrong decision but an ``unresolved`` row is *pending*: VLMEvalKit would ask its judge
about it, and without a judge it scores 0 ("Failed in Prefetch"), which is what genuine accuracy
counts. Any MCQ ruleset gets it with ``extends:`` plus these ``metrics: groups:`` lines
(``rulesets/vlmevalkit+circular.yaml``).

What :func:`group_metrics` reports (fractions in [0, 1], unrounded):

* ``genuine_accuracy``: fraction of *valid* groups that satisfy `require`.
* ``average_accuracy``: correct rows / rows.
* ``<role>_accuracy`` for every declared role, lower-cased (``origin_accuracy``,
  ``perception_accuracy``, ``knowledge_accuracy``; the paper's PA and KA are the latter two): right
  rows of that role over the rows of that role — or, with ``role-share: all``, over every row in
  scope (MMEvalPro's first ``auto_score.py``, 2024-06-26, divided each type's hits by all rows, so
  the three role figures sum to ``average_accuracy``).
* With an ``anchor`` role (default ``Origin`` when the roles include it; ``anchor: null`` turns it
  off), the fine-grained scores of the MMEvalPro paper (arXiv 2407.00468, §3.3):
  ``consistency_gap`` = ``<anchor>_accuracy - genuine_accuracy`` (CG; exactly the difference of
  the two reported columns) and, for every other role R, ``<r>_consistency`` =
  P(R right | anchor right) over valid groups (``perception_consistency`` = PC,
  ``knowledge_consistency`` = KC).
* ``n_rows`` and ``n_groups`` (valid groups) beside the metrics.
* With ``report-pending: true``: ``pending_groups``, the valid groups that the rule decisions leave
  unsatisfied but that WOULD satisfy `require` if every ``unresolved`` row were right (for
  ``require: all``: no row decided wrong and at least one unresolved) — the groups a judge would
  still be asked about.
* With ``whole: {field, pattern}`` (WeMath, arXiv 2407.01284): a group is one composite problem —
  the row whose ``field`` matches the regex ``pattern`` (``re.search``) is the *whole* question, the
  other rows its *parts* (sub-problems). Per group, with P = every part right, P' = some part right
  and W = the whole right: IK (insufficient knowledge) = not P and not W; IG (inadequate
  generalization) = P and not W; CM (complete mastery) = P and W; RM (rote memorization) = not P
  and W; the loose variants are CM_loose = P' and W and RM_loose = not P' and W. Reported as
  ``ik``, ``ig``, ``cm``, ``cm_loose`` = count / T, ``rm``, ``rm_loose`` = RM / (CM + RM) of the
  same mode, and ``mastery_score`` / ``mastery_score_loose`` = (T − 0.5·IG − RM − IK) / T, with
  T = the number of valid groups, or ``total`` when given (the official script hard-codes 525,
  WeMath testmini's number of multi-step problems, so on any other set of problems its rates are
  off by that ratio: ``total: 525`` reproduces it). ``mastery_counts`` holds the six counts. A
  group needs exactly one whole row and at least one part, else it is invalid (the official script
  merges on ID and lets a missing step become NaN, which is neither right nor wrong).
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

from collections.abc import Sequence
from typing import Any

from rulekit.core.records import Record
from rulekit.core.trace import Decision
from rulekit.language.schema_groups import GroupSpec, role_slug

__all__ = ["GroupSpec", "group_metrics", "render_group_table", "group_key", "pair_rows",
           "MISSING"]

MISSING = "(missing)"
"""Breakdown key used for rows whose breakdown field is absent."""

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


def _whole(pattern, text: str, record) -> bool:
    """Does the `whole` pattern match this row's field (`re.search`), within the regex time limit?"""
    from rulekit.core.regex import RegexTimeout, timed
    from rulekit.core.errors import RulekitError

    try:
        return timed(pattern.search, text) is not None
    except RegexTimeout:
        raise RulekitError(f"metrics `groups: whole: pattern` ran past the regex time limit on record `{record.id}`",
                           help="simplify the pattern", code="E120") from None


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


class _Group:
    __slots__ = ("gid", "rows", "bucket", "satisfied", "by_role", "pending", "mastery")

    def __init__(self, gid: Any, rows: list[int]):
        self.gid = gid
        self.rows = rows
        self.bucket: str | None = None
        self.satisfied = False
        self.by_role: dict[Any, bool] = {}
        self.pending = False
        self.mastery: tuple[bool, bool, bool] | None = None  # (every part right, some part right, whole right)


def _figures(spec: GroupSpec, row_ids: list[int], correct: list[bool], labels: list[Any],
             groups: list[_Group]) -> dict:
    """Every metric of `spec` over the given rows (row-level) and valid groups (group-level)."""
    out: dict[str, Any] = {}
    out["genuine_accuracy"] = _ratio(sum(g.satisfied for g in groups), len(groups))
    out["average_accuracy"] = _ratio(sum(correct[i] for i in row_ids), len(row_ids))
    if spec.roles:
        for r in spec.roles:
            idx = [i for i in row_ids if labels[i] == r]
            out[f"{role_slug(r)}_accuracy"] = _ratio(sum(correct[i] for i in idx),
                                                     len(row_ids) if spec.role_share == "all" else len(idx))
    if spec.anchor is not None:
        anchor_acc = out[f"{role_slug(spec.anchor)}_accuracy"]
        genuine = out["genuine_accuracy"]
        out["consistency_gap"] = (anchor_acc - genuine
                                  if anchor_acc is not None and genuine is not None else None)
        anchored = [g for g in groups if g.by_role[spec.anchor]]
        for r in spec.roles:  # type: ignore[union-attr]
            if r != spec.anchor:
                out[f"{role_slug(r)}_consistency"] = _ratio(sum(g.by_role[r] for g in anchored),
                                                        len(anchored))
    counts = None
    if spec.whole is not None:
        counts = _mastery(spec, groups, out)
    chosen = {name: out[name] for name in spec.reported}
    chosen["n_rows"] = len(row_ids)
    chosen["n_groups"] = len(groups)
    if spec.report_pending:
        chosen["pending_groups"] = sum(g.pending for g in groups)
    if counts is not None:
        chosen["mastery_counts"] = counts
    return chosen


def _mastery(spec: GroupSpec, groups: list[_Group], out: dict) -> dict:
    """WeMath's four dimensions (see the module docstring) into `out`; returns the counts."""
    c = {"IK": 0, "IG": 0, "CM": 0, "RM": 0, "CM_loose": 0, "RM_loose": 0}
    for g in groups:
        every, some, whole = g.mastery  # type: ignore[misc]
        if whole:
            c["CM" if every else "RM"] += 1
            c["CM_loose" if some else "RM_loose"] += 1
        else:
            c["IG" if every else "IK"] += 1
    total = spec.total if spec.total is not None else len(groups)
    out["ik"] = _ratio(c["IK"], total)
    out["ig"] = _ratio(c["IG"], total)
    out["cm"] = _ratio(c["CM"], total)
    out["cm_loose"] = _ratio(c["CM_loose"], total)
    out["rm"] = _ratio(c["RM"], c["CM"] + c["RM"])
    out["rm_loose"] = _ratio(c["RM_loose"], c["CM_loose"] + c["RM_loose"])
    out["mastery_score"] = (total - 0.5 * c["IG"] - c["RM"] - c["IK"]) / total if total else None
    out["mastery_score_loose"] = (total - 0.5 * c["IG"] - c["RM_loose"] - c["IK"]) / total if total else None
    return c


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
    unresolved = [d.outcome == "unresolved" for d, _ in pairs]
    whole_re = None
    if spec.whole is not None:  # a ruleset's regex: compiled within the size limits, run with the time limit
        from rulekit.core.regex import compile_regex
        whole_re = compile_regex(spec.whole.pattern, None)
    is_whole = ([_whole(whole_re, _text(r.field(spec.whole.field)), r) for _, r in pairs]  # type: ignore[union-attr]
                if whole_re is not None else [False] * n)
    labels = [_hashable(r.field(spec.role)) for _, r in pairs] if spec.role else [None] * n
    buckets = ([group_key(r.field(spec.breakdown)) for _, r in pairs]
               if spec.breakdown else [None] * n)

    members: dict[Any, list[int]] = {}
    no_group: list[int] = []
    for i, (_, r) in enumerate(pairs):
        gid = spec.key_of(r)
        if gid is None:
            no_group.append(i)
        else:
            members.setdefault(_hashable(gid), []).append(i)

    invalid: list[dict] = []
    if no_group:
        invalid.append({"group": None,
                        "problem": f"{len(no_group)} row(s) without {' or '.join(spec.fields)}"})
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
        if whole_re is not None:
            wholes = sum(is_whole[i] for i in rows)
            if wholes != 1:
                problems.append(f"{wholes} rows match whole pattern {spec.whole.pattern!r}")  # type: ignore[union-attr]
            elif len(rows) < 2:
                problems.append("a whole question without parts")
            if problems:
                invalid.append({"group": gid, "problem": "; ".join(problems)})
                continue
            parts = [correct[i] for i in rows if not is_whole[i]]
            g.mastery = (all(parts), any(parts), next(correct[i] for i in rows if is_whole[i]))
        need = spec.min_correct(len(rows))
        right = sum(correct[i] for i in rows)
        g.satisfied = right >= need
        g.pending = not g.satisfied and right + sum(unresolved[i] for i in rows) >= need
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
    cols += [(k, h) for k, h in _MASTERY_HEADERS.items()
             if k in result and (result[k] is None or isinstance(result[k], (int, float)))]
    return cols


_MASTERY_HEADERS = {"ik": "IK", "ig": "IG", "cm": "CM", "rm": "RM", "cm_loose": "CM loose",
                    "rm_loose": "RM loose", "mastery_score": "score", "mastery_score_loose": "score loose"}


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
    notes = []
    bad = result.get("invalid_group_count", 0)
    if bad:
        notes.append(f"{bad} invalid group(s) excluded from group figures")
    if result.get("pending_groups"):
        notes.append(f"{result['pending_groups']} group(s) pending: only unresolved rows (a judge's work) "
                     "keep them from counting")
    if notes:
        table.caption = "\n".join(notes)
    return table
