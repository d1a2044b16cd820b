"""The rows of tests/fixtures/reproduce/vlmevalkit-mathvista: 200 multiple-choice and 200 free-form real
MathVista replies of ../shared/corpus (up to 1,500 characters; seed 1619) in VLMEvalKit's MathVista_MINI
columns — answer (the option text for multi_choice), answer_option, choices (a list literal), question_type
multi_choice / free_form, answer_type (text for multi_choice), precision (floats), a task and a list of 1-2
skills drawn — each with a scripted judge reply drawn (the gold, another letter, "(B)", "Z", the option
text, "The answer is X"; free form: the gold, "42.0", another integer, "1.5", "[1, 2]", " 42", "None").
    python mathvista_rows.py rows.jsonl"""
import json, random, sys

CORPUS = "/work/shared/corpus/responses.jsonl"
TASKS = ["figure question answering", "textbook question answering", "math word problem", "geometry problem solving",
         "visual question answering"]
SKILLS = ["algebraic reasoning", "arithmetic reasoning", "geometry reasoning", "logical reasoning", "numeric commonsense",
          "scientific reasoning", "statistical reasoning"]

rng = random.Random(1619)
rows = [json.loads(line) for line in open(CORPUS, encoding="utf-8") if '"benchmark": "MathVista"' in line]
rows = [r for r in rows if len(r["response"]) <= 1500]
mcq = rng.sample([r for r in rows if r["question_type"] == "multiple-choice" and r["choices"]], 200)
free = rng.sample([r for r in rows if r["question_type"] == "open"], 200)
out = []
for r in mcq + free:
    is_mcq = r["question_type"] == "multiple-choice"
    gold = str(r["answer"])
    answer_type = "text" if is_mcq else r["meta"]["answer_type"]
    if is_mcq:
        letters = list(r["choices"])
        reply = rng.choice([gold, rng.choice(letters), f"({gold})", "Z", r["choices"][gold],
                            "The answer is " + rng.choice(letters)])
    else:
        reply = rng.choice([gold, gold + ".0", str(rng.randint(0, 20)), "1.5", "[1, 2]", f" {gold}", "None"])
    columns = {"index": r["id"], "question": r["question"] or "q", "answer": r["choices"][gold] if is_mcq else gold,
               "answer_option": gold if is_mcq else None,
               "choices": str(list(r["choices"].values())) if is_mcq else None,
               "question_type": "multi_choice" if is_mcq else "free_form", "answer_type": answer_type,
               "precision": float(rng.choice([1, 2])) if answer_type == "float" else None,
               "task": rng.choice(TASKS), "skills": str(rng.sample(SKILLS, rng.choice([1, 2]))),
               "prediction": r["response"]}
    out.append({"columns": columns, "judge_reply": reply})
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write("".join(json.dumps(x) + "\n" for x in out))
