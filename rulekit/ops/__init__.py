"""The compares' compiled forms: plain compares, scored compares (the one `verdict` entry point),
math compares with their SymPy worker, and the record-level condition environment. Depends on
`rulekit.core` and `rulekit.language` (where the find, prepare and pick words live whole)."""
