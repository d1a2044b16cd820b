"""The MT-VQA pull request's first scorer (open-compass/VLMEvalKit 04cfded1, 2024-07-03, Bytedance's
vlmeval/evaluate/MTVQA_eval.py; superseded by MTVQADataset.evaluate on 2024-07-22), run UNCHANGED from the
file beside the harness on the prediction sheet rate_mtvqa.py wrote: `from vlmeval.smp import *` finds
get_logger, load (pd.read_excel), d2df and dump (dump_csv with QUOTE_ALL) as 04cfded1's smp has them, and
`mp.Pool(16).map` runs as `map` (same rows, same order). It writes <stem>_acc.csv beside the sheet: one
column per language (fractions), no split column, no Average.
    python rate_mtvqa_2024.py OUT/<MODEL>_MTVQA_TEST.xlsx   (MTVQA_eval.py, modules.py beside it)"""
import csv, logging, sys, types

import numpy as np
import pandas as pd

from modules import load_module, stub_packages


class Pool:
    def __init__(self, processes=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, f, xs):
        return list(map(f, xs))


stub_packages("vlmeval", "vlmeval.evaluate")
smp = types.ModuleType("vlmeval.smp")
smp.__all__ = ["get_logger", "load", "d2df", "dump", "mp", "np", "pd"]
smp.get_logger = logging.getLogger
smp.load = pd.read_excel
smp.d2df = lambda D: pd.DataFrame({x: [D[x]] for x in D})
smp.dump = lambda data, f: data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
smp.mp = types.SimpleNamespace(Pool=Pool)
smp.np, smp.pd = np, pd
sys.modules["vlmeval.smp"] = smp
original = load_module("vlmeval.evaluate.MTVQA_eval", "MTVQA_eval.py")
print(original.MTVQA_eval(sys.argv[1]))
