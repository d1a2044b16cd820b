"""`rulekit run`: a seed-suite benchmark from its release to both frameworks' scores in one folder, here
against a scripted OpenAI-compatible server (no model: tests/test_seed_suite_vlm.py runs the real tiny
VLM). The requests the server receives are the original prompts (images first, as data URLs)."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
pytest.importorskip("datasets", reason="the `datasets` package is part of the test extra")

import seed_suite_support as S  # noqa: E402
from rulekit.cli import main  # noqa: E402

ATROPOS = json.loads((S.FIXTURES / "prompts.atropos.json").read_text(encoding="utf-8"))


@pytest.fixture
def server():
    s = S.ChatServer()
    yield s
    s.close()


def invoke(*args):
    """`rulekit ARGS`; requests one at a time, so the server sees them in item order."""
    args = [str(a) for a in args]
    if args[0] == "run":
        args += ["--concurrency", "1"]
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_run_generates_scores_and_diffs_into_one_folder(server, tmp_path):
    data = S.build("mmstar", tmp_path / "data")
    out = tmp_path / "run"
    res = invoke("run", "MMStar", "--model", "scripted", "--base-url", server.url, "--data", data, "-o", out)
    assert res.exit_code == 0, res.output
    # the model was asked exactly Atropos' MMStar prompts, image first
    assert [S.request_content(m) for m in server.requests] == ATROPOS["mmstar"]
    folder = out / "MMStar"
    rows = [json.loads(line) for line in (folder / "outputs.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["0", "1"] and {r["response"] for r in rows} == {"The answer is A."}
    assert rows[0]["meta"]["generation"]["prompt"] == "atropos-mmstar"
    assert rows[0]["choices"] == {"A": "red", "B": "green", "C": "blue", "D": "yellow"}
    results = json.loads((folder / "results.json").read_text())["results"]
    assert [r["ruleset"] for r in results] == ["atropos-mmstar", "vlmevalkit"]
    assert all(r["metrics"]["accuracy"] == 0.5 for r in results)       # "A" is right for row 1 only
    for name in ("atropos-mmstar", "vlmevalkit"):
        decisions = [json.loads(x) for x in (folder / f"{name}.decisions.jsonl").read_text().splitlines()]
        assert [d["pred"] for d in decisions] == ["A", "A"]
    diff = json.loads((folder / "diff.json").read_text())
    assert diff["a"] == "atropos-mmstar" and diff["b"] == "vlmevalkit" and diff["n"] == 2
    html = (out / "report.html").read_text()
    assert "MMStar" in html and "atropos-mmstar" in html and "Content-Security-Policy" in html
    summary = json.loads((out / "summary.json").read_text())
    assert summary["benchmarks"][0]["generation"]["records"] == 2


def test_run_resumes_and_takes_a_list_of_benchmarks(server, tmp_path):
    pope = S.build("pope", tmp_path / "pope")
    chart = S.build("chartqa", tmp_path / "chartqa")
    out = tmp_path / "run"
    args = ("run", "POPE", "ChartQA", "--model", "scripted", "--base-url", server.url,
            "--data", f"POPE={pope}", "--data", f"chartqa={chart}", "-o", out)
    assert invoke(*args).exit_code == 0
    asked = len(server.requests)
    assert asked == 4
    res = invoke(*args)            # everything is there: nothing is asked again, the scores are recomputed
    assert res.exit_code == 0 and len(server.requests) == asked
    for bench, rulesets in (("POPE", ["atropos-pope", "vlmevalkit-pope"]), ("ChartQA", ["atropos-chartqa", "chartqa"])):
        results = json.loads((out / bench / "results.json").read_text())["results"]
        assert [r["ruleset"] for r in results] == rulesets and all(r["n"] == 2 for r in results)


def test_run_with_vlmevalkit_prompts_and_a_judge_ruleset_without_a_judge(server, tmp_path):
    data = S.build("mmvet", tmp_path / "data")
    out = tmp_path / "run"
    res = invoke("run", "MMVet", "--model", "scripted", "--base-url", server.url, "--data", data, "-o", out,
                 "--prompt", "vlmevalkit")
    assert res.exit_code == 0, res.output
    assert [S.request_content(m)[-1]["text"] for m in server.requests] == ["What colour is this?", "What is 2+3 written here?"]
    results = json.loads((out / "MMVet" / "results.json").read_text())["results"]
    assert [r["ruleset"] for r in results] == ["atropos-mmvet"]     # VLMEvalKit's MMVet needs a judge
    summary = json.loads((out / "summary.json").read_text())
    assert any("asks a judge" in n for n in summary["benchmarks"][0]["notes"])


def test_run_names_an_unknown_benchmark(tmp_path):
    res = invoke("run", "MMStr", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "-o", tmp_path / "x")
    assert res.exit_code == 2 and "did you mean `MMStar`" in res.output


def test_run_on_vlmevalkit_tsv_asks_vlmevalkit_prompts(server, tmp_path):
    expected = json.loads((S.FIXTURES / "prompts.vlmevalkit.json").read_text(encoding="utf-8"))
    tsv = S.build("vlmevalkit-mcq-tsv", tmp_path / "data")
    out = tmp_path / "run"
    res = invoke("run", "MMStar", "--model", "scripted", "--base-url", server.url, "--data", tsv, "-o", out,
                 "--prompt", "vlmevalkit")
    assert res.exit_code == 0, res.output
    assert [S.request_content(m) for m in server.requests] == expected["vlmevalkit-mcq-tsv"]["messages"]
    results = json.loads((out / "MMStar" / "results.json").read_text())["results"]
    assert [(r["ruleset"], r["n"]) for r in results] == [("atropos-mmstar", 3), ("vlmevalkit", 3)]


def test_list_names_what_run_reads_a_suite_benchmark_with():
    res = invoke("list", "--benchmark", "POPE")
    assert res.exit_code == 0
    assert "seed suite (POPE): layout pope; prompts atropos atropos-pope, vlmevalkit vlmevalkit-yorn" in res.output


@pytest.mark.parametrize("bench, layout", [("MMStar", "mmstar"), ("MathVista", "mathvista")])
def test_run_diff_is_streamed_and_equals_the_diff_of_kept_results(server, tmp_path, monkeypatch, bench, layout):
    """`diff.json` comes from a DiffStream (no decision list kept for it), and is the report `diff_results`
    gives on Results that kept every decision — also where the two rulesets read the outputs with different
    field maps (MathVista: `mathvista` takes its gold from meta.answer_option)."""
    import orjson

    from rulekit.engine.compiler import load_ruleset
    from rulekit.generate.suite import find_benchmark
    from rulekit.readers import parse_field_map, read_records
    from rulekit.report import diff as D
    from rulekit.run.evaluate import evaluate

    def kept_in_full(*args, **kwargs):
        raise AssertionError("rulekit run diffed Results that kept every decision instead of streaming")

    monkeypatch.setattr(D, "diff_results", kept_in_full)
    data = S.build(layout, tmp_path / "data")
    out = tmp_path / "run"
    res = invoke("run", bench, "--model", "scripted", "--base-url", server.url, "--data", data, "-o", out)
    assert res.exit_code == 0, res.output
    monkeypatch.undo()
    folder = out / bench
    spec = find_benchmark(bench)
    names = [spec.rulesets["atropos"], spec.rulesets["vlmevalkit"]]
    assert bench != "MathVista" or spec.fields.get(names[1])  # the case of two field maps is exercised
    results, loaded = [], []
    for name in names:
        rs = load_ruleset(name)
        fields = parse_field_map(f"{k}={v}" for k, v in spec.fields.get(name, {}).items())
        [result] = evaluate([rs], read_records([str(folder / "outputs.jsonl")], fields), keep=True)
        results.append(result)
        loaded.append(rs)
    expected = D.public(D.diff_results(results[0], results[1], seed=0, show=20, rulesets=tuple(loaded)))
    got = json.loads((folder / "diff.json").read_text())
    assert got == json.loads(orjson.dumps(expected, option=orjson.OPT_NON_STR_KEYS))
    assert got["n"] == len((folder / "outputs.jsonl").read_text().splitlines())
