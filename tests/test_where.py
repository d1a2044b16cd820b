"""`--where EXPR` on eval, diff, explain and reproduce: the rulesets' condition language over a record's fields
keeps a subset; the result is the one a pre-filtered input gives, the headline says how many were kept, and a
bad expression is a located error with its code (exit 2, no traceback)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.data import sample_path

MMMU = 'benchmark == "MMMU"'
REPRO = Path(__file__).parent / "fixtures" / "reproduce" / "vlmevalkit-vqa"


def _run(*args):
    return CliRunner().invoke(main, [*map(str, args)])


def _subset(tmp_path: Path, keep) -> Path:
    lines = [line for line in Path(sample_path()).read_text(encoding="utf-8").splitlines() if keep(json.loads(line))]
    out = tmp_path / "subset.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_eval_where_scores_exactly_the_records_a_prefiltered_input_holds(tmp_path):
    subset = _subset(tmp_path, lambda r: r["benchmark"] == "MMMU")
    filtered = _run("eval", "-r", "lmms-eval", "--seed", "0", "--format", "json", "--where", MMMU, sample_path())
    direct = _run("eval", "-r", "lmms-eval", "--seed", "0", "--format", "json", subset)
    assert filtered.exit_code == 0 and direct.exit_code == 0, filtered.output
    assert json.loads(filtered.stdout) == json.loads(direct.stdout)  # JSON output is unchanged by the option
    assert json.loads(filtered.stdout)["results"][0]["outcomes"]["rule"] + \
        json.loads(filtered.stdout)["results"][0]["outcomes"]["fallback"] == 160
    assert "--where benchmark == \"MMMU\": kept 160 of 400 records" in filtered.stderr


def test_eval_where_headline_in_the_table_and_markdown():
    table = _run("eval", "-r", "vlmevalkit", "--where", MMMU)
    assert table.exit_code == 0
    assert 'rulekit eval (--where benchmark == "MMMU": kept 160 of 400 records)' in table.stdout
    md = _run("eval", "-r", "vlmevalkit", "--format", "markdown", "--where", 'model == "nobody"')
    assert md.exit_code == 0
    assert md.stdout.startswith('--where model == "nobody": kept 0 of 400 records')


def test_where_reads_ids_meta_fields_and_functions(tmp_path):
    rid = "mmmu/llava1.5_13b/validation_Accounting_16"
    one = _run("eval", "-r", "vlmevalkit", "--format", "json", "--where", f'id == "{rid}"')
    assert json.loads(one.stdout)["results"][0]["n"] == 1
    subset = _subset(tmp_path, lambda r: r.get("meta", {}).get("subject") == "Accounting" and "(" in r["response"])
    expr = 'meta.subject == "Accounting" and contains("(")'
    a = _run("eval", "-r", "vlmevalkit", "--format", "json", "--where", expr)
    b = _run("eval", "-r", "vlmevalkit", "--format", "json", subset)
    assert a.exit_code == 0 and json.loads(a.stdout) == json.loads(b.stdout)


def test_a_split_run_filters_in_its_workers_like_one_process(tmp_path):
    from rulekit.engine.compiler import load_ruleset
    from rulekit.run.parallel import evaluate_files
    from rulekit.run.where import RecordFilter

    rs = [load_ruleset("lmms-eval")]
    one, split = RecordFilter('benchmark in ["MMMU", "MMStar"]'), RecordFilter('benchmark in ["MMMU", "MMStar"]')
    a = evaluate_files(rs, [str(sample_path())], seed=0, workers=1, where=one)
    b = evaluate_files(rs, [str(sample_path())], seed=0, workers=2, min_split_bytes=0, chunk_bytes=20_000, where=split)
    assert (one.read, one.kept) == (split.read, split.kept) == (400, 180)
    assert a[0].as_json() == b[0].as_json()


def test_diff_where_compares_the_kept_records_and_says_so(tmp_path):
    subset = _subset(tmp_path, lambda r: r["benchmark"] == "MMMU")
    a = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--format", "json", "--where", MMMU)
    b = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--format", "json", subset)
    assert a.exit_code == 0 and json.loads(a.stdout) == json.loads(b.stdout)
    table = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--show", "0", "--where", MMMU)
    assert "kept 160 of 400 records" in table.stdout


def test_explain_where_finds_only_kept_records():
    rid = "mmmu/llava1.5_13b/validation_Accounting_16"
    kept = _run("explain", "-r", "vlmevalkit", "--id", rid, sample_path(), "--where", MMMU, "--format", "json")
    assert kept.exit_code == 0 and json.loads(kept.stdout)["id"] == rid
    gone = _run("explain", "-r", "vlmevalkit", "--id", rid, sample_path(), "--where", 'benchmark == "MMStar"')
    assert gone.exit_code == 2
    assert "error[E404]" in gone.stderr and "among the 20 of 400 records" in gone.stderr


def test_reproduce_where_keeps_the_prediction_files_it_holds_for():
    every = json.loads(_run("reproduce", REPRO, "--format", "json").stdout)
    some = _run("reproduce", REPRO, "--format", "json", "--where", 'benchmark == "DocVQA_VAL"')
    assert some.exit_code == 0
    data = json.loads(some.stdout)
    assert data["results"] == [r for r in every["results"] if r["benchmark"] == "DocVQA_VAL"] != []
    assert 'kept 1 of 3 prediction files' in data["notes"][0]


@pytest.mark.parametrize("command", [["eval", "-r", "vlmevalkit"], ["diff", "-r", "vlmevalkit", "-r", "lmms-eval"],
                                     ["explain", "-r", "vlmevalkit", "--id", "x", str(sample_path())],
                                     ["reproduce", str(REPRO)]])
@pytest.mark.parametrize("expr,code,caret", [('benchmark = "MMMU"', "E202", "  |           ^"),
                                             ('benchmarks == "MMMU"', "E201", "  | ^")])
def test_a_bad_where_is_a_located_error_with_its_code(command, expr, code, caret):
    result = _run(*command, "--where", expr)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"error[{code}]: --where" in result.stderr
    assert f"  | {expr}\n{caret}\n" in result.stderr
