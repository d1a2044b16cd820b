"""Label hostile records with what the ORIGINAL framework code decides (originals.py loads it unchanged).

    FRAMEWORKS_SRC=DIR python label.py RULESET RECORDS.jsonl.gz OUT.jsonl.gz

One label per record, in file order: {"id", "pred", "correct", "outcome"} (+ "score" where the original
gives partial credit). `outcome` is the class of the original's decision in rulekit's words: `rule` (a
rule read an answer), `fallback` (a random or constant guess: lmms-eval's random letter, MME's "other",
YOrN's "Unknown"), `abstain` (VLMEvalKit's "Z", LiveXiv's None), `unresolved` (nothing decided: VLMEvalKit
would ask its judge), `error` (the original raised on the record, or — a reply over 2,000 characters, run in a child process —
did not finish in 60 s ($LABEL_LIMIT): Python's `re` backtracking, as the DCVLR fork's regexes on long whitespace runs).
`pred` is null where the original
exposes no prediction (ScienceQA's sqa_process_results returns only a score).

Random letters: the originals call the process-global `random.choice`; it is replaced, for the labelling
run, by one `random.Random(SEED)` stream drawn in file order (the ruleset's seed: lmms-eval 0, MMMU 42,
VMCBench 0), and each call is noted so the record's outcome is `fallback`."""
from __future__ import annotations

import gzip
import json
import math
import os
import random
import sys

import originals


class Stream:
    """`random` as the originals use it (`random.choice`), one seeded stream; `used` is set by a draw."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.used = False

    def choice(self, seq):
        self.used = True
        return self.rng.choice(seq)


LONG, LIMIT = 2000, float(os.environ.get("LABEL_LIMIT", "60"))


def bounded(fn, *args, limit=LIMIT):
    """fn(*args) in a forked child, killed after `limit` seconds (Python's `re` cannot be interrupted by a
    signal while it matches): (True, result) or (False, None) when the original did not finish."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=lambda: child.send(fn(*args)))
    proc.start()
    child.close()
    done = parent.poll(limit)
    result = parent.recv() if done else None
    proc.kill()
    proc.join()
    return done, result


def _text(gold):
    """A gold as the framework's data file gives it: text (a JSON number, boolean, null or list written with
    str(), as the conformance labels were made)."""
    return gold if isinstance(gold, str) else str(gold)


def _consecutive(r):
    """Options lettered A, B, C, ... in order: the only kind a framework that numbers a list of options has."""
    return bool(r.get("choices")) and list(r["choices"]) == [chr(65 + i) for i in range(len(r["choices"]))]


def text_golds_only(run):
    """The labeller of a framework whose data holds a gold as text (a TSV column, a string field): a JSON
    list gold has no counterpart there (rulekit reads it as "any of these"), so such records are not
    labelled."""
    def wrapped(records):
        return run([r for r in records if not isinstance(r["answer"], list)])
    wrapped.__doc__ = run.__doc__
    return wrapped


def _letters(r):
    return list((r.get("choices") or {}).keys())


def _texts(r):
    return list((r.get("choices") or {}).values())


def label_can_infer(generation, verbose=False):
    """VLMEvalKit's can_infer (no judge): a letter is read (`rule`), "Z" (`abstain`), False (`unresolved`);
    exact matching: correct when the letter is the gold."""
    def run(records):
        can_infer = originals.can_infer(generation)
        if verbose:
            os.environ["VERBOSE"] = "1"
        else:
            os.environ.pop("VERBOSE", None)
        for r in records:
            if not r.get("choices"):  # a multiple-choice question always has options there
                continue
            # the choices its callers built: from 2023-12-26 every option letter (build_choices over
            # string.ascii_uppercase); before, multiple_choice.py @ 7057afc9 kept the columns A-D only
            choices = ({k: v for k, v in r["choices"].items() if k in "ABCD"} if generation == "v0a"
                       else dict(r["choices"]))
            if len(r["response"]) > LONG:
                done, got = bounded(can_infer, r["response"], choices)
                if not done:  # the original does not finish: no decision (rulekit's regex time limit: `error`)
                    yield {"id": r["id"], "pred": None, "correct": False, "outcome": "error", "error": f"over {LIMIT:.0f} s"}
                    continue
            else:
                got = can_infer(r["response"], choices)
            pred = got if got else None
            outcome = "unresolved" if pred is None else "abstain" if pred == "Z" else "rule"  # v0a's "E": a letter
            yield {"id": r["id"], "pred": pred, "correct": pred is not None and pred == _text(r["answer"]), "outcome": outcome}
        os.environ.pop("VERBOSE", None)
    return run


def label_mmmu_mcq(module_of, seed, parse="parse_multi_choice_response", scorer_of=None):
    """An MMMU-style multiple-choice parser (lmms-eval, MMMU, VMCBench): the record's letters, the module's
    `random` one seeded stream; correct by `scorer_of()`'s eval_multi_choice (a list gold: any of it) or, for
    VMCBench's get_mc_score, pred == gold."""
    def run(records):
        module = module_of()
        score = scorer_of().eval_multi_choice if scorer_of else (lambda gold, pred: pred == gold)
        stream = module.random = Stream(seed)
        for r in records:
            if not r.get("choices"):
                continue
            stream.used = False
            all_choices, index2ans = _letters(r), dict(r["choices"])
            pred = getattr(module, parse)(r["response"], all_choices, index2ans)
            gold = r["answer"] if isinstance(r["answer"], list) else _text(r["answer"])
            yield {"id": r["id"], "pred": pred, "correct": bool(score(gold, pred)),
                   "outcome": "fallback" if stream.used else "rule"}
    return run


def _plain(values):
    """A parsed list as JSON can hold it (inf as "inf", the way the conformance labels write it)."""
    return [v if not (isinstance(v, float) and math.isinf(v)) else ("inf" if v > 0 else "-inf") for v in values]


def label_mmmu_open(module_of):
    """parse_open_response + eval_open (the list of every parsed candidate, as MMMU and lmms-eval after #1471)."""
    def run(records):
        module = module_of()
        for r in records:
            preds = module.parse_open_response(r["response"])
            yield {"id": r["id"], "pred": sorted(_plain(preds), key=repr), "correct": bool(module.eval_open(r["answer"] if isinstance(r["answer"], list) else _text(r["answer"]), preds)),
                   "outcome": "rule"}
    return run


def label_mme(records):
    module = originals.lmms_mme()
    for r in records:
        gold = _text(r["answer"]).lower().strip().replace(".", "")
        if gold not in ("yes", "no"):  # mme_process_results asserts it: MME has no other gold
            continue
        pred = module.parse_pred_ans(r["response"])
        yield {"id": r["id"], "pred": pred, "correct": pred == gold, "outcome": "fallback" if pred == "other" else "rule"}


def label_scienceqa(commit):
    """sqa_process_results(doc, [reply]) with doc = {choices, answer: the gold's index}: only a score."""
    def run(records):
        module = originals.lmms_scienceqa(commit)
        for r in records:
            if not _consecutive(r) or r["answer"] not in _letters(r):  # the gold is an index into a list of choices
                continue
            doc = {"choices": _texts(r), "answer": _letters(r).index(r["answer"])}
            score = module.sqa_process_results(doc, [r["response"]])["exact_match"]
            yield {"id": r["id"], "pred": None, "correct": score == 1.0, "outcome": "rule"}
    return run


def label_livexiv(records):
    """livexiv_process_result, then livexiv_aggregation_result's comparison (an exception counts wrong)."""
    module = originals.lmms_livexiv()
    for r in records:
        if not r.get("choices"):
            continue
        pred = module.livexiv_process_result({"gt": _text(r["answer"])}, [r["response"]])["livexiv_vqa"]["pred"]
        try:
            correct = pred.lower().strip() == _text(r["answer"]).lower().strip()
        except Exception:
            correct = False
        yield {"id": r["id"], "pred": pred, "correct": correct, "outcome": "abstain" if pred is None else "rule"}


def label_vqa(method, dataset):
    """process_line(line, method) + hit_calculate: the score and correct (score 1)."""
    def run(records):
        module = originals.vqa_eval()
        for r in records:
            gold = _text(r["answer"])
            try:
                line = {"answer": gold, "prediction": r["response"]}
                score = float(module.hit_calculate([module.process_line(line, method)], dataset)[0])
            except Exception as exc:  # noqa: BLE001 - the original raises: the run stops there
                yield {"id": r["id"], "pred": None, "correct": False, "score": 0.0, "outcome": "error",
                       "error": type(exc).__name__}
                continue
            pred = r["response"].strip() if method == "relaxed_accuracy" else r["response"]
            yield {"id": r["id"], "pred": pred, "correct": score == 1.0, "score": score, "outcome": "rule"}
    return run


def label_omni3d(records):
    """Omni3DBench_acc on a one-row frame: the row's number is the one figure that is not None."""
    import pandas as pd

    module = originals.omni3dbench()
    for r in records:
        frame = pd.DataFrame({"answer_type": [r["meta"]["answer_type"]], "answer": [_text(r["answer"])],
                              "prediction": [r["response"]]})
        pred = module.extract_answer(r["response"])
        try:
            row = module.Omni3DBench_acc(frame).iloc[0]
        except Exception as exc:  # noqa: BLE001 - the original raises (a gold of 0: ZeroDivisionError)
            yield {"id": r["id"], "pred": pred, "correct": False, "score": 0.0, "outcome": "error",
                   "error": type(exc).__name__}
            continue
        score = next(float(v) for v in row.values if v is not None and not (isinstance(v, float) and math.isnan(v)))
        yield {"id": r["id"], "pred": pred, "correct": score == 1.0, "score": score, "outcome": "rule"}


def label_mathvista(records):
    """post_check(line, prefetch=True) with no judge: multi_choice → can_infer's letter ("Z", or False:
    the judge); free form → the value when it equals the gold (prefetched), else the judge (`unresolved`).
    A prefetched letter is compared with answer_option by MathVista_acc's post_check(prefetch=False)."""
    module = originals.mathvista()
    for r in records:
        meta = r.get("meta") or {}
        mcq = r["question_type"] == "multiple-choice"
        if mcq and (not _consecutive(r) or _text(r["answer"]) not in r["choices"]):  # choices are a list; the gold one of them
            continue
        line = {"question_type": "multi_choice" if mcq else "free_form", "answer_type": meta.get("answer_type", "text"),
                "precision": meta.get("precision"), "prediction": r["response"],
                "answer": r["choices"][r["answer"]] if mcq else _text(r["answer"]), "answer_option": r["answer"] if mcq else None,
                "choices": repr(_texts(r)) if mcq else None}
        res = module.post_check(line, prefetch=True)
        if not res:
            yield {"id": r["id"], "pred": None, "correct": False, "outcome": "unresolved"}
            continue
        correct = bool(module.post_check({**line, "res": res}, prefetch=False))
        yield {"id": r["id"], "pred": str(res) if not mcq else res, "correct": correct,
               "outcome": "abstain" if mcq and res == "Z" else "rule"}


def label_mathv(records):
    """MATH_V_auxeval's post_check(line, prefetch=True) with no judge: options → can_infer's letter ("Z",
    or False: the judge); none → the whole reply when is_equal(reply, gold) (the original's 30 s limit, kept
    here by a child process, makes a slower pair unequal: the judge). MATH_V_acc's hit is
    post_check(line, prefetch=False) on what was prefetched."""
    module = originals.mathv()

    def check(line, prefetch):
        return module.post_check(line, prefetch=prefetch)

    for r in records:
        mcq = bool(r.get("choices"))
        if mcq and not _consecutive(r):  # the choices are a list
            continue
        line = {"answer": _text(r["answer"]), "prediction": r["response"], "choices": repr(_texts(r)) if mcq else "[]"}
        done, res = bounded(check, line, True, limit=30.0)
        if not done or not res:
            yield {"id": r["id"], "pred": None, "correct": False, "outcome": "unresolved"}
            continue
        done, hit = bounded(check, {**line, "res": res}, False, limit=30.0)
        yield {"id": r["id"], "pred": res if mcq else None, "correct": bool(done and hit),
               "outcome": "abstain" if mcq and res == "Z" else "rule"}


class ScriptedJudge:
    """A judge model that always answers `reply` (is_equiv reads "true" in it as equal)."""
    sys_prompt = None

    def __init__(self, reply):
        self.reply = reply

    def generate(self, *args, **kwargs):
        return self.reply


def _physics_one(module, response, golds):
    """PHYSIC_auxeval's score with a judge that says "false" to everything, and with one that says "true":
    the same score both ways is settled without a judge; different scores need one."""
    low = module.PHYSIC_auxeval(ScriptedJudge("false"), {"prediction": response}, golds)["res"]
    high = module.PHYSIC_auxeval(ScriptedJudge("true"), {"prediction": response}, golds)["res"]
    return low if low == high else None


def label_physics(records):
    """PHYSIC_auxeval (physic.py) with the record's golds as Physics_yale reads them (toliststr): the share of the reply's
    distinct boxed answers that is_equiv finds equal to a gold. is_equiv asks its LLM judge where SymPy cannot
    settle a pair (or one holds \\text): a record whose score a judge could change (a judge saying "true"
    everywhere vs "false" everywhere) is `unresolved` — there is none —, one whose score it cannot change is
    settled by the rules (`rule`). Each record in a child process, at most 60 s (the originals' own 30 s
    limits are stubbed)."""
    module, toliststr = originals.physics(), originals.misc().toliststr
    for r in records:
        try:  # Physics_yale.__init__ reads the answer column with misc.py's toliststr (image_vqa.py:1171)
            golds = toliststr(_text(r["answer"]))
        except Exception as exc:  # noqa: BLE001 - the dataset does not load
            yield {"id": r["id"], "pred": None, "correct": False, "score": 0.0, "outcome": "error", "error": type(exc).__name__}
            continue
        done, res = bounded(_physics_one, module, r["response"], golds)
        if not done:
            yield {"id": r["id"], "pred": None, "correct": False, "score": 0.0, "outcome": "error", "error": f"over {LIMIT:.0f} s"}
        elif res is None:
            yield {"id": r["id"], "pred": None, "correct": False, "outcome": "unresolved"}
        else:
            yield {"id": r["id"], "pred": None, "correct": res == 1, "score": float(res), "outcome": "rule"}


def _olympiad_one(module, r):
    meta = r.get("meta") or {}
    answer = module.extract_answer("zh" in meta.get("source", ""), r["response"], is_deepseek=False)
    final = _text(r["answer"])[2:-2]
    judger = module.MathJudger()
    kind, error = meta.get("answer_type"), meta.get("error")
    if kind is not None and "Tuple" in kind:
        return answer, judger.judge(answer, final)
    if error not in (None, ""):
        if "," in error:
            return answer, judger.judge(answer, final, [float(p) if p else 1e-8 for p in error.split(",")])
        return answer, judger.judge(answer, final, float(error))
    return answer, judger.judge(answer, final)


def label_olympiadbench(records):
    """OlympiadBench.evaluate's rule path (image_vqa.py:1475-1514): extract_answer, then MathJudger.judge(
    model_answer, final_answer[2:-2], precision) by answer_type and error. Each record in a child process, at
    most 60 s (the original's 30 s signal limit is stubbed)."""
    module = originals.olympiadbench()
    for r in records:
        done, out = bounded(_olympiad_one, module, r)
        if not done:
            yield {"id": r["id"], "pred": None, "correct": False, "outcome": "error", "error": f"over {LIMIT:.0f} s"}
            continue
        answer, result = out
        yield {"id": r["id"], "pred": answer, "correct": bool(result), "outcome": "rule"}


def label_yorn(records):
    """YOrN_Extraction; ImageYORNDataset.evaluate scores answer == extracted."""
    module = originals.yorn()
    for r in records:
        pred = module.YOrN_Extraction(str(r["response"]))
        yield {"id": r["id"], "pred": pred, "correct": pred == _text(r["answer"]), "outcome": "fallback" if pred == "Unknown" else "rule"}


def label_visulogic(records):
    """extract_answer (box / lang / error → "Z"); VisuLogic_acc: correct when it equals the gold."""
    module = originals.visulogic()
    for r in records:
        pred, method = module.extract_answer(r["response"])
        yield {"id": r["id"], "pred": pred, "correct": pred == _text(r["answer"]), "outcome": "abstain" if method == "error" else "rule"}


def _one_row(cls, frame):
    import inspect

    if isinstance(inspect.getattr_static(cls, "evaluate"), classmethod):  # OCRBench's
        return cls.evaluate(frame)
    return cls.evaluate(cls.__new__(cls), frame)


def label_countbench(records):
    """CountBenchQA.evaluate on a one-row frame: its accuracy is the record's correct (`str(ans) in str(pred)`)."""
    import pandas as pd

    cls = originals.dataset_class("ds_image_vqa.py", "CountBenchQA")
    for r in records:
        frame = pd.DataFrame({"index": [0], "prediction": [r["response"]], "answer": [_text(r["answer"])]})
        correct = _one_row(cls, frame)["accuracy"] > 0
        yield {"id": r["id"], "pred": None, "correct": bool(correct), "outcome": "rule"}


def label_vlmblind(records):
    """VLMBlind.evaluate on a one-row frame (the gold as `answers`, the task as `task`): the task's accuracy
    is the record's correct; the braces' content is the prediction of the brace tasks."""
    import pandas as pd

    cls = originals.dataset_class("ds_image_mcq.py", "VLMBlind")
    braces = {"Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter"}
    for r in records:
        task = r["meta"]["task"]
        frame = pd.DataFrame({"index": [0], "prediction": [r["response"]], "answers": [_text(r["answer"])], "task": [task]})
        correct = float(_one_row(cls, frame)[task].iloc[0]) > 0
        pred = cls.extract_content_in_braces(None, r["response"]) if task in braces else None
        yield {"id": r["id"], "pred": pred, "correct": correct, "outcome": "rule"}


def label_ocrbench(records):
    """OCRBench.evaluate on a one-row frame (answer: the TSV's list literal, eval'd by the original):
    the record's category count is its correct; an exception (a gold eval gives no list of texts) is `error`."""
    import pandas as pd

    kept = {}
    cls = originals.dataset_class("ds_image_vqa.py", "OCRBench", dump=lambda data, f: kept.update(data))
    for r in records:
        frame = pd.DataFrame({"prediction": [r["response"]], "answer": [_text(r["answer"])], "category": [r["meta"]["category"]]})
        kept.clear()
        try:
            _one_row(cls, frame)
        except Exception as exc:  # noqa: BLE001 - the original raises: the run stops there
            yield {"id": r["id"], "pred": None, "correct": False, "outcome": "error", "error": type(exc).__name__}
            continue
        yield {"id": r["id"], "pred": None, "correct": kept["Final Score"] > 0, "outcome": "rule"}


def label_mmmu_pro_cot(records):
    """MMMUProDataset.cot_postproc (its source from image_mcq.py, unchanged), the predictions written to an
    .xlsx and read back as MMMUProDataset.evaluate does (pandas + xlsxwriter, strings_to_formulas off;
    pd.read_excel), str() of each, then can_infer (v3) — exact matching as `vlmevalkit`."""
    import ast
    import string
    import tempfile
    import textwrap
    from collections import defaultdict

    import pandas as pd

    source = (originals.SRC / "ds_image_mcq.py").read_text(encoding="utf-8")
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "MMMUProDataset")
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "cot_postproc")
    namespace = {"string": string, "defaultdict": defaultdict}
    exec(compile(textwrap.dedent(ast.get_source_segment(source, method)), "image_mcq.py", "exec"), namespace)
    records = [r for r in records if r.get("choices")]
    frame = pd.DataFrame({"index": range(len(records)), "prediction": [namespace["cot_postproc"](None, r["response"])
                                                                        for r in records]})
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/cotpost.xlsx"
        with pd.ExcelWriter(path, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
            frame.to_excel(w, index=False)
        back = [str(x) for x in pd.read_excel(path)["prediction"]]
    for lab, r in zip(label_can_infer("v3")([{**r, "response": text} for r, text in zip(records, back)]), records):
        yield lab


NO_TEXTS = dict.fromkeys("ABCD", "")  # MMEvalPro's outputs carry no options: letters A-D, no option text


def label_mmevalpro(records):
    """auto_score.py cal_score: `entry['answer'] == entry['model_output']`, the reply as it is."""
    for r in records:
        yield {"id": r["id"], "pred": r["response"], "correct": _text(r["answer"]) == r["response"], "outcome": "rule"}


def label_mmevalpro_vlmevalkit(records):
    """can_infer (v3) on letters A-D without texts, then cal_score's comparison."""
    for lab, r in zip(label_can_infer("v3")([{**r, "choices": NO_TEXTS} for r in records]), records):
        yield lab


def label_mmevalpro_lmms(records):
    """parse_mmmu_multi_choice_response with all_choices A-D and no option texts (index2ans empty), lmms-eval's
    random stream seeded 0."""
    module = originals.lmms_mcq()
    stream = module.random = Stream(0)
    for r in records:
        stream.used = False
        pred = module.parse_mmmu_multi_choice_response(r["response"], list("ABCD"), {})
        yield {"id": r["id"], "pred": pred, "correct": pred == _text(r["answer"]), "outcome": "fallback" if stream.used else "rule"}


TARGETS = {
    "vlmevalkit": text_golds_only(label_can_infer("v3")),
    "vlmevalkit@v2": text_golds_only(label_can_infer("v2")),
    "vlmevalkit@v1": text_golds_only(label_can_infer("v1")),
    "vlmevalkit@v0c": text_golds_only(label_can_infer("v0c")),
    "vlmevalkit@v0b": text_golds_only(label_can_infer("v0b")),
    "vlmevalkit@v0a": text_golds_only(label_can_infer("v0a")),
    "vlmevalkit@verbose": text_golds_only(label_can_infer("v3", verbose=True)),
    "livexivvqa@vlmevalkit-fork": text_golds_only(label_can_infer("fork")),
    "lmms-eval": label_mmmu_mcq(originals.lmms_mcq, 0, parse="parse_mmmu_multi_choice_response", scorer_of=originals.lmms_mmmu),
    "lmms-eval/open": label_mmmu_open(originals.lmms_mmmu),
    "mmmu": label_mmmu_mcq(originals.mmmu, 42, scorer_of=originals.mmmu),
    "mmmu/open": label_mmmu_open(originals.mmmu),
    "vmcbench": text_golds_only(label_mmmu_mcq(originals.vmcbench, 0)),
    "lmms-eval-mme": text_golds_only(label_mme),
    "lmms-eval-scienceqa": label_scienceqa("8ada8050"),
    "lmms-eval-scienceqa@v2": label_scienceqa("f06f8e67"),
    "lmms-eval-scienceqa@v1": label_scienceqa("7e9719d7"),
    "livexivvqa": text_golds_only(label_livexiv),
    "chartqa": label_vqa("relaxed_accuracy", "ChartQA_TEST"),
    "docvqa": label_vqa("anls", "DocVQA_VAL"),
    "infovqa": label_vqa("anls", "InfoVQA_VAL"),
    "omni3dbench": text_golds_only(label_omni3d),
    "mathvista": text_golds_only(label_mathvista),
    "vlmevalkit-yorn": text_golds_only(label_yorn),
    "vlmevalkit-visulogic": text_golds_only(label_visulogic),
    "vlmevalkit-countbench": text_golds_only(label_countbench),
    "vlmevalkit-vlmblind": text_golds_only(label_vlmblind),
    "vlmevalkit-ocrbench": label_ocrbench,
    "vlmevalkit-mmmu-pro-cot": text_golds_only(label_mmmu_pro_cot),
    "vlmevalkit-mathvision": text_golds_only(label_mathv),
    "physics": label_physics,
    "olympiadbench": text_golds_only(label_olympiadbench),
    "mmevalpro": text_golds_only(label_mmevalpro),
    "mmevalpro+vlmevalkit": text_golds_only(label_mmevalpro_vlmevalkit),
    "mmevalpro+lmms-eval": text_golds_only(label_mmevalpro_lmms),
}


def main(target, records_path, out_path):
    with gzip.open(records_path, "rt", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    labels = list(TARGETS[target](records))
    with open(out_path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as f:
        for lab in labels:
            f.write((json.dumps(lab, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    print(target, len(labels), file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:4])
