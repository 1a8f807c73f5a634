"""What users write, the API carries and a run snapshots: the pipeline document.

Belongs here: the document's schema (nodes, edges, canvas items), parameters, the problems a
document can have, the difference between two revisions, bounded JSON text and the names of
backends a document may ask for. Does not belong here: checking a document against the
operators (`runtime.checks`), planning or running it.
"""
