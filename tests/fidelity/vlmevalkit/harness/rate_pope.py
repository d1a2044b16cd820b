"""VLMEvalKit's ORIGINAL POPE_rating (yorn_original.py) on records; writes the rating table as JSON:
    python rate_pope.py records.jsonl out.json   (yorn.py and misc.py beside it)"""
import json, sys

from yorn_original import scored_frame, yorn

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
table = yorn.POPE_rating(scored_frame(rows, category="category"))
json.dump({row["split"]: {k: float(row[k]) for k in ("Overall", "acc", "precision", "recall")}
           for row in table.to_dict("records")}, open(sys.argv[2], "w"), indent=1, sort_keys=True)
