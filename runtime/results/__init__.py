"""Reading what runs stored: pages of a node's result and the comparison of two runs.

Belongs here: paging, sorting and summarising stored results for the Data tab and the API
(`pages`), and comparing two runs node by node (`comparison/`). Does not belong here: writing
results (`runtime.execution.recording`, `runtime.cache`).
"""
