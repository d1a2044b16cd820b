"""What the work-dir harnesses share (rate_mathv_workdir.py, rate_mathvista_workdir.py): VLMEvalKit's file
I/O as vlmeval/smp/file.py does it (dump_xlsx with pandas + xlsxwriter and strings_to_formulas off, dump_csv
with QUOTE_ALL, load_xlsx = pd.read_excel, .pkl by pickle), `track_progress_rich` as a plain loop that saves
what it returns, a judge whose reply to each prompt is scripted, and a dataset method run from its source
(taken unchanged from the file with `ast`, executed as if in vlmeval/dataset/, so its relative imports of
vlmeval.dataset.utils.* find the modules the harness loaded)."""
import ast, csv, os, os.path as osp, pickle, types

import pandas as pd


def load(f):
    if f.endswith(".pkl"):
        with open(f, "rb") as fh:
            return pickle.load(fh)
    return pd.read_excel(f)


def dump(data, f):
    if f.endswith(".csv"):
        data.to_csv(f, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    else:
        with pd.ExcelWriter(f, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
            data.to_excel(w, index=False)


def track_progress_rich(func, tasks, nproc, chunksize, keys, save):
    results = [func(*task) for task in tasks]
    with open(save, "wb") as fh:
        pickle.dump(dict(zip(keys, results)), fh)
    return results


class ScriptedJudge:
    """build_judge's model: the scripted reply to each prompt ({prompt: reply})."""

    def __init__(self, replies):
        self.replies = replies

    def working(self):
        return True

    def generate(self, prompt, temperature=0):
        return self.replies[prompt]


def run_method(path, class_name, method_name, judge, *args, **kwargs):
    """`class_name.method_name(SimpleNamespace(), *args, **kwargs)` from the source of `path`, with the
    I/O above, `build_judge` giving `judge`, and get_intermediate_file_path as smp/file.py resolves it
    for an .xlsx prediction file (no format given: the prediction format, xlsx)."""
    source = open(path, encoding="utf-8").read()
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == class_name)
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method_name)
    namespace = {"__name__": "vlmeval.dataset.image_vqa", "__package__": "vlmeval.dataset", "os": os, "osp": osp,
                 "load": load, "dump": dump, "track_progress_rich": track_progress_rich, "DEBUG_MESSAGE": "",
                 "build_judge": lambda **_: judge,
                 "get_intermediate_file_path": lambda f, suffix, fmt=None: f.replace(".xlsx", f"{suffix}.{fmt or 'xlsx'}")}
    exec(compile(ast.get_source_segment(source, method), path, "exec"), namespace)
    return namespace[method_name](types.SimpleNamespace(), *args, **kwargs)
