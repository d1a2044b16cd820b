"""The ruleset language: YAML read with positions and merged through `extends:`/`from:`, the
vocabulary's models (pydantic, one docstring per word), and the condition language (Lark grammar,
evaluated from the AST). Depends on `rulekit.core`."""
