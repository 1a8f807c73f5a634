"""DuckDB's and pyarrow's messages in the user's words: no absolute server path in them.

A path the segment reads is named as the document names it; the spill folder and any other
absolute path are reduced to their last part, so a message never shows the server's folders.
"""

from __future__ import annotations

import re

_ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:[^\s'\"/]+/)+([^\s'\"/]*)")
_KINDS = re.compile(r"^(?:[A-Z][a-z]+ )+Error: ")


def readable(message: str, known: dict[str, str]) -> str:
    """`message` with the paths in `known` (server path → the document's) and every other
    absolute path rewritten, and DuckDB's "Binder Error: " kind dropped."""
    for server, shown in sorted(known.items(), key=lambda item: -len(item[0])):
        message = message.replace(server, shown)
    message = _ABSOLUTE.sub(lambda match: match[1] or "…", message)
    return _KINDS.sub("", message.strip(), count=1)
