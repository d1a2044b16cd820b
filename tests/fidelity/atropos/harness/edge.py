"""Generated edge-case records for the Atropos extractors: fragments that hit every pattern and quirk,
combined at random (seeded)."""
import json, random, sys

FRAG = ["<answer>B</answer>", "<answer> (c). </answer>", "<ANSWER>Final Answer: d</ANSWER>", "<answer></answer>",
        "<answer>I choose A</answer>", "<answer>A or B</answer>", "<answer>B, B</answer>", "<answer>it's: C!</answer>",
        "<answer>the correct option is (D)</answer>", "<answer>\x1cB\x1c</answer>", "<answer>b\n</answer>",
        "The final answer is B. I hope it is correct.", "final answer is (c)  i hope", "Final answer: well, it is C",
        "the answer is a", "The answer is (B).", "Answer: maybe D", "answer (A)", "ANSWER\x1cC", "**B**: dog",
        "(C) cow", "\nD. hen", "\n  **a)** first", "a cat", "S = a² = 2", "x²b", "CAT", "dog", "", "Yes", "No.",
        "yesterday", "Nothing here", "not correct", "That is false.", "affirmative", "negative", "incorrect",
        "It is TRUE", "no", " yes ", "ÄB", "é A é", "A\u0301", "b\u00b2", "_B_", "(B)", "B)", "[C]", "D:", "Option E",
        "answer:\x1fF", "The answer is\x1dB", "first line\n(b) second", "I think it's D", "maybe e or f"]
OPTIONS = [None, {"A": "cat", "B": "dog"}, {"A": "cat", "B": "dog", "C": "cow"},
           {"A": "cat", "B": "dog", "C": "cow", "D": "hen"}, {k: f"opt {k}" for k in "ABCDEF"}]


def records(n, seed=0):
    rng = random.Random(seed)
    for i in range(n):
        parts = [rng.choice(FRAG) for _ in range(rng.randint(1, 4))]
        sep = rng.choice([" ", "\n", "", ". ", "\x1c"])
        opts = rng.choice(OPTIONS)
        letters = list(opts) if opts else list("ABCD")
        yield {"id": f"edge/{i}", "question_type": "multiple-choice", "question": "q?", "choices": opts,
               "answer": rng.choice(letters), "response": sep.join(parts)}


def yes_no_records(n, seed=1):
    rng = random.Random(seed)
    for i in range(n):
        parts = [rng.choice(FRAG) for _ in range(rng.randint(1, 3))]
        yield {"id": f"edge-yn/{i}", "question_type": "open", "question": "q?", "choices": None,
               "answer": rng.choice(["yes", "no", "Yes", "NO ", "true", "0"]), "response": rng.choice([" ", "\n", ""]).join(parts)}


VLMBLIND_TASKS = ["Subway Connections", "Nested Squares", "Line Plot Intersections", "Circled Letter",
                  "Touching Circles", "Counting Grid - Blank Grids", "Counting Grid - Word Grids",
                  "Olympic Counting - Circles", "Olympic Counting - Pentagons", "Grid", "", "Other"]
VLMBLIND_FRAG = ["{3}", "{ B }", "{}", "{a}{b}", "{2} or {3}", "{\n4\n}", "{Yes}", "}{5}", "{", "}", "5x4", "5 X 4",
                 "5×4", "5 x\n4", "5, 4", "5 rows and 4 columns", "4 cols, 5 r", "5\nrows 4 columns", "r5c4",
                 "12 rows by 3 cols", "3 columns, 12 rows", "\u0661\u0662x\u0663", "05x4", "5\x1cx\x1c4", "cat",
                 "Yes", "NO", "The answer is 3.", "I count 12 circles", "two", "B", "(b)", "\u00b2", "", " ",
                 "There are 54 cells", "6 r 7 c", "rows: 5, columns: 4", "1x1x1", "0x10"]
VLMBLIND_GOLDS = ["3", "5,4", "5x4", "{5,4}", "5 x 4", "4,5", "12,3", "B", "b", "Yes", "No", "", "twenty", "12", " 2 ",
                  "\u0661\u0662,\u0663", "05, 4", "1x1", "x"]


def vlmblind_records(n, seed=3):
    """Replies built from VLMBlind's braces / grid-size / substring fragments, each with a task."""
    rng = random.Random(seed)
    for i in range(n):
        parts = [rng.choice(VLMBLIND_FRAG) for _ in range(rng.randint(1, 4))]
        yield {"id": f"edge-blind/{i}", "question_type": "open", "question": "q?", "choices": None,
               "answer": rng.choice(VLMBLIND_GOLDS),
               "response": rng.choice([" ", "\n", "", ". "]).join(parts), "meta": {"task": rng.choice(VLMBLIND_TASKS)}}


CHARXIV_FRAG = ["12", "12.004", "3.995", "-4", "4.", "1,000", "1e5", "red", "red,", "Red", "and", "blue", "The answer",
                "is", "0.5", ".5", "\u0661\u0662", "N/A", "", " ", "\n", "Time (s)", "time", "(s)", "-0.001", "0",
                "yes", "No", "2019", "20.19", "x-axis", "\x1c", "Not Applicable"]


def charxiv_records(n, seed=5):
    """Replies and golds built from words and numbers, in both modes, with category ids."""
    rng = random.Random(seed)
    for i in range(n):
        reply = rng.choice([" ", "\n", ", ", ""]).join(rng.choice(CHARXIV_FRAG) for _ in range(rng.randint(0, 5)))
        gold = " ".join(rng.choice(CHARXIV_FRAG) for _ in range(rng.randint(1, 3)))
        mode = rng.choice(["descriptive", "reasoning"])
        meta = {"mode": mode, "qid": rng.randint(1, 20)} if mode == "descriptive" else {"mode": mode, "inst_category": rng.randint(1, 5)}
        yield {"id": f"edge-charxiv/{i}", "question_type": "open", "question": "q?", "choices": None, "answer": gold,
               "response": reply, "meta": meta}


DYNAMATH_VALUES = ['"B"', '"b"', '"Answer: C"', '"(D)"', '"none"', '"nothing"', '""', '" 3"', '"3"', '"3.0005"', '"2.999"',
                   '"4π"', '"π"', '"π/2"', '"2π/3"', '"-1.5 cm"', '"1,000"', '"²"', '"3²"', '"\u0663"', '"①"', '3', '3.0',
                   '2.0005', '1e400', 'NaN', '-Infinity', 'true', 'null', '[1, 2]', '{"a": 1}', '"Increasing"',
                   '"increasing function"', '"inc"', '"\\frac{1}{2}"', '"say \\"yes\\""', '"line\nbreak"',
                   '"tab\there"', '"E"', '"12.566 cm"', '"0.5"', '"-0.5"', '"1_0"', '"inf"']
DYNAMATH_WRAP = ['{{"solution": "s", "short answer": {v}}}', '{{"short answer": {v}}}', '```json\n{{"solution": "a}}b",\n"short answer": {v}\n}}\n```',
                 'Here it is: {{"short answer": {v}, "short answer": "A"}} done', '{{"Short Answer": {v}}}', '{{"short answer": {v}',
                 '{{"solution": "x = \\\\frac{{1}}{{2}}", "short answer": {v}}}', '[{{"short answer": {v}}}]', '{v}', 'The answer is {v}.',
                 '{{"short answer": {v}}} and {{"short answer": "C"}}', 'B) {{"short answer": {v}}}', '{{"solution": "{{nested}}", "short answer": {v}}}',
                 '{{"short answer": {v} }}}}', '}} {{"short answer": {v}}}']
DYNAMATH_TEXT = ["", "C is right", "I think the answer is D", "  b) twelve", "The area is 3² = 9", "x = -0.5 or 2", "about 12.5664",
                 "ANSWER: E", "none of these", "\u0663.5 apples", "1.2.3", "-.5", "Ⅻ", "ß and C"]


def dynamath_records(n, seed=7):
    """DynaMath replies: JSON objects (well-formed or not, fenced, doubled, escaped) around short answers of
    every JSON type, or plain text; each with an answer type and a gold of that type."""
    rng = random.Random(seed)
    golds = {"multiple choice": ["A", "B", "C", "D", "E", "b"], "float": ["3", "3.0", "12.566", "-0.5", "1000", "2", "0.5", "6.283"],
             None: ["increasing", "Increasing", "inc", "3", "yes", ""]}
    for i in range(n):
        kind = rng.choice(["multiple choice", "float", "free form", None])
        if rng.random() < 0.75:
            reply = rng.choice(DYNAMATH_WRAP).format(v=rng.choice(DYNAMATH_VALUES))
        else:
            reply = " ".join(rng.choice(DYNAMATH_TEXT) for _ in range(rng.randint(1, 3)))
        meta = {"answer_type": kind} if kind is not None else {}
        yield {"id": f"edge-dynamath/{i}", "question_type": "open", "question": "q?", "choices": None,
               "answer": rng.choice(golds.get(kind, golds[None])), "response": reply, "meta": meta}


MATH_FRAG = ["The answer is (B).", "B", "(c)", "I pick A because", "Answer: D", "102 degrees", "97", "It is E", "h", "G.",
             "12 apples", "3.7", "-4", "1,000", "1e3", "x = 1.25", "0.333", "٣", "3²", "[2007, 2008]", "[1-2]", "[01]",
             "[1, 2,]", "[ ]", "[1..2]", "[--1]", "[1.0, 2]", "[-0.5, 3]", "[1 2]", "[5.]", "(1, 2)", "Yes", "no", "1/2",
             "10^3", "2**3", "", " ", "\n", "Failed to obtain answer via API", "none of the above", "\u00df", "0", "-0",
             "007", "sum([])", "pi", "\\frac{1}{2}", "2\\sqrt{2}", "3.", ".5", "inf", "nan", "1_000"]
MATH_OPTIONS = [None, {"A": "97", "B": "102", "C": "107", "D": "122"}, {"A": "A", "B": "B", "C": "C", "D": "D", "E": "E"},
                {"A": "97 degrees", "B": "102 degrees"}, {"A": "3", "B": "12", "C": "1/2", "D": ""}, {"A": "yes", "B": "no"},
                {k: f"option {k}" for k in "ABCDEFGHIJ"}]
MATH_GOLDS = ["B", "b", "A", "E", "102", "3", "3.7", "12", "1.25", "-4", "1000", "[2007, 2008]", "[-1]", "[1, 2]", "(1, 2)",
              "[5.0]", "yes", "Yes", "1/2", "0.5", "9", "8", "\\frac{1}{2}", "", " 3 ", "inf", "G", "h"]


def math_records(n, seed=9):
    """MathVista / MATH-Vision replies: letters, numbers, lists and text fragments; options or none; every
    answer type, with and without a precision."""
    rng = random.Random(seed)
    for i in range(n):
        reply = rng.choice([" ", "\n", ". ", ""]).join(rng.choice(MATH_FRAG) for _ in range(rng.randint(1, 4)))
        options = rng.choice(MATH_OPTIONS)
        meta = {}
        if options is None:
            kind = rng.choice(["integer", "float", "list", "text", "other", None])
            if kind:
                meta["answer_type"] = kind
            if kind == "float" and rng.random() < 0.7:
                meta["precision"] = rng.choice([0, 1, 2, 3, 1.0])
        yield {"id": f"edge-math/{i}", "question_type": "multiple-choice" if options else "open", "question": "q?",
               "choices": options, "answer": rng.choice(MATH_GOLDS), "response": reply, "meta": meta}


if __name__ == "__main__":
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    gen = {"mcq": records, "yn": yes_no_records, "vlmblind": vlmblind_records, "charxiv": charxiv_records, "dynamath": dynamath_records, "math": math_records}[kind]
    with open(out, "w", encoding="utf-8") as f:
        for r in gen(n):
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
