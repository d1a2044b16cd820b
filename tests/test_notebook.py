"""The notebook API (issue 32): `rulekit.score` and `rulekit.diff` on pandas and polars DataFrames give the
decisions and the diff `rulekit eval` and `rulekit diff` give on the same rows, in a DataFrame of the input's kind."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main
from rulekit.core.errors import RulekitError
from rulekit.data import sample_path
from rulekit.report.frames import DIFF_COLUMNS, SCORE_COLUMNS, RulekitWarning

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

RULESETS = ["vlmevalkit", "lmms-eval", "mmmu"]  # mmmu draws random letters: the seed and `k` count too


def sample_rows() -> list[dict]:
    return [json.loads(line) for line in Path(sample_path()).read_text(encoding="utf-8").splitlines()]


def cli(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result


def cli_decisions(tmp_path: Path, data: str, seed: str = "3") -> dict[str, list[bytes]]:
    out = tmp_path / "out"
    cli("eval", *[x for name in RULESETS for x in ("-r", name)], data, "--seed", seed, "--output-dir", str(out),
        "--format", "json", "--workers", "1")
    return {name: (out / f"{name}.decisions.jsonl").read_bytes().splitlines() for name in RULESETS}


def rows_of(frame) -> list[dict]:
    """The frame's rows as plain Python (pandas' NA/NaN → None)."""
    if isinstance(frame, pl.DataFrame):
        return frame.to_dicts()
    records = frame.astype(object).to_dict("records")
    return [{k: (None if not isinstance(v, (list, dict)) and pd.isna(v) else v) for k, v in r.items()} for r in records]


def as_decision_lines(frame, name: str) -> list[bytes]:
    """The decisions-file lines of ruleset `name` rebuilt from the frame's columns (DESIGN.md §5)."""
    out = []
    for row in rows_of(frame):
        if row["ruleset"] != name or row["outcome"] is None:  # no section: not in the decisions file
            continue
        line = {k: row[k] for k in ("id", "pred", "correct", "score", "outcome", "step")}
        if row["message"]:
            line["message"] = row["message"]
        out.append(orjson.dumps(line))
    return out


def test_pandas_decisions_are_the_cli_decisions_byte_for_byte(tmp_path):
    frame = rulekit.score(pd.DataFrame(sample_rows()), RULESETS, seed=3)
    assert isinstance(frame, pd.DataFrame) and tuple(frame.columns) == SCORE_COLUMNS
    assert len(frame) == 400 * len(RULESETS)
    assert list(frame["ruleset"].unique()) == RULESETS
    assert list(frame[frame.ruleset == "mmmu"]["row"]) == list(range(400))  # input order
    expected = cli_decisions(tmp_path, str(sample_path()))
    for name in RULESETS:
        assert as_decision_lines(frame, name) == expected[name], name
    assert (frame[frame.ruleset == "mmmu"]["k"] > 0).any()  # random draws were compared too


def test_polars_decisions_are_the_cli_decisions_on_the_same_rows(tmp_path):
    frame = pl.DataFrame(sample_rows(), infer_schema_length=None)  # polars makes the mixed answers text
    path = tmp_path / "polars.jsonl"
    frame.write_ndjson(path)
    out = rulekit.score(frame, RULESETS, seed=3)
    assert isinstance(out, pl.DataFrame) and tuple(out.columns) == SCORE_COLUMNS
    assert out.schema["correct"] == pl.Boolean and out.schema["score"] == pl.Float64
    expected = cli_decisions(tmp_path, str(path))
    for name in RULESETS:
        assert as_decision_lines(out, name) == expected[name], name


def test_counted_rows_give_the_cli_accuracy_and_the_summary_is_evals_json():
    frame = rulekit.score(pd.DataFrame(sample_rows()), ["vlmevalkit", "lmms-eval"])
    payload = json.loads(cli("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "--format", "json").stdout)
    summary = frame.attrs["summary"]
    assert summary["results"] == payload["results"] and summary["warnings"] == []
    for entry in payload["results"]:
        mine = frame[(frame.ruleset == entry["ruleset"]) & frame.counted]
        assert len(mine) == entry["n"]
        assert mine["correct"].astype(bool).mean() == pytest.approx(entry["metrics"]["accuracy"], abs=1e-12)
    skipped = frame[(frame.ruleset == "vlmevalkit") & frame.outcome.isna()]
    assert len(skipped) == 93 and set(skipped["message"]) == {"not scored: vlmevalkit has no open section"}
    polars_frame, polars_summary = rulekit.score(pl.DataFrame(sample_rows(), infer_schema_length=None),
                                                 "vlmevalkit", with_summary=True)
    assert polars_summary["results"][0]["n"] == 307
    assert polars_frame.filter(pl.col("counted")).height == 307


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_diff_lists_the_cli_diff_records_with_its_summary(kind):
    rows = sample_rows()
    frame = pd.DataFrame(rows) if kind == "pandas" else pl.DataFrame(rows, infer_schema_length=None)
    out, summary = rulekit.diff(frame, "lmms-eval", "vlmevalkit", seed=5, with_summary=True)
    assert tuple(out.columns) == DIFF_COLUMNS
    assert isinstance(out, pd.DataFrame if kind == "pandas" else pl.DataFrame)
    report = json.loads(cli("diff", "-r", "lmms-eval", "-r", "vlmevalkit", "--format", "json", "--seed", "5",
                            "--show", "0").stdout)
    got = rows_of(out)
    keys = ("id", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome", "a_step", "b_step")
    if kind == "pandas":  # polars made the golds text: only the rows and the summary are compared there
        assert [{k: r[k] for k in keys} for r in got] == report["disagree"]
    assert 0 < len(got) == report["summary"]["disagree"]
    assert {k: v for k, v in summary.items() if k not in ("a", "b", "n", "warnings")} == report["summary"]
    assert (summary["a"], summary["b"], summary["n"]) == (report["a"], report["b"], report["n"])
    for r in got:  # `row` points at the input row; gold is its answer
        assert rows[r["row"]]["id"] == r["id"] and str(rows[r["row"]]["answer"]) == str(r["gold"])
        assert r["category"] in ("rule", "one_sided", "fallback")
    directions = [r["direction"] for r in got]
    assert directions.count("a_right_only") == report["summary"]["a_only_correct"]
    assert directions.count("b_right_only") == report["summary"]["b_only_correct"]
    if kind == "pandas":
        assert out.attrs["summary"] == summary


@pytest.mark.parametrize("count_unreadable", [False, True])
def test_diff_streams_and_gives_what_the_kept_results_give(monkeypatch, count_unreadable):
    """`rulekit.diff` streams (DiffStream, nothing kept per record but the disagreements): its rows and summary
    are those of `diff_results` over Results that kept every decision, unreadable rows counted or not."""
    from rulekit.engine.compiler import load_ruleset
    from rulekit.readers.frame import read_frame
    from rulekit.report import diff as D
    from rulekit.run.evaluate import evaluate

    rows = sample_rows()
    rows[0] = {**rows[0], "choices": None, "question_type": "multiple-choice"}  # unreadable: no options
    frame = pd.DataFrame(rows)
    full = evaluate([load_ruleset("lmms-eval"), load_ruleset("vlmevalkit")], list(read_frame(frame, None)), seed=5,
                    keep=True, count_unreadable=count_unreadable)
    expected = D.public(D.diff_results(full[0], full[1], seed=5, show=0))
    if count_unreadable:  # counted: a decision like any other
        assert any(d.outcome == "unreadable" for d in full[1].decisions)
    else:  # left out of both sides' n, said so
        assert expected["summary"]["skipped"] >= 1

    def kept_in_full(*args, **kwargs):
        raise AssertionError("rulekit.diff kept every decision (diff_results) instead of streaming")

    monkeypatch.setattr(D, "diff_results", kept_in_full)
    with pytest.warns(RulekitWarning, match="W312"):  # the row without options, said as eval says it
        out, summary = rulekit.diff(frame, "lmms-eval", "vlmevalkit", seed=5, count_unreadable=count_unreadable,
                                    with_summary=True)
    keys = ("id", "a_pred", "b_pred", "a_correct", "b_correct", "a_outcome", "b_outcome", "a_step", "b_step")
    assert [{k: r[k] for k in keys} for r in rows_of(out)] == expected["disagree"]
    assert {k: v for k, v in summary.items() if k not in ("a", "b", "n", "warnings")} == expected["summary"]
    assert summary["n"] == expected["n"] and len(out) == expected["summary"]["disagree"] > 0


def test_fields_map_columns_as_the_cli_field_option_does(tmp_path):
    rows = [{"index": r["id"], "prediction": r["response"], "gold_letter": r["answer"], **{k: v for k, v in r.items()
            if k not in ("id", "response", "answer")}} for r in sample_rows()]
    frame = pd.DataFrame(rows)
    by_dict = rulekit.score(frame, "vlmevalkit", fields={"answer": "gold_letter"})
    by_items = rulekit.score(frame, "vlmevalkit", fields=["answer=gold_letter"])
    plain = rulekit.score(pd.DataFrame(sample_rows()), "vlmevalkit")
    assert as_decision_lines(by_dict, "vlmevalkit") == as_decision_lines(plain, "vlmevalkit")
    assert as_decision_lines(by_items, "vlmevalkit") == as_decision_lines(plain, "vlmevalkit")
    path = tmp_path / "renamed.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"id": r["index"], "response": r["prediction"], **r}) + b"\n" for r in rows))
    out = tmp_path / "out"
    cli("eval", "-r", "vlmevalkit", str(path), "--field", "answer=gold_letter", "--output-dir", str(out))
    assert as_decision_lines(by_dict, "vlmevalkit") == (out / "vlmevalkit.decisions.jsonl").read_bytes().splitlines()


def test_an_unknown_column_is_the_readers_error():
    frame = pd.DataFrame(sample_rows()[:3])
    with pytest.raises(RulekitError) as err:
        rulekit.score(frame, "vlmevalkit", fields={"response": "no_such_column"})
    assert err.value.code == "E300"
    assert "column 'no_such_column' (mapped to response) not found" in str(err.value)
    assert "DataFrame row 0" in str(err.value)
    with pytest.raises(RulekitError) as err:
        rulekit.score(pl.DataFrame({"id": ["a"], "text": ["A"]}), "vlmevalkit")
    assert err.value.code == "E300" and "missing required field: response" in str(err.value)


@pytest.mark.parametrize("data, fields, code", [
    ([{"id": "a", "response": "A"}], None, "E400"),              # a list, not a DataFrame
    ("frame", ["response"], "E400"),                              # a malformed field map (as --field)
    ("frame", {"colour": "x"}, "E400"),                           # an unknown field
    ("lazy", None, "E400"),                                       # a polars LazyFrame
])
def test_usage_errors_have_the_cli_codes(data, fields, code):
    frame = pd.DataFrame([{"id": "a", "response": "A", "answer": "A", "choices": {"A": "x", "B": "y"}}])
    data = frame if data == "frame" else pl.DataFrame({"id": ["a"]}).lazy() if data == "lazy" else data
    with pytest.raises(RulekitError) as err:
        rulekit.score(data, "vlmevalkit", fields=fields)
    assert err.value.code == code


def test_unknown_ruleset_and_unknown_option():
    frame = pd.DataFrame([{"id": "a", "response": "A", "answer": "A"}])
    with pytest.raises(RulekitError) as err:
        rulekit.score(frame, "no-such-ruleset")
    assert err.value.code == "E105"
    with pytest.raises(RulekitError) as err:
        rulekit.score(frame, "vlmevalkit", judge_urll="http://x")
    assert err.value.code == "E400" and "judge_urll" in str(err.value)


def test_where_keeps_rows_and_row_points_back_into_the_frame():
    rows = sample_rows()
    frame = pd.DataFrame(rows)
    out = rulekit.score(frame, "lmms-eval", where='benchmark == "MMMU"')
    mmmu = [i for i, r in enumerate(rows) if r["benchmark"] == "MMMU"]
    assert 0 < len(out) == len(mmmu) < len(rows) and list(out["row"]) == mmmu
    assert list(out["id"]) == [rows[i]["id"] for i in mmmu]


def test_input_warnings_are_python_warnings_or_errors_when_strict():
    frame = pd.DataFrame([{"id": "a", "response": "A", "answer": "A", "choices": {"A": "x", "B": "y"}}] * 2)
    with pytest.warns(RulekitWarning, match=r"warning\[W310\]"):
        out = rulekit.score(frame, "vlmevalkit")
    assert len(out) == 2 and out.attrs["summary"]["warnings"][0].startswith("warning[W310]")
    with pytest.raises(RulekitError) as err:
        rulekit.score(frame, "vlmevalkit", strict=True)
    assert err.value.code == "W310"
    with warnings.catch_warnings():  # nothing left behind in the process-wide collector
        warnings.simplefilter("error")
        rulekit.score(frame.iloc[:1], "vlmevalkit")


def test_pandas_and_numpy_cells_read_as_plain_values():
    np = pytest.importorskip("numpy")
    frame = pd.DataFrame({"id": pd.array(["a", "b", "c"], dtype="string"),
                          "response": pd.array(["The answer is B", "C", pd.NA], dtype="string"),
                          "answer": pd.array(["B", "C", "A"], dtype="string"),
                          "choices": [np.array(["x", "y", "z"]), np.array(["x", "y", "z"]), np.array(["x", "y", "z"])],
                          "n": pd.array([1, pd.NA, 3], dtype="Int64")})
    out = rulekit.score(frame, "vlmevalkit")
    assert list(out["pred"]) == ["B", "C", None] and list(out["correct"]) == [True, True, False]
    assert list(out["outcome"])[:2] == ["rule", "rule"]


def test_same_names_are_told_apart_and_empty_frames_work():
    frame = pd.DataFrame([{"id": "a", "response": "A", "answer": "A", "choices": {"A": "x", "B": "y"}}])
    out = rulekit.score(frame, ["vlmevalkit", "vlmevalkit"])
    assert list(out["ruleset"]) == ["vlmevalkit", "vlmevalkit-2"]
    empty = rulekit.score(pd.DataFrame({"id": [], "response": []}), "vlmevalkit")
    assert len(empty) == 0 and tuple(empty.columns) == SCORE_COLUMNS
    empty = rulekit.diff(pl.DataFrame({"id": [], "response": []}, schema={"id": pl.String, "response": pl.String}),
                         "vlmevalkit", "lmms-eval")
    assert empty.height == 0 and tuple(empty.columns) == DIFF_COLUMNS


def test_importing_rulekit_imports_neither_pandas_nor_polars():
    code = "import sys, rulekit; print([m for m in ('pandas', 'polars', 'rulekit.report.frames') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


REALFILES = Path(__file__).resolve().parents[1] / ".." / "shared" / "realfiles" / "vlmevalkit"
SHEETS = ["vila_13b/vila_13b_MMStar.xlsx", "vila_13b/vila_13b_ScienceQA_TEST.xlsx"]


@pytest.mark.parametrize("sheet", SHEETS)
def test_a_real_vlmevalkit_sheet_read_by_pandas_scores_as_the_cli_scores_the_file(tmp_path, sheet):
    path = REALFILES / sheet
    if not path.exists():
        pytest.skip(f"{path} not here (../shared/realfiles)")
    frame = pd.read_excel(path)  # VLMEvalKit's own reader: index, prediction, answer, A..D as they are
    out = tmp_path / "out"
    cli("eval", "-r", "vlmevalkit", str(path), "--seed", "0", "--output-dir", str(out), "--format", "json")
    expected = (out / "vlmevalkit.decisions.jsonl").read_bytes().splitlines()
    assert len(expected) > 100
    assert as_decision_lines(rulekit.score(frame, "vlmevalkit", seed=0), "vlmevalkit") == expected
    assert as_decision_lines(rulekit.score(pl.from_pandas(frame), "vlmevalkit", seed=0), "vlmevalkit") == expected


def test_judge_options_are_evals(tmp_path, monkeypatch):
    """`judge_*=` are `--judge-*`: a reply the rules cannot decide goes to the judge (here its cached reply)."""
    from rulekit.core.records import Record
    from rulekit.engine import judge
    from rulekit.engine.compiler import load_ruleset

    for name in (judge.ENV_URL, judge.ENV_MODEL, judge.ENV_CACHE):
        monkeypatch.delenv(name, raising=False)
    record = Record("r1", "multiple-choice", "I am not sure about this one at all, sorry.", "B", {"A": "3", "B": "4"},
                    question="Which number is even?")
    cache = tmp_path / "judge.sqlite"
    judge.configure(cache=str(cache), model="m", base_url="http://127.0.0.1:9/v1")
    try:
        client = judge.client_for(load_ruleset("vlmevalkit+judge").sections["multiple-choice"].fallback.judge)
        prompt = client.render(record)
        client.cache.put(client.key(prompt, 1), "m", prompt, 1, "B")
    finally:
        judge.configure()
    frame = pd.DataFrame([{"id": "r1", "question": record.question, "choices": record.choices, "answer": "B",
                           "response": record.response}])
    try:
        out = rulekit.score(frame, "vlmevalkit+judge", judge_replay=True, judge_cache=str(cache), judge_model="m",
                            judge_url="http://127.0.0.1:9/v1")
    finally:
        judge.configure()
    assert list(out["outcome"]) == ["judge"] and list(out["step"]) == ["judge"]
    assert list(out["pred"]) == ["B"] and list(out["correct"]) == [True]


def test_any_row_order_gives_the_same_decisions(tmp_path):
    """As for `eval` (tests/test_cli.py): with per-item random letters, the frame's row order changes no
    decision (lmms-eval's and mmmu's own draws are a stream, as their frameworks', for the CLI as for the API)."""
    custom = tmp_path / "lmms-per-item.yaml"
    custom.write_text("ruleset: lmms-per-item\nextends: lmms-eval\nmultiple-choice:\n"
                      "  fallback: {random-option: {order: per-item, seed: 0}}\n", encoding="utf-8")
    rows = sample_rows()
    forward = rulekit.score(pd.DataFrame(rows), custom, seed=3)
    backward = rulekit.score(pd.DataFrame(rows[::-1]), custom, seed=3)
    assert (forward["k"] > 0).any() and list(backward["row"]) == list(range(len(rows)))  # rows of the frame given
    assert sorted(as_decision_lines(forward, "lmms-per-item")) == sorted(as_decision_lines(backward, "lmms-per-item"))
    assert as_decision_lines(forward, "lmms-per-item") != as_decision_lines(backward, "lmms-per-item")
