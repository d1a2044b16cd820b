"""Runs over whole inputs: `evaluate` (one process), `parallel` (forked workers over byte ranges of
a JSONL file) and the judge's prefetch. Depends on every stage before it, never on `report`."""
