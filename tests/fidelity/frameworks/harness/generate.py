"""The framework rulesets' hostile records, made by tests/hostile.py (every reply class, the "framework"
class and FRAMEWORK_TRIGGERS included) with what each benchmark adds in `meta`:

    python generate.py OUT_DIR        writes OUT_DIR/records.<family>.jsonl.gz for every family below

Deterministic: the same records for the same generator (gzip written without a timestamp)."""
from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tests/
import hostile  # noqa: E402

SEED = 29
CLASSES = hostile.FRAMEWORK_CLASSES
T = hostile.FRAMEWORK_TRIGGERS


def _records(shape, n, family, triggers=(), meta=None, seed=SEED):
    return hostile.records(shape, n, seed, triggers=tuple(T[shape]) + tuple(triggers), classes=CLASSES,
                           prefix=f"fw-{family}", meta=meta)


def mcq(n):
    """Multiple choice (VLMEvalKit's can_infer generations, lmms-eval, MMMU, VMCBench, LiveXiv, ScienceQA, VisuLogic)."""
    return _records("mcq", n, "mcq")


def open_(n):
    """Open questions with numeric and text answers (MMMU/lmms-eval open, ChartQA, DocVQA, InfoVQA)."""
    return [*_records("number", n // 2, "open"), *_records("text", n - n // 2, "open")]


def yn(n):
    """Yes/no questions (lmms-eval MME, VLMEvalKit YOrN: POPE, HallusionBench, MME): a category and an image id."""
    def meta(rng, r):
        return {"category": rng.choice(["existence", "count", "OCR", "commonsense_reasoning", "code_reasoning"]),
                "question_id": f"img{rng.randrange(n // 2)}"}
    return _records("yesno", n, "yn", meta=meta)


OMNI = ("<ans>", "</ans>", "<ans>12</ans>", "<ans> 12 </ans>", "<ans>yes</ans>", "<ans>TRUE</ans>", "<ans>false</ans>",
        "<ans>left</ans>", "<ans></ans>", "<ans>3<ans>4</ans>", "<ANS>5</ANS>", "<ans>\n9\n</ans>", "<ans>0</ans>",
        "<ans>1_000</ans>", "<ans>½</ans>", "<ans>3.0</ans>", "<ans>-2</ans>", "<ans>1e2</ans>", "<ans>٣</ans>")


def omni3d(n):
    """Omni3DBench: an answer type per record (int, float, str) and replies with <ans> tags."""
    def meta(rng, r):
        return {"answer_type": rng.choice(["int", "float", "str"])}
    out = []
    for r in [*_records("number", n // 2, "omni3d", OMNI, meta), *_records("text", n - n // 2, "omni3d", OMNI, meta)]:
        rng = random.Random(r["id"])
        if rng.random() < 0.5:  # a gold of the record's type, as the dataset has
            r["answer"] = rng.choice({"int": ["12", "3", "0", "7", "-4"], "float": ["12.5", "3", "0.5", "-2", "100", "0"],
                                      "str": ["yes", "no", "left", "Left", ""]}[r["meta"]["answer_type"]])
        out.append(r)
    return out


def mathvista(n):
    """MathVista: multiple choice (text answer type) and free form by answer type (integer, float with a
    precision, text, list)."""
    def meta(rng, r):
        if r["choices"]:
            return {"answer_type": "text"}
        kind = rng.choice(["integer", "float", "text", "list"])
        return {"answer_type": kind, **({"precision": rng.choice([1, 2])} if kind == "float" else {})}
    out = []
    for r in _records("math", n, "mathvista", meta=meta):
        rng = random.Random(r["id"])
        kind = r["meta"]["answer_type"]
        if not r["choices"] and rng.random() < 0.6:
            r["answer"] = rng.choice({"integer": ["42", "0", "-3", "1000", "7"], "float": ["1.5", "0.0", "42.0", "3", "-0.5"],
                                      "text": ["None", "cat", "42"], "list": ["[1, 2]", "None"]}[kind])
            if rng.random() < 0.5:
                r["response"] = rng.choice([r["answer"], f" {r['answer']} ", r["answer"] + ".", r["answer"] + ".0",
                                            r["answer"].replace("0", "٠"), "1_" + r["answer"], r["response"]])
        out.append(r)
    return out


def count(n):
    """CountBench: counts."""
    return _records("number", n, "count")


BLIND_TASKS = ("Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter", "Touching Circles",
               "Counting Grid - Word Grids", "Counting Grid - Blank Grids", "Olympic Counting - Pentagons",
               "Olympic Counting - Circles", "Something Else")
BLIND = ("{3}", "{ 3 }", "{3} or {4}", "{}", "{{3}}", "}{3}", "rows: {5}, columns: {4}", "Rows {05} Columns {4}",
         "columns {4} and rows {5}", "row {5}\ncolumn {4}", "ROWS {5} COLUMNS {4}", "rows {٥} columns {٤}", "(5, 4)",
         "(5,4)", "( 5, 4)", "(05, 04)", "(5,\x1c4)", "(5,\u00a04)", "(٥, ٤)", "{B}", "{b}", "{Yes}", "{1,000}", "{-1}")


def blind(n):
    """VLMBlind: a task per record, replies with braces and grid sizes, golds of the task's kind half the time."""
    def meta(rng, r):
        return {"task": rng.choice(BLIND_TASKS)}
    out = []
    for r in _records("number", n, "blind", BLIND, meta):
        rng = random.Random(r["id"])
        task = r["meta"]["task"]
        if rng.random() < 0.5:
            r["answer"] = rng.choice(["5,4", "5, 4", "4,5", "{5,4}", "5", " 5 , 4 ", "05,4"] if task.startswith("Counting Grid")
                                     else ["Yes", "No", "yes"] if task == "Touching Circles"
                                     else ["B", "b", " B"] if task == "Circled Letter" else ["3", "4", "12", " 3", "03"])
        out.append(r)
    return out


OCR_CATEGORIES = ("Regular Text Recognition", "Irregular Text Recognition", "Artistic Text Recognition",
                  "Handwriting Recognition", "Digit String Recognition", "Non-Semantic Text Recognition",
                  "Scene Text-centric VQA", "Doc-oriented VQA", "Key Information Extraction",
                  "Handwritten Mathematical Expression Recognition")


def ocr(n):
    """OCRBench: a category per record; golds as its TSV holds them (a list literal) half the time."""
    def meta(rng, r):
        return {"category": rng.choice(OCR_CATEGORIES)}
    out = []
    for r in _records("text", n, "ocr", meta=meta):
        rng = random.Random(r["id"])
        if rng.random() < 0.5:
            r["answer"] = rng.choice(["['hello world']", "['stop']", "['STOP', 'stop sign']", "['x^{2}', 'x^2']",
                                      "['istanbul']", "['straße']", "['12345']", "['']", "[' hello ']", "['N/A']"])
        out.append(r)
    return out


def triplet(n):
    """MMEvalPro: replies without options (its outputs ship none), three per triplet."""
    def meta(rng, r):
        i = int(r["id"].split("/")[2])
        return {"triplet_id": i // 3, "eval_type": ("Origin", "Perception", "Knowledge")[i % 3],
                "source": rng.choice(["MMMU", "MathVista", "ScienceQA"])}
    return [{**r, "choices": None} for r in _records("mcq", n, "triplet", meta=meta)]


LATEX_GOLDS = ("\\frac{1}{2}", "0.5", "2\\sqrt{2}", "x^2+1", "10.2", "3", "\\text{B}", "(1, 2)", "[0, 1]", "x \\in [0, 1]",
               "\\pi/2", "1,000", "50\\%", "-4", "y = 2x + 1", "1 \\pm 2", "10^{3}", "\\dfrac{3}{4}", "3 \\mathrm{m}")
OLYMPIAD_SOURCES = ("OE_TO_maths_en_COMP", "OE_MM_maths_en_COMP", "OE_TO_physics_en_COMP", "OE_TO_maths_zh_CEE",
                    "OE_MM_physics_zh_CEE")


def latex(n):
    """OlympiadBench and the physics datasets: LaTeX golds (OlympiadBench's as its TSV text "['...']" half the
    time, the physics datasets' a list), replies with \\boxed{} and "So the final answer is", a source (en /
    zh), an answer type and an error (precision) per record."""
    def meta(rng, r):
        return {"source": rng.choice(OLYMPIAD_SOURCES),
                "answer_type": rng.choice(["Numerical", "Expression", "Tuple", "Interval", "Equation", None]),
                "error": rng.choice(["", "", "0.01", "1e-2", "0.1,0.2", "5"])}
    out = []
    for r in _records("math", n, "latex", meta=meta):
        rng = random.Random(r["id"])
        r["choices"], r["question_type"] = None, "open"
        if rng.random() < 0.6:
            gold = rng.choice(LATEX_GOLDS)
            r["answer"] = rng.choice([f"['{gold}']", [gold], [gold, rng.choice(LATEX_GOLDS)], gold])
            if rng.random() < 0.6:
                said = rng.choice([gold, rng.choice(LATEX_GOLDS), gold.replace("\\frac", "\\dfrac"), gold + " "])
                r["response"] = rng.choice(["\\boxed{{{a}}}", "So the final answer is ${a}$", "So the final answer is \\boxed{{{a}}}",
                                            "所以最终答案是\\boxed{{{a}}}", "\\[\n\\boxed{{{a}}}\n\\]", "{w} \\boxed{{{a}}}",
                                            "\\boxed{{{a}}} and \\boxed{{{b}}}", "$${a}$$", "The answer is ${a}$."]
                                           ).format(a=said, b=rng.choice(LATEX_GOLDS), w=r["response"][:200])
        out.append(r)
    return out


FAMILIES = {"latex": (latex, 300), "mcq": (mcq, 700), "open": (open_, 700), "yn": (yn, 600), "omni3d": (omni3d, 500), "mathvista": (mathvista, 600),
            "count": (count, 400), "blind": (blind, 500), "ocr": (ocr, 500), "triplet": (triplet, 450)}


def write(out_dir: Path, family: str, n: int | None = None) -> None:
    make, default = FAMILIES[family]
    with open(out_dir / f"records.{family}.jsonl.gz", "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as f:
        for r in make(n or default):
            f.write((json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))


if __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    for family, (_, n) in FAMILIES.items():
        write(out_dir, family, int(n * scale))
