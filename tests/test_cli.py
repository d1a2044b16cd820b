"""The command line and its file contracts (DESIGN.md §5), end to end on real files."""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.data import sample_path


def run(*args):
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def test_eval_on_the_bundled_sample_prints_a_table_with_fingerprint():
    result = run("eval", "--ruleset", "vlmevalkit")
    assert result.exit_code == 0
    assert "vlmevalkit" in result.stdout and "accuracy" in result.stdout
    assert "unresolved" in result.stdout


def test_eval_json_contract():
    result = run("eval", "-r", "lmms-eval", "--format", "json", "--seed", "0")
    payload = json.loads(result.stdout)
    [entry] = payload["results"]
    assert entry["ruleset"] == "lmms-eval" and entry["n"] == 400
    assert 0 <= entry["metrics"]["accuracy"] <= 1 and 0 <= entry["metrics"]["expected_accuracy"] <= 1
    assert set(entry["outcomes"]) == {"rule", "judge", "fallback", "abstain", "unresolved", "error", "unreadable"}
    assert sum(entry["outcomes"].values()) == entry["n"]
    assert len(entry["fingerprint"]) == 12 and entry["seed"] == 0


def test_decisions_file_rows_in_input_order(tmp_path):
    run("eval", "-r", "vlmevalkit", "--output-dir", str(tmp_path), "--format", "json")
    rows = [json.loads(line) for line in (tmp_path / "vlmevalkit.decisions.jsonl").open()]
    sample_ids = [json.loads(line)["id"] for line in open(sample_path())]
    mcq_ids = [json.loads(line)["id"] for line in open(sample_path()) if json.loads(line)["question_type"] == "multiple-choice"]
    assert [r["id"] for r in rows] == mcq_ids and len(sample_ids) == 400
    for row in rows:
        assert {"id", "pred", "correct", "score", "outcome", "step"} <= set(row)
        assert row["outcome"] in {"rule", "abstain", "unresolved"}
    assert not list(tmp_path.glob(".*.tmp")), "no temporary files left behind"
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "vlmevalkit.decisions.jsonl").stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600


@pytest.mark.parametrize("name", ["vlmevalkit", "lmms-eval"])
def test_any_input_order_gives_byte_identical_decisions(tmp_path, name):
    lines = Path(sample_path()).read_text(encoding="utf-8").splitlines(keepends=True)
    shuffled = lines[:]
    random.Random(7).shuffle(shuffled)
    (tmp_path / "a.jsonl").write_text("".join(lines), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("".join(shuffled), encoding="utf-8")
    # lmms-eval's own fallback is an order-dependent stream; per-item mode is what makes order irrelevant.
    ruleset = name
    if name == "lmms-eval":
        custom = tmp_path / "lmms-per-item.yaml"
        custom.write_text("ruleset: lmms-per-item\nextends: lmms-eval\nmultiple-choice:\n"
                          "  fallback: {random-option: {order: per-item, seed: 0}}\n", encoding="utf-8")
        ruleset = str(custom)
    for src in ("a", "b"):
        run("eval", "-r", ruleset, str(tmp_path / f"{src}.jsonl"), "--output-dir", str(tmp_path / src), "--format", "json")
    stem = Path(ruleset).stem if ruleset.endswith(".yaml") else ruleset
    a = (tmp_path / "a" / f"{stem}.decisions.jsonl").read_text().splitlines()
    b = (tmp_path / "b" / f"{stem}.decisions.jsonl").read_text().splitlines()
    assert sorted(a) == sorted(b)
    assert a != b or name == "vlmevalkit"


def test_same_seed_same_bytes_and_stream_mode_is_order_dependent(tmp_path):
    for out in ("x", "y"):
        run("eval", "-r", "lmms-eval", "--seed", "0", "--output-dir", str(tmp_path / out), "--format", "json")
    assert (tmp_path / "x" / "lmms-eval.decisions.jsonl").read_bytes() == (tmp_path / "y" / "lmms-eval.decisions.jsonl").read_bytes()


def test_explain_json_for_a_reply():
    result = run("explain", "-r", "lmms-eval", "--response", "The answer is B because of A.",
                 "--options", "A=cat,B=dog", "--answer", "B", "--format", "json")
    payload = json.loads(result.stdout)
    assert payload["pred"] == "A" and payload["step"] == "letter-space" and payload["correct"] is False
    statuses = [(s["step"], s["status"]) for s in payload["trace"]]
    assert statuses == [("bracketed-letter", "passed"), ("letter-space", "fired")]
    fired = payload["trace"][1]
    from rulekit.core.resources import builtin_rulesets
    lines = builtin_rulesets()["lmms-eval"].read_text().splitlines()
    assert fired["at"].endswith(f"lmms-eval.yaml:{lines.index('    - id: letter-space') + 1}")
    assert {c["answer"] for c in fired["candidates"]} == {"A", "B"}


def test_explain_a_record_by_id_in_text_form():
    first = json.loads(open(sample_path()).readline())
    result = run("explain", "-r", "vlmevalkit", "--id", first["id"], sample_path())
    assert result.exit_code == 0 and first["id"] in result.stdout and "→ pred" in result.stdout


def test_explain_diff_side_by_side():
    result = run("explain", "-r", "lmms-eval", "--diff", "vlmevalkit", "--response", "DNA is the key",
                 "--options", "A=RNA,B=protein")
    assert result.exit_code == 0 and "letter-space" in result.stdout


def test_list_schema_vocabulary_and_test_commands():
    listed = run("list").stdout
    for name in ("vlmevalkit", "vlmevalkit@v1", "vlmevalkit@v2", "lmms-eval", "mmmu"):
        assert name in listed
    schema = json.loads(run("schema").stdout)
    assert "multiple-choice" in schema["properties"]
    vocab = run("vocabulary").stdout
    for word in ("find: token", "pick: rightmost-of", "fallback: random-option", "condition name: first_index"):
        assert word in vocab
    assert run("explain", "--vocabulary").stdout == vocab
    result = run("test")
    assert result.exit_code == 0 and "0 failed" in result.stdout


def test_eval_several_rulesets_shows_the_extraction_band():
    result = run("eval", "-r", "lmms-eval", "-r", "vlmevalkit", "--seed", "0")
    assert "extraction band" in result.stdout


def test_the_distribution_is_rulekit_eval_with_the_rulekit_command():
    """PyPI's `rulekit` is another project: ours installs as `rulekit-eval`, import and command `rulekit`."""
    from importlib.metadata import distribution

    dist = distribution("rulekit-eval")
    assert [ep.value for ep in dist.entry_points if ep.group == "console_scripts" and ep.name == "rulekit"] == \
        ["rulekit.cli:main"]
    result = CliRunner().invoke(main, ["--version"], prog_name="rulekit")
    assert result.exit_code == 0 and result.output.strip() == f"rulekit, version {dist.version}"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_eval_progress_knows_the_input_size(workers, monkeypatch):
    """On a terminal, eval's progress bar runs over the input's bytes: percent, records, rate, time left;
    in one process (the reader's position) and split over workers (the chunks decided)."""
    import io
    import re

    from rich.console import Console

    import rulekit.cli as cli
    from conftest import CORPUS

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=150, stderr=True)
    monkeypatch.setattr(cli, "_err", lambda: console)
    result = CliRunner().invoke(cli.main, ["eval", "-r", "vlmevalkit", str(CORPUS), "--workers", workers])
    assert result.exit_code == 0, result.output
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buf.getvalue()).replace("\r", "\n")
    frames = [line for line in text.split("\n") if line.startswith("scoring")]
    percents = [int(m.group(1)) for line in frames if (m := re.search(r" (\d+)% ([\d,]+) records", line))]
    assert len(percents) >= 2 and percents == sorted(percents) and 0 < percents[-1] <= 100
    assert all("elapsed," in line and line.endswith("left") for line in frames)
