"""Plain-Python baselines of the original answer parsers.

Hand-written from the prose in ``shared/reference/behaviour.md`` (§1.2-1.8, §2.1-2.3, §2.7);
no upstream code was copied. Two uses:

* benchmarks time rulekit against these on the same data in the same run;
* ``tests/test_baselines.py`` cross-checks them against ``shared/conformance/labels.jsonl``.

Multiple-choice parsers take the response and the ``{letter: option text}`` dict of the
record. The random fallback is NOT drawn here: ``lmms_mcq`` / ``mmmu_mcq`` / ``vmcbench_mcq``
return ``None`` when the original would have called ``random.choice``; the caller draws from an
explicit stream (see ``main``).

CLI::

    python benchmarks/baselines.py --parser lmms|mmmu|vmcbench|vlmevalkit INPUT.jsonl --output OUT.jsonl [--seed 0] [--open]
"""

from __future__ import annotations

import argparse
import random
import re
import sys

import orjson

__all__ = [
    "lmms_mcq",
    "mmmu_mcq",
    "vmcbench_mcq",
    "vlmeval_can_infer",
    "vlmeval_can_infer_option",
    "vlmeval_can_infer_text",
    "mmmu_parse_open",
    "mmmu_eval_open",
    "mmmu_normalize_str",
    "mmmu_extract_numbers",
    "main",
]

# ---------------------------------------------------------------------------------------------
# MMMU-family multiple choice (lmms-eval, official MMMU, VMCBench)
# ---------------------------------------------------------------------------------------------

# §1.3 step 1: one character at a time, in this order; whitespace is never stripped.
_EDGE_CHARS = (",", ".", "!", "?", ";", ":", "'")


def _edge_strip_pad(response: str) -> str:
    for ch in _EDGE_CHARS:
        response = response.strip(ch)
    return " " + response + " "


def _pick(candidates, positions):
    """np.argmax semantics: the FIRST maximum wins (candidates are in option order)."""
    best = 0
    best_pos = positions[0]
    for i in range(1, len(positions)):
        if positions[i] > best_pos:
            best = i
            best_pos = positions[i]
    return candidates[best]


def _text_stage(response: str, choices: dict):
    """Stage 4: option text (lowercased substring), only with > 5 whitespace tokens.

    Returns (candidates, lowered response) or (None, None) when the stage does not run.
    """
    if len(response.split()) <= 5:
        return None, None
    low = response.lower()
    cands = [k for k, v in choices.items() if v.lower() in low]
    return cands, low


def _lmms_mcq_step(response: str, choices: dict):
    """lmms-eval ``parse_mmmu_multi_choice_response``; returns (letter | None, step)."""
    resp = _edge_strip_pad(response)
    # stage 1: "(X)"
    cands = [k for k in choices if "(" + k + ")" in resp]
    if cands:
        if len(cands) == 1:
            return cands[0], "bracket"
        return _pick(cands, [resp.rfind("(" + k + ")") for k in cands]), "bracket"
    # stage 2: "X " (no leading space required)
    cands = [k for k in choices if k + " " in resp]
    step = "letter-space"
    if not cands:
        # stage 3: "X."
        cands = [k for k in choices if k + "." in resp]
        step = "letter-period"
    if cands:
        if len(cands) == 1:
            return cands[0], step
        # tie-break uses " X " (leading space too), which the stages did not require
        return _pick(cands, [resp.rfind(" " + k + " ") for k in cands]), step
    cands, low = _text_stage(resp, choices)
    if not cands:
        return None, "random"
    if len(cands) == 1:
        return cands[0], "option-text"
    return _pick(cands, [low.rfind(choices[k].lower()) for k in cands]), "option-text"


def _mmmu_mcq_step(response: str, choices: dict):
    """Official MMMU ``eval_utils.parse_multi_choice_response``: stage 2 is " X ", no "X."."""
    resp = _edge_strip_pad(response)
    cands = [k for k in choices if "(" + k + ")" in resp]
    if cands:
        if len(cands) == 1:
            return cands[0], "bracket"
        return _pick(cands, [resp.rfind("(" + k + ")") for k in cands]), "bracket"
    cands = [k for k in choices if " " + k + " " in resp]
    if cands:
        if len(cands) == 1:
            return cands[0], "spaced-letter"
        return _pick(cands, [resp.rfind(" " + k + " ") for k in cands]), "spaced-letter"
    cands, low = _text_stage(resp, choices)
    if not cands:
        return None, "random"
    if len(cands) == 1:
        return cands[0], "option-text"
    return _pick(cands, [low.rfind(choices[k].lower()) for k in cands]), "option-text"


_VMC_LETTERS = frozenset("ABCDEFGHI")


def vmcbench_choices(choices: dict) -> dict:
    """``get_mc_score`` only builds the options A-I from the dataset row."""
    return {k: v for k, v in choices.items() if k in _VMC_LETTERS}


def _vmcbench_mcq_step(response, choices: dict):
    """VLMEvalKit VMCBench parser (§2.7) over the given options."""
    resp = _edge_strip_pad(str(response))
    # stage 1: "(X)" OR "X. "; both set ans_with_brack, so the tie-break is rfind("(X)")
    cands = [k for k in choices if "(" + k + ")" in resp or k + ". " in resp]
    if cands:
        if len(cands) == 1:
            return cands[0], "bracket-or-period"
        return _pick(cands, [resp.rfind("(" + k + ")") for k in cands]), "bracket-or-period"
    cands = [k for k in choices if " " + k + " " in resp]
    if cands:
        if len(cands) == 1:
            return cands[0], "spaced-letter"
        return _pick(cands, [resp.rfind(" " + k + " ") for k in cands]), "spaced-letter"
    cands, low = _text_stage(resp, choices)
    if not cands:
        return None, "random"
    if len(cands) == 1:
        return cands[0], "option-text"
    return _pick(cands, [low.rfind(choices[k].lower()) for k in cands]), "option-text"


def lmms_mcq(response: str, choices: dict):
    """lmms-eval MMMU MCQ parser. None = the original would draw ``random.choice(choices)``."""
    return _lmms_mcq_step(response, choices)[0]


def mmmu_mcq(response: str, choices: dict):
    """Official MMMU MCQ parser. None = random fallback needed."""
    return _mmmu_mcq_step(response, choices)[0]


def vmcbench_mcq(response, choices: dict, a_to_i: bool = False):
    """VMCBench ``parse_multi_choice_response``. None = random fallback needed.

    By default the parser sees every option of the record, as the conformance labels were
    produced (the parser function called with the record's choices). ``a_to_i=True`` applies
    ``get_mc_score``'s restriction to the options A-I (a 10-option record loses J); the caller
    must then draw a fallback from ``vmcbench_choices(choices)`` too.
    """
    if a_to_i:
        choices = vmcbench_choices(choices)
    return _vmcbench_mcq_step(response, choices)[0]


# ---------------------------------------------------------------------------------------------
# VLMEvalKit can_infer (v1 / v2 / v3)
# ---------------------------------------------------------------------------------------------

_API_FAILURE = "Failed to obtain answer via API"
_REFUSALS = (
    "Sorry, I can't help with images of people yet.",
    "I can't process this file.",
    "I'm sorry, but without the image provided",
    "Cannot determine the answer",
)
# only these characters separate tokens (plus whitespace)
_SEP_TABLE = str.maketrans({c: " " for c in ".()[],:;!*#{}"})
_ANSWER_IS = re.compile(r"(?i)(?:correct\s+)?answer\s+is\s+\**([ABCD])\**")


def _can_infer_option_step(answer: str, choices: dict, version: int = 3, verbose: bool = False):
    """Returns (letter | "Z" | False, step)."""
    if _API_FAILURE in answer:
        return False, "api-failure"
    for lit in _REFUSALS:
        if lit in answer:
            return "Z", "refusal"
    tokens = answer.translate(_SEP_TABLE).split()
    present = [k for k in choices if k in tokens]  # distinct keys present as whole tokens
    if len(present) == 1:
        for k in choices:
            if verbose and "A" in tokens and len(tokens) > 3:
                return False, "verbose-article"
            if k in tokens:
                if version < 2 or tokens.index(k) > len(tokens) - 5:
                    return k, "option-token"
        # single letter not among the last 4 tokens: fall through
    elif not present and "Z" in tokens:
        return "Z", "z-token"
    if version >= 3:
        m = _ANSWER_IS.search(answer)
        if m is not None:
            letter = m.group(1).upper()
            if letter in choices:
                return letter, "answer-is"
    return False, "no-match"


def _can_infer_text_step(answer: str, choices: dict, version: int = 3):
    answer = answer.lower()
    texts = [str(v) for v in choices.values()]
    if version >= 2 and len(answer) > 2 * sum(len(t) for t in texts):
        return False, "too-long"
    hit = None
    for k, t in zip(choices, texts):
        if t.lower() in answer:
            if hit is not None:
                return False, "ambiguous-text"
            hit = k
    if hit is None:
        return False, "no-match"
    return hit, "option-text"


def _can_infer_step(answer, choices: dict, version: int = 3, verbose: bool = False):
    answer = str(answer)
    res, step = _can_infer_option_step(answer, choices, version, verbose)
    if res:
        return res, step
    return _can_infer_text_step(answer, choices, version)


def vlmeval_can_infer_option(answer, choices: dict, version: int = 3, verbose: bool = False):
    return _can_infer_option_step(str(answer), choices, version, verbose)[0]


def vlmeval_can_infer_text(answer, choices: dict, version: int = 3):
    """Does NOT mutate ``choices`` (the original lowercases the caller's dict in place)."""
    return _can_infer_text_step(str(answer), choices, version)[0]


def vlmeval_can_infer(answer, choices: dict, version: int = 3, verbose: bool = False):
    """VLMEvalKit ``can_infer``: a letter, "Z", or False (= no rule decided; judge needed).

    version 1 (<= c026693a), 2 (c3371551 ... a67ace50~1), 3 (HEAD). ``verbose`` mirrors a
    non-empty VERBOSE environment variable.
    """
    return _can_infer_step(answer, choices, version, verbose)[0]


# ---------------------------------------------------------------------------------------------
# MMMU open-ended (official MMMU == lmms-eval after PR #1471)
# ---------------------------------------------------------------------------------------------

_OPEN_INDICATORS = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_OPEN_INDICATORS_LAST = _OPEN_INDICATORS + ("=",)
_PUNCT_ONLY = frozenset([":", ",", ".", "!", "?", ";", "'"])
# lowercased before the split, so the sentence branch can never fire: kept for fidelity
_SUB_SPLIT = re.compile(r"\.\s(?=[A-Z])|\n")
_NUM_COMMAS = re.compile(r"-?\b\d{1,3}(?:,\d{3})+\b")
_NUM_SCI = re.compile(r"-?\d+(?:\.\d+)?[eE][+-]?\d+")
_NUM_SIMPLE = re.compile(r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")


def _key_subresponses(response: str) -> list:
    response = response.strip().strip(".").lower()
    subs = _SUB_SPLIT.split(response)
    last = len(subs) - 1
    keys = []
    for i, sub in enumerate(subs):
        shortest = None
        for ind in _OPEN_INDICATORS_LAST if i == last else _OPEN_INDICATORS:
            if ind in sub:
                tail = sub.rpartition(ind)[2].strip()
                # an empty/None current value counts as "none yet"; otherwise strictly shorter
                if not shortest or len(tail) < len(shortest):
                    shortest = tail
        if shortest and shortest.strip() not in _PUNCT_ONLY:
            keys.append(shortest)
    if not keys:
        return [response]
    return keys


def mmmu_extract_numbers(string: str) -> list:
    return _NUM_COMMAS.findall(string) + _NUM_SCI.findall(string) + _NUM_SIMPLE.findall(string)


def _is_number(s: str) -> bool:
    try:
        float(s.replace(",", ""))
    except ValueError:
        return False
    return True


def mmmu_normalize_str(string: str) -> list:
    string = string.strip()
    if _is_number(string):
        return [round(float(string.replace(",", "")), 2)]
    string = string.lower()
    if len(string) == 1:
        return [" " + string, string + " "]
    return [string]


def mmmu_parse_open(response: str) -> list:
    """``parse_open_response``: candidate strings and floats, de-duplicated via set().

    The original's order is hash-dependent (list(set(...))); compare as a set/multiset.
    """
    keys = _key_subresponses(response)
    preds = list(keys)
    for k in keys:
        preds.extend(mmmu_extract_numbers(k))
    out = []
    for p in preds:
        out.extend(mmmu_normalize_str(p))
    return list(set(out))


def mmmu_eval_open(gold, preds) -> bool:
    """``eval_open``: str preds match by substring of a str gold, floats by membership."""
    if isinstance(gold, list):
        golds = []
        for g in gold:
            golds.extend(mmmu_normalize_str(g))
    else:
        golds = mmmu_normalize_str(gold)
    str_golds = [g for g in golds if isinstance(g, str)]
    for p in preds:
        if isinstance(p, str):
            for g in str_golds:
                if g in p:
                    return True
        elif p in golds:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# CLI: a realistic hand-written scorer, single process, streaming
# ---------------------------------------------------------------------------------------------


def _iter_records(path):
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                yield orjson.loads(line)


def _open_gold(answer):
    """An open question's gold as `eval_open` takes it: a string, or a list of strings."""
    if isinstance(answer, list):
        return [a if isinstance(a, str) else str(a) for a in answer]
    return answer if isinstance(answer, str) else str(answer)


def score_lmms(records, out, seed: int = 0, parse=_lmms_mcq_step, open_ended: bool = False) -> int:
    """The MMMU-family parsers (lmms-eval, official MMMU, VMCBench: `parse`), random fallback
    letters drawn from one stream in input order. With `open_ended`, open questions are scored
    too (`parse_open_response` + `eval_open`), as lmms-eval's and MMMU's own scripts do: the row
    has `correct` and no `pred` (the original's candidate list is in set order)."""
    rng = random.Random(seed)
    n = 0
    dumps = orjson.dumps
    write = out.write
    for rec in records:
        choices = rec.get("choices")
        qt = rec.get("question_type")
        if open_ended and (qt == "open" or (qt is None and not choices)):
            hit = mmmu_eval_open(_open_gold(rec.get("answer")), mmmu_parse_open(rec["response"]))
            write(dumps({"id": rec["id"], "correct": hit, "outcome": "rule", "step": "open"}))
            write(b"\n")
            n += 1
            continue
        if qt != "multiple-choice" or not choices:
            continue
        pred, step = parse(rec["response"], choices)
        if pred is None:
            pred = rng.choice(list(choices))
            outcome = "fallback"
        else:
            outcome = "rule"
        write(dumps({"id": rec["id"], "pred": pred, "correct": pred == rec["answer"],
                     "outcome": outcome, "step": step}))
        write(b"\n")
        n += 1
    return n


def score_vlmevalkit(records, out, version: int = 3) -> int:
    n = 0
    dumps = orjson.dumps
    write = out.write
    for rec in records:
        choices = rec.get("choices")
        if rec.get("question_type") != "multiple-choice" or not choices:
            continue
        pred, step = _can_infer_step(rec["response"], choices, version)
        if pred is False:
            pred = None
            outcome = "unresolved"
        elif pred == "Z":
            outcome = "abstain"
        else:
            outcome = "rule"
        write(dumps({"id": rec["id"], "pred": pred, "correct": pred is not None and pred == rec["answer"],
                     "outcome": outcome, "step": step}))
        write(b"\n")
        n += 1
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Hand-written baseline scorers (lmms-eval, MMMU, VMCBench, VLMEvalKit).")
    ap.add_argument("--parser", required=True, choices=["lmms", "mmmu", "vmcbench", "vlmevalkit"])
    ap.add_argument("input")
    ap.add_argument("--output", "-o", required=True)
    ap.add_argument("--seed", type=int, default=0, help="random-fallback stream seed (lmms, mmmu, vmcbench)")
    ap.add_argument("--vlmeval-version", type=int, default=3, choices=[1, 2, 3])
    ap.add_argument("--open", action="store_true", help="lmms / mmmu: score open-ended questions too")
    args = ap.parse_args(argv)
    if args.open and args.parser not in ("lmms", "mmmu"):
        ap.error("--open: only lmms and mmmu have an open-ended parser")
    steps = {"lmms": _lmms_mcq_step, "mmmu": _mmmu_mcq_step, "vmcbench": _vmcbench_mcq_step}
    with open(args.output, "wb", buffering=1 << 20) as out:
        if args.parser in steps:
            n = score_lmms(_iter_records(args.input), out, args.seed, steps[args.parser], args.open)
        else:
            n = score_vlmevalkit(_iter_records(args.input), out, args.vlmeval_version)
    print(f"{n} decisions -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
