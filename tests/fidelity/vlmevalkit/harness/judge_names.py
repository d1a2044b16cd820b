"""The judge names VLMEvalKit has written into its file names, from its git history.

usage: python judge_names.py VLMEVALKIT_GIT_DIR > rulekit/data/vlmevalkit_judges.tsv

A judged evaluation names its per-row sheet `<model>_<dataset>_<judge>.xlsx` and its table
`<model>_<dataset>_<judge>_score.csv` (or `_acc.csv`), where `<judge>` is the judge's name as run.py chose it
(`judge_kwargs['model'] = 'gpt-4o-mini'`, or the user's `--judge NAME`), or that name's short form from a
dataset's `name_str_map` (`{'chatgpt-0125': 'openai', 'gpt-4-0125': 'gpt4', 'gpt-4o-mini': 'gpt4o-mini'}`).
Reads monthly snapshots of the repository's first-parent line (nothing is imported or run: each file is
searched as text) and writes one line per name: name, where it was seen (`run.py`: a judge run.py chose;
`model_map`: a name build_judge accepts; `name_str_map`: a short name a dataset writes), first and last month.
"""
import re
import subprocess
import sys

repo = sys.argv[1]


def git(*a):
    return subprocess.run(["git", "-C", repo, *a], capture_output=True, text=True).stdout


RUN = re.compile(r"judge_kwargs\[['\"]model['\"]\]\s*=\s*['\"]([^'\"]+)['\"]")
MAP = re.compile(r"model_map\s*=\s*\{(.*?)\}", re.S)
STR_MAP = re.compile(r"name_str_map\s*=\s*\{(.*?)\}", re.S)
PAIR = re.compile(r"['\"]([^'\"]+)['\"]\s*:\s*['\"]([^'\"]+)['\"]")

months = [f"{y}-{m:02d}-01" for y in range(2023, 2027) for m in range(1, 13)] + ["2026-12-31"]
seen = {}  # name -> [where, first, last]
prev = None
for d in months:
    c = git("rev-list", "-1", "--first-parent", f"--before={d}", "HEAD").strip()
    if not c or c == prev:
        continue
    prev = c
    month = d[:7]
    found = {}
    files = [f for f in git("ls-tree", "-r", "--name-only", c, "--", "run.py", "vlmeval").split()
             if f.endswith(".py")]
    for f in files:
        src = git("show", f"{c}:{f}")
        if "judge_kwargs" in src:
            for name in RUN.findall(src):
                found.setdefault(name, "run.py")
        for body in MAP.findall(src) if "def build_judge" in src else ():  # build_judge's own map
            for key, _ in PAIR.findall(body):
                found.setdefault(key, "model_map")
        for body in STR_MAP.findall(src):
            for _, short in PAIR.findall(body):
                found.setdefault(short, "name_str_map")
    for name, where in found.items():
        entry = seen.setdefault(name, [where, month, month])
        entry[2] = month

head = git("rev-parse", "HEAD").strip()
print(f"# The judge names VLMEvalKit wrote into file names (tests/fidelity/vlmevalkit/harness/judge_names.py on\n"
      f"# open-compass/VLMEvalKit @ {head}): name, where it was first seen (run.py / model_map /\n"
      "# name_str_map), first and last month seen on the first-parent line.")
for name in sorted(seen, key=str.lower):
    where, first, last = seen[name]
    print(f"{name}\t{where}\t{first}\t{last}")
