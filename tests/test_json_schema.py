"""`rulekit schema` describes ruleset FILES as the loader reads them, `extends:` overrides included
(issue 17): an editor using it accepts every built-in ruleset and rejects what the loader rejects."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rulekit import load_ruleset
from rulekit.cli import main
from rulekit.core.errors import RulekitError

jsonschema = pytest.importorskip("jsonschema")
RULESETS = sorted((Path(__file__).parent.parent / "rulesets").glob("*.yaml"))


@pytest.fixture(scope="module")
def validator():
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_every_builtin_ruleset_file_is_valid_against_the_schema(validator, path):
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
    assert errors == []  # before: mmmu, vlmevalkit@v2, mathvista@fixed, livexivvqa@... were rejected


OVERRIDE = {"ruleset": "mine", "extends": "vlmevalkit",
            "multiple-choice": {"steps": [{"id": "answer-is", "drop": True},
                                          {"id": "new", "before": "single-letter", "find": {"literal": "({letter})"}}]}}


@pytest.mark.parametrize("doc, loader_accepts", [
    (OVERRIDE, True),
    ({**OVERRIDE, "multiple-choice": {"steps": [{"drop": True}]}}, False),             # an override needs an id
    ({**OVERRIDE, "multiple-choice": {"steps": [{"id": "answer-is", "pikc": "first"}]}}, False),  # a typo
    ({"ruleset": "mine", "multiple-choice": {"steps": [{"id": "a", "drop": True}]}}, False),  # no parent
    ({"ruleset": "mine", "multiple-choice": {"steps": [{"id": "a", "find": {"literal": "{letter}"}}]}}, True),
    ({"ruleset": "mine", "open": {"from": "lmms-eval", "steps": [{"id": "extra", "after": "boxed-nope"}]}}, False),
    ({"ruleset": "mine", "open": {"from": "lmms-eval"}, "multiple-choice": {"from": "vlmevalkit", "steps": [
        {"id": "answer-is", "drop": True}]}}, True),                                  # `from:` takes overrides too
])
def test_the_schema_and_the_loader_agree(validator, tmp_path, doc, loader_accepts):
    path = tmp_path / "r.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    schema_accepts = not list(validator.iter_errors(doc))
    try:
        load_ruleset(str(path))
        loaded = True
    except RulekitError:
        loaded = False
    assert loaded is loader_accepts
    if loaded:
        assert schema_accepts  # an editor must never flag a file rulekit runs
    elif "boxed-nope" not in json.dumps(doc):  # a wrong step id is beyond a schema: only the loader knows the parent
        assert not schema_accepts
