"""Vocabulary: `metrics: groups:` — how rows form groups (MMEvalPro triplets, CircularEval rotations,
WeMath composite problems) and what is reported. Computed by `rulekit.metrics.groups`, whose
docstring describes every figure."""

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rulekit.core.records import Record

_AT_LEAST = re.compile(r"^at[-_ ]least\s+(\d+)$")



def role_slug(label: str) -> str:
    """Metric-name form of a role label: ``"Origin"`` → ``"origin"``."""
    return re.sub(r"[^0-9a-z]+", "_", str(label).lower()).strip("_")



MASTERY_METRICS = ("ik", "ig", "cm", "rm", "cm_loose", "rm_loose", "mastery_score", "mastery_score_loose")
"""The four-dimension figures of a `whole:` spec (WeMath), in report order."""


class WholeSpec(BaseModel):
    """`whole: {field: key, pattern: "multi$"}` — the row of a group whose `field` matches the regex
    `pattern` is the composite question; the group's other rows are its parts."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    field: str = Field(min_length=1, description="record field naming the row's part, e.g. key")
    pattern: str = Field(min_length=1, description="regex (re.search) that marks the whole question, e.g. multi$")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"invalid regex {v!r}: {exc}") from None
        return v



class GroupSpec(BaseModel):
    """How to form groups and what to report (the `groups:` section of a ruleset).

    YAML keys use dashes (``group-by``); Python names work too (``group_by``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    group_by: str | tuple[str, ...] = Field(
        alias="group-by", min_length=1,
        description="record field whose value identifies a group, e.g. triplet_id; a list: the first "
                    "field the row has (VLMEvalKit circular data: [g_index, id])")
    key_modulo: int | None = Field(
        default=None, alias="key-modulo", gt=0,
        description="group key = the integer value mod N (VLMEvalKit: g_index = index % 1e6); a "
                    "value that is not a number leaves the row without a group")
    report_pending: bool = Field(
        default=False, alias="report-pending",
        description="also report pending_groups: groups only unresolved rows keep from satisfying require")
    whole: WholeSpec | None = Field(
        default=None, description="WeMath: which row of a group is the composite question "
                                  "({field, pattern}); reports the four dimensions IK/IG/CM/RM")
    total: int | None = Field(
        default=None, gt=0, description="denominator of the four-dimension rates and score instead of the "
                                        "number of valid groups (WeMath's script hard-codes 525)")
    role: str | None = Field(default=None,
                             description="record field giving a row's role, e.g. eval_type")
    roles: tuple[str, ...] | None = Field(
        default=None, description="declared role labels, e.g. [Origin, Perception, Knowledge]")
    role_share: Literal["role", "all"] = Field(
        default="role", alias="role-share",
        description="denominator of each <role>_accuracy: `role`, the rows of that role (default), or "
                    "`all`, every row in scope, so the role figures sum to average_accuracy (MMEvalPro's "
                    "first auto_score.py, 2024-06-26)")
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
    def _check(self) -> "GroupSpec":
        if (self.role is None) != (self.roles is None):
            raise ValueError("`role` (the field) and `roles` (its labels) go together")
        if self.role_share != "role" and self.roles is None:
            raise ValueError("`role-share` is the denominator of the role accuracies: it needs `roles`")
        if self.roles is not None:
            if not self.roles:
                raise ValueError("`roles` must list at least one label")
            if len(set(self.roles)) != len(self.roles):
                raise ValueError(f"`roles` lists a label twice: {list(self.roles)}")
            slugs = [role_slug(r) for r in self.roles]
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
        if self.whole is not None and self.roles is not None:
            raise ValueError("`whole` (WeMath parts and whole) and `roles` do not go together")
        if self.total is not None and self.whole is None:
            raise ValueError("`total` is the denominator of the `whole` figures: it needs `whole`")
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
            names += [f"{role_slug(r)}_accuracy" for r in self.roles]
        if self.anchor is not None:
            names.append("consistency_gap")
            names += [f"{role_slug(r)}_consistency" for r in self.roles if r != self.anchor]
        if self.whole is not None:
            names += list(MASTERY_METRICS)
        return names

    @property
    def fields(self) -> tuple[str, ...]:
        """The `group-by` fields, in the order they are tried."""
        return (self.group_by,) if isinstance(self.group_by, str) else tuple(self.group_by)

    def key_of(self, record: Record) -> Any:
        """The row's group key (None: no group): the first `group-by` field it has, mod `key-modulo`."""
        value = None
        for name in self.fields:
            value = record.field(name)
            if value is not None:
                break
        if value is None or self.key_modulo is None:
            return value
        try:
            if isinstance(value, float):
                return int(value % self.key_modulo)
            return int(value) % self.key_modulo
        except (TypeError, ValueError):
            try:
                return int(float(value) % self.key_modulo)
            except (TypeError, ValueError, OverflowError):
                return None

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
