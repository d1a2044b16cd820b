"""Adapters: a rulekit ruleset inside the harnesses users evaluate with.

`rulekit.adapters.harness` plugs a ruleset into lm-evaluation-harness and lmms-eval (a task's
`filter_list`, lmms-eval's verifier registries). Each adapter imports its harness only when it is
used, so rulekit itself never depends on one.
"""
