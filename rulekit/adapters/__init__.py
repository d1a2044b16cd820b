"""Adapters: a rulekit ruleset inside the harnesses users evaluate with.

`rulekit.adapters.harness` plugs a ruleset into lm-evaluation-harness and lmms-eval (a task's
`filter_list`, lmms-eval's verifier registries), `rulekit.adapters.inspect` is an Inspect AI scorer,
`rulekit.adapters.lighteval` a lighteval sample-level metric, `rulekit.adapters.opencompass` a
`pred_postprocessor`, `rulekit.adapters.ray` scores Ray Datasets. Each adapter imports its harness
only when it is used, so rulekit itself never depends on one. Below: what every adapter hands its
harness from a decision.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any


def answer_text(decision: Any) -> str:
    """A decision's extracted answer as the text a harness compares: "" when there is none."""
    if decision is None or decision.pred is None:
        return ""
    return decision.pred if isinstance(decision.pred, str) else str(decision.pred)


def decision_score(decision: Any) -> float:
    """A decision's score in [0, 1] for a harness metric: its score (partial credit kept), else 1.0 / 0.0
    from `correct`; 0.0 when there is no decision."""
    if decision is None:
        return 0.0
    return float(decision.score) if decision.score is not None else float(decision.correct is True)


def score_name(ruleset: str) -> str:
    """The name of `ruleset`'s scores in Inspect (and of its scorer, `rulekit/NAME`): a built-in ruleset's
    name, a YAML file's name without `.yaml`/`.yml`; a character other than a letter, digit, `_`, `-`,
    `+` or `@` becomes `_` (Inspect resolves a `package/name` with a `.` or another `/` differently)."""
    from rulekit.core.resources import builtin_rulesets

    name = ruleset
    if ruleset not in builtin_rulesets():
        name = Path(ruleset).name
        for suffix in (".yaml", ".yml"):
            name = name.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_+@-]", "_", name) or "ruleset"
