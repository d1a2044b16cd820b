"""`python -m rulekit`: the same command as `rulekit`."""
from rulekit.cli import main

if __name__ == "__main__":
    main(prog_name="rulekit")
