"""Golden cases (tests/golden/*.yaml) and every built-in ruleset's embedded examples."""
from __future__ import annotations

from pathlib import Path

import pytest

from rulekit import load_ruleset
from rulekit.report.cases import check_examples, load_cases
from rulekit.core.resources import builtin_rulesets

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.yaml"))


def _cases():
    for path in GOLDEN:
        name, cases = load_cases(path)
        for i, case in enumerate(cases, 1):
            yield pytest.param(name, case, id=f"{path.stem}-{i}")


@pytest.mark.parametrize("name,case", list(_cases()))
def test_golden_case(name, case):
    [result] = check_examples(load_ruleset(name), [case])
    assert result.problems == [], f"{case.response!r} ({case.source})"


def test_every_golden_case_names_its_source_and_deciding_step():
    for path in GOLDEN:
        _, cases = load_cases(path)
        for case in cases:
            assert case.source, f"{path.name}: {case.response!r} has no source"
            assert "via" in case.model_fields_set or case.outcome, f"{path.name}: {case.response!r}"


@pytest.mark.parametrize("name", list(builtin_rulesets()))
def test_embedded_examples(name):
    ruleset = load_ruleset(name)
    for result in check_examples(ruleset, ruleset.model.examples):
        assert result.problems == [], f"{name} example {result.number}"
