"""An ORIGINAL VLMEvalKit dataset class's `evaluate` (its source taken unchanged from the file, class by class,
with `ast`, and run with the vlmeval names it uses stubbed: `load` gives the frame, `dump`/`d2df` keep what
they get) on each record alone — a one-row eval file, so its accuracy is that record's correct — and
on all records together. Writes JSON: per record correct (true/false), and what evaluate returned on all.
    python rate_by_rows.py FILE CLASS records.jsonl out.json   (FILE: image_vqa.py or image_mcq.py beside it)
The records' `meta` holds the extra columns (VLMBlind: `task`; the gold goes in as `answers` too)."""
import ast, json, sys, types

import pandas as pd

path, name, records, out_path = sys.argv[1:5]
tree = ast.parse(open(path, encoding="utf-8").read())
source = next(ast.get_source_segment(open(path, encoding="utf-8").read(), node) for node in tree.body
              if isinstance(node, ast.ClassDef) and node.name == name)
frames = {}
namespace = {"pd": pd, "load": lambda f: frames[f], "dump": lambda data, f: None,
             "d2df": lambda D: pd.DataFrame({x: [D[x]] for x in D}),  # vlmeval/smp/misc.py d2df
             "get_intermediate_file_path": lambda f, suffix, ext=None: f"{f}{suffix}.{ext or 'xlsx'}",
             "ImageVQADataset": object, "ImageMCQDataset": object, "ImageBaseDataset": object}
exec(compile(source, path, "exec"), namespace)
cls = namespace[name]
rows = [json.loads(line) for line in open(records, encoding="utf-8")]


def frame_of(rs):
    return pd.DataFrame({"index": list(range(len(rs))), "prediction": [r["response"] for r in rs],
                         "answer": [r["answer"] for r in rs], "answers": [r["answer"] for r in rs],
                         **{k: [r["meta"][k] for r in rs] for k in rs[0]["meta"]}} if rs[0]["meta"] else
                        {"index": list(range(len(rs))), "prediction": [r["response"] for r in rs],
                         "answer": [r["answer"] for r in rs]})


def run(rs):
    frames["eval.xlsx"] = frame_of(rs)
    return cls.evaluate(cls.__new__(cls), "eval.xlsx")


def value(result):
    if isinstance(result, dict):
        return {k: float(v) for k, v in result.items()}
    return {k: float(v) for k, v in result.iloc[0].items()}


out = {"records": {r["id"]: sum(value(run([r])).values()) > 0 for r in rows}, "all": value(run(rows))}
json.dump(out, open(out_path, "w"), indent=None, sort_keys=True)
