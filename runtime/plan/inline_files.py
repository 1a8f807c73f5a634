"""Sub-pipelines on the command line: a `subpipeline` node names a pipeline file, relative to
the file of the pipeline that uses it (as an import names a module next to it). And the files a
`for_each` loops over, wherever its document comes from: those its pattern matches in the run's
file area."""

from __future__ import annotations

from pathlib import Path

from runtime.checks.analysis import load_checked
from runtime.errors import PipelineValidationError
from runtime.io.file_patterns import matching_files
from runtime.io.paths import FileArea
from runtime.operators.subpipelines import SubpipelineParams
from runtime.plan.inline import InnerPipeline


def file_key(path: Path) -> str:
    """How the outer file is told apart from the files it uses: its resolved path."""
    return str(path.resolve())


def resolve_file(params: SubpipelineParams, within: str) -> InnerPipeline:
    """The pipeline file `params` names, relative to the folder of the file `within`."""
    if not isinstance(params.pipeline, str):
        raise LookupError("on the command line a sub-pipeline is a file path, not an id")
    if params.revision != "latest":
        raise LookupError("a pipeline file has no saved revisions: use revision 'latest'")
    path = (Path(within).parent / params.pipeline).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise LookupError(f"cannot read '{params.pipeline}': {error.strerror}") from error
    try:
        document = load_checked(text)
    except PipelineValidationError as error:
        first = error.problems[0]
        raise LookupError(f"'{params.pipeline}' is not a valid pipeline: {first}") from error
    return InnerPipeline(key=str(path), title=params.pipeline, document=document)


def files_in(area: FileArea | str | Path):
    """The `files` of `runtime.plan.inline`: a pattern's matches in `area`, named as a document
    names them (bounded and confined to the area by `runtime.io.file_patterns`)."""
    area = FileArea.of(area)

    def files(pattern: str) -> list[str]:
        return [found.name for found in matching_files(area, pattern)]

    return files
