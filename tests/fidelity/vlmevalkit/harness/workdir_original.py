"""What the work-dir harnesses share (rate_mathv_workdir.py, rate_mathvista_workdir.py, rate_vqa.py,
rate_visulogic_workdir.py, rate_judged_workdir.py): VLMEvalKit's file
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


def track_progress_rich(func, tasks, nproc=1, save=None, keys=None, **kwargs):
    """vlmeval/utils/mp_util.py's, in one thread: a dict task is keyword arguments, a tuple or list positional
    ones, anything else the one argument (new_func); other keyword arguments are not passed on."""
    results = [func(**t) if isinstance(t, dict) else func(*t) if isinstance(t, (tuple, list)) else func(t)
               for t in tasks]
    if save is not None:
        with open(save, "wb") as fh:
            pickle.dump(dict(zip(keys, results)), fh)
    return results


class ScriptedJudge:
    """build_judge's model: the scripted reply to each prompt ({prompt: reply}, or {prompt: [reply per try]}
    for a judge asked again at a temperature 0.5 higher each try)."""

    def __init__(self, replies):
        self.replies = replies

    def working(self):
        return True

    def generate(self, prompt, temperature=0, **sampling):  # CharXiv's auxeval passes max_tokens, seed, top_p
        reply = self.replies[prompt]
        return reply[round(temperature / 0.5)] if isinstance(reply, list) else reply


def intermediate_path(eval_file, suffix, target_format=None):
    """vlmeval/smp/file.py get_intermediate_file_path for an .xlsx prediction file with the default formats:
    `_tmp`/`_response`/`_processed` → pkl, `_rating`/`_config`/`_meta` → json, `_acc`/`_fine`/`_metrics` →
    csv (the eval format), anything else → xlsx (the prediction format)."""
    if target_format is None:
        ends = lambda words: any(suffix.endswith(w) for w in words)  # noqa: E731
        target_format = ("pkl" if ends(["_tmp", "_response", "_processed"]) else
                         "json" if ends(["_rating", "_config", "_meta"]) else
                         "csv" if ends(["_acc", "_fine", "_metrics"]) else "xlsx")
    return eval_file.replace(".xlsx", f"{suffix}.{target_format}")


def run_method(path, class_name, method_name, *args, judge=None, names=None, attributes=None, **kwargs):
    """`class_name.method_name(self, *args, **kwargs)` from the source of `path`, `self` a namespace of
    `attributes` (e.g. `dataset_name`), with the I/O above (`names` adds or replaces globals the method
    reads) and `build_judge` giving `judge`."""
    source = open(path, encoding="utf-8").read()
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == class_name)
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method_name)
    module = "vlmeval.dataset." + os.path.basename(path).rsplit(".", 1)[0]
    namespace = {"__name__": module, "__package__": "vlmeval.dataset", "os": os, "osp": osp, "pd": pd,
                 "load": load, "dump": dump, "track_progress_rich": track_progress_rich, "DEBUG_MESSAGE": "",
                 "build_judge": lambda **_: judge, "get_intermediate_file_path": intermediate_path, **(names or {})}
    exec(compile(ast.get_source_segment(source, method), path, "exec"), namespace)
    return namespace[method_name](types.SimpleNamespace(**(attributes or {})), *args, **kwargs)
