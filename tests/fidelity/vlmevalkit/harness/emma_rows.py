"""The rows of tests/fixtures/reproduce/vlmevalkit-emma: 150 multiple-choice and 150 open real EMMA-mini replies of
../shared/corpus (seed 3012) in the columns VLMEvalKit's ImageShortQADataset.evaluate reads — index, question,
context, options A-H (multiple choice only), answer (the letter; open: the answer text), type (MCQ / Open),
category (the subject) and l2-category (EMMA's category), prediction — each with scripted judge replies: for a
multiple-choice row the answer-extraction judge's one reply (the gold, another letter, "(X)", "Z"; asked only
when can_infer cannot match the prediction), for an open row ShortQA's judge's reply at each of its 3 tries
(`[Begin Correctness]yes/no[End Correctness]` mostly; also both words, none, an upper-case YES, no markers, so
that some rows take a second or third try and a few fail all three).
    python emma_rows.py rows.jsonl"""
import json, random, sys

CORPUS = "/work/shared/corpus/responses.jsonl"
rng = random.Random(3012)
rows = [json.loads(line) for line in open(CORPUS, encoding="utf-8") if '"benchmark": "EMMA-mini"' in line]
mcq = rng.sample([r for r in rows if r["question_type"] == "multiple-choice" and r["choices"]], 150)
open_ = rng.sample([r for r in rows if r["question_type"] == "open"], 150)


def verdict():
    kind = rng.choices(["yes", "no", "both", "none", "YES", "nomark", "not"], [40, 35, 6, 5, 5, 5, 4])[0]
    reason = "[Begin Reason]The response matches the ground truth.[End Reason]"
    return {"yes": f"[Begin Correctness]yes[End Correctness]\n{reason}",
            "no": "[Begin Correctness] no [End Correctness]\n[Begin Reason]It differs.[End Reason]",
            "both": "[Begin Correctness]yes and no[End Correctness]",
            "none": "[Begin Correctness]unclear[End Correctness]",
            "YES": "[Begin Correctness] YES [End Correctness]",
            "nomark": "Correctness: yes",
            "not": "[Begin Correctness]not correct[End Correctness]"}[kind]


out = []
for r in mcq + open_:
    is_mcq = r["question_type"] == "multiple-choice"
    gold = str(r["answer"])
    columns = {"index": len(out) + 1, "question": r["question"] or "q", "context": None}
    for letter in "ABCDEFGH":
        columns[letter] = r["choices"].get(letter) if is_mcq else None
    columns.update({"answer": gold, "type": "MCQ" if is_mcq else "Open", "category": r["meta"]["subject"],
                    "l2-category": r["meta"]["category"], "prediction": r["response"]})
    if is_mcq:
        reply = rng.choice([gold, rng.choice(list(r["choices"])), f"({gold})", "Z"])
    else:
        reply = [verdict() for _ in range(3)]
    out.append({"columns": columns, "judge_reply": reply})
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for row in out:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")
