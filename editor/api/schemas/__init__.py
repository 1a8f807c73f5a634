"""The API's contract in the OpenAPI schema, one module a router (named after it).

`contract` holds what every operation shares: `answers(...)` and the `Error` answer, paging,
ids and timestamps, `request_body(...)` for bodies the views read by hand. The others hold
the bodies and answers of their router's operations only; how a model becomes an answer
(`editor.api.representations`) and the views themselves do not belong here.
"""
