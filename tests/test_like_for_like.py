"""Headline numbers compare like with like (issue 29, part B).

- A multiple-choice record without options is outcome `unreadable` for a ruleset that needs options,
  left out of its accuracy unless --count-unreadable, and named the same way by every such ruleset.
- The band, diff, the `--by` tables across rulesets and the HTML page are on the records every
  compared ruleset scored, say what each left out and why, and say when nothing can be compared.
- W312 fires only where a chosen ruleset cannot read those records; the report names, per
  benchmark, the registry's rulesets that read them.
- One ruleset and one seed give one fingerprint in every command and format.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.engine.compiler import load_ruleset
from rulekit.readers import read_records
from rulekit.report.diff import diff_results
from rulekit.run.evaluate import evaluate

FIXTURES = Path(__file__).parent / "fixtures"
OPTS = {"A": "cat", "B": "dog", "C": "cow", "D": "owl"}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _write(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _rows() -> list[dict]:
    """12 multiple-choice records with options (BENCH-A), 4 without (BLINK, as the corpus ships them), 3 open."""
    rows = []
    for i in range(12):
        gold = "ABCD"[i % 4]
        reply = f"The answer is ({gold})" if i % 3 else "I cannot tell"
        rows.append({"id": f"mc{i}", "benchmark": "BENCH-A", "question_type": "multiple-choice", "choices": OPTS,
                     "answer": gold, "response": reply})
    for i in range(4):
        rows.append({"id": f"blink{i}", "benchmark": "BLINK", "question_type": "multiple-choice", "choices": None,
                     "answer": "B", "response": "B" if i % 2 else "(A) the first image"})
    for i in range(3):
        rows.append({"id": f"open{i}", "benchmark": "BENCH-A", "question_type": "open", "answer": "42",
                     "response": "42" if i else "41"})
    return rows


@pytest.fixture
def mixed(tmp_path) -> str:
    return _write(tmp_path / "mixed.jsonl", _rows())


# ---------------------------------------------------------------- 1. unreadable records
def test_records_without_options_are_unreadable_and_left_out(mixed, tmp_path):
    out = tmp_path / "out"
    result = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmevalpro", mixed, "--seed", "0",
                 "--format", "json", "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    by = {r["ruleset"]: r for r in json.loads(result.stdout)["results"]}
    # one name for one state: vlmevalkit used to say `unresolved`, lmms-eval `error`
    for name in ("vlmevalkit", "lmms-eval"):
        entry = by[name]
        assert entry["outcomes"]["unreadable"] == 4 and entry["outcomes"]["error"] == 0
        assert entry["unreadable"] == {"n": 4, "counted": False, "why": "multiple-choice without options",
                                       "by_benchmark": {"BLINK": 4}}
        rows = [json.loads(line) for line in (out / f"{name}.decisions.jsonl").read_text().splitlines()]
        blink = [r for r in rows if r["id"].startswith("blink")]
        assert len(blink) == 4 and {(r["outcome"], r["pred"], r["correct"], r["step"]) for r in blink} == \
            {("unreadable", None, None, None)}
    assert by["vlmevalkit"]["n"] == 12  # the 12 multiple-choice records with options; open: no section
    assert by["lmms-eval"]["n"] == 15  # and the 3 open ones
    assert by["vlmevalkit"]["metrics"]["accuracy"] == pytest.approx(8 / 12)
    # mmevalpro reads the whole reply: it scores the BLINK records (2 of 4 are "B")
    assert by["mmevalpro"]["n"] == 16 and "unreadable" not in by["mmevalpro"]
    assert by["mmevalpro"]["outcomes"]["unreadable"] == 0


def test_count_unreadable_counts_them_wrong(mixed):
    left = json.loads(run("eval", "-r", "vlmevalkit", mixed, "--format", "json").stdout)["results"][0]
    counted = json.loads(run("eval", "-r", "vlmevalkit", mixed, "--format", "json",
                             "--count-unreadable").stdout)["results"][0]
    assert (left["n"], counted["n"]) == (12, 16)
    assert counted["unreadable"]["counted"] is True
    assert counted["metrics"]["accuracy"] == pytest.approx(8 / 16)
    assert left["outcomes"] == counted["outcomes"]  # the decisions are the same; only the headline changes


def test_w312_only_where_a_ruleset_cannot_read_them(mixed):
    alone = run("eval", "-r", "mmevalpro", mixed)
    assert alone.exit_code == 0 and "W312" not in alone.stderr
    assert run("eval", "-r", "mmevalpro", mixed, "--strict").exit_code == 0
    both = run("eval", "-r", "mmevalpro", "-r", "vlmevalkit", mixed)
    assert "warning[W312]: 4 multiple-choice record(s) without options (BLINK 4): `vlmevalkit` cannot read them" \
        in both.stderr
    assert "mmevalpro`" not in both.stderr.split("W312")[1].splitlines()[0]


def test_the_registry_names_the_rulesets_that_read_them(mixed):
    from rulekit.report.joint import readers_of

    assert readers_of("BLINK") == ["atropos-blink"]
    assert readers_of("MMEvalPro")[:1] == ["mmevalpro"] and "vlmevalkit" not in readers_of("MMEvalPro")
    result = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", mixed, "--seed", "0", "--format", "json")
    note = json.loads(result.stdout)["unreadable"]["BLINK"]
    assert note == {"n": 4, "why": "multiple-choice without options", "cannot_read": ["vlmevalkit", "lmms-eval"],
                    "rulesets_that_apply": ["atropos-blink"]}
    table = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", mixed, "--seed", "0").stdout
    assert "BLINK: 4 multiple-choice records without options in this input, which vlmevalkit, lmms-eval cannot " \
           "read; built-in rulesets that read them: atropos-blink" in " ".join(table.split())


def test_needs_options_is_inferred_and_can_be_said(tmp_path, mixed):
    base = """\
ruleset: {name}
summary: the letter after "answer is".
multiple-choice:
{extra}  steps:
    - id: answer-is
      find: {{regex: 'answer is \\((?P<answer>[A-D])\\)', matches: first}}
      pick: first
  compare: {compare}
"""
    def ruleset(name, compare="letter", extra=""):
        path = tmp_path / f"{name}.yaml"
        path.write_text(base.format(name=name, compare=compare, extra=extra))
        return load_ruleset(str(path))
    sections = {
        "inferred": ruleset("inferred"),                                              # compare: letter
        "said-no": ruleset("said-no", extra="  needs-options: false\n"),
        "exact": ruleset("exact", compare="{exact: {}}"),                             # reads fixed letters
        "said-yes": ruleset("said-yes", compare="{exact: {}}", extra="  needs-options: true\n"),
        "letters": ruleset("letters", extra="  letters-if-missing: [A, B, C, D]\n"),   # letters of its own
    }
    need = {name: rs.sections["multiple-choice"].needs_options for name, rs in sections.items()}
    assert need == {"inferred": True, "said-no": False, "exact": False, "said-yes": True, "letters": False}
    results = evaluate(list(sections.values()), read_records([mixed]))
    assert {r.ruleset: r.unreadable for r in results} == {"inferred": 4, "said-no": 0, "exact": 0, "said-yes": 4,
                                                          "letters": 0}


def test_unreadable_records_never_reach_the_judge(mixed):
    result = run("eval", "-r", "vlmevalkit+judge", mixed, "--judge-dry-run")
    assert result.exit_code == 0
    assert "4 of 19 records would go to the judge" in " ".join(result.stdout.split())  # the 4 "I cannot tell"


def test_explain_names_the_state():
    result = run("explain", "-r", "vlmevalkit", "--response", "(B)", "--question-type", "multiple-choice")
    assert result.exit_code == 0 and "outcome unreadable" in result.stdout


# ---------------------------------------------------------------- 2. like for like
def test_the_sample_band_is_like_for_like():
    """docs/eval.md's first example: vlmevalkit scores the 307 multiple-choice records, lmms-eval and mmmu all 400.
    The band used to be their own accuracies (31.75-35.50); on the common records it is 35.50-41.04."""
    result = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0", "--format", "json")
    payload = json.loads(result.stdout)
    by = {r["ruleset"]: r for r in payload["results"]}
    band = payload["band"]
    assert band["n"] == 307 and band["comparable"] is True
    mc = {name: by[name]["metrics"]["by_question_type"]["multiple-choice"]["accuracy"]
          for name in ("lmms-eval", "mmmu")}
    assert band["accuracy"] == {"vlmevalkit": by["vlmevalkit"]["metrics"]["accuracy"], **mc}
    assert (round(100 * band["min"], 2), round(100 * band["max"], 2)) == (35.50, 41.04)
    assert band["left_out"] == {"vlmevalkit": {"n": 0, "why": {}},
                                "lmms-eval": {"n": 93, "why": {"no section in vlmevalkit (open)": 93}},
                                "mmmu": {"n": 93, "why": {"no section in vlmevalkit (open)": 93}}}
    # each ruleset's own number stays, labelled as such
    assert {name: o["n"] for name, o in band["own"].items()} == {"vlmevalkit": 307, "lmms-eval": 400, "mmmu": 400}
    for name, own in band["own"].items():
        assert own["accuracy"] == by[name]["metrics"]["accuracy"]
        assert own["ci"][0] <= own["accuracy"] <= own["ci"][1]
        assert band["ci"][name][0] <= band["accuracy"][name] <= band["ci"][name][1]
    table = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0").stdout
    assert "extraction band: 35.50–41.04 (spread 5.54 points across 3 rulesets, on the 307 records all of them " \
           "scored)" in table
    assert "each ruleset on the records it scored" in table and "like for like: the 307 records" in table
    markdown = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0", "--format",
                   "markdown").stdout
    assert "| lmms-eval | 307 | 41.04 |" in markdown and "93: no section in vlmevalkit (open)" in markdown


def test_by_tables_across_rulesets_compare_the_same_records(mixed):
    result = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmevalpro", mixed, "--seed", "0",
                 "--by", "benchmark", "--format", "json")
    band = json.loads(result.stdout)["band"]
    per = band["by"]["benchmark"]
    assert per["BENCH-A"]["n"] == 12 and per["BENCH-A"]["accuracy"]["vlmevalkit"] == pytest.approx(8 / 12)
    assert per["BENCH-A"]["left_out"] == {"n": 3, "why": {"no section in vlmevalkit, mmevalpro (open)": 3}}
    # nobody reads BLINK here but mmevalpro: nothing to compare, and the report says why
    assert per["BLINK"]["n"] == 0 and per["BLINK"]["comparable"] is False and per["BLINK"]["spread"] is None
    assert per["BLINK"]["left_out"] == {"n": 4, "why": {
        "unreadable by vlmevalkit, lmms-eval (multiple-choice without options)": 4}}
    assert set(per["BLINK"]["accuracy"].values()) == {None}
    html = run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmevalpro", mixed, "--seed", "0",
               "--by", "benchmark", "--format", "html").stdout
    assert "Like for like by benchmark" in html and "unreadable by vlmevalkit, lmms-eval" in html
    page_band = json.loads(re.search(r'id="rulekit-data">(.*?)</script>', html, re.S).group(1))["band"]
    assert page_band == band


def test_nothing_in_common_means_no_band(tmp_path):
    data = _write(tmp_path / "blink.jsonl", [r for r in _rows() if r["benchmark"] == "BLINK"])
    result = run("eval", "-r", "vlmevalkit", "-r", "mmevalpro", data, "--format", "json")
    band = json.loads(result.stdout)["band"]
    assert band["comparable"] is False and band["n"] == 0
    assert (band["min"], band["max"], band["spread"]) == (None, None, None)
    assert band["left_out"]["mmevalpro"]["n"] == 4
    table = run("eval", "-r", "vlmevalkit", "-r", "mmevalpro", data).stdout
    assert "extraction band: cannot compare: no record was scored by every ruleset" in table
    diff = run("diff", "-r", "vlmevalkit", "-r", "mmevalpro", data, "--format", "json")
    summary = json.loads(diff.stdout)["summary"]
    assert summary["comparable"] is False and summary["mcnemar_p"] is None and summary["delta"] is None
    assert summary["left_out"]["b"] == {"n": 4, "why": {
        "unreadable by vlmevalkit (multiple-choice without options)": 4}}
    text = run("diff", "-r", "vlmevalkit", "-r", "mmevalpro", data).stdout
    assert "cannot compare: no record was scored by both vlmevalkit and mmevalpro" in " ".join(text.split())


def test_diff_pairs_the_records_both_scored(mixed):
    rulesets = [load_ruleset("lmms-eval"), load_ruleset("mmevalpro")]
    a, b = evaluate(rulesets, read_records([mixed]), seed=0, keep=True)
    report = diff_results(a, b, seed=0, show=0)
    s = report["summary"]
    assert report["n"] == 12 and s["skipped"] == 7
    assert s["left_out"] == {"a": {"n": 3, "why": {"no section in mmevalpro (open)": 3}},
                             "b": {"n": 4, "why": {"unreadable by lmms-eval (multiple-choice without options)": 4}}}
    assert (s["own_a"]["n"], s["own_b"]["n"]) == (15, 16)
    counted = evaluate(rulesets, read_records([mixed]), seed=0, keep=True, count_unreadable=True)
    assert diff_results(*counted, seed=0, show=0)["n"] == 16


def test_the_comparison_does_not_depend_on_record_order(mixed, tmp_path):
    from rulekit.report.joint import compare

    rows = _rows()
    random.Random(7).shuffle(rows)
    shuffled = _write(tmp_path / "shuffled.jsonl", rows)
    # not lmms-eval: it draws from one stream in input order (its decisions depend on the order by design)
    rulesets = [load_ruleset(n) for n in ("vlmevalkit", "atropos-blink", "mmevalpro")]
    one = compare(evaluate(rulesets, read_records([mixed]), seed=0, compare_by=["benchmark"]), seed=0)
    two = compare(evaluate(rulesets, read_records([shuffled]), seed=0, compare_by=["benchmark"]), seed=0)
    assert one["by"]["benchmark"].keys() == two["by"]["benchmark"].keys()
    for key in ("n", "min", "max", "accuracy", "ci", "left_out", "own"):
        assert one[key] == two[key]
    for value in one["by"]["benchmark"]:
        assert one["by"]["benchmark"][value] == two["by"]["benchmark"][value]


def test_worker_processes_give_the_same_comparison(tmp_path, monkeypatch):
    from rulekit.run import parallel

    rows = []
    for k in range(40):
        for r in _rows():
            rows.append(dict(r, id=f"{r['id']}-{k}"))
    data = _write(tmp_path / "big.jsonl", rows)
    args = ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmevalpro", data, "--seed", "0", "--by",
            "benchmark", "--format", "json"]
    monkeypatch.setattr(parallel, "MIN_SPLIT_BYTES", 0)
    one = run(*args, "--workers", "1")
    split = run(*args, "--workers", "2")
    assert one.exit_code == split.exit_code == 0
    assert json.loads(one.stdout) == json.loads(split.stdout)
    assert json.loads(one.stdout)["band"]["by"]["benchmark"]["BENCH-A"]["n"] == 480


# ---------------------------------------------------------------- 3. one fingerprint per (ruleset, seed)
_HEX = re.compile(r"(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f])")


def _fingerprints(text: str) -> set[str]:
    return set(_HEX.findall(text))


@pytest.mark.parametrize("name,seed", [("vlmevalkit", "0"), ("vlmevalkit", None), ("lmms-eval", "5"),
                                       ("lmms-eval", None)])
def test_one_fingerprint_in_every_command(name, seed):
    expected = load_ruleset(name).fingerprint_for(None if seed is None else int(seed))
    s = ["--seed", seed] if seed is not None else []
    reply = ["--response", "The answer is (B)", "--options", "A=cat,B=dog", "--answer", "B"]
    outputs = {
        "eval": run("eval", "-r", name, *s).stdout,
        "eval json": run("eval", "-r", name, *s, "--format", "json").stdout,
        "eval markdown": run("eval", "-r", name, *s, "--format", "markdown").stdout,
        "eval html": run("eval", "-r", name, *s, "--format", "html").stdout,
        "explain": run("explain", "-r", name, *s, *reply).stdout,
        "explain json": run("explain", "-r", name, *s, *reply, "--format", "json").stdout,
    }
    for what, text in outputs.items():
        assert _fingerprints(text) == {expected}, what
    other = "mmmu"
    other_fp = load_ruleset(other).fingerprint_for(None if seed is None else int(seed))
    pair = {
        "eval two": run("eval", "-r", name, "-r", other, *s).stdout,
        "diff": run("diff", "-r", name, "-r", other, *s, "--show", "0").stdout,
        "diff json": run("diff", "-r", name, "-r", other, *s, "--format", "json").stdout,
        "diff markdown": run("diff", "-r", name, "-r", other, *s, "--format", "markdown", "--show", "0").stdout,
        "diff html": run("diff", "-r", name, "-r", other, *s, "--format", "html", "--show", "0").stdout,
        "explain --diff": run("explain", "-r", name, "--diff", other, *s, *reply).stdout,
    }
    for what, text in pair.items():
        assert _fingerprints(text) == {expected, other_fp}, what
    # a ruleset that draws no letter has one fingerprint whatever the seed; one that draws, one per seed
    draws = load_ruleset(name).seed is not None
    assert (load_ruleset(name).fingerprint_for(0) == load_ruleset(name).fingerprint_for(1)) is not draws


def test_reproduce_gives_the_fingerprint_eval_gives():
    result = run("reproduce", str(FIXTURES / "reproduce" / "lmms-eval"), "--format", "json")
    rows = json.loads(result.stdout)["results"]
    for row in rows:
        if row["ruleset"]:
            evaluated = json.loads(run("eval", "-r", row["ruleset"], "--format", "json").stdout)["results"][0]
            assert row["fingerprint"] == evaluated["fingerprint"]
