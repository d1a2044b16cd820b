"""The SymPy side of `rulekit.core.symbolic`: a worker process that answers equivalence questions.

Started by `rulekit.core.symbolic.Worker` as its own Python process (never imported by `rulekit`): it
imports SymPy and its LaTeX parser once, says `ready`, then answers requests sent over a
`multiprocessing` pipe until the pipe closes. The parent kills it when a request runs past its
time limit and starts a fresh one, so a pathological expression can never hang a run.

This file imports nothing from rulekit (the worker must start fast and stay small).

Requests are tuples `(op, *args)`; replies are `("ok", value, cpu)`, `("err", "Type: message", cpu)` or
`("timeout", limit, cpu)`, `cpu` being the CPU seconds the request took:

* `("expr", a, b, spec)` — are two expressions equal? `spec` (a dict) chooses how: `parse`
  (`latex`: `sympy.parsing.latex.parse_latex`, then `sympify`), `standardize` (simplify(expand(
  trigsimp(x))) on both first), `checks` (an ordered list; equal as soon as one holds):
  - `structural`: `a == b` on the parsed trees (no simplification);
  - `value`: with pi replaced by `math.pi`: when exactly one side has free symbols → not equal
    (stop); when neither has: |N(a) - N(b)| <= `tolerance` (refused, i.e. not equal, when a
    top-level power has an exponent above `max_exponent` or an input is longer than
    `max_length` characters); when both have symbols the check does not apply;
  - `difference`: both with free symbols (after pi → math.pi): |N(simplify(a - b))| <
    `difference_tolerance` (refused for inputs longer than `max_length`; errors → not equal);
  - `zero-difference`: `simplify(a - b) == 0`;  `equals`: `a.equals(b)`.
  `mismatch: error` makes a pair that no check found equal an error instead of False (it
  reproduces originals that crash there, e.g. OlympiadBench's missing `sympy_sub_pi`).
* `("print", text, parse)` — `str()` of the text as `parse` reads it (`latex`, or `latex2sympy`:
  the `latex2sympy` function of the latex2sympy2_extended package, called as originals call it).
* `("equation", a, b)` — both `lhs = rhs` (exactly one "="): move everything to the left,
  simplify; equal when either quotient simplifies to a non-zero Integer.
* `("ping",)` → the SymPy and antlr versions.
"""
from __future__ import annotations

import math
import os
import sys

_CACHE: dict = {}
_CACHE_MAX = 4096


def _limit_memory() -> None:
    """Cap the worker's address space (RULEKIT_SYMPY_MEMORY_MB, default 4096) so a runaway
    expression raises MemoryError instead of eating the machine."""
    try:
        import resource

        mb = int(os.environ.get("RULEKIT_SYMPY_MEMORY_MB", "4096"))
        if mb > 0:
            limit = mb * 1024 * 1024
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard == resource.RLIM_INFINITY or hard > limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except Exception:  # pragma: no cover - not on every platform
        pass


def _parse(text: str, how: str):
    key = (how, text)
    found = _CACHE.get(key)
    if found is not None:
        return found
    import sympy

    if how == "latex":
        from sympy.parsing.latex import parse_latex

        value = sympy.sympify(parse_latex(text))
    elif how == "latex2sympy":
        from latex2sympy2_extended import latex2sympy

        value = latex2sympy(text)
    else:
        raise ValueError(f"unknown parser {how!r}")
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = value
    return value


def _standardize(expr):
    from sympy import expand, simplify, trigsimp

    return simplify(expand(trigsimp(expr)))


_PI: list = []


def _sub_pi(expr):
    """OlympiadBench's `sympy_sub_pi`: replace what `parse_latex("\\pi")` gives (the SYMBOL pi) by math.pi."""
    if not _PI:
        from sympy.parsing.latex import parse_latex

        _PI.append(parse_latex("\\pi"))
    return expr.subs(_PI[0], math.pi)


def _power_ok(expr, max_exponent: float) -> bool:
    """OlympiadBench's `can_compute_power`: a top-level power with numeric base and exponent is
    refused when |exponent| > max_exponent; anything else is fine."""
    from sympy import Pow

    if isinstance(expr, Pow):
        base, exp = expr.as_base_exp()
        if base.is_number and exp.is_number:
            return not abs(exp.evalf()) > max_exponent
        return False
    return True


def expr_equal(a: str, b: str, spec: dict) -> bool:
    import sympy

    ea, eb = _parse(a, spec.get("parse", "latex")), _parse(b, spec.get("parse", "latex"))
    if spec.get("standardize"):
        ea, eb = _standardize(ea), _standardize(eb)
    too_long = len(a) > spec.get("max_length", 300) or len(b) > spec.get("max_length", 300)
    for check in spec.get("checks", ["structural"]):
        if check == "structural":
            if ea == eb:
                return True
        elif check == "value":
            pa, pb = _sub_pi(ea), _sub_pi(eb)
            sa, sb = pa.has(sympy.Symbol), pb.has(sympy.Symbol)
            if sa != sb:
                return False
            if not sa:
                if not (_power_ok(pa, spec.get("max_exponent", 1000)) and _power_ok(pb, spec.get("max_exponent", 1000))):
                    return False
                if too_long:
                    return False
                try:
                    return bool(abs(pa.evalf() - pb.evalf()) <= spec.get("tolerance", 1e-8))
                except Exception:
                    return False
        elif check == "difference":
            pa, pb = _sub_pi(ea), _sub_pi(eb)
            if pa.has(sympy.Symbol) and pb.has(sympy.Symbol):
                if too_long:
                    return False
                try:
                    return bool(abs(sympy.simplify(pa - pb).evalf()) < spec.get("difference_tolerance", 1e-3))
                except Exception:
                    return False
        elif check == "zero-difference":
            if sympy.simplify(ea - eb) == 0:
                return True
        elif check == "equals":
            if ea.equals(eb):
                return True
        else:
            raise ValueError(f"unknown check {check!r}")
    if spec.get("mismatch") == "error":
        raise AttributeError("not structurally equal, and the original has no way on from here")
    return False


def printed(text: str, how: str) -> str:
    """`str()` of what the parser `how` makes of `text`."""
    return str(_parse(text, how))


def equation_equal(a: str, b: str, spec: dict) -> bool:
    import sympy
    from sympy import Eq, simplify

    def moved(text: str):
        lhs, rhs = text.split("=")
        eq = Eq(_parse(lhs, spec.get("parse", "latex")), _parse(rhs, spec.get("parse", "latex")))
        return simplify(eq.lhs - eq.rhs)

    e1, e2 = moved(a), moved(b)
    q1, q2 = simplify(e1 / e2), simplify(e2 / e1)
    return bool((q1.is_Integer and q1 != 0) or (q2.is_Integer and q2 != 0))


def _versions() -> dict:
    import sympy

    try:
        from importlib.metadata import version

        antlr = version("antlr4-python3-runtime")
    except Exception:  # pragma: no cover
        antlr = None
    try:
        latex2sympy = version("latex2sympy2_extended")
    except Exception:  # pragma: no cover
        latex2sympy = None
    return {"sympy": sympy.__version__, "antlr4": antlr, "latex2sympy2_extended": latex2sympy, "pid": os.getpid()}


class _CPULimit(BaseException):
    """Raised by SIGPROF when a request has used its CPU time (a BaseException: SymPy's many
    `except Exception:` blocks must not swallow it)."""


def _on_cpu_limit(signum, frame):
    raise _CPULimit()


def serve(conn) -> None:
    """Answer requests `(op, cpu_seconds, *args)` until the pipe closes.

    Each request runs under an ITIMER_PROF timer of `cpu_seconds` of this process's CPU time (user
    + system): past it the computation is interrupted and the answer is ("timeout", seconds). CPU
    time, unlike wall-clock time, does not grow when the machine is busy, so the same inputs get
    the same answers on a loaded machine."""
    import signal
    import time

    signal.signal(signal.SIGPROF, _on_cpu_limit)
    ops = {"expr": expr_equal, "equation": equation_equal, "print": printed}
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        op, limit, args = request[0], request[1], request[2:]
        started = time.process_time()
        try:
            signal.setitimer(signal.ITIMER_PROF, limit)
            try:
                if op == "ping":
                    result = _versions()
                elif op == "spin":  # test hook: a computation that never ends
                    while True:
                        pass
                elif op == "sleep":  # test hook: no CPU time used, so only the wall backstop stops it
                    time.sleep(args[0])
                    result = args[0]
                elif op == "burn":  # test hook: `args[0]` seconds of CPU time, then an answer
                    end = time.process_time() + args[0]
                    while time.process_time() < end:
                        pass
                    result = args[0]
                else:
                    result = ops[op](*args)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            reply = ("ok", result)
        except _CPULimit:
            reply = ("timeout", limit)
        except BaseException as exc:  # noqa: BLE001 - every failure is an answer, never a dead worker
            if isinstance(exc, KeyboardInterrupt):
                return
            reply = ("err", f"{type(exc).__name__}: {exc}"[:500])
        try:
            conn.send((*reply, time.process_time() - started))  # the CPU seconds it took: the caller's budget
        except (EOFError, OSError):
            return


def main(argv: list[str]) -> None:
    from multiprocessing.connection import Connection

    conn = Connection(int(argv[0]))
    _limit_memory()
    try:
        import warnings

        warnings.simplefilter("ignore")
        from sympy.parsing.latex import parse_latex

        parse_latex("x")  # load the ANTLR parser now, not inside the first timed request
        conn.send(("ready", _versions()))
    except BaseException as exc:  # noqa: BLE001
        conn.send(("unavailable", f"{type(exc).__name__}: {exc}"[:500]))
        return
    serve(conn)


if __name__ == "__main__":
    main(sys.argv[1:])
