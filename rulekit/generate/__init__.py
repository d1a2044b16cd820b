"""Generation edge (extra `[vllm]`): prompt styles, benchmark loaders, vLLM / OpenAI-server backends.

`prompts` (prompt styles as data), `benchmarks` (`datasets` loaders → `Item`s), `run`
(`generate(...)`, the `rulekit generate` job), `output` (resumable, append-only JSONL),
`openai_api` (a small OpenAI-compatible client, shared with the judge). vLLM and `datasets` are
imported only when used.
"""
