"""The rows of tests/fixtures/reproduce/vlmevalkit-judged: real replies of ../shared/corpus in VLMEvalKit's
columns, each with its scripted judge replies (LogicVista, MMVet: five, one per try at temperatures 0, 0.5, ...;
CharXiv, DynaMath: one, the same at every try).
- LogicVista (seed 1620): 300 multiple-choice replies, the options written into the question, the gold letter
  — or, for about a third, several letters written "A, C" —, a skill (or two) drawn; the judge's replies
  drawn from the gold letters (as they are, reversed, "A, C", with a newline, lowercased), another letter,
  "Z", "" and "A1".
- MMVet (seed 1621): 300 open replies with their golds (a list joined by <AND> or <OR>), a capability tag
  set drawn (every capability present: MMVet_acc divides by each one's count); the judge's replies drawn
  from scores, out-of-range numbers and words.
- CharXiv_reasoning_val / CharXiv_descriptive_val (seed 1622 / 1623): 240 open replies each (none empty: the
  original's `grading_query.replace("{PREDICTION}", prediction)` fails on the NaN an empty cell reads back as),
  a grading query naming the gold, inst_category 1-4 / qid 1-19 drawn; the judge's reply drawn from JSON
  objects scoring 1, 0 or 0.5, one without "extracted_answer", a list, and fenced JSON (not JSON: asked ten times).
- DynaMath (seed 1624): 300 replies, 100 of each answer type (multiple choice, float, free form), 60% wrapped
  as {"solution": ..., "short answer": X}; three variants to a question (a question's first variant has its
  qid as index), a subject and level per question; one judge reply drawn per prompt. Replies on which the
  original raises are left out (an all-digit reply float() refuses, as tests/test_vlmevalkit_dynamath.py).
- MathVerse_MINI (seed 1625): 300 open replies with a question and a text gold (none holding "\r" or "_x", which
  the .xlsx round trip changes), a problem version, subject and subfield drawn into a `metadata` cell as
  str(dict) writes it; the extracting judge's reply drawn from the gold (padded, with a unit, uppercased), the
  reply's last number, "", "null", "A" (the grader's replies: rate_judged_workdir.py).
    python judged_rows.py LogicVista|MMVet|MathVerse_MINI|CharXiv_reasoning_val|CharXiv_descriptive_val|DynaMath rows.jsonl"""
import json, random, sys

CORPUS = "/work/shared/corpus/responses.jsonl"
SKILLS = ["inductive", "deductive", "numerical", "spatial", "mechanical", "inductive, spatial", "deductive,numerical"]
TAGS = ["rec", "ocr", "rec,know", "ocr,math", "ocr,spat,math", "rec,know,gen", "rec,ocr,spat", "ocr,know", "spat,rec",
        "gen", "math"]
SCORES = ["1.0", "0.0", "0.5", " 0.3\n", "0.9", "abc", "1.5", "-0.2", "0.7 because", "", "0.4", "1", ".5"]

bench, target = sys.argv[1], sys.argv[2]
corpus = [json.loads(line) for line in open(CORPUS, encoding="utf-8")]
corpus = [r for r in corpus if len(r["response"]) <= 1500]
out = []
if bench == "LogicVista":
    rng = random.Random(1620)
    for r in rng.sample([r for r in corpus if r["choices"] and r["answer"] in r["choices"]], 300):
        letters = [r["answer"]]
        if rng.random() < 0.35:
            letters = sorted(set(letters + rng.sample(sorted(r["choices"]), min(2, len(r["choices"])))))
        joined = "".join(letters)
        pool = [joined, joined[::-1], ", ".join(letters), joined + "\n", joined.lower(), rng.choice("ABCDE"), "Z", "",
                "A1"]
        question = (r.get("question") or "q") + "\n" + "\n".join(f"{k}. {v}" for k, v in r["choices"].items())
        out.append({"columns": {"index": r["id"], "question": question, "answer": ", ".join(letters),
                                "skill": rng.choice(SKILLS), "prediction": r["response"]},
                    "judge_replies": [rng.choice(pool) for _ in range(5)]})
elif bench == "MMVet":
    rng = random.Random(1621)
    rows = rng.sample([r for r in corpus if not r["choices"] and r["answer"] not in (None, "", [])], 300)
    for i, r in enumerate(rows):
        gold = r["answer"]
        if isinstance(gold, list):
            gold = rng.choice(["<AND>", "<OR>"]).join(map(str, gold))
        out.append({"columns": {"index": r["id"], "question": r.get("question") or "q", "answer": str(gold),
                                "category": TAGS[i] if i < len(TAGS) else rng.choice(TAGS), "prediction": r["response"]},
                    "judge_replies": [rng.choice(SCORES) for _ in range(5)]})
elif bench == "MathVerse_MINI":
    rng = random.Random(1625)
    versions = ["Text Dominant", "Text Lite", "Vision Intensive", "Vision Dominant", "Vision Only"]
    subjects = {"plane geometry": ["Length", "Area", "Angle", "Analytic"], "solid geometry": ["Volume", "Surface"],
                "functions": ["Coordinate", "Property"]}
    rows = rng.sample([r for r in corpus if not r["choices"] and isinstance(r["answer"], str) and r["answer"].strip()
                       and (r.get("question") or "").strip() and "\r" not in r["response"] + r["question"] + r["answer"]
                       and "_x" not in r["response"] + r["question"] + r["answer"]], 300)
    for r in rows:
        gold = r["answer"]
        number = next((w for w in reversed(r["response"].replace("$", " ").split()) if w[:1].isdigit()), "7")
        extract = rng.choice([gold, f" {gold}\n", gold.strip(), f"{gold} cm", number, "", "null", "A",
                              f"Extracted Answer: {gold}", gold.upper()])
        subject = rng.choice(sorted(subjects))
        metadata = {"split": "testmini", "source": "GeoQA", "subject": subject, "subfield": rng.choice(subjects[subject]),
                    "problem_version": rng.choice(versions)}
        out.append({"columns": {"index": r["id"], "question": r["question"], "question_for_eval": r["question"],
                                "answer": gold, "metadata": str(metadata), "prediction": r["response"]},
                    "judge_replies": [extract] * 5})
elif bench.startswith("CharXiv_"):
    reasoning = bench == "CharXiv_reasoning_val"
    rng = random.Random(1622 if reasoning else 1623)
    rows = rng.sample([r for r in corpus if not r["choices"] and isinstance(r["answer"], str) and r["answer"].strip()
                       and r["response"].strip()], 240)
    for r in rows:
        gold = r["answer"]
        pool = [json.dumps({"extracted_answer": gold, "score": 1}), json.dumps({"extracted_answer": "x", "score": 0}),
                json.dumps({"extracted_answer": gold, "score": 1}, ensure_ascii=False), '{"score": 1}', "[1]",
                json.dumps({"extracted_answer": gold[:3], "score": 0.5}),
                "```json\n" + json.dumps({"extracted_answer": gold, "score": 1}) + "\n```"]
        columns = {"index": r["id"], "question": r.get("question") or "q", "answer": gold,
                   "grading_query": f"Grade the response against the answer {gold!r}.\nResponse: {{PREDICTION}}\n"
                                    'Reply with JSON: {"extracted_answer": ..., "score": 0 or 1}',
                   ("inst_category" if reasoning else "qid"): rng.randint(1, 4 if reasoning else 19),
                   "prediction": r["response"]}
        out.append({"columns": columns, "judge_replies": rng.choice(pool)})
elif bench == "DynaMath":
    rng = random.Random(1624)
    subjects, levels = ["ALGEBRA", "PLANE GEOMETRY", "GRAPH THEORY", "STATISTICS"], ["elementary school",
                                                                                  "high school", "undergraduate"]

    def is_float(text):
        try:
            float(text)
        except ValueError:
            return False
        return True

    def kind_of(r):
        if r["choices"]:
            return "multiple choice" if r["answer"] in list("ABCDE") else None
        if isinstance(r["answer"], str) and r["answer"].strip():
            return "float" if is_float(r["answer"]) else "free form"
        return None

    taken, picked = {"multiple choice": 0, "float": 0, "free form": 0}, []
    for r in rng.sample(corpus, len(corpus)):
        kind = kind_of(r)
        if kind is None or taken[kind] >= 100:
            continue
        gold, response = r["answer"], r["response"]
        if rng.random() < 0.6:
            other = rng.choice([c for c in "ABCDE" if c != gold]) if kind == "multiple choice" else "7"
            short = rng.choice([gold, gold.lower(), f"({gold})", f"Answer: {gold}", gold + other]
                               if kind == "multiple choice" else
                               [gold, f"{gold} cm", "2π", "abc", "3.14159", float(gold)] if kind == "float" else
                               [gold, gold.upper(), f"{gold} and more", "x"])
            body = json.dumps({"solution": response[:200], "short answer": short})
            response = rng.choice([body, f"```json\n{body}\n```", f"Here it is: {body} done."])
        if not response.strip() or (response.isdigit() and not is_float(response)):
            continue
        taken[kind] += 1
        replies = ([gold, f"({gold})", f"The answer is {gold}", "AB", "", "C"] if kind == "multiple choice" else
                   [gold, f"{gold} cm", "2π", "x", "", "1e3", "three"])
        picked.append((r, kind, response, rng.choice(replies)))
    for i, (r, kind, response, reply) in enumerate(picked):
        qid, varid = i // 3 + 1, i % 3 + 1
        out.append({"columns": {"index": qid if varid == 1 else 100000 + i, "qid": qid, "varid": varid,
                                "subject": subjects[qid % 4], "knowledge_level": levels[qid % 3],
                                "question": r.get("question") or "q", "answer_type": kind, "answer": r["answer"],
                                "prediction": response},
                    "judge_replies": reply})
else:
    sys.exit(f"unknown benchmark {bench}")
with open(target, "w", encoding="utf-8") as f:
    f.write("".join(json.dumps(x) + "\n" for x in out))
