"""Telling people how a run ended: which notifications a run's end fires, sending them (e-mail
to members, signed webhooks to public addresses), and how many may go out.

Belongs here: choosing and delivering a run's notifications off the run's path (`dispatch`),
posting to a webhook (`webhooks`), and the caps on notifications and test messages
(`limits`). Does not belong here: the `Notification` rows and who may change them (the API
and `editor.workspaces.permissions`), or noticing that a run ended (`editor.runs` calls
`dispatch.run_ended` once the end is written).
"""
