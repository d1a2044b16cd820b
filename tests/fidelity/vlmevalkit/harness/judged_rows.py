"""The rows of tests/fixtures/reproduce/vlmevalkit-{logicvista,mmvet}: real replies of ../shared/corpus in
VLMEvalKit's columns, each with five scripted judge replies (one per try, at temperatures 0, 0.5, ...).
- LogicVista (seed 1620): 300 multiple-choice replies, the options written into the question, the gold letter
  — or, for about a third, several letters written "A, C" —, a skill (or two) drawn; the judge's replies
  drawn from the gold letters (as they are, reversed, "A, C", with a newline, lowercased), another letter,
  "Z", "" and "A1".
- MMVet (seed 1621): 300 open replies with their golds (a list joined by <AND> or <OR>), a capability tag
  set drawn (every capability present: MMVet_acc divides by each one's count); the judge's replies drawn
  from scores, out-of-range numbers and words.
    python judged_rows.py LogicVista|MMVet rows.jsonl"""
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
else:
    sys.exit(f"unknown benchmark {bench}")
with open(target, "w", encoding="utf-8") as f:
    f.write("".join(json.dumps(x) + "\n" for x in out))
