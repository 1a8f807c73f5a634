"""The editor's HTML pages: the views that serve them, the user docs they link to, and the
response headers middleware that marks API answers uncacheable.

Belongs here: what a browser asks for by URL outside the JSON API — a page's view (which only
checks the user may see it and hands the template the user's role), the docs pages, and
headers Django has no setting for. Does not belong here: the JSON API (`editor.api`), who may
see what (`editor.workspaces.permissions`), or the front end's code (`static/editor/`).
"""
