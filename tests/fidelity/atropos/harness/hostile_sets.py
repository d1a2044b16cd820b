"""Hostile records for each of the 27 Atropos vision environments (issue 29), made by tests/hostile.py:
the environment's record shape, its own trigger phrases for the repetition loops, and the metadata
its `run_item` reads (a category, a task, a mode, an answer type, a precision). Usage:

    python hostile_sets.py OUT_DIR [ENV ...]      # writes OUT_DIR/hostile_<env>.jsonl, one record a line

Golds keep their JSON type (a number, a boolean, null) as a user's JSON-lines file would give them
to the environment's item; a JSON list becomes its Python list literal, except where the dataset's
gold column is a list (DocVQA `answers`, InfographicVQA and OCRBench `answer`)."""
import importlib.util
import itertools
import json
import random
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("hostile", Path(__file__).resolve().parents[3] / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)

MCQ_TRIGGERS = ("final answer is ", "Final Answer: ", "The answer is ", "the answer is: ", "Answer: ", "answer ",
                "<answer>", "</answer>", "I hope", "(B) ", "**A**", "\nC. ", "a ")
YN_TRIGGERS = ("yes ", "no ", "Yes. ", "No, ", "true ", "false ", "correct ", "incorrect ", "affirmative ", "negative ",
               "not ")
VQA_TRIGGERS = ("The answer is ", "Answer: ", "answer ", "\"", "\"word\" ", ".", "\n")
MATH_TRIGGERS = ("\\boxed{", "Answer: ", "The answer is ", "[1, 2", "-", "3.", "(A) ", "A ", "π", "{", "}")
OCR_CATEGORIES = ["Regular Text Recognition", "Scene Text-centric VQA", "Key Information Extraction",
                  "Handwritten Mathematical Expression Recognition", "", "Digit String Recognition"]
BLIND_TASKS = ["Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter", "Touching Circles",
               "Counting Grid - Blank Grids", "Counting Grid - Word Grids", "Olympic Counting - Circles",
               "Olympic Counting - Pentagons", "Grid", "Other", ""]


def _ocr(rng, r):
    return {"category": rng.choice(OCR_CATEGORIES)}


def _blind(rng, r):
    return {"task": rng.choice(BLIND_TASKS)}


def _charxiv(rng, r):
    mode = rng.choice(["descriptive", "reasoning"])
    return ({"mode": mode, "qid": rng.choice([1, 5, 19, 20, 0])} if mode == "descriptive"
            else {"mode": mode, "inst_category": rng.choice([1, 2, 3, 4, 5])})


def _dynamath(rng, r):
    kind = rng.choice(["multiple choice", "float", "free form", None])
    return {"answer_type": kind} if kind else {}


def _mathvista(rng, r):
    meta = {}
    if r["question_type"] == "open":
        kind = rng.choice(["integer", "float", "float", "list", "text", None])
        if kind:
            meta["answer_type"] = kind
        if kind == "float" or rng.random() < 0.1:
            p = rng.random()
            if p < 0.55:
                meta["precision"] = rng.choice([1, 2, 3, 1.0, 2.0])
            elif p < 0.9:  # outside 1-6: the tolerance formula's other branch, or a tiny one
                meta["precision"] = rng.choice([0, 0.0, 7, 8.0, 10, -1, 1.5, 0.5])
            elif p < 0.95:
                meta["precision"] = None
    return meta


# env → (shape, records, triggers, question type the ruleset's section reads ("mcq"/"open"/None: the
# generator's), meta)
ENVS = {
    "mmstar": ("mcq", 700, MCQ_TRIGGERS, "mcq", None),
    "mmbench": ("mcq", 700, MCQ_TRIGGERS, "mcq", None),
    "blink": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "mmt_bench": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "mmvp": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "ai2d": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "seedbench2_plus": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "mmmu": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "mmmu_pro": ("mcq", 600, MCQ_TRIGGERS, "mcq", None),
    "pope": ("yesno", 400, YN_TRIGGERS, "open", None),
    "hallusionbench": ("yesno", 400, YN_TRIGGERS, "open", None),
    "chartqa": ("number", 300, VQA_TRIGGERS + ("%", "$"), "open", None),
    "docvqa": ("text", 300, VQA_TRIGGERS, "open", None),
    "infovqa": ("text", 300, VQA_TRIGGERS, "open", None),
    "realworldqa": ("text", 300, VQA_TRIGGERS, "open", None),
    "visulogic": ("mcq", 300, ("A", "B", "C", "D", "\\boxed{", "answer "), "mcq", None),
    "ocrbench": ("text", 500, VQA_TRIGGERS + ("STOP ",), "open", _ocr),
    "wemath": ("mcq", 300, ("Answer: ", "Answer ", ">", "<", ":", "."), "mcq", None),
    "logicvista": ("mcq", 300, ("A, ", "B ", "C,D ", "E", "Answer: "), "mcq", None),
    "countbench": ("number", 300, ("1 ", "12 ", "There are ", "0"), "open", None),
    "mathverse": ("math", 300, MATH_TRIGGERS + ("E",), "open", None),
    "mmvet": ("text", 300, VQA_TRIGGERS, "open", None),
    "vlmblind": ("number", 400, ("{", "}", "{3} ", "5x4 ", " rows ", " columns ", "r", "c"), "open", _blind),
    "charxiv": ("text", 300, ("red ", "blue ", "0.5 ", "-", "."), "open", _charxiv),
    "dynamath": ("math", 400, ("{", "}", "\"short answer\": ", "\"", "\\", "π"), "open", _dynamath),
    "mathvista": ("math", 400, MATH_TRIGGERS, None, _mathvista),
    "mathvision": ("math", 400, MATH_TRIGGERS, None, None),
}
LIST_GOLDS = {"docvqa", "infovqa", "ocrbench"}


def _mathvista_near(rng, r):
    kind = rng.choice(["float", "float", "float", "integer", "text"])
    meta = {"answer_type": kind}
    if kind == "float" and rng.random() < 0.85:
        meta["precision"] = rng.choice([1, 2, 3, 1.0, 2.0, 4, 6, 7, 8.0, 10, 1.5, 0.5, 2.5, 0, 0.0, -1])
    return meta


def _dynamath_near(rng, r):
    return {"answer_type": rng.choice(["float", "float", "free form"])}


def _charxiv_near(rng, r):
    return {"mode": "reasoning", "inst_category": rng.choice([1, 2, 3, 4])}


# env → (records whose reply is a number near a numeric gold: hostile.py's "near" class, meta)
NEAR = {"mathvista": (150, _mathvista_near), "mathvision": (100, None), "mathverse": (100, None),
        "dynamath": (100, _dynamath_near), "chartqa": (100, None), "charxiv": (100, _charxiv_near),
        "countbench": (60, None)}


def _list_gold_records(env: str, seed: int, meta):
    """Records whose gold is one of hostile.ODD_LIST_GOLDS (a JSON list with items that are not text) and whose
    reply names one of its items (a text one, or the text of another)."""
    lists = random.Random(f"{env}/lists/{seed}")
    for r in hostile.records("text", 40, seed=seed + 2, classes=("plain", "markdown", "fragment", "lookalike"),
                             prefix=f"hostile-{env}-lists", meta=meta):
        gold = lists.choice(hostile.ODD_LIST_GOLDS)
        said = lists.choice([str(g) for g in gold] or ["stop"])
        yield dict(r, answer=gold, response=hostile.reply(lists, r["id"].rsplit("/", 1)[1], "text", said))


def env_records(env: str, seed: int = 29):
    """The hostile records of one environment, deterministic for (env, seed)."""
    shape, n, triggers, qtype, meta = ENVS[env]
    rng = random.Random(f"{env}/{seed}")
    made = hostile.records(shape, n, seed=seed, triggers=triggers, prefix=f"hostile-{env}", meta=meta)
    if env in NEAR:  # then numbers near a numeric gold, for the tolerances (ids end in /near)
        k, near_meta = NEAR[env]
        made = itertools.chain(made, hostile.records("number", k, seed=seed + 1, classes=("near",), odd_gold_rate=0.1,
                                                     prefix=f"hostile-{env}", meta=near_meta))
    if env in LIST_GOLDS:  # then JSON list golds with items that are not text (ids under hostile-<env>-lists/),
        made = itertools.chain(made, _list_gold_records(env, seed, meta))  # replies naming one of their items
    for r in made:
        if qtype == "mcq":
            r["question_type"] = "multiple-choice"
        elif qtype == "open":
            r["question_type"] = "open"
            if shape in ("mcq",):
                r["choices"] = None
        if isinstance(r["answer"], list) and env not in LIST_GOLDS:
            r["answer"] = str(r["answer"])
        if env == "ai2d" and isinstance(r["answer"], str) and len(r["answer"]) == 1 and r["answer"].isupper() \
                and rng.random() < 0.5:  # AI2D's dataset gives the gold as an option index ("1" for B)
            r["answer"] = str(ord(r["answer"]) - ord("A"))
        if env in ("docvqa", "infovqa") and isinstance(r["answer"], str) and rng.random() < 0.5:
            r["answer"] = [r["answer"], rng.choice(["stop", r["answer"].lower(), "", "12"])]
        if env == "dynamath" and r["meta"].get("answer_type") == "multiple choice" and rng.random() < 0.5:
            r["answer"] = rng.choice("ABCDEab")
        r["benchmark"] = env
        yield r


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for env in sys.argv[2:] or ENVS:
        with open(out / f"hostile_{env}.jsonl", "w", encoding="utf-8") as f:
            for r in env_records(env):
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(env, ENVS[env][1])
