"""A ruleset compiled once (`compiler.load_ruleset`) and applied to one record at a time
(`decide.Evaluator`), with the judge fallback (`judge`). Depends on core, llm and language."""
