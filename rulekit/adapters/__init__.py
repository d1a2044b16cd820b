"""Adapters: a rulekit ruleset inside the harnesses users evaluate with.

`rulekit.adapters.harness` plugs a ruleset into lm-evaluation-harness and lmms-eval (a task's
`filter_list`, lmms-eval's verifier registries), `rulekit.adapters.inspect` is an Inspect AI scorer,
`rulekit.adapters.lighteval` a lighteval sample-level metric, `rulekit.adapters.ray` scores Ray Datasets. Each adapter imports its harness only when it is
used, so rulekit itself never depends on one.
"""
