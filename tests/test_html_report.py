"""`--format html` for eval, diff and reproduce: one self-contained page whose embedded data is what
`--format json` prints, every text escaped, no script; rendered in a real headless Chromium when the
machine has one (`.ci/run` installs Debian's)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

LMMS = Path(__file__).parent / "fixtures" / "reproduce" / "lmms-eval"
EVIL = "</script><script>alert(1)</script><img src=x onerror=alert(2)> & \"quotes\": (A) is wrong, (B) is right"


def _run(*args) -> str:
    result = CliRunner().invoke(main, list(map(str, args)))
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _data(page: str) -> dict:
    [block] = re.findall(r'<script type="application/json" id="rulekit-data">(.*?)</script>', page, re.S)
    return json.loads(block)


def _hostile(tmp_path: Path) -> Path:
    rows = [{"id": f"r{i}", "question_type": "multiple-choice", "choices": {"A": "<b>cat</b>", "B": "dog"},
             "answer": "B", "response": EVIL if i % 2 else f"A <i>{i}</i>"} for i in range(20)]
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _safe(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert page.count("<script") == 1  # the data block only
    assert "<img" not in page and "<b>cat" not in page and "<i>" not in page
    assert "http://" not in page and "https://" not in page  # nothing fetched


def test_eval_page_carries_the_json_and_escapes_replies(tmp_path):
    path = _hostile(tmp_path)
    page = _run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "html")
    _safe(page)
    assert _data(page) == json.loads(_run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "json"))
    assert "<b>vlmevalkit</b>" in page and 'class="bar"' in page


def test_diff_page_has_the_flip_plot_and_every_shown_record_with_its_spans(tmp_path):
    path = _hostile(tmp_path)
    page = _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "html")
    _safe(page)
    data = _data(page)
    assert data == json.loads(_run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "json", "--show", "200"))
    assert data["summary"]["disagree"] == page.count("<details>") > 0  # every disagreeing record, expandable
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page and "<mark>" in page


def test_reproduce_page_carries_the_json():
    page = _run("reproduce", LMMS, "--format", "html")
    _safe(page)
    assert _data(page) == json.loads(_run("reproduce", LMMS, "--format", "json"))
    assert "exact_match,none" in page and '<span class="ok">✓</span>' in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow  # the browser check (headless Chromium)
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs Debian's chromium)")
def test_the_pages_render_in_headless_chromium_without_console_errors(tmp_path):
    """Each page is loaded from disk by a real Chromium with the network off: it renders its tables
    (seen in the DOM Chromium builds), logs no console error or CSP violation, and a screenshot is
    kept (under $RULEKIT_ARTIFACTS when set)."""
    path = _hostile(tmp_path)
    pages = {"eval": _run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "html"),
             "eval-by-benchmark": _run("eval", "-r", "vlmevalkit", "-r", "lmms-eval", "--by", "benchmark",
                                       "--format", "html"),
             "diff": _run("diff", "-r", "vlmevalkit", "-r", "lmms-eval", path, "--format", "html"),
             "reproduce": _run("reproduce", LMMS, "--format", "html")}
    keep = Path(os.environ.get("RULEKIT_ARTIFACTS") or tmp_path)
    keep.mkdir(parents=True, exist_ok=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--enable-logging=stderr", "--v=0"]
    for name, page in pages.items():
        html_file = tmp_path / f"{name}.html"
        html_file.write_text(page, encoding="utf-8")
        base = [CHROMIUM, *flags, f"--user-data-dir={tmp_path / ('profile-' + name)}"]
        dom = subprocess.run([*base, "--dump-dom", html_file.as_uri()], capture_output=True, text=True, timeout=120)
        assert dom.returncode == 0, dom.stderr[-2000:]
        assert f"<h1>rulekit {name.split('-')[0]}" in dom.stdout and "<table>" in dom.stdout
        if name == "eval-by-benchmark":  # the chart is drawn: its SVG is in the DOM Chromium built
            assert "<svg" in dom.stdout and "<rect" in dom.stdout
        console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Content Security Policy" in line]
        assert console == [], console
        sizes = [(1200, 1600)] if name != "eval-by-benchmark" else [(1400, 2400), (390, 2400)]  # desktop, phone
        for width, height in sizes:
            shot = keep / (f"report-{name}.png" if len(sizes) == 1 else f"report-{name}-{width}.png")
            run = subprocess.run([*base, f"--window-size={width},{height}", f"--screenshot={shot}", html_file.as_uri()],
                                 capture_output=True, text=True, timeout=120)
            assert run.returncode == 0 and shot.stat().st_size > 10_000, run.stderr[-2000:]
