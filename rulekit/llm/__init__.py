"""Talking to models, for the judge and `generate`: the OpenAI-compatible client (deadline, body
cap), prompt styles, and the judge's reply cache. Depends only on `rulekit.core`."""
