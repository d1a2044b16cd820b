"""Math answers: the SymPy worker (time limits that work in threads and processes), the `boxed`
find and text ops, `equivalent` / `int-equal` / `float-equal`, and SymPy staying optional."""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rulekit import Evaluator, Record, load_ruleset
from rulekit.core import symbolic
from rulekit.language.math import read_list_literal

ROOT = Path(__file__).resolve().parent.parent
SLOW = r"(x+y+z+w)^{40}"            # simplify(expand(...)) of this takes many seconds
PHYSICS_SPEC = {"parse": "latex", "standardize": True, "checks": ["zero-difference", "equals"]}


@pytest.fixture(scope="module", autouse=True)
def warm_worker():
    symbolic.wait_ready()  # start SymPy once, outside every timed request
    yield


def _ruleset(tmp_path: Path, timeout: float) -> str:
    path = tmp_path / "physics-fast.yaml"
    path.write_text(f"ruleset: physics-fast\nextends: physics\nopen:\n  compare:\n    equivalent:\n"
                    f"      gold: {{read: list, prepare: [strip]}}\n      credit: fraction\n"
                    f"      tests: [identical, {{sympy: {{standardize: true, checks: [zero-difference, equals]}}}}]\n"
                    f"      otherwise: judge\n      timeout: {timeout}\n", encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- the worker
@pytest.mark.slow  # SymPy worker processes and time-outs (seconds)
def test_pathological_expression_times_out_promptly_and_the_worker_recovers():
    started = symbolic.pool().restarts()
    t = time.perf_counter()
    with pytest.raises(symbolic.MathTimeout):
        symbolic.expr_equal(SLOW, "1", PHYSICS_SPEC, timeout=0.5)
    assert time.perf_counter() - t < 5
    assert symbolic.expr_equal(r"\frac{1}{2}", "0.5", PHYSICS_SPEC, timeout=30) is True
    assert symbolic.pool().restarts() == started  # interrupted by its CPU timer: the worker lives on


@pytest.mark.slow  # SymPy worker processes and time-outs (seconds)
def test_a_run_with_pathological_records_finishes_and_marks_them_error(tmp_path):
    ev = Evaluator(load_ruleset(_ruleset(tmp_path, 0.5)))
    records = [Record("ok-1", "open", r"\boxed{\frac{1}{2}}", ["0.5"]),
               Record("slow-1", "open", rf"\boxed{{{SLOW}}}", ["1"]),
               Record("ok-2", "open", r"\boxed{x^2}", [r"x \cdot x"]),
               Record("slow-2", "open", rf"\boxed{{{SLOW}}}", ["2"]),
               Record("ok-3", "open", r"\boxed{3}", ["3"])]
    t = time.perf_counter()
    decisions = [ev.decide(r) for r in records]
    assert time.perf_counter() - t < 20
    assert [d.outcome for d in decisions] == ["rule", "error", "rule", "error", "rule"]
    assert [d.correct for d in decisions] == [True, None, True, None, True]
    assert "time limit" in decisions[1].message


@pytest.mark.slow  # SymPy worker processes and time-outs (seconds)
def test_the_worker_serves_threads_and_times_out_in_a_thread():
    pairs = [(r"\frac{%d}{2}" % i, str(i / 2)) for i in range(1, 9)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda p: symbolic.expr_equal(p[0], p[1], PHYSICS_SPEC, timeout=30), pairs))
        assert results == [True] * len(pairs)
        slow = pool.submit(symbolic.expr_equal, SLOW, "1", PHYSICS_SPEC, 0.5)
        with pytest.raises(symbolic.MathTimeout):
            slow.result(timeout=30)
    assert symbolic.expr_equal("x", "x", PHYSICS_SPEC, timeout=30) is True


def _decide_in_child(args):
    path, response, gold = args
    d = Evaluator(load_ruleset(path)).decide(Record("c", "open", response, [gold]))
    return d.outcome, d.correct, os.getpid()


@pytest.mark.slow  # SymPy worker processes and time-outs (seconds)
def test_the_worker_works_inside_daemonic_pool_processes(tmp_path):
    path = _ruleset(tmp_path, 0.5)
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    with ctx.Pool(1) as pool:  # pool processes are daemonic: no multiprocessing children allowed
        ok, slow = pool.map(_decide_in_child, [(path, r"\boxed{\frac{1}{2}}", "0.5"), (path, rf"\boxed{{{SLOW}}}", "1")])
    assert ok[:2] == ("rule", True)
    assert slow[:2] == ("error", None)
    assert ok[2] != os.getpid()


def test_sympy_missing_is_an_error_outcome_with_an_install_hint(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "sympy.py").write_text("raise ImportError('no sympy here')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    monkeypatch.setattr(symbolic, "_POOL", symbolic.Pool(1))
    try:
        d = Evaluator(load_ruleset("physics")).decide(Record("x", "open", r"\boxed{\frac{1}{2}}", ["0.5"]))
    finally:
        symbolic.pool().shutdown()
    assert d.outcome == "error"
    assert "reinstall" in d.message and "antlr4-python3-runtime 4.11" in d.message


def test_import_rulekit_does_not_import_sympy():
    code = ("import sys, rulekit\nfrom rulekit import load_ruleset\n"
            "for name in ('physics', 'olympiadbench', 'mathvista'): load_ruleset(name)\n"
            "assert 'sympy' not in sys.modules, 'sympy imported'\nprint('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# ---------------------------------------------------------------- finds, ops and compares
def _open(name: str, response: str, answer, **meta):
    return Evaluator(load_ruleset(name)).decide(Record("r", "open", response, answer, meta=meta))


def test_boxed_find_nested_overlapping_and_unbalanced(tmp_path):
    path = tmp_path / "boxed.yaml"
    path.write_text("ruleset: boxed\nopen:\n  steps:\n    - id: box\n      find: {boxed: {}}\n      pick: all\n"
                    "    - id: inner\n      find: {boxed: {overlapping: true, nested: false}}\n      pick: all\n"
                    "  compare: {exact: {}}\n", encoding="utf-8")
    ev = Evaluator(load_ruleset(str(path)))
    assert ev.decide(Record("a", "open", r"\boxed{\frac{1}{2}} and \boxed{3}", "x")).pred == [r"\frac{1}{2}", "3"]
    assert ev.decide(Record("b", "open", r"\boxed{\boxed{5}}", "x")).pred == [r"\boxed{5}"]
    assert ev.decide(Record("c", "open", r"\boxed{1} \boxed{2", "x")).pred == ["1"]  # unbalanced: skipped


def test_extract_fails_on_unbalanced_boxes_only_when_asked():
    d = _open("olympiadbench", r"\boxed{5} and \boxed{6", "['5']")
    assert (d.outcome, d.correct) == ("rule", False)
    assert _open("olympiadbench", r"\boxed{5} and \boxed{6}", "['5, 6']").correct is True


def test_read_list_literal():
    assert read_list_literal("['42']") == ["42"]
    assert read_list_literal("['\\\\frac{1}{2}', 'x']") == ["\\frac{1}{2}", "x"]  # repr-style doubled backslashes
    assert read_list_literal("['\\frac{1}{3}']") == ["\\frac{1}{3}"]              # hand-written: \f stays LaTeX
    assert read_list_literal('["a", 2]') == ["a", "2"]
    assert read_list_literal("[]") == []
    assert read_list_literal("42") is None and read_list_literal("['a'") is None


def test_precision_field_errors_are_counted_not_raised():
    d = _open("olympiadbench", "So the final answer is 3.14", "['3.14159']", error="about one percent")
    assert d.outcome == "error" and "not a number" in d.message


def test_int_and_float_equal_options():
    assert _open("mathvista", "7", "7", answer_type="integer").correct is True
    assert _open("mathvista@fixed", "0", "0", answer_type="integer").correct is True
    d = _open("mathvista", "0", "0", answer_type="integer")
    assert (d.outcome, d.correct) == ("unresolved", False) and "falsy" in d.message
    d = _open("mathvista", "3.0", "3", answer_type="integer")
    assert d.outcome == "unresolved" and "does not parse" in d.message


def test_vocabulary_documents_the_new_words():
    from rulekit.report.vocabulary import vocabulary_entries

    words = dict(vocabulary_entries())
    for word in ("find: boxed", "prepare: extract", "prepare: slice", "prepare: split-take", "prepare: regex-replace",
                 "compare: equivalent", "compare: int-equal", "compare: float-equal", "equivalent test: sympy",
                 "equivalent test: interval", "equivalent test: numeric", "equivalent test: identical"):
        assert words.get(word), word
