"""What flows between nodes: table schemas, the public type names, casting, frames, JSON rows.

Belongs here: describing and converting tables whatever produced them (the six type names,
Arrow to pandas with the engine's dtypes, cells as JSON a browser shows faithfully). Does not
belong here: operators, plans or files — this is a leaf every stage may import.
"""
