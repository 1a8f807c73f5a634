"""The live view: a pipeline's run events, relayed over websockets to everyone watching it.

Belongs here: the websocket consumer (`consumers`: it only connects, relays and answers
snapshot requests) and its route (`routing`), relaying recorded events in frames over the
channel layer (`relay`), the state a view starts from (`snapshots`), what a client may send
(`inbound_limits`) and how much it may leave unread (`backpressure`), and closing sockets
whose user may no longer watch (`watcher_access`). Does not belong here: recording events
(`editor.runs`: the recorder calls `relay.broadcast` once a batch is committed), or deciding
who may watch (`editor.workspaces.permissions`).
"""
