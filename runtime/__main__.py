"""`python -m runtime ...`: the headless command line (run by the command server when one is
running: runtime/worker/command_client.py)."""

from runtime.worker.command_client import main

main()
