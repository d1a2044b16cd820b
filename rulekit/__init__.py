"""rulekit: answer extraction and scoring for LLM/VLM evaluations, written as data.

    from rulekit import load_ruleset, Evaluator
    ev = Evaluator(load_ruleset("vlmevalkit"))
    decision = ev.decide(record)
    rewards = ev.decide_batch(replies, golds, options).rewards   # many at once (an RL reward)

In a notebook, on a pandas or polars DataFrame (a DataFrame of the same kind comes back):

    decisions = rulekit.score(df, "vlmevalkit", fields={"response": "prediction"})
    flips = rulekit.diff(df, "vlmevalkit", "lmms-eval")

Heavy optional parts (vLLM, datasets, sympy) are imported only where used.
"""
__version__ = "0.1.0"

from rulekit.engine.compiler import load_ruleset  # noqa: E402
from rulekit.engine.decide import Batch, Evaluator  # noqa: E402
from rulekit.core.records import Record  # noqa: E402

__all__ = ["load_ruleset", "Evaluator", "Batch", "Record", "score", "diff", "__version__"]


def score(data, rulesets, fields=None, seed=None, *, max_chars=1_000_000, count_unreadable=False, where=None,
          strict=False, with_summary=False, **judge):
    """Score a pandas or polars DataFrame with one or more rulesets, as `rulekit eval` would score the same
    rows; returns a DataFrame of the same kind (pandas in, pandas out; polars in, polars out).

    `data` holds one record per row, its columns read as a table file's are (``id`` else ``index``,
    ``response`` else ``prediction``, ``answer``, ``choices`` or the option columns A..Z, ``question_type``,
    ``benchmark``, ``model``, ``question``, ``meta``, every other column into meta; lmms-eval log rows as
    their lines are). `rulesets` is a built-in name, a YAML path or a loaded ruleset, or a list of them.
    `fields` maps our fields to columns as ``--field`` does: ``{"response": "prediction", "answer":
    "answer_option|answer"}`` or ``["response=prediction"]``. `seed` seeds random fallbacks (default: the
    ruleset's). `where` keeps the rows a condition holds for (``--where``); `count_unreadable` and `strict`
    are the CLI's flags; `max_chars` is ``--max-chars``; `judge_url`, `judge_model`, `judge_cache`,
    `judge_replay`, `judge_concurrency` are ``--judge-*``.

    The result has one row per input row and ruleset, rulesets one after the other (long format), rows in
    input order, columns: ``ruleset``, ``row`` (the input row, from 0: ``df.iloc[row]``), ``id``,
    ``benchmark``, ``gold``, ``pred``, ``correct``, ``score``, ``outcome``, ``step``, ``message``, ``k``
    (letters a random fallback drew from), ``reason`` (why an outcome is ``error``) and ``counted`` (the
    record is in the ruleset's accuracy, the CLI's ``n``: ``df[df.counted].correct.mean()`` is its
    accuracy). A row no section of the ruleset scores has no outcome (null) and says so in ``message``.
    The run's summary (each ruleset's ``eval --format json`` result: n, metrics, outcomes; the warnings)
    is ``df.attrs["summary"]`` for pandas; polars frames have no attrs: pass ``with_summary=True`` to get
    ``(frame, summary)`` for either kind. Input warnings (W310-W320) are Python warnings of class
    `rulekit.report.frames.RulekitWarning` (errors with ``strict=True``); user errors raise RulekitError
    with the CLI's codes (an unknown column: E300; not a DataFrame or a malformed field map: E400).
    """
    from rulekit.report.frames import score_frame

    return score_frame(data, rulesets, fields, seed, max_chars=max_chars, count_unreadable=count_unreadable,
                       where=where, strict=strict, with_summary=with_summary, **judge)


def diff(data, a, b, fields=None, seed=None, *, max_chars=1_000_000, count_unreadable=False, where=None,
         strict=False, with_summary=False, **judge):
    """The records of a pandas or polars DataFrame that rulesets `a` and `b` decide differently, as
    `rulekit diff -r A -r B` finds them: compared like for like (only records both rulesets scored; a
    record is listed when the predictions differ or one side is right and the other not). Returns a
    DataFrame of the input's kind, in input order, columns ``row`` (the input row, from 0), ``id``,
    ``gold``, ``a_pred``, ``b_pred``, ``a_correct``, ``b_correct``, ``a_outcome``, ``b_outcome``,
    ``a_step``, ``b_step``, ``category`` (``rule``, ``one_sided`` or ``fallback``) and ``direction``
    (``a_right_only``, ``b_right_only``, ``both_wrong``, ``both_right``).

    The summary is `rulekit diff --format json`'s (agree, disagree, accuracies on the records compared,
    delta with McNemar's p and a paired bootstrap CI seeded with `seed` or 0, flips by deciding steps,
    what each side left out and why), with ``a``, ``b``, ``n`` and the warnings: ``df.attrs["summary"]``
    for pandas, ``with_summary=True`` → ``(frame, summary)`` for either kind. The other arguments are
    `score`'s.
    """
    from rulekit.report.frames import diff_frame

    return diff_frame(data, a, b, fields, seed, max_chars=max_chars, count_unreadable=count_unreadable,
                      where=where, strict=strict, with_summary=with_summary, **judge)
