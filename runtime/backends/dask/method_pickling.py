"""Standard pickling of methods for what a Dask client sends, whatever Twisted registered.

Twisted, which daphne (the web server) runs on, registers a `copyreg` reducer for bound
methods (`twisted.persisted.styles`) that cannot pickle class methods, and Dask's messages
hold some (dask.dataframe's reductions, among others): a worker then fails to load them and
leaves the cluster. The standard library pickles methods by itself, so a process removes
that reducer before its clients talk to a cluster.
"""

from __future__ import annotations

import copyreg
import types


def standard_method_pickling() -> None:
    """Drop Twisted's reducer for bound methods, if it registered one."""
    reducer = copyreg.dispatch_table.get(types.MethodType)
    if reducer is not None and reducer.__module__.startswith("twisted."):
        del copyreg.dispatch_table[types.MethodType]
