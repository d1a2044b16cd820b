"""VLMEvalKit's dataset names of every era, with the class that serves each, from its git history.

usage: python dataset_names.py VLMEVALKIT_GIT_DIR > rulekit/data/vlmevalkit_datasets.tsv

Reads monthly snapshots of the repository's first-parent line (nothing is imported or run: each file is
parsed with `ast`) and writes one line per name: name, class, first and last month seen, whether the class
(or the base it inherits `evaluate` from) is one of VLMEvalKit's generic families. Where the names live:
- 2023-11 … 2024-07: `dataset_URLs = {...}` (vlmeval/utils/dataset_config.py, earlier data_util.py / smp.py);
  the class column is then `dataset_URLs` (those eras had no dataset classes, only DATASET_TYPE());
- 2024-07 … : each class's `DATASET_URL = {...}` under vlmeval/dataset/ (a dict literal, `**` spreads and
  names of module-level dicts resolved), and video datasets as `'NAME': partial(CLASS, ...)` in
  vlmeval/dataset/video_dataset_config.py.
Names VLMEvalKit builds in code (loops, class methods) are not found here: such a name is read as a variant
of the listed name it starts with (rulekit/report/reproduce/names.py), or is unknown and said so.
"""
import ast
import subprocess
import sys

repo = sys.argv[1]


def git(*a):
    return subprocess.run(["git", "-C", repo, *a], capture_output=True, text=True).stdout


def dict_keys(node, module_dicts, depth=0):
    """String keys of a dict expression: a literal (with `**NAME` spreads), a module-level dict's name,
    `dict(A, **B)` / `{**A, **B}` / `A | B`."""
    if depth > 5:
        return []
    if isinstance(node, ast.Dict):
        out = []
        for k, v in zip(node.keys, node.values):
            if k is None:
                out += dict_keys(v, module_dicts, depth + 1)
            elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                out.append(k.value)
        return out
    if isinstance(node, ast.Name) and node.id in module_dicts:
        return dict_keys(module_dicts[node.id], module_dicts, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return dict_keys(node.left, module_dicts, depth + 1) + dict_keys(node.right, module_dicts, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        out = []
        for a in node.args:
            out += dict_keys(a, module_dicts, depth + 1)
        for kw in node.keywords:
            out += [kw.arg] if kw.arg else dict_keys(kw.value, module_dicts, depth + 1)
        return out
    return []


def names_in(source):
    """{name: class} of one file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    module_dicts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            module_dicts[node.targets[0].id] = node.value
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "dataset_URLs" for t in node.targets):
            for k in dict_keys(node.value, module_dicts):
                out[k] = "dataset_URLs"
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DATASET_URL"
                                                        for t in item.targets):
                    for k in dict_keys(item.value, module_dicts):
                        out[k] = node.name
                if (isinstance(item, ast.Expr) and isinstance(item.value, ast.Call)  # DATASET_URL.update(D)
                        and isinstance(item.value.func, ast.Attribute) and item.value.func.attr == "update"
                        and isinstance(item.value.func.value, ast.Name) and item.value.func.value.id == "DATASET_URL"):
                    for a in item.value.args:
                        for k in dict_keys(a, module_dicts):
                            out[k] = node.name
    return out


def bases_in(source):
    """{class: (first base, defines evaluate)} of one file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            base = node.bases[0].id if node.bases and isinstance(node.bases[0], ast.Name) else ""
            own = any(isinstance(i, ast.FunctionDef) and i.name == "evaluate" for i in node.body)
            out[node.name] = (base, own)
    return out


def video_names(source):
    """{name: class} of video_dataset_config.py's `'NAME': partial(CLASS, ...)` entries."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if (isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Call)
                        and isinstance(v.func, ast.Name) and v.func.id == "partial" and v.args
                        and isinstance(v.args[0], ast.Name)):
                    out[k.value] = v.args[0].id
    return out


months = [f"{y}-{m:02d}-01" for y in range(2023, 2027) for m in range(1, 13)] + ["2026-12-31"]
seen = {}  # name -> [class, first, last]
classes = {}  # class -> (base, own evaluate), the newest seen
prev = None
for d in months:
    c = git("rev-list", "-1", "--first-parent", f"--before={d}", "HEAD").strip()
    if not c or c == prev:
        continue
    prev = c
    month = d[:7]
    files = [f for f in git("ls-tree", "-r", "--name-only", c, "--", "vlmeval").split() if f.endswith(".py")]
    found = {}
    for f in files:
        src = git("show", f"{c}:{f}")
        if "dataset_URLs" in src or "DATASET_URL" in src:
            found.update(names_in(src))
        if f.startswith("vlmeval/dataset/"):
            classes.update(bases_in(src))
        if f.endswith("video_dataset_config.py"):
            found.update(video_names(src))
    for n, cls in found.items():
        entry = seen.setdefault(n, [cls, month, month])
        entry[0] = cls
        entry[2] = month

def evaluating(cls):
    """The class whose `evaluate` a class runs: the first one up its base chain that defines it (itself
    when it does; '-' when the chain leaves the files read)."""
    for _ in range(10):
        base, own = classes.get(cls, ("", False))
        if own:
            return cls
        if not base:
            return "-"
        cls = base
    return "-"


print("# VLMEvalKit's dataset names of every era (tests/fidelity/vlmevalkit/harness/dataset_names.py on")
print(f"# open-compass/VLMEvalKit @ {git('rev-parse', 'HEAD').strip()}): name, class, first and last month")
print("# seen on the first-parent line, and the class whose `evaluate` it runs (its own or a base's; '-' unknown).")
for n, (cls, first, last) in sorted(seen.items(), key=lambda x: x[0].lower()):
    print(f"{n}\t{cls}\t{first}\t{last}\t{evaluating(cls) if cls != 'dataset_URLs' else '-'}")
