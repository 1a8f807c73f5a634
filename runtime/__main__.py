"""`python -m runtime ...`: the headless command line."""

from runtime.cli import run_as_process

run_as_process()
