"""VLMEvalKit's ORIGINAL MME_rating (yorn_original.py) on records; writes {name: score} (perception,
reasoning, each category) as JSON:  python rate_mme.py records.jsonl out.json   (yorn.py, misc.py beside it)"""
import json, sys

from yorn_original import scored_frame, yorn

rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
table = yorn.MME_rating(scored_frame(rows, category="category", image_path="image_path"))
json.dump({k: float(v) for k, v in table.to_dict("records")[0].items()}, open(sys.argv[2], "w"), indent=1, sort_keys=True)
