"""Issue 16: VLMEvalKit's rule-only scorers of the seed suite without a judge — `vlmevalkit-countbench`
(CountBenchQA.evaluate) and `vlmevalkit-vlmblind` (VLMBlind.evaluate) — decide as the ORIGINAL methods
(tests/fidelity/vlmevalkit/README.md) on real replies and generated edge cases: the same correct per
record, the same figures over all of them."""
from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CORPUS
from rulekit.cli import main

pytestmark = pytest.mark.slow  # a fidelity sweep against the original scorer's labels

HERE = Path(__file__).parent / "fidelity" / "vlmevalkit"
TASKS = ["Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter", "Touching Circles",
         "Counting Grid - Word Grids", "Counting Grid - Blank Grids", "Olympic Counting - Pentagons",
         "Olympic Counting - Circles", "Something Else"]
EDGE = ["{3}", "The answer is {3}.", "{ 3 }", "{3} or {4}", "{\n3}", "{}", "rows: {5}, columns: {4}", "Rows {05} Columns {4}",
        "columns {4} and rows {5}", "row {5}\ncolumn {4}", "rows: 5, columns: {4}", "(5, 4)", "(5,4) or (4, 5)", "( 5, 4)",
        "(05, 04)", "5 x 4", "Yes", "YES they touch", "No.", "I count 12", "There are 5 pentagons", "{B}", "{b}", "",
        "rows {٥} columns {٤}", "(٠٥, 4)", "{3", "3}", "{{3}}"]


def _gold(task: str, rng: random.Random) -> str:
    if task.startswith("Counting Grid"):
        return rng.choice(["5,4", "5, 4", "4,5", "{5,4}", "5", "5,4,3", " 5 , 4 "])
    if task == "Touching Circles":
        return rng.choice(["Yes", "No", "yes"])
    if task == "Circled Letter":
        return rng.choice(["B", "b", "A"])
    return rng.choice(["3", "4", "5", "12", "2"])


def _records(kind: str, n: int = 2000) -> list[dict]:
    """The corpus's first `n` replies, then every edge reply under every task; CountBench: the record's
    integer gold or a count drawn; VLMBlind: a task and a gold of its kind drawn per record (seed 1621)."""
    rng = random.Random(1621)
    out = []
    with CORPUS.open(encoding="utf-8") as f:
        replies = [r for _, r in zip(range(n), map(json.loads, f))]
    for r in replies:
        if kind == "countbench":
            gold = r["answer"] if isinstance(r["answer"], str) and r["answer"].isdigit() else str(rng.randint(0, 12))
            out.append({"id": r["id"], "question_type": "open", "response": r["response"], "answer": gold, "meta": {}})
        else:
            task = rng.choice(TASKS)
            out.append({"id": r["id"], "question_type": "open", "response": r["response"],
                        "answer": _gold(task, rng), "meta": {"task": task}})
    for i, text in enumerate(EDGE):  # every edge reply under every task (CountBench: against three golds)
        for j, task in enumerate(TASKS if kind == "vlmblind" else ["3", "4", "12"]):
            meta, gold = ({"task": task}, _gold(task, rng)) if kind == "vlmblind" else ({}, task)
            out.append({"id": f"edge/{i}/{j}", "question_type": "open", "response": text, "answer": gold, "meta": meta})
    return out


def _labels(name: str) -> dict:
    with gzip.open(HERE / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("kind,ruleset", [("countbench", "vlmevalkit-countbench"), ("vlmblind", "vlmevalkit-vlmblind")])
def test_vlmevalkit_rule_scorer_decides_as_the_original(tmp_path, kind, ruleset):
    rows = _records(kind)
    labels = _labels(kind)
    data = tmp_path / f"{kind}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "-r", ruleset, str(data), "--output-dir", str(tmp_path / "out"),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    decisions = {d["id"]: d for d in map(json.loads, (tmp_path / "out" / f"{ruleset}.decisions.jsonl").open())}
    assert {i: d["correct"] is True for i, d in decisions.items()} == labels["records"]
    metrics = json.loads(result.stdout)["results"][0]["metrics"]
    if kind == "countbench":
        assert 100 * metrics["accuracy"] == pytest.approx(labels["all"]["accuracy"], rel=1e-12)
    else:
        assert {task: metrics["by_task"][task]["accuracy"] for task in labels["all"]} == \
            pytest.approx(labels["all"], rel=1e-12)
