"""Generator of the VQA work-dir rows (kept beside the harness output in tests/fixtures/vlmevalkit-vqa/)."""
import json, random, sys

CORPUS = "/work/shared/corpus/responses.jsonl"


def variants(gold, rng):
    return rng.choice([gold, gold.upper(), f" {gold} ", gold + ".", gold[:-1] + "x" if len(gold) > 1 else gold + "x",
                       f"The answer is {gold}", gold.replace("0", "o") if "0" in gold else gold + " ", "0", str(gold)[::-1]])


def rows(dataset, n=400, seed=19):
    rng = random.Random(f"{dataset}/{seed}")
    out = []
    for line in open(CORPUS, encoding="utf-8"):
        r = json.loads(line)
        if r["question_type"] != "open" or not isinstance(r["answer"], str) or not r["answer"].strip():
            continue
        gold = r["answer"].strip()
        pred = variants(gold, rng) if rng.random() < 0.4 else r["response"]
        row = {"id": r["id"], "question": r["question"] or "q", "response": pred, "meta": {}}
        if dataset.startswith("ChartQA"):
            row["answer"] = gold
            row["meta"]["split"] = rng.choice(["human", "augmented"])
        else:
            row["answer"] = str([gold] + ([variants(gold, rng)] if rng.random() < 0.5 else []))
            if dataset.startswith("InfoVQA"):
                row["meta"]["category"] = rng.choice(["Figure", "Table/List", "Map", "Visual/Layout"])
        out.append(row)
        if len(out) == n:
            break
    return out


if __name__ == "__main__":
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        for r in rows(sys.argv[1]):
            f.write(json.dumps(r) + "\n")
