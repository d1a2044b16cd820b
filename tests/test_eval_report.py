"""One report model for `eval` (rulekit.report.model), shown by the terminal, Markdown and HTML with the
same numbers: accuracy, expected accuracy, 95% CI, outcomes, the `--by` breakdowns, the like-for-like
band; the HTML page adds the run (seed, input, command, warnings), an inline-SVG accuracy chart with 95%
intervals and counts on its outcome bars. And `reproduce`'s summary line and digits."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

LMMS = Path(__file__).parent / "fixtures" / "reproduce" / "lmms-eval"
TWO = ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "--by", "benchmark"]


def _run(*args, columns: str = "400") -> str:
    result = CliRunner(env={"COLUMNS": columns}).invoke(main, list(map(str, args)))
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _ci(ci) -> str:
    return f"{100 * ci[0]:.2f}–{100 * ci[1]:.2f}"


def _body(page: str) -> str:
    """The page without its JSON data block (what a person sees)."""
    return re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)


@pytest.fixture(scope="module")
def outputs():
    data = json.loads(_run(*TWO, "--format", "json"))
    return {"json": data, "terminal": _run(*TWO, "--wide"), "markdown": _run(*TWO, "--format", "markdown"),
            "html": _body(_run(*TWO, "--format", "html"))}


def _numbers(data: dict) -> list[str]:
    """Every number the report shows, as the tables write it."""
    out = []
    for r in data["results"]:
        m = r["metrics"]
        out += [_pct(m["accuracy"]), _pct(m.get("expected_accuracy")), _ci(data["band"]["own"][r["ruleset"]]["ci"])]
        out += [str(n) for n in r["outcomes"].values()]
        for value, f in m["by_benchmark"].items():
            out += [value, _pct(f["accuracy"]), _pct(f.get("expected_accuracy"))]
    band = data["band"]
    out += [_pct(band["accuracy"][name]) for name in band["rulesets"]]
    out += [_ci(band["ci"][name]) for name in band["rulesets"]]
    for value, f in band["by"]["benchmark"].items():
        out += [_pct(f["accuracy"][name]) for name in band["rulesets"] if f["accuracy"].get(name) is not None]
    return out


def test_terminal_markdown_and_html_show_the_same_numbers(outputs):
    numbers = _numbers(outputs["json"])
    assert len(numbers) > 80
    for fmt in ("terminal", "markdown", "html"):
        missing = [x for x in numbers if x not in outputs[fmt]]
        assert missing == [], (fmt, missing)
    # a number is a cell of its own in the Markdown and HTML tables, not a substring of another
    acc = _pct(outputs["json"]["results"][0]["metrics"]["expected_accuracy"])
    assert f"| {acc} |" in outputs["markdown"] and f'<td class="n">{acc}</td>' in outputs["html"]


def test_markdown_keeps_the_by_tables_and_every_format_the_notes(outputs):
    for fmt in ("terminal", "markdown", "html"):
        text = outputs[fmt]
        assert "vlmevalkit by benchmark" in text and "lmms-eval by benchmark" in text, fmt
        assert "not scored (no section for them): 93 open" in text, fmt
        assert "extraction band: 35.50–41.04" in text, fmt


def test_the_html_page_shows_the_run_ci_expected_and_counted_outcome_bars(outputs):
    page = outputs["html"]
    for head in ("<th>expected %</th>", "<th>95% CI</th>", "<b>seed</b>: 0", "<b>input</b>:",
                 "the bundled sample", "<b>command</b>: <code>rulekit eval -r vlmevalkit -r lmms-eval --format html "
                 "--by benchmark</code>"):
        assert head in page, head
    assert '<span class="rule" style="width:80.456%" title="rule: 247">247</span>' in page  # the count on the bar
    assert "247 rule, 60 unresolved" in page and "382 rule, 18 fallback" in page
    assert "expected_accuracy" not in page  # human column names, percentages
    assert "0.3550" not in page


def test_the_chart_is_well_formed_svg_with_a_bar_and_whisker_per_benchmark_and_ruleset(outputs):
    data = outputs["json"]
    [svg] = re.findall(r"<svg.*?</svg>", outputs["html"], re.S)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == "svg" and root.get("viewBox")
    bars = [r for r in root.iter("rect") if r.find("title") is not None]
    expected = sum(1 for r in data["results"] for f in r["metrics"]["by_benchmark"].values() if f["n"])
    assert len(bars) == expected
    whiskers = [p for p in root.iter("path") if p.get("class") == "ci"]
    assert len(whiskers) == expected
    labels = {t.text for t in root.iter("text") if t.get("class") == "v"}
    assert _pct(data["results"][0]["metrics"]["by_benchmark"]["MMMU"]["accuracy"]) in labels
    titles = [r.find("title").text for r in bars]
    assert any(t.startswith("MMMU · vlmevalkit: 28.33% (95% CI ") for t in titles), titles[:3]
    assert "<script" not in svg


def test_without_a_breakdown_the_chart_shows_each_ruleset_overall():
    page = _body(_run("eval", "-r", "vlmevalkit", "--format", "html"))
    [svg] = re.findall(r"<svg.*?</svg>", page, re.S)
    root = ET.fromstring(svg)
    assert len([r for r in root.iter("rect") if r.find("title") is not None]) == 1
    assert "<h2>Accuracy</h2>" in page


def test_warnings_are_on_the_html_page_and_in_the_json(tmp_path):
    rows = [{"id": "same", "question_type": "multiple-choice", "choices": {"A": "x", "B": "y"}, "answer": "A",
             "response": "A"} for _ in range(3)]
    path = tmp_path / "dup.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    page = _run("eval", "-r", "vlmevalkit", path, "--format", "html")
    data = json.loads(_run("eval", "-r", "vlmevalkit", path, "--format", "json"))
    assert data["warnings"] and any("warning[W" in w for w in data["warnings"])
    assert "<h2>Warnings</h2>" in page and data["warnings"][0].split(": ", 1)[-1].split(" (")[0] in page


def test_wilson_interval():
    from rulekit.report.model import wilson

    lo, hi = wilson(50, 100)
    assert round(lo, 4) == 0.4038 and round(hi, 4) == 0.5962
    assert wilson(0, 0) == (0.0, 1.0) and wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


# ---------------------------------------------------------------- reproduce
def test_reproduce_says_how_many_numbers_it_gave_back_in_every_format():
    data = json.loads(_run("reproduce", LMMS, "--format", "json"))
    line = (f"{sum(r['matched'] for r in data['results'])}/{len(data['results'])} numbers reproduced; "
            f"{len(data['missed'])} report not reproduced at all (see the notes)")
    assert len(data["missed"]) == 1
    assert len(data["results"]) > 1
    assert line in _run("reproduce", LMMS)
    assert f"**{line}**" in _run("reproduce", LMMS, "--format", "markdown")
    assert f'<span class="no">{line}</span>' in _run("reproduce", LMMS, "--format", "html")


def test_reproduce_html_shows_code_not_backticks_and_the_reported_digits():
    root = Path(__file__).parent / "fixtures" / "reproduce"
    page = _body(_run("reproduce", root / "vlmevalkit-chartqa-2024", "--format", "html"))
    assert "`" not in page and "<code>" in page
    data = json.loads(_run("reproduce", root / "vlmevalkit-chartqa-2024", "--format", "json"))
    from rulekit.report.reproduce import same_digits

    for r in data["results"]:
        shown = r["reproduced"] * (100 if r.get("percent") else 1) if r["reproduced"] is not None else None
        if r["matched"] and shown is not None and "." in r["reported"]:
            assert len(same_digits(r["reported"], shown).split(".")[1]) == len(r["reported"].split(".")[1])


@pytest.mark.parametrize("reported,value,shown", [
    ("73.4", 73.41234, "73.4"), ("0.734567891234", 0.7345678912, "0.734567891200"), ("50", 50.0, "50"),
    ("1e-05", 1e-05, "1e-05"), ("12.50%", 12.5, "12.50"), ("x", 0.5, "0.5"), ("7", None, "-"),
])
def test_same_digits(reported, value, shown):
    from rulekit.report.reproduce import same_digits

    assert same_digits(reported, value) == shown


def test_plural():
    from rulekit.core.terminal import plural

    assert [plural(n, "row") for n in (0, 1, 2, 1024)] == ["0 rows", "1 row", "2 rows", "1,024 rows"]


def test_errors_by_reason_are_on_every_format():
    args = ["eval", "-r", "vlmevalkit", "--max-chars", "40"]
    n = json.loads(_run(*args, "--format", "json"))["results"][0]["errors"]["reply over --max-chars"]
    line = f"errors by reason: {n:,} reply over --max-chars"
    for fmt in ("table", "markdown", "html"):
        assert line in _run(*args, "--format", fmt), fmt
