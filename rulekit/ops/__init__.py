"""The vocabulary's compiled forms: option sets, prepare ops, finders and picks, compares (plain,
scored, math with its SymPy worker). Depends on `rulekit.core` and `rulekit.language`."""
