"""Pipewright's engine: pipeline documents, validation, operators, executor and events.

Pure Python and pandas; it never imports Django or the editor, so it runs headless
(`python -m runtime run pipeline.json`) and is tested without a web server.
"""
