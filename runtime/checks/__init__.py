"""What is wrong with this document? Answered before anything runs.

Belongs here: validating a document against the operators (`analysis`: unknown operators, bad
params, dangling edges, cycles, topological order) and inferring every node's columns
(`inference`), each problem naming the node and field. Does not belong here: the problems'
vocabulary (`runtime.document.problems`), planning or reading data beyond an input's sample.
"""
