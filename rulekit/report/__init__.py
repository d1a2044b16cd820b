"""What a person reads: the results table, `diff`, `explain`, `lint`, golden cases (`rulekit
test`) and the vocabulary reference. Depends on the stages before it; only `cli` imports it."""
