"""`rulekit eval -r mmevalpro` on MMEvalPro's official demo output reproduces its official scores."""
from __future__ import annotations

import gzip
import json

import pytest
from click.testing import CliRunner

from conftest import SHARED
from rulekit.cli import main

DEMO = SHARED / "corpus" / "raw" / "mmevalpro" / "demo_model_output.json.gz"
SCORES = SHARED / "corpus" / "raw" / "mmevalpro" / "demo_score.json.gz"
NAMES = {"genuine_accuracy_score": "genuine_accuracy", "average_score": "average_accuracy",
         "origin_score": "origin_accuracy", "perception_score": "perception_accuracy",
         "knowledge_score": "knowledge_accuracy"}


def _eval(ruleset: str) -> dict:
    result = CliRunner().invoke(main, ["eval", "-r", ruleset, str(DEMO), "--format", "json"])
    assert result.exit_code == 0, result.output
    [entry] = json.loads(result.stdout)["results"]
    return entry


def test_every_official_demo_number_is_reproduced():
    official = json.loads(gzip.decompress(SCORES.read_bytes()))
    metrics = _eval("mmevalpro")["metrics"]
    checked = 0
    for block, scores in official.items():
        ours = {"Macro_Average": metrics["macro"], "Micro_Average": metrics}.get(block) or metrics["by_source"][block]
        for name, value in scores.items():
            assert 100 * ours[NAMES[name]] == pytest.approx(value, abs=0.01), (block, name)
            checked += 1
    assert checked == 25
    assert metrics["invalid_group_count"] == 0 and metrics["n_groups"] == 2138


def test_fine_grained_metrics_are_consistent_on_the_demo():
    m = _eval("mmevalpro")["metrics"]
    assert m["consistency_gap"] == pytest.approx(m["origin_accuracy"] - m["genuine_accuracy"])
    for key in ("perception_consistency", "knowledge_consistency"):
        assert 0 <= m[key] <= 1
        for source in ("MMMU", "MathVista", "ScienceQA"):
            assert 0 <= m["by_source"][source][key] <= 1


@pytest.mark.parametrize("variant", ["mmevalpro+vlmevalkit", "mmevalpro+lmms-eval"])
def test_variants_extract_letters_and_keep_the_group_metrics(variant):
    entry = _eval(variant)
    assert "genuine_accuracy" in entry["metrics"] and "by_source" in entry["metrics"]
    # The demo replies are letters except 155 that are not: those cannot be decided by the rules.
    assert entry["outcomes"]["rule"] == 6414 - 155
