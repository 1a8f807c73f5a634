"""pandas and the pyarrow modules that only some paths use, imported when first touched.

A run whose segments all run on DuckDB never holds a pandas frame, and `import pandas` costs
more than such a run's data work at a few million rows (docs/performance.md). The modules that
work on frames take `pd` from here; pandas loads on the first attribute read, through the
import system and under its lock, so two threads starting at once load it once (the standard
library's LazyLoader is not thread-safe before Python 3.12.3).

`pyarrow.compute` (its docstrings are parsed as it loads) and `pyarrow.parquet` (which loads
every file system pyarrow knows) are here for the same reason: an all-DuckDB run that reads
CSV files uses neither, and together they cost about as much to import as pyarrow itself.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule(ModuleType):
    """Stands for the module `name` and imports it when one of its attributes is read."""

    def __getattr__(self, attribute: str):
        value = getattr(importlib.import_module(self.__name__), attribute)
        setattr(self, attribute, value)  # later reads find it without coming here
        return value


pd = LazyModule("pandas")

pa = LazyModule("pyarrow")
"""pyarrow (with numpy, which it loads) loads when a file's rows or types are first read, or a
frame is built: the engine's modules import it from here, so that importing them costs neither
(a third of a small DuckDB run's start-up, docs/performance.md)."""

np = LazyModule("numpy")
"""numpy loads with pandas or pyarrow, on the paths that compute on arrays."""

pa_csv = LazyModule("pyarrow.csv")
"""pyarrow's CSV reader, which infers a CSV file's types."""

pc = LazyModule("pyarrow.compute")
"""pyarrow.compute loads when frames or arrays are first computed on, not by a DuckDB run."""

pq = LazyModule("pyarrow.parquet")
"""pyarrow.parquet loads when a Parquet file is first read or written."""
