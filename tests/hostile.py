"""Hostile replies and odd golds for fidelity tests: a small, seeded generator of the inputs that break
answer extractors, shaped like the corpus (`../shared/corpus/responses.jsonl`).

A fidelity test generates records with `records(...)`, has the ORIGINAL framework code label them
(run unchanged, outside the repo), stores records and labels, and checks that a ruleset decides
every record as the original did. The generator only makes inputs; it knows nothing of any
framework's parser, so the same records serve every ruleset of a shape.

Shapes (what a record asks for; `SHAPES`):
    "mcq"     multiple choice: options A.. (sometimes blank, gapped, or more than six), a letter gold
    "yesno"   a yes/no question
    "number"  an open question with a numeric answer (counts, chart values)
    "text"    an open question with a short text answer (VQA, OCR)
    "math"    an open or multiple-choice math question (LaTeX, fractions, lists, \\boxed{})

Reply classes (`CLASSES`), each built around a candidate answer (the gold or a wrong one):
    "markdown"   bold / italic / headers / tables / code fences / quotes around the answer
    "lookalike"  Unicode look-alikes in the answer and its words: fullwidth, Cyrillic and Greek
                 homoglyphs, dotless ı and İ, long s ſ, Kelvin sign, superscripts, mathematical
                 letters, combining marks, characters newer than Unicode 14.0, zero-width and bidi
                 controls, NBSP and other spaces, the \\x1c-\\x1f separators
    "chain"      a long chain of thought naming several candidates ("wait, actually ...")
    "loop"       a repetition loop of trigger phrases (the caller's and the shape's own) up to
                 64k characters (12k when it is whitespace only: originals' `\\n\\s*X` patterns take
                 Python's re minutes on longer runs), with and without newlines and periods,
                 sometimes with a tail answer
    "blank"      empty and whitespace-only replies (every kind of space)
    "think"      `<think>` blocks: closed, unclosed, nested, several, upper-case, an answer inside
    "tag"        `<answer>` tags: one, several, empty, unclosed, with a prefix, upper-case
    "boxed"      `\\boxed{}`: nested braces, several, unclosed, `\\text{}` inside, spaced
    "fragment"   fragments of tests/fidelity/atropos/harness/edge.py (every pattern the Atropos
                 extractors know) joined at random
    "plain"      a short ordinary reply ("The answer is B.")
    "near"       (EXTRA_CLASSES, asked for by name) a number just inside or outside every tolerance an
                 original may use around a numeric answer (1e-9 ... 5%, above and below, relative
                 and absolute), in several spellings ("1.2500001", "+1.25", "1.25e0", "1.25%")
    "framework"  (not drawn by default: `FRAMEWORK_CLASSES` adds it) pieces of what the framework
                 scorers key on — the answer letter in forty forms (VLMEvalKit's "answer is" /
                 "Answer:", the DCVLR fork's "Final Answer:" / "**Output: X**" / <answer> / \boxed{},
                 lmms-eval's "(X)", "X ", "X."), VLMEvalKit's refusal literals and "Failed to obtain
                 answer via API", option texts, MMMU's key phrases and numbers, yes/no look-alikes,
                 math LaTeX, the caller's triggers — with chain-of-thought sentences, punctuation
                 at the edges, odd separators (\x1c, NBSP, U+2028) and a loop of one piece

Odd golds (`gold(rng, shape, options)`; `ODD_LIST_GOLDS` for list-gold datasets): list literals ("['STOP', 'stop']"), quoted strings
("'STOP'"), numbers as text and as JSON numbers, "True" / "None" / JSON booleans and null, blank
golds, golds outside the option set or outside yes/no ("Unknown"), option indexes ("1" for B),
lower-case letters, several letters; for "math", a precision outside 1-6 in meta.

API
    records(shape, n, seed=0, *, triggers=(), classes=CLASSES, odd_gold_rate=0.35, prefix="hostile",
            meta=None) -> Iterator[dict]       corpus-shaped records, deterministic for (arguments, seed)
    reply(rng, cls, shape, answer, *, options=None, triggers=(), max_loop=65536) -> str
    gold(rng, shape, options=None) -> (value, kind)
    option_set(rng) -> dict | None             an option set (letter -> text), possibly odd
    lookalike(rng, text) -> str                text with look-alike characters swapped in
    TRIGGERS[shape]                            answer phrases an extractor of that shape is likely to key on
    FRAMEWORK_TRIGGERS[shape], FRAMEWORK_CLASSES  the framework scorers' phrases (VLMEvalKit, lmms-eval, MMMU,
                                               MMEvalPro, math) and CLASSES + ("framework",)

`meta` is `callable(rng, record) -> dict`, for what one benchmark adds (a task, a category, a mode).
Nothing here reads the clock, the environment or a global RNG: the same call gives the same records.
"""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from string import ascii_uppercase
from typing import Callable, Iterator

_EDGE_PATH = Path(__file__).parent / "fidelity" / "atropos" / "harness" / "edge.py"


def _load_edge():
    spec = importlib.util.spec_from_file_location("_atropos_edge_fragments", _EDGE_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_edge = _load_edge()

SHAPES = ("mcq", "yesno", "number", "text", "math")
CLASSES = ("markdown", "lookalike", "chain", "loop", "blank", "think", "tag", "boxed", "fragment", "plain")
EXTRA_CLASSES = ("near",)  # asked for by name (`records(..., classes=("near",))`): not in the default mix

# Fragments every pattern of the Atropos extractors reacts to (harness/edge.py), by shape.
FRAGMENTS = {
    "mcq": _edge.FRAG,
    "yesno": _edge.FRAG,
    "number": _edge.CHARXIV_FRAG + _edge.VLMBLIND_FRAG,
    "text": _edge.CHARXIV_FRAG + _edge.FRAG,
    "math": _edge.MATH_FRAG + _edge.DYNAMATH_TEXT,
}

# Phrases an extractor of each shape is likely to key on; a loop repeats them (with the caller's own).
TRIGGERS = {
    "mcq": ("The answer is ", "the answer is: ", "Final Answer: ", "final answer is ", "Answer: ", "answer ",
            "<answer>", "Option ", "(A) ", "**", "I think it is ", "A. ", "\n"),
    "yesno": ("Yes", "No", "yes, ", "no. ", "The answer is ", "Answer: ", "<answer>", "not ", "true ", "false "),
    "number": ("The answer is ", "Answer: ", "<answer>", "{", "}", "1", "0.", "-", "x", " rows ", " columns ",
               "There are ", ","),
    "text": ("The answer is ", "Answer: ", "<answer>", "The text reads ", "\"", "'", "[", "]", ", "),
    "math": ("\\boxed{", "{", "}", "\\frac{", "The answer is ", "Answer: ", "final answer is ", "=", "(",
             "\"short answer\": ", "<answer>", "\\\\"),
}

# ---------------------------------------------------------------------------------------- characters
FULLWIDTH = {c: chr(ord(c) + 0xFEE0) for c in ascii_uppercase + ascii_uppercase.lower() + "0123456789"}
HOMOGLYPHS = {  # Cyrillic and Greek letters that look like Latin ones
    "A": "АΑ", "B": "ВΒ", "C": "СϹ", "E": "ЕΕ", "H": "НΗ", "I": "ІΙ", "J": "Ј", "K": "КΚ", "M": "МΜ",
    "N": "Ν", "O": "ОΟ", "P": "РΡ", "S": "Ѕ", "T": "ТΤ", "X": "ХΧ", "Y": "ҮΥ", "Z": "Ζ",
    "a": "а", "c": "с", "e": "е", "i": "іι", "j": "ј", "o": "оο", "p": "р", "s": "ѕ", "x": "х", "y": "уγ",
}
CASE_TRAPS = {"I": "İı", "i": "ıİ", "K": "\u212a", "k": "\u212a", "S": "ſ", "s": "ſ", "A": "\u212b",
              "ss": "ß", "fi": "ﬁ"}  # dotless i, dotted I, Kelvin sign, long s, Angstrom sign, sharp s, ligature
SUPERSCRIPTS = dict(zip("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
SUBSCRIPTS = dict(zip("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
OTHER_DIGITS = ["٠١٢٣٤٥٦٧٨٩", "०१२३४५६७८९", "০১২৩৪৫৬৭৮৯", "①②③④⑤⑥⑦⑧⑨", "𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗"]
MATH_LETTERS = [0x1D400, 0x1D434, 0x1D5A0, 0x1D670, 0x1D538 - 0]  # bold, italic, sans, monospace, double-struck
CIRCLED = {c: chr(0x24B6 + i) for i, c in enumerate(ascii_uppercase)}
COMBINING = ["\u0301", "\u0308", "\u0332", "\u20dd", "\u0338", "\u0327", "\u034f"]
# Assigned after Unicode 14.0 (this interpreter's tables; the `regex` module's are newer): digits
# (Nag Mundari, Kawi: 15.0; Outlined, Sunuwar: 16.0), letters with and without case (Kawi, CJK
# extension H, Latin rams horn / lambda with stroke, Cyrillic TJE: 15.0-16.0), marks and modifiers.
NEWER_DIGITS = ["".join(chr(b + i) for i in range(10)) for b in (0x1E4F0, 0x11F50, 0x1CCF0, 0x11BF0)]
NEWER_LETTERS = ["\U00011F04", "\U00031350", "\U0001E4D0", "\U0001DF25", "\uA7CB", "\uA7DC", "\u1C89", "\u1C8A",
                 "\U0001E030"]
NEWER_MARKS = ["\u0CF3", "\U00010EFD", "\U00011F00"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e"]
BIDI = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e",
        "\u200f", "\u061c"]
SPACES = ["\u00a0", "\u2002", "\u2003", "\u2007", "\u2009", "\u200a", "\u202f", "\u205f", "\u3000", "\u1680",
          "\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\r", "\t"]
SEPARATORS = ["\x1c", "\x1d", "\x1e", "\x1f"]
WHITESPACE_LOOP = 12_000  # the longest loop made of whitespace only (`_loop`)


def _math_letter(c: str, base: int) -> str:
    if c.isupper():
        return chr(base + ord(c) - 65)
    if c.islower():
        return chr(base + 26 + ord(c) - 97)
    return c


def lookalike(rng: random.Random, text: str) -> str:
    """`text` with look-alike characters swapped in: one transform drawn per call (fullwidth,
    homoglyphs, case traps, superscript/subscript/other-script digits, mathematical or circled
    letters, combining marks, characters newer than Unicode 14.0, invisible controls, odd spaces,
    separators). A transform that finds nothing to change inserts its characters around the text."""
    kind = rng.choice(["fullwidth", "homoglyph", "case", "digits", "math", "circled", "combining", "newer",
                       "invisible", "spaces", "separators", "mixed"])
    if kind == "mixed":
        for _ in range(rng.randint(2, 3)):
            text = lookalike(rng, text)
        return text
    if kind == "fullwidth":
        return "".join(FULLWIDTH.get(c, c) if rng.random() < 0.8 else c for c in text)
    if kind == "homoglyph":
        out = "".join(rng.choice(HOMOGLYPHS[c]) if c in HOMOGLYPHS and rng.random() < 0.7 else c for c in text)
        return out if out != text else rng.choice("АВСЕΑΒ") + text
    if kind == "case":
        for plain, trap in CASE_TRAPS.items():
            if plain in text and rng.random() < 0.7:
                text = text.replace(plain, rng.choice(trap))
        return text if rng.random() < 0.5 else text + " " + rng.choice("İıſ\u212aß")
    if kind == "digits":
        table = rng.choice([SUPERSCRIPTS, SUBSCRIPTS] + [dict(zip("0123456789", d)) for d in OTHER_DIGITS + NEWER_DIGITS])
        out = "".join(table.get(c, c) for c in text)
        return out if out != text else text + "".join(rng.choice(list(table.values())) for _ in range(rng.randint(1, 2)))
    if kind == "math":
        base = rng.choice(MATH_LETTERS)
        return "".join(_math_letter(c, base) if c.isascii() and c.isalpha() else c for c in text)
    if kind == "circled":
        return "".join(CIRCLED.get(c.upper(), c) if c.isascii() and c.isalpha() else c for c in text)
    if kind == "combining":
        return "".join(c + rng.choice(COMBINING) if c.isalnum() and rng.random() < 0.6 else c for c in text) or rng.choice(COMBINING)
    if kind == "newer":
        pool = NEWER_LETTERS + NEWER_MARKS + [rng.choice(NEWER_DIGITS)[rng.randrange(10)]]
        pos = rng.randint(0, len(text))
        return text[:pos] + "".join(rng.choice(pool) for _ in range(rng.randint(1, 3))) + text[pos:]
    if kind == "invisible":
        pool = ZERO_WIDTH + BIDI
        return "".join(c + (rng.choice(pool) if rng.random() < 0.4 else "") for c in text) or rng.choice(pool)
    if kind == "spaces":
        return "".join(rng.choice(SPACES) if c == " " else c for c in text).join(
            [rng.choice(SPACES + [""]), rng.choice(SPACES + [""])])
    sep = rng.choice(SEPARATORS)  # "separators": str.split() and str.strip() take them for spaces
    return rng.choice([sep + text + sep, text.replace(" ", sep), sep.join(text) if len(text) < 8 else text + sep])


# ---------------------------------------------------------------------------------------- options, golds
def option_set(rng: random.Random) -> dict | None:
    """An option set (letter -> text) drawn from the corpus's usual ones and odd ones: none at all,
    2-10 options, blank options (empty or whitespace), look-alike option texts, options whose text is
    a letter or a number, and gapped letters (A, B, D)."""
    kind = rng.choices(["none", "plain", "blank", "letters", "numbers", "many", "gap", "lookalike"],
                       [1, 6, 3, 1, 2, 2, 1, 1])[0]
    if kind == "none":
        return None
    n = rng.randint(5, 10) if kind == "many" else rng.randint(2, 6)
    words = ["cat", "dog", "a cow", "hen", "the red one", "yes", "no", "Both A and B", "None of the above",
             "12", "3.5", "left", "right", "increases", "STOP"]
    opts = {ascii_uppercase[i]: rng.choice(words) for i in range(n)}
    if kind == "blank":
        for letter in rng.sample(list(opts), rng.randint(1, max(1, n - 1))):
            opts[letter] = rng.choice(["", " ", "\t", "\u00a0", "\n"])
    elif kind == "letters":
        opts = {k: rng.choice(list(opts)) for k in opts}
    elif kind == "numbers":
        opts = {k: str(rng.choice([1, 2, 3, 12, 97, 102, 0.5, -4])) for k in opts}
    elif kind == "gap":
        opts.pop(rng.choice(list(opts)[1:-1] or list(opts)))
    elif kind == "lookalike":
        opts = {k: lookalike(rng, v) for k, v in opts.items()}
    return opts


# JSON list golds whose items are not all text (an original that calls a string method on each raises at the
# first such item): for list-gold datasets (DocVQA `answers`, OCRBench `answer`); `gold` never draws them.
ODD_LIST_GOLDS = [["STOP", 1], [1, "stop"], ["stop", None], [None], [True, "yes"], ["a", ["b"]], [], [3],
                  ["12", 12.0], ["cat", {"a": 1}], ["Coca-Cola", "coca cola", 7], [""], ["red", False]]
_YESNO_ODD = ["Unknown", "unknown", "true", "false", "1", "0", "N/A", "", " yes ", "YES", "No.", "yes.", "maybe",
              "Yes, it is", "y", "n"]
_NUMBER_ODD = ["3.0", "1,000", "-0", "1e3", "03", " 7 ", "⁵", "٣", "½", "3/4", "0.50", "inf", "nan", "2 apples",
               "[3]", "['3', 'three']", "'3'", "3, 4", "5x4", "{5, 4}"]
_TEXT_ODD = ["['STOP', 'stop']", "'STOP'", '"STOP"', "[\"Open\", 'OPEN']", "['a', 1]", "42", "3.5", "True", "False",
             "None", "[1, 2]", "(1, 2)", "{'a'}", "'a' + 'b'", "1 + 1", "[]", "''", "open", "print", "help", "license",
             "exit", "List", "Image", "response", "answers", "self", "STOP", "stop sign", "", " ", "\u00a0STOP",
             "STOP\n", "İstanbul", "ſtop", "\u212aelvin", "['İ', 'ı']", "[\"it's\"]", "'unterminated", "[' a ', 'b ']",
             "\\n", "0x1A", "1_000", "-5", "b'x'", "Ellipsis", "..."]
_MATH_ODD = ["\\frac{1}{2}", "1/2", "0.5", "[1, 2]", "(1, 2)", "[2007, 2008]", "2\\sqrt{2}", "π", "3π", "\\pi/2",
             "x = 3", "-4", "1,000", "1e3", "10^3", "2**3", "inf", "", " 3 ", "[1-2]", "yes", "True", "None", "A", "h",
             "\\text{B}", "{1, 2}", "3.", ".5", "007", "1_000"]


def gold(rng: random.Random, shape: str, options: dict | None = None) -> tuple[object, str]:
    """An odd gold for a record of `shape` (with `options` for "mcq"/"math"): (value, kind). The value
    is a string, or a JSON number / boolean / null / list where `kind` says so ("json")."""
    letters = list(options or {}) or list("ABCD")
    pick = rng.random()
    if pick < 0.15:  # JSON values where text is expected: the originals' str() / eval / .upper() differ on them
        return rng.choice([1, 0, 3, 2.5, -1, True, False, None, [letters[0]], ["yes", "Yes"], ["3", "three"], 1e21]), "json"
    if shape == "mcq":
        return rng.choice([
            letters[0].lower(), rng.choice(letters) + ".", f"({rng.choice(letters)})", " " + rng.choice(letters) + " ",
            "".join(rng.sample(letters, min(2, len(letters)))), str(rng.randrange(len(letters))), str(len(letters) + 1),
            rng.choice(["E", "F", "H", "J", "Z"]), "", " ", f"['{letters[0]}']", f"'{letters[0]}'", "None", "True",
            rng.choice(["²", "٣", "１", "Ａ", "\u0410", "ı", "İ"]), (options or {}).get(letters[0], "cat")]), "odd"
    if shape == "yesno":
        return rng.choice(_YESNO_ODD), "odd"
    if shape == "number":
        return rng.choice(_NUMBER_ODD), "odd"
    if shape == "text":
        return rng.choice(_TEXT_ODD), "odd"
    return rng.choice(_MATH_ODD + ([rng.choice(letters)] if options else [])), "odd"


def _plain_gold(rng: random.Random, shape: str, options: dict | None) -> str:
    if shape == "mcq" or (shape == "math" and options):
        return rng.choice(list(options or {}) or list("ABCD"))
    return {"yesno": lambda: rng.choice(["yes", "no", "Yes", "No"]),
            "number": lambda: rng.choice(["3", "12", "0", "7", "2.5", "1000", "-4", "54", "5,4"]),
            "text": lambda: rng.choice(["STOP", "stop", "cat", "Coca-Cola", "12:30", "red", "New York", "A4", "i"]),
            "math": lambda: rng.choice(["3", "1.25", "-4", "12", "\\frac{1}{2}", "0.5", "[1, 2]", "102", "9"])}[shape]()


def _candidates(rng: random.Random, shape: str, answer: str, options: dict | None) -> list[str]:
    """Wrong answers a reply can name besides `answer`."""
    if options:
        return [k for k in options if k != answer] or ["A", "B"]
    return {"mcq": list("ABCDEF"), "yesno": ["yes", "no", "Yes", "No", "not", "true"],
            "number": ["2", "4", "12", "0", "3.5", "1,000", "-1", "100"],
            "text": ["stop", "STOP", "go", "cat", "dog", "Coca Cola", "red"],
            "math": ["2", "\\frac{1}{3}", "0.25", "-4", "\\sqrt{2}", "12", "[2, 1]", "A"]}[shape]


# ---------------------------------------------------------------------------------------- replies
_BLANKS = ["", " ", "  ", "\n", "\n\n\n", "\t", " \n \t ", "\u00a0", "\u3000", "\u200b", "\ufeff", "\x1c", "\x1f\x1e",
           "\u2028", "\x85", "\r\n", "\x0b\x0c"]


def _markdown(rng: random.Random, a: str, shape: str) -> str:
    forms = [f"**{a}**", f"*{a}*", f"__{a}__", f"_{a}_", f"***{a}***", f"`{a}`", f"~~{a}~~ {a}",
             f"# Answer\n{a}", f"## Final Answer\n\n**{a}**", f"### Answer: {a}", f"**Answer:** {a}",
             f"**Answer: {a}**", f"**Final Answer:** ({a})", f"> {a}", f"- {a}", f"1. {a}", f"* **{a}**",
             f"```\n{a}\n```", f"```text\nAnswer: {a}\n```", f"| Option | Answer |\n|---|---|\n| x | **{a}** |",
             f"| {a} |", f"Answer\n---\n{a}", f"<b>{a}</b>", f"<p>The answer is <strong>{a}</strong></p>",
             f"[{a}](#)", f"The answer is: **{a}**.", f"**The answer is {a}**", f"$\\mathbf{{{a}}}$", f"$${a}$$"]
    if shape == "mcq":
        forms += [f"**({a})**", f"**{a}.** text", f"**{a})** text", f"\n**{a}**: ", f"Option **{a}**", f"({a})"]
    out = rng.choice(forms)
    if rng.random() < 0.4:
        out = rng.choice(["Looking at the image carefully.\n\n", "Let me analyze.\n", "", "Sure! "]) + out
    if rng.random() < 0.3:
        out += rng.choice(["\n\nThis is because of the diagram.", ".", "\n", " — done"])
    return out


def _chain(rng: random.Random, a: str, wrong: list[str], shape: str) -> str:
    steps = []
    for _ in range(rng.randint(3, 12)):
        c = rng.choice(wrong + [a])
        steps.append(rng.choice([
            f"Option {c} seems plausible.", f"Could it be {c}?", f"Let me check {c} first.", f"{c} is wrong because of the shading.",
            f"Wait, actually, {c}.", f"Hmm, no — maybe {c}.", f"So the answer might be {c}.", f"If x = {c}, then the total is off.",
            f"I initially thought {c}, but", "Let me reconsider the picture.", f"Between {c} and {rng.choice(wrong + [a])}, hard to say.",
            "Step 2: count the objects again.", f"The answer is {c}? No.", f"Answer: {c} (tentative)", f"Not {c}.",
            "On the other hand, the legend says otherwise.", f"final answer... not yet. {c}?"]))
    closing = rng.choice([f"Wait, actually, the answer is {a}.", f"Therefore, the final answer is {a}.", f"So: {a}",
                          f"Final answer: {a}", f"I'll go with {a}.", "", f"The answer is {a}. I hope it is correct.",
                          f"Actually no, it's {rng.choice(wrong)}.", f"<answer>{a}</answer>"])
    filler = " ".join(steps)
    if rng.random() < 0.3:  # long: a few thousand characters of reasoning
        filler = (filler + "\n\n") * rng.randint(3, 15)
    sep = rng.choice([" ", "\n", "\n\n"])
    opening = rng.choice(["Let's think step by step." + sep, "<think>" + sep, ""])
    after = "</think>" + sep + a if opening.startswith("<think>") and rng.random() < 0.5 else ""
    return opening + filler + sep + closing + after


def _loop(rng: random.Random, a: str, shape: str, triggers: tuple, max_loop: int) -> str:
    unit = rng.choice(list(triggers) + list(TRIGGERS[shape]) + [a + " ", a, "the answer is " + a + ". "])
    joiner = rng.choice(["", " ", "\n", ". ", ".\n", ", "])
    size = rng.choice([200, 2_000, 8_000, 20_000, max_loop])
    if not (unit + joiner).strip():  # a run of whitespace: patterns such as `\n\s*X` are quadratic on it
        size = min(size, WHITESPACE_LOOP)  # in Python's re (16k newlines: 12 s a call), so it stays shorter
    body = (unit + joiner) * (size // max(1, len(unit + joiner)))
    body = body[:max_loop]
    head = rng.choice(["", "Let me think. ", "<think>", f"The answer is {a}. ", "**"])
    tail = rng.choice(["", "", f" {a}", f"\nThe answer is {a}.", "</think>", "...", f"<answer>{a}</answer>"])
    return (head + body)[: max_loop - len(tail)] + tail


def _think(rng: random.Random, a: str, wrong: list[str]) -> str:
    w = rng.choice(wrong)
    return rng.choice([
        f"<think>It could be {w}.</think>{a}", f"<think>\nhmm {w}\n</think>\n\nThe answer is {a}.",
        f"<think>The answer is {a}.</think>", f"<think>unclosed reasoning about {w} and {a}",
        f"</think>{a}", f"<think></think>{a}", f"<THINK>{w}</THINK>{a}", f"<think><think>{w}</think>{a}</think>{w}",
        f"<think>{w}</think><think>{a}</think>{w}", f"<think>a</think>\n<answer>{a}</answer>",
        f"{w}<think>{a}</think>", f"<think>{'.' * rng.randint(1, 5000)}</think>{a}", f"< think >{w}</ think >{a}"])


def _tag(rng: random.Random, a: str, wrong: list[str]) -> str:
    w = rng.choice(wrong)
    return rng.choice([
        f"<answer>{a}</answer>", f"<answer> {a} </answer>", f"<ANSWER>{a}</ANSWER>", f"<answer>\n{a}\n</answer>",
        f"<answer>{w}</answer><answer>{a}</answer>", f"<answer></answer>{a}", f"<answer>{a}", f"{a}</answer>",
        f"<answer>Final Answer: {a}</answer>", f"<answer>The answer is {a}.</answer>", f"<answer>{a} or {w}</answer>",
        f"<answer>{a}, {a}</answer>", f"<answer><answer>{a}</answer></answer>", f"<answer>({a})</answer>",
        f"The answer is {w}. <answer>{a}</answer>", f"<Answer>{a}</Answer>", f"<answer>I think it's {a}</answer>",
        f"<answer>{{{a}}}</answer>", f"<answer>\\boxed{{{a}}}</answer>", f"<answer>**{a}**</answer>"])


def _boxed(rng: random.Random, a: str, wrong: list[str]) -> str:
    w = rng.choice(wrong)
    return rng.choice([
        f"\\boxed{{{a}}}", f"The answer is $\\boxed{{{a}}}$.", f"\\boxed{{\\text{{{a}}}}}", f"\\boxed{{{w}}} and \\boxed{{{a}}}",
        f"\\boxed{{{a}", f"\\boxed {{{a}}}", f"\\boxed{{{{{a}}}}}", f"\\boxed{{{a}}}}}", f"\\fbox{{{a}}}",
        f"$$\\boxed{{\\frac{{{a}}}{{1}}}}$$", f"\\boxed{{}}{a}", f"\\boxed{{x = {a}}}", f"\\(\\boxed{{{a}}}\\)",
        f"Final Answer: The final answer is $\\boxed{{{a}}}$. I hope it is correct.", f"\\boxed{{\\mathrm{{{a}}}}}"])


def _plain(rng: random.Random, a: str, shape: str) -> str:
    return rng.choice([a, f"The answer is {a}.", f"Answer: {a}", f"{a}.", f" {a} ", f"It is {a}", f"Final answer: {a}",
                       f"I believe the answer is {a}", f"{a}\n", f"The final answer is {a}. I hope it is correct."])


_NEAR_DELTAS = (1e-9, 1e-7, 5e-7, 1e-6, 2e-6, 9e-5, 1e-4, 1e-3, 0.0011, 0.004, 0.0099, 0.01, 0.0101, 0.02, 0.031,
                0.032, 0.1, 0.3, 1.0)


def near(rng: random.Random, answer: str) -> str:
    """A number near `answer` (when it is one): the gold plus or minus an absolute delta, or times 1 ± a
    relative one (4.9%, 5%, 5.1%), written plainly or oddly; `answer` itself when it is no number."""
    try:
        value = float(answer.replace(",", "")) if isinstance(answer, str) else float(answer)
    except (ValueError, TypeError, OverflowError):
        return answer
    if rng.random() < 0.25:
        value *= 1 + rng.choice([-1, 1]) * rng.choice([0.049, 0.05, 0.0500001, 0.051])
    else:
        value += rng.choice([-1, 1]) * rng.choice(_NEAR_DELTAS)
    text = rng.choice([repr(round(value, 12)), f"{value:.10g}", f"{value:.6f}", f"{value:.3f}", f"{value:.1f}"])
    return rng.choice(["{}", "{}", "+{}", "{}%", "{}e0", "{} ", "{}0"]).format(text) if "e" not in text else text
# ---------------------------------------------------------------------------------------- framework phrases
FRAMEWORK_CLASSES = CLASSES + ("framework",)
REFUSALS = ("Cannot determine the answer", "I'm sorry, but without the image provided", "I can't process this file.",
            "Sorry, I can't help with images of people yet.", "Failed to obtain answer via API", "Z", "z",
            "None of the above", "I cannot answer this question.", "As an AI, I can't see images.")
FRAMEWORK_TRIGGERS = {  # what the framework scorers look for, by shape (a loop repeats them too)
    "mcq": ("The answer is ", "The correct answer is **", "answer is ", "Answer: ", "Answer:", "ANSWER: (", "(A)", "(B) ",
            "B ", "C.", " D ", "A. ", "Final Answer: ", "**Final Answer: ", "Final output: **", "### Final Output: ",
            "**Output: ", "Output: ", "\\boxed{", "<answer>", "**", "Option ", "Cannot determine the answer",
            "Failed to obtain answer via API", "Z"),
    "yesno": ("Yes", "No", "yes", "no", "Yes.", "No,", "(yes)", "[no]", "y", "n", "know", "not", "nothing", "ayes",
              "Unknown", "yes/no", "no-one", "true", "false"),
    "number": ("The answer is ", "answer: ", "so ", "is ", "thus ", "therefore ", "final ", "result ", "could be ", "= ",
               "1,234", "1e3", "50%", "-3", ".5", "{", "}", "<ans>", "</ans>", "rows ", "columns ", "(5, 4)"),
    "text": ("The answer is ", "answer: ", "so ", "is ", "The text reads ", "'", "\"", "[", "]", "\n", "<ans>", "</ans>"),
    "math": ("\\boxed{", "\\frac{", "So the final answer is ", "所以最终答案是", "$", "\\[boxed{", "\\text{", "\\pi",
             "\\sqrt{", "\\in ", "\\pm", "=", "The answer is ", "<ans>"),
}
_COT = ("Let's think step by step.", "First, look at the figure carefully.", "Option A says {A}, which is wrong.",
        "B might be right, but consider C.", "Therefore, ", "So the answer must be", "Wait, let me reconsider.",
        "Hmm, (A) and (B) are both plausible.", "Comparing {B} and {C}: the second is better.",
        "Looking at D. The graph shows a decrease.", "The key phrase is 'A cat'.", "DNA is the carrier. RNA is not.",
        "Step 1: compute 12 × 3 = 36.", "Step 2: 36 / 4 = 9.", "It is not A, not B, not C.", "I think it's",
        "The correct option is", "Neither A nor D fits.", "Fig. A. shows the answer.", "see C.elegans for details",
        "x = 1,234 and y = 0.5", "In conclusion,", "To summarize, the answer is", "However, e.g. A) is tempting.")
_TRICKS = {
    "mcq": ("I think", "maybe", "a", "A", "an apple", "GPT-4A ", "DNA ", "Fig. B.", "the answer is a bit unclear",
            "Answer is", "correct answer is: C", "not D", "A or B", "A and B", "A, B", "AB", "CD", "answer\x1cis B",
            "answer is\u00a0C", "answer\tis D", "answer  is   **A**", "ANſWER: B", "\u212a", "Answer: E"),
    "yesno": ("Yes\u200b", "Ｙｅｓ", "Yеs", "**Yes**", "The answer is yes.", "Answer: No", "yes.no", "Yes... no, actually.",
              "no. yes.", "3.5", "1,2", "no;", "yes:", "\"yes\"", "'no'", "<yes>", "yes?", "Y.", "N.", "I don't know",
              "Not sure", "yesterday", "Noah", "y e s", "yes_no", "yes-no"),
    "number": ("42", "1234.0", "1,234.5", "−3", "3.1416", "1.0E+03", "50 %", "0", "0.0", "2,019", "1/2", "$5",
               "5 dollars", "12 cm", "inf", "nan", "twelve", "1_000", "٣", "²", "3²", "= 12", "x=1, y=2", "is .",
               "The value is approximately 3.14, so the answer is 3.", "Step 1: 6 × 7 = 42\nStep 2: so 42", "1 234",
               "42.", "0.050", "5e-2", "100.00", "-0", "+5", "20 and 30", "from 10 to 20", "12.5%", "４２", "𝟒𝟐"),
    "text": ("HELLO world", "hello\nworld", "Hello  World", "x ^ { 2 }", "X^{2}", "The sign says STOP.", "ＳＴＯＰ",
             "İstanbul", "ISTANBUL", "straße", "STRASSE", "12 345", "N/A", "nan", "None", "hello\x1cworld",
             "hello\u2028world", "ﬁne", "Pаris", "PARIS.", "The capital is Paris. So Paris", "new york city"),
    "math": ("\\frac{1}{2}", "$x = 3$", "\\boxed{42}", "\\boxed{\\frac{1}{2}}", "\\boxed{x^2+1}", "\\boxed{\\text{A}}",
             "So the final answer is \\frac{1}{2}", "So the final answer is $\\boxed{3}$", "所以最终答案是 3",
             "\\\\[boxed{10.2}\\\\]", "\\[boxed{10.2}\\]", "E = mc^2 \\implies m = E/c^2", "x \\in [0, 1]", "1 \\pm 2", "(1, 2)", "[1, 2]",
             "3.0", "4.2e1", "1_000", "٣", "inf", "nan", "9" * 50, "+7", "７", "0.5", "50\\%", "\\sqrt{2}", "2\\pi"),
}


def _letter_forms(rng: random.Random, letter: str, text: str) -> list[str]:
    low = letter.lower()
    alike = lookalike(rng, letter)
    return [letter, f"({letter})", f"{letter}.", f"{letter})", f"[{letter}]", f"**{letter}**", f"*{letter}*", f"`{letter}`",
            f"__{letter}__", f"{letter}:", f"{letter}. {text}", f"({letter}) {text}", f"**({letter})** {text}",
            f"Option {letter}", f"option {low}", f"({low})", f"{low}.", low, f"The answer is {letter}",
            f"The answer is {low}", f"the answer is ({letter})", f"The correct answer is **{letter}**.", f"Answer: {letter}",
            f"answer: {low}", f"Answer:{letter}", f"ANSWER: ({letter})", f"Final Answer: {letter}",
            f"**Final Answer: {letter}**", f"Final output: **{letter}**", f"### Final Output: {letter}",
            f"**Output: {letter}**", f"Output: {letter}", f"\\boxed{{{letter}}}", f"\\boxed{{ {low} }}",
            f"$\\boxed{{\\text{{{letter}}}}}$", f"<answer>{letter}</answer>", f"<answer> {low} </answer>",
            f"<ANSWER>{letter}</ANSWER>", letter * 2, f"{letter}/{letter}", text, text.upper(), f"{text}.", f'"{text}"',
            f"'{letter}'", f"<{letter}>", f"{{{letter}}}", f"#{letter}", f"{letter}!", f"{letter}?", f"{letter};",
            f"{letter},", f"- {letter}", f"> {letter}", f"| {letter} |", alike, f"({alike})", f"The answer is {alike}"]


def _framework(rng: random.Random, a: str, shape: str, options: dict | None, wrong: list[str], triggers: tuple,
               max_loop: int) -> str:
    texts = {k: str(v) for k, v in (options or {}).items()}
    fill = {k: texts.get(k, k) for k in "ABCD"}
    lettered = bool(options) or shape == "mcq"
    pieces = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.4:
            if lettered:
                letter = rng.choice([a] + wrong + ["E", "Z", "A"]) if rng.random() < 0.8 else a
                pieces.append(rng.choice(_letter_forms(rng, letter, texts.get(letter, ""))))
            else:
                pieces.append(rng.choice([a, f"The answer is {a}.", f"so {a}", f"**{a}**", a.upper(), f"{a}.",
                                          rng.choice(wrong), lookalike(rng, a)]))
        elif kind < 0.55:
            pieces.append(" ".join(rng.choice(_COT).format(**fill) for _ in range(rng.randint(1, 12))))
        elif kind < 0.62:
            pieces.append(rng.choice(REFUSALS))
        elif kind < 0.7:
            unit = rng.choice(list(triggers) + list(FRAMEWORK_TRIGGERS[shape]) + [a, a + " ", " ", "\n", "A A "])
            unit += rng.choice(["", " ", "\n", "\x1c", "\u00a0", "\t", "\r\n"])
            size = rng.choice([3, 20, 200, 2_000, max_loop])
            body = (unit * (size // max(1, len(unit)) + 1))[:size]
            pieces.append(body[: rng.randint(max(0, len(body) - 10), len(body))])
        elif kind < 0.78:
            pieces.append(rng.choice(list(texts.values()) or list(triggers) or [a]))
        elif kind < 0.84:
            pieces.append(rng.choice(["", " ", "\n", ".", ",", "!?", "'", ":", "...", "。", "—", "(", ")"]))
        elif kind < 0.92 and triggers:
            pieces.append(rng.choice(triggers))
        else:
            pieces.append(rng.choice(_TRICKS[shape] + (_TRICKS["mcq"] if lettered and shape != "mcq" else ())))
    out = rng.choice([" ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u2003", "\u3000", "\u2028", "\x1c", "\x1f",
                      "\r\n", "\u200b", ""]).join(pieces)
    if rng.random() < 0.15:  # punctuation at the edges (lmms-eval strips , . ! ? ; : ' one at a time)
        out = rng.choice(["", " ", "\n", "'", ".", ",", "!"]) + out + rng.choice(["", " ", "\n", ".", ",.", ".,", "'", "!", "?"])
    return out[:max_loop]


def reply(rng: random.Random, cls: str, shape: str, answer: str, *, options: dict | None = None,
          triggers: tuple = (), max_loop: int = 65536) -> str:
    """One hostile reply of class `cls` (see CLASSES) for a record of `shape` whose candidate answer is
    `answer` (a letter, yes/no, a number or text); `options` name the wrong letters a reply may
    mention; `triggers` are the benchmark's own answer phrases, repeated by "loop" replies (at most
    `max_loop` characters)."""
    wrong = _candidates(rng, shape, answer, options)
    if cls == "markdown":
        return _markdown(rng, answer, shape)
    if cls == "lookalike":
        base = rng.choice([answer, _plain(rng, answer, shape), _markdown(rng, answer, shape), _tag(rng, answer, wrong)])
        if rng.random() < 0.5:  # the look-alike on the answer only, the rest intact
            return base.replace(answer, lookalike(rng, answer), 1) if answer else lookalike(rng, base)
        return lookalike(rng, base)
    if cls == "chain":
        return _chain(rng, answer, wrong, shape)
    if cls == "loop":
        return _loop(rng, answer, shape, tuple(triggers), max_loop)
    if cls == "blank":
        return rng.choice(_BLANKS)
    if cls == "think":
        return _think(rng, answer, wrong)
    if cls == "tag":
        return _tag(rng, answer, wrong)
    if cls == "boxed":
        return _boxed(rng, answer, wrong)
    if cls == "fragment":
        parts = [rng.choice(FRAGMENTS[shape]) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.5:
            parts.insert(rng.randint(0, len(parts)), answer)
        return rng.choice([" ", "\n", "", ". ", "\x1c"]).join(parts)
    if cls == "plain":
        return _plain(rng, answer, shape)
    if cls == "near":
        return _plain(rng, near(rng, answer), shape)
    if cls == "framework":
        return _framework(rng, answer, shape, options, wrong, tuple(triggers), max_loop)
    raise ValueError(f"unknown reply class {cls!r}; known: {', '.join(CLASSES + EXTRA_CLASSES + ('framework',))}")
    if cls == "framework":
        return _framework(rng, answer, shape, options, wrong, tuple(triggers), max_loop)
    raise ValueError(f"unknown reply class {cls!r}; known: {', '.join(CLASSES)}")


def records(shape: str, n: int, seed: int = 0, *, triggers: tuple = (), classes: tuple = CLASSES,
            odd_gold_rate: float = 0.35, prefix: str = "hostile",
            meta: Callable[[random.Random, dict], dict] | None = None) -> Iterator[dict]:
    """`n` corpus-shaped records of `shape` (`id`, `question_type`, `question`, `choices`, `answer`,
    `response`, `meta`, `benchmark`), reply classes drawn evenly from `classes`, an odd gold in about
    `odd_gold_rate` of them; ids are "<prefix>/<shape>/<i>/<class>". Deterministic for its arguments."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
    rng = random.Random(f"{prefix}/{shape}/{seed}")
    for i in range(n):
        cls = classes[i % len(classes)]
        options = option_set(rng) if shape in ("mcq", "math") else None
        if shape == "mcq" and not options:
            options = {k: f"option {k}" for k in "ABCD"} if rng.random() < 0.7 else None
        if shape == "math" and rng.random() < 0.5:
            options = None
        value = _plain_gold(rng, shape, options)
        if rng.random() < odd_gold_rate:
            value, _ = gold(rng, shape, options)
        letters = list(options or {}) or (list("ABCD") if shape == "mcq" else [])
        # the reply names the gold about half the time, else a wrong candidate
        said = value if isinstance(value, str) and value.strip() and (cls == "near" or rng.random() < 0.5) else (
            rng.choice(letters) if letters else _plain_gold(rng, shape, options))
        record = {"id": f"{prefix}/{shape}/{i}/{cls}", "benchmark": "hostile",
                  "question_type": "multiple-choice" if options or shape == "mcq" else "open",
                  "question": rng.choice(["q?", "Which option is right?", "How many?", "Is it so?", ""]),
                  "choices": options, "answer": value,
                  "response": reply(rng, cls, shape, said, options=options, triggers=triggers), "meta": {}}
        if meta is not None:
            record["meta"] = meta(rng, record)
        yield record
