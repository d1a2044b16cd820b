"""Terminal output that fits 80 columns: `eval`'s table and `diff`'s summary are compact by default (numbers
never cut, fingerprints and notes under the table), `--wide` gives the full tables, and no side of a flip
reads `None`."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.engine.compiler import load_ruleset


def _run(*args, columns: str | None = "80"):
    env = {"COLUMNS": columns} if columns else {}
    result = CliRunner(env=env).invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _widest(text: str) -> int:
    return max(len(line.rstrip()) for line in text.splitlines())


@pytest.mark.parametrize("args", [
    ["eval", "-r", "vlmevalkit"],
    ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0"],
    ["eval", "-r", "lmms-eval", "--seed", "0", "--by", "benchmark"],
    ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0", "--by", "benchmark"],
    ["diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--show", "0"],
])
def test_piped_output_fits_80_columns_with_every_number_whole(args):
    out = _run(*args)
    assert _widest(out) <= 80, out
    assert "…" not in out
    if args[0] == "eval":
        for name in [a for i, a in enumerate(args) if i and args[i - 1] == "-r"]:
            fp = load_ruleset(name).fingerprint_for(0 if "--seed" in args else None)
            assert f"fingerprint {fp}" in out
    else:
        assert "35.50 / 41.04" in out and "A 0d6b89bede9b  B 0db7cad6c22c" in out


def test_compact_eval_lists_only_the_outcomes_that_happened():
    out = _run("eval", "-r", "vlmevalkit")
    row = next(line for line in out.splitlines() if line.strip().startswith("vlmevalkit"))
    assert re.search(r"vlmevalkit\s+307\s+35\.50\s+247 rule", row)
    assert "60 unresolved" in out and "fallback" not in out and "abstain" not in out


def test_wide_gives_every_outcome_and_the_fingerprint_a_column():
    out = _run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "--seed", "0", "--wide")
    header = next(line for line in out.splitlines() if "accuracy %" in line)
    for col in ("rule", "judge", "fallback", "abstain", "unresolved", "error", "fingerprint"):
        assert f" {col} " in header
    assert _widest(out) > 80  # drawn whole, not squeezed into the 80 columns COLUMNS asks for
    diff = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--show", "0", "--wide")
    assert "both wrong, different preds" in diff and "A step" in diff and "B step" in diff


def test_no_side_of_a_flip_reads_none():
    out = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--show", "50", columns=None)
    assert "None (" not in out and ", None)" not in out
    assert "A: no answer (unresolved)" in out
    md = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", "--format", "markdown", "--show", "50", columns=None)
    assert "`None`" not in md and "A no answer, B `'D'`" in md
    explained = _run("explain", "-r", "vlmevalkit", "--diff", "lmms-eval", "--response", "I am not sure",
                     "--options", "A=cat,B=dog", "--answer", "B", columns=None)
    assert "→ no answer (unresolved), correct=False" in explained and "None" not in explained


def test_like_for_like_tables_are_compact_with_what_was_left_out_under_them():
    """The like-for-like and `--by` tables across rulesets fit 80 columns (names folded, never cut) with each
    ruleset's and each value's left-out records as lines under them; `--wide` keeps those in columns."""
    args = ["eval", "-r", "vlmevalkit", "-r", "lmms-eval", "-r", "mmmu", "--seed", "0", "--by", "benchmark"]
    out = _run(*args)
    assert "│ 93: no section" not in out and "HallusionBench" in out and "GAOKAO-Bench" in out
    assert "lmms-eval: own records left out 93: no section in vlmevalkit (open)" in out
    assert "benchmark MMMU: left out 40: no section in vlmevalkit (open)" in out
    wide = _run(*args, "--wide", columns="250")
    assert "┃ own records left out" in wide and "│ 93: no section in vlmevalkit (open)" in wide
    assert "benchmark MMMU: left out" not in wide


def test_the_terminal_report_ends_with_the_seed_the_input_and_the_command():
    out = _run("eval", "-r", "vlmevalkit", "--seed", "7", "rulekit/data/sample.jsonl", columns="200")
    last = out.rstrip().splitlines()[-1]
    assert last == "seed: 7 · input: rulekit/data/sample.jsonl · command: rulekit eval -r vlmevalkit --seed 7 " \
                   "rulekit/data/sample.jsonl"
    narrow = _run("eval", "-r", "vlmevalkit", "--seed", "7", "rulekit/data/sample.jsonl")
    assert _widest(narrow) <= 80 and "command: rulekit eval" in narrow
    assert '"command"' not in _run("eval", "-r", "vlmevalkit", "--seed", "7", "--format", "json")  # JSON unchanged


def _reproduce(*args, columns="80"):
    result = CliRunner(env={"COLUMNS": columns}).invoke(main, ["reproduce", "--workers", "1", *args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_reproduce_table_fits_80_columns_with_every_digit(tmp_path):
    """A heading per report (model · benchmark · generation with its dates), then metric, split where there
    is one, both numbers in full digits and ✓; no delta column when everything matched."""
    out = _reproduce("../shared/realfiles/vlmevalkit/vila_8b")
    assert _widest(out) <= 80, out
    assert "…" not in out
    assert "vila_8b · MMStar · vlmevalkit@v1 (2024-02-04 – 2025-08-04)" in out
    assert re.search(r"^Overall +0\.4166666666666667 +0\.4166666666666667 +✓$", out, re.M), out
    assert re.search(r"^Overall +test +0\.7258304412493802 +0\.7258304412493802 +✓$", out, re.M), out
    assert "delta" not in out and "split" in out
    assert re.search(r"^\d+/\d+ numbers reproduced$", out, re.M), out


def test_reproduce_table_shows_delta_only_where_a_number_differs_and_wide_keeps_the_columns(tmp_path):
    import shutil

    work = tmp_path / "vila_8b"
    shutil.copytree("../shared/realfiles/vlmevalkit/vila_8b", work)
    acc = work / "vila_8b_MMStar_acc.csv"
    acc.write_text(acc.read_text().replace('"0.668"', '"0.5"'))
    out = _reproduce(str(work))
    assert _widest(out) <= 80, out
    mmstar = out.split("vila_8b · MMStar")[1].split("vila_8b · ScienceQA_TEST")[0]
    assert "delta" in mmstar and re.search(r"^coarse perception +0\.5 +0\.7 +\+0\.168000 +✗$", mmstar, re.M), mmstar
    science = out.split("vila_8b · ScienceQA_TEST")[1]
    assert "delta" not in science.split("\n\n")[0]
    wide = _reproduce(str(work), "--wide", columns="80")
    assert re.search(r"┃ model +┃ benchmark +┃ metric +┃ split +┃ +reported ┃ +reproduced ┃ +delta ┃ ruleset", wide), wide
    assert "│ vila_8b │ MMStar" in wide
