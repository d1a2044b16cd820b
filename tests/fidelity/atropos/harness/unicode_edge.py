"""Generated replies on the Unicode edges where Python's `re` (what the Atropos originals run) and the
`regex` module part ways (issue 29): letters and digits added in Unicode 15 and 16 — unknown to
Python 3.11's tables (unicodedata 14.0.0), so not `\\w`, `\\d` or a word boundary's word character
there, while the regex module's tables know them — and the characters Python's `re` folds under
IGNORECASE where Unicode case folding does not or differently ("ı" and "İ" match "i", "ſ" matches
"s", the Kelvin sign "k", the Angstrom sign "å", ...). Fragments combined at random (seeded), as
edge.py does:

    python unicode_edge.py mcq 2000 edge_unicode_mcq.jsonl
    python unicode_edge.py open 3000 edge_unicode_open.jsonl

The labels are what the ORIGINAL environments make of these records under the interpreter that runs
them (Python 3.11 here): label_unicode.py."""
import json, random, sys

# letters (Lo) and decimal digits (Nd) of Unicode 15 / 16: unassigned (Cn) in Python 3.11's tables
L1, L2, L3, L4 = "\U0001e4d0", "\U00011f04", "\U0001e5d0", "\U00031350"  # Nag Mundari, Kawi, Ol Onal, CJK Ext. H
D1, D2, D3, D4 = "\U0001e4f1", "\U00011f52", "\U0001e5f3", "\U00016d73"  # decimal digits of Nag Mundari, Kawi, Ol Onal, Kirat Rai
NEW = [L1, L2, L3, L4, D1, D2, D3, D4, "\ua7cb"]  # U+A7CB: the capital of "ɤ" since Unicode 16
FOLD = ["\u0131", "\u0130", "\u017f", "\u212a", "\u212b", "\u00b5", "\u1e9e", "\u00df", "\u03c2", "\ufb00", "\u0264"]

MCQ_FRAG = [
    "fınal answer ıs B", "FİNAL ANSWER IS C", "The fınal answer is (D). ı hope", "the final answer is B. I hope",
    "final answer: it ıs C", "The anſwer is (B).", "the answer ıs A", "THE ANSWER İS D", "ANſWER: C", "anſwer B",
    "Answer: ı", "answer İ", "the answer is ı", "the answer is (İ)", "Answer: \u212a", "the answer is \u212a",
    "the answer is \u212b", "<answer>ı</answer>", "<answer>İ</answer>", "<answer>\u212a</answer>", "<anſwer>C</anſwer>",
    "<ANSWER>B</ANSWER>", "<answer>the anſwer is B</answer>", "<answer>fınal answer: D</answer>",
    "<answer>ı choose C</answer>", "<answer>İt's A</answer>", "ı think it's B", "\nı. first", "\nİ) first",
    "**ı**: x", "(ı) cow", "\u017f", "\u00b5", "\u1e9e", "\u00df", "İ", "ı",
    f"{L1}A{L1}", f"A{L1}", f"{L2}B", f"(C){L1}", f"{L1} D", f"C{L3} and D", f"The answer is B{L1}",
    f"the answer is {L1}C", f"answer {L4}", f"{L4}a{L4}", f"a{L4}", f"<answer>B{L1}</answer>", f"<answer>{L2}C</answer>",
    f"<answer>A or B{L1}</answer>", f"Option {L1}E", f"\n{L1}B. text", f"**B{L1}**", f"{D1}", f"answer: {D1}",
    f"the answer is {D2}", "\ua7cb", "\u0264", f"I{L1}", f"{L3}I", "The answer is I", "the answer is J.", "answer: K",
    "The answer is B", "A", "c", "dog", "The answer is (C).", "Answer: D", "\n(b) x",
]
OPTIONS = [None, {"A": "cat", "B": "dog"}, {k: f"opt {k}" for k in "ABCD"}, {k: f"opt {k}" for k in "ABCDEF"},
           {k: f"opt {k}" for k in "ABCDEFGHIJ"}, {k: f"opt {k}" for k in "ABCDEFGHIJK"}]


def mcq_records(n, seed=29):
    """Multiple-choice replies (options None, 2, 4, 6, 10 (A-J: "I" is a letter) or 11 (A-K))."""
    rng = random.Random(seed)
    for i in range(n):
        parts = [rng.choice(MCQ_FRAG) for _ in range(rng.randint(1, 4))]
        opts = rng.choice(OPTIONS)
        letters = list(opts) if opts else list("ABCD")
        yield {"id": f"edge-unicode-mcq/{i}", "question_type": "multiple-choice", "question": "q?", "choices": opts,
               "answer": rng.choice(letters), "response": rng.choice([" ", "\n", "", ". "]).join(parts)}


OPEN_FRAG = [
    D1, f"1{D1}2", f"12{D1}", f"-{D1}.5", f"3.{D2}", f"The count is {D1}{D2}", f"[1, {D1}]", f"[{D3}.5, 2]",
    f"{D4}x4", f"5x{D1}", f"5 x 4{D1}", f"{D1} rows and 4 columns", f"5 rows and {D2} columns", f"{{{D1}}}",
    f"{{5}}{L1}", f"{{{L1}}}", f"answer: {D1}", "the anſwer is 42", "Answer: ı", "ANſWER: 12", "Answer: 7",
    "The answer is 5x4.", f"the answer is 4{D1}.", f"yes{L1}", f"{L1}no", f"{L1}yes{L1}", f"correct{L2}",
    f"no{L4}", "YES", "No", "İncorrect", "ıncorrect", "TRUE", "ſure", "not correct", f"There are 7{L1} birds",
    f"7{L1}", f"{L1}7", "7", "12.5", f"{L4}12{L4}", "42", "5,4", "\u212a", "\u212b", "yes", "no", f"B{L1}", f"{L1}B",
    f'{{"short answer": "{D1}"}}', f'{{"short answer": "\u00b2{D1}"}}', f'{{"short answer": "3{D1}"}}',
    '{"short answer": "\u00b2"}', f'{{"short answer": "{L1}B"}}', f'{{"short answer": "{D1} cm"}}',
    f'{{"short answer": 7}} {D1}', "ı think 12", "\u00b5m", "straße", "STRASSE",
]
OPEN_GOLDS = ["7", "12", "42", "yes", "no", "B", "5x4", "5,4", "{5,4}", "1", "3", "12.5", D1, f"1{D1}2", "ı", "ſure",
              "[1, 2]", "straße", "\u212a"]
TASKS = ["Counting Grid - Blank Grids", "Counting Grid - Word Grids", "Circled Letter", "Touching Circles",
         "Nested Squares", "Line Plot Intersections"]
CATEGORIES = ["Handwritten Mathematical Expression Recognition", "Regular Text Recognition", "Scene Text-centric VQA", ""]


def open_records(n, seed=31):
    """Open replies with every environment's meta: a VLMBlind task, a CharXiv mode and category id, a
    DynaMath / MathVista answer type (and precision), an OCRBench category."""
    rng = random.Random(seed)
    for i in range(n):
        parts = [rng.choice(OPEN_FRAG) for _ in range(rng.randint(1, 3))]
        mode = rng.choice(["descriptive", "reasoning"])
        meta = {"task": rng.choice(TASKS), "mode": mode, "category": rng.choice(CATEGORIES),
                "answer_type": rng.choice(["integer", "float", "list", "text", "multiple choice", "free form"])}
        meta.update({"qid": rng.randint(1, 19)} if mode == "descriptive" else {"inst_category": rng.randint(1, 4)})
        if meta["answer_type"] == "float" and rng.random() < 0.5:
            meta["precision"] = rng.choice([0, 1, 2])
        yield {"id": f"edge-unicode-open/{i}", "question_type": "open", "question": "q?", "choices": None,
               "answer": rng.choice(OPEN_GOLDS), "response": rng.choice([" ", "\n", "", ". "]).join(parts), "meta": meta}


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(out, "w", encoding="utf-8") as f:
        for r in {"mcq": mcq_records, "open": open_records}[kind](n):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
