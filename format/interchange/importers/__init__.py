"""Readers that turn a source into import items: mem's own JSON Lines and CSV, the on-disk
stores of WindieOS, Matrix OS, Skales and Soul of Waifu (``/shared/formats/README.md``), and
the memory tools people migrate from: mem0, basic-memory, Claude Code, Letta and ChatGPT's
saved memories (``docs/migrate/``).

``detect(path)`` names the system of a path; ``read_source(path, system, opts)`` streams its
entries. Readers never write, and open SQLite databases read-only (:mod:`.sqlite_ro`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from mem.format.base.errors import InvalidInputError, NotFoundError
from mem.format.interchange.importers import (
    basicmemory,
    chatgptmem,
    claudecode,
    csvfile,
    jsonl,
    letta,
    matrixos,
    mem0,
    skales,
    soulofwaifu,
    windieos,
)
from mem.format.interchange.importers.base import (
    OUTCOMES,
    Entry,
    ImportItem,
    Problem,
    ReadOptions,
    Tombstoneish,
    Where,
    get_timezone,
)
from mem.format.rules.ids import scope_for

Reader = Callable[[Path, ReadOptions], Iterator[Entry]]

READERS: dict[str, Reader] = {
    "jsonl": jsonl.read,
    "csv": csvfile.read,
    "windieos": windieos.read,
    "matrixos": matrixos.read,
    "skales": skales.read,
    "soulofwaifu": soulofwaifu.read,
    "mem0": mem0.read,
    "basic-memory": basicmemory.read,
    "claude-code": claudecode.read,
    "letta": letta.read,
    "chatgpt-memories": chatgptmem.read,
}
SYSTEMS: tuple[str, ...] = tuple(READERS)
#: Systems whose items carry a foreign identity (source.system + original_id).
FOREIGN: frozenset[str] = frozenset(SYSTEMS) - {"jsonl", "csv"}
#: Systems that read a folder only / a file only (the others take either).
FOLDER_ONLY: frozenset[str] = frozenset({"windieos", "skales", "soulofwaifu", "basic-memory"})
FILE_ONLY: frozenset[str] = frozenset({"jsonl", "csv", "letta", "chatgpt-memories"})


def _regular_or_folder(path: Path) -> None:
    """Refuse FIFOs, sockets and devices: reading one could block forever or never end."""
    if not (path.is_file() or path.is_dir()):
        raise InvalidInputError(
            "not a regular file or a folder (a FIFO, socket or device is not read)",
            path=path,
            hint="use '-' to import from standard input",
        )


def detect(path: Path) -> str:
    """The system of ``path``; raises InvalidInputError when it cannot tell."""
    if not path.exists():
        raise NotFoundError("no such file or directory", path=path)
    _regular_or_folder(path)
    if path.is_file():
        name = path.name.lower()
        if name.endswith((".jsonl", ".ndjson", ".jsonl.txt")):
            return "jsonl"
        if name.endswith(".csv"):
            return "csv"
        if name.endswith(".db") and matrixos.detect(path):
            return "matrixos"
        if name.endswith(".db") and mem0.detect(path):
            return "mem0"
        if letta.detect(path):
            return "letta"
        if name.endswith(".json") and mem0.detect(path):
            return "mem0"
        if claudecode.detect(path):
            return "claude-code"
        if chatgptmem.detect(path):
            return "chatgpt-memories"
        try:
            with open(path, "rb") as f:
                head = f.read(64).lstrip(b"\xef\xbb\xbf").lstrip()
        except OSError as exc:
            raise InvalidInputError(f"cannot read: {exc.strerror}", path=path) from None
        if head.startswith(b"{"):
            return "jsonl"
        raise InvalidInputError(
            "cannot tell what this file is",
            path=path,
            hint="name it .jsonl or .csv, or pass --from (" + ", ".join(SYSTEMS) + ")",
        )
    for name, check in (
        ("windieos", windieos.detect),
        ("matrixos", matrixos.detect),
        ("skales", skales.detect),
        ("soulofwaifu", soulofwaifu.detect),
        ("mem0", mem0.detect),
        ("claude-code", claudecode.detect),
        ("basic-memory", basicmemory.detect),
    ):
        if check(path):
            return name
    raise InvalidInputError(
        "cannot tell which system's store this folder is",
        path=path,
        hint="pass --from (" + ", ".join(SYSTEMS) + "), or point at the store's folder "
        "(WindieOS: memory/, Matrix OS: ~/matrixos, Skales: ~/.skales-data, Soul of Waifu: .soul/, "
        "mem0: ~/.mem0, basic-memory: the project folder, Claude Code: ~/.claude or a project)",
    )


def read_source(path: Path, system: str, opts: ReadOptions | None = None) -> Iterator[Entry]:
    if system not in READERS:
        raise InvalidInputError(f"unknown source {system!r} (one of {', '.join(SYSTEMS)})")
    if not path.exists():
        raise NotFoundError("no such file or directory", path=path)
    _regular_or_folder(path)
    if system in FILE_ONLY and path.is_dir():
        raise InvalidInputError(f"--from {system} reads a file, and this is a folder", path=path)
    if system in FOLDER_ONLY and not path.is_dir():
        raise InvalidInputError(f"--from {system} reads the store's folder, and this is a file", path=path)
    return READERS[system](path, opts or ReadOptions())


__all__ = [
    "FILE_ONLY",
    "FOLDER_ONLY",
    "FOREIGN",
    "OUTCOMES",
    "READERS",
    "SYSTEMS",
    "Entry",
    "ImportItem",
    "Problem",
    "ReadOptions",
    "Tombstoneish",
    "Where",
    "detect",
    "get_timezone",
    "read_source",
    "scope_for",
]
