"""The documentation (issue 32): the mkdocs-material site under docs/ builds with every link and anchor checked,
README.md's relative links resolve, the generated pages equal what the registries give, and the shell
completion the commands page documents works through click's environment variable."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the site at `root` into `site` (mkdocs.yml's `validation:` makes every
    unknown page, link or anchor a warning, `--strict` an error); no network is needed."""
    pytest.importorskip("mkdocs", reason="mkdocs-material is in the `test` extra: pip install -e '.[test]'")
    pytest.importorskip("material", reason="mkdocs-material is in the `test` extra: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
                           "-d", str(site)], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_the_docs_site_builds_strictly_with_links_and_anchors_checked(tmp_path):
    result = _build(ROOT, tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    pages = sorted(p.relative_to(tmp_path / "site").parent.as_posix() for p in (tmp_path / "site").rglob("index.html"))
    assert {"vocabulary", "rulesets", "errors", "reproduce", "reproduce-breadth", "cli"} <= set(pages)
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    # README's sections are included into the pages, not copied: the setup commands and the tour are there.
    assert "rulekit-eval" in home and "bracketed-letter" in home and "--8&lt;--" not in home
    reproduce = (tmp_path / "site" / "reproduce" / "index.html").read_text(encoding="utf-8")
    assert "<code>demo_score.json</code>" in reproduce  # the report-formats table, from README.md


@pytest.mark.parametrize("broken", ["[x](eval.md#no-such-anchor)", "[x](no-such-page.md)",
                                    '--8<-- "README.md:no-such-section"', "a page left out of the nav"])
def test_a_broken_link_anchor_or_include_fails_the_build(tmp_path, broken):
    """The check can fail: the same site with one broken link, anchor or README include, or a page that
    mkdocs.yml's nav leaves out, does not build."""
    root = tmp_path / "copy"
    root.mkdir()
    shutil.copytree(DOCS, root / "docs")
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy(ROOT / name, root / name)
    if broken == "a page left out of the nav":
        (root / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    else:
        page = root / "docs" / "performance.md"
        page.write_text(page.read_text(encoding="utf-8") + f"\n{broken}\n", encoding="utf-8")
    result = _build(root, tmp_path / "site")
    assert result.returncode != 0, result.stdout + result.stderr
    assert ("orphan.md" if broken.startswith("a page") else "no-such") in result.stderr, result.stderr


def _slugs(markdown: str) -> set[str]:
    """The anchors mkdocs gives a page's headings (python-markdown's toc slugify, code spans as their text)."""
    from markdown.extensions.toc import slugify

    return {slugify(re.sub(r"`([^`]*)`", r"\1", h), "-") for h in re.findall(r"^#+ (.+)$", markdown, flags=re.M)}


def test_every_relative_link_in_readme_resolves():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(relative) >= 15, relative  # the docs pages are linked from README
    for link in relative:
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else ROOT / "README.md"
        assert target.is_file(), f"README.md links to {link}: no such file"
        if anchor:
            assert anchor in _slugs(target.read_text(encoding="utf-8")), f"README.md links to {link}: no such anchor"


def test_readme_keeps_the_two_setup_commands_first_and_the_sections_the_site_includes():
    """docs/index.md includes README.md lines 3-22 (the two commands, the paragraph explaining them, the
    distribution's name) and the `tour` and `formats` sections."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").split("\n")
    assert lines[0] == "# rulekit" and lines[2] == "```bash" and lines[5] == "```"
    assert lines[3].startswith("python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/rulekit eval")
    assert lines[4] == ".venv/bin/python -m pytest"
    assert lines[21].endswith("`pip show rulekit` finds the other.") and lines[22] == ""
    assert '--8<-- "README.md:3:22"' in (DOCS / "index.md").read_text(encoding="utf-8")
    for section in ("tour", "formats"):
        assert lines.count(f"<!-- --8<-- [start:{section}] -->") == 1
        assert lines.count(f"<!-- --8<-- [end:{section}] -->") == 1
    assert len(lines) < 170, "README.md is two commands, a tour and links: the rest is in docs/"


def test_the_vocabulary_page_is_what_the_registries_give():
    from rulekit.report.docs_pages import vocabulary_markdown

    page = vocabulary_markdown()
    assert (DOCS / "vocabulary.md").read_text(encoding="utf-8") == page, \
        "docs/vocabulary.md is stale: rulekit vocabulary --format markdown > docs/vocabulary.md"
    assert CliRunner().invoke(main, ["vocabulary", "--format", "markdown"]).stdout == page
    assert "### `literal`" in page and "## extends: how a ruleset merges into its parent" in page
    assert "    - {id: answer-is, find: {phrases: [answer is]}}" in page  # the loader's own merge result


def test_the_rulesets_page_is_what_the_rulesets_and_generations_give():
    from rulekit.core.resources import builtin_rulesets
    from rulekit.report.docs_pages import rulesets_markdown

    page = rulesets_markdown()
    assert (DOCS / "rulesets.md").read_text(encoding="utf-8") == page, \
        "docs/rulesets.md is stale: rulekit list --format markdown > docs/rulesets.md"
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(builtin_rulesets())
    assert any(r.startswith("| `chartqa@v1` |") and "VLMEvalKit 2024-03-27 – 2025-09-01 (`3d800fce`)" in r for r in rows)
    refused = CliRunner().invoke(main, ["list", "--format", "markdown", "--benchmark", "MMStar"])
    assert refused.exit_code == 2 and "E400" in refused.output


@pytest.mark.parametrize("shell, cword", [("bash", "3"), ("zsh", "3"), ("fish", "vlmevalkit+j")])
def test_shell_completion_through_clicks_variable_offers_ruleset_names(shell, cword):
    """What the commands page documents: `_RULEKIT_COMPLETE=<shell>_source rulekit` writes the shell's script,
    which calls `rulekit` with `<shell>_complete`; ruleset names complete after `-r`."""
    source = CliRunner().invoke(main, [], prog_name="rulekit", env={"_RULEKIT_COMPLETE": f"{shell}_source"})
    assert source.exit_code == 0 and "_RULEKIT_COMPLETE" in source.output and f"{shell}_complete" in source.output
    done = CliRunner().invoke(main, [], prog_name="rulekit", env={
        "_RULEKIT_COMPLETE": f"{shell}_complete", "COMP_WORDS": "rulekit eval -r vlmevalkit+j", "COMP_CWORD": cword})
    assert done.exit_code == 0
    assert "vlmevalkit+judge" in done.output and "lmms-eval" not in done.output, done.output


def _tour_blocks() -> list[tuple[list[str], list[str]]]:
    """README's tour: each console block's command (after `$ rulekit`) and the lines it shows."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("<!-- --8<-- [start:tour] -->")[1].split("<!-- --8<-- [end:tour] -->")[0]
    blocks = []
    for block in re.findall(r"```console\n(.*?)```", tour, flags=re.S):
        command, *shown = block.rstrip("\n").split("\n")
        assert command.startswith("$ rulekit "), command
        blocks.append((shlex.split(command)[2:], shown))
    return blocks


@pytest.mark.parametrize("index", range(4))
def test_the_readme_tour_shows_real_output(index, monkeypatch):
    """Every line README's tour shows (`...` marks what it leaves out) is a line the command prints, at 80
    columns, in that order."""
    monkeypatch.chdir(ROOT)
    blocks = _tour_blocks()
    assert len(blocks) == 4
    args, shown = blocks[index]
    result = CliRunner().invoke(main, args, env={"COLUMNS": "80"}, prog_name="rulekit")
    assert result.exit_code in (0, 1), result.output
    printed = [line.rstrip() for line in result.stdout.split("\n")]
    at = 0
    for line in shown:
        if line == "...":
            continue
        assert line.rstrip() in printed[at:], f"README's tour shows {line!r}, which `rulekit {' '.join(args)}` " \
                                              f"no longer prints (after line {at}):\n" + "\n".join(printed)
        at = printed.index(line.rstrip(), at) + 1
