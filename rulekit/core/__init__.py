"""Stage 0, what every stage shares: errors and warnings, records, decisions and traces, resource
paths, and regexes under a time limit. Imports nothing else of rulekit."""
