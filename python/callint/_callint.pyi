"""Type stubs of the native module; use the functions of ``callint``."""

from typing import List, Optional, Sequence, Tuple

__version__: str

class CallintError(Exception):
    """A run that callint could not do, or inputs it could not read."""

    errors: List[str]
    document: str

def check_document(
    paths: Sequence[str],
    data: Sequence[Tuple[str, bytes]],
    format: str,
    input_format: Optional[str] = None,
    config: Optional[str] = None,
    no_config: bool = False,
    select: Optional[Sequence[str]] = None,
    ignore: Sequence[str] = ...,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> Tuple[str, int, List[str], List[str]]: ...
def audit_document(
    paths: Sequence[str],
    calls: int = 50,
    baseline: Optional[str] = None,
    input_format: Optional[str] = None,
    config: Optional[str] = None,
    no_config: bool = False,
    select: Optional[Sequence[str]] = None,
    ignore: Sequence[str] = ...,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> Tuple[str, List[str], List[str]]: ...
def audit_folder(
    documents: Sequence[str],
    out: str,
    title: str,
    calls: int = 50,
    input_format: Optional[str] = None,
    config: Optional[str] = None,
    no_config: bool = False,
    select: Optional[Sequence[str]] = None,
    ignore: Sequence[str] = ...,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> List[str]: ...
def walk(paths: Sequence[str], no_ignore: bool = False) -> Tuple[List[str], List[str]]: ...
def partitions(files: Sequence[str], input_format: Optional[str] = None) -> List[List[str]]: ...
def rules_json() -> str: ...
def explain(rule: str) -> str: ...
def main(argv: Sequence[str]) -> int: ...
