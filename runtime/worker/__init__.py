"""Runs in processes of their own: the side of the run's process, and what starts it.

Belongs here: the pre-started server that forks run processes (`zygote`), the run process's
entry (`child`), the messages between it and its supervisor (`wire`), and how a supervisor
ends a run whose process it had to stop (`trail`). Does not belong here: deciding when to stop
a run or recording it (the editor's supervisor, `editor.runs.supervision`). Nothing here imports
the web side: a run's process holds no web secret and loads no Django.
"""
