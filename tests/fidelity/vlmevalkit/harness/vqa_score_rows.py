"""Prediction sheets for the VQA-score and OCRVQA fixtures (tests/fixtures/reproduce/vlmevalkit-vqa-score/):
real open-ended replies of ../shared/corpus with their golds, 40% of the replies replaced by a variant
that stresses VLMEvalKit's answer processing (articles, number words, contractions, punctuation next to
spaces, a comma between digits, a period after a digit, line ends, pandas' NA texts "None" / "NA" / "",
a verbose reply), written as VLMEvalKit's dump_xlsx writes a prediction sheet (pandas, xlsxwriter).
    python vqa_score_rows.py DATASET OUT.xlsx      (DATASET: TextVQA_VAL or OCRVQA_TESTCORE)
TextVQA rows get ten golds as a list literal (the gold and variants of it, as annotators differ);
OCRVQA rows one gold and a book-genre `category`."""
import json, random, sys

import pandas as pd

CORPUS = "/work/shared/corpus/responses.jsonl"
STRESS = ["None", "NA", "", "n/a", "3.", "3.5", "1,000", "1, 000", "the two", "Two", "dont", "a dog", "an apple",
          "yes.", "Yes!", "e-mail", "(c)", "x/y", "x / y", "cant\tstop", "line\nbreak", "..."]
GENRES = ["Arts & Photography", "Biographies & Memoirs", "Calendars", "Comics & Graphic Novels", "History", "Travel"]


def variant(gold, rng):
    return rng.choice([gold, gold.upper(), f" {gold} ", gold + ".", gold + "!", "the " + gold, "a " + gold,
                       f"The answer is {gold}", gold.replace(" ", ", "), gold + "\n", rng.choice(STRESS)])


def rows(dataset, n=400, seed=30):
    rng = random.Random(f"{dataset}/{seed}")
    out = []
    for line in open(CORPUS, encoding="utf-8"):
        r = json.loads(line)
        if r["question_type"] != "open" or not isinstance(r["answer"], str) or not r["answer"].strip():
            continue
        gold = r["answer"].strip()
        if gold.startswith("["):  # a list literal of numbers makes the original raise on the whole file: no report
            continue
        if rng.random() < 0.1:
            gold = rng.choice(STRESS[4:])  # a gold that the processing changes too
        pred = variant(gold, rng) if rng.random() < 0.4 else r["response"]
        row = {"index": len(out) + 1, "question": r["question"] or "q"}
        if dataset.startswith("TextVQA"):
            golds = [gold if rng.random() < 0.6 else variant(gold, rng) for _ in range(10)]
            row["answer"] = str(golds)
        else:
            row["answer"] = gold
            row["category"] = rng.choice(GENRES)
        row["prediction"] = pred
        out.append(row)
        if len(out) == n:
            break
    return out


if __name__ == "__main__":
    frame = pd.DataFrame(rows(sys.argv[1]))
    with pd.ExcelWriter(sys.argv[2], engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
        frame.to_excel(w, index=False)
