"""Errors raised by the core library, each with a stable code and a process exit status.

Every failure the library reports is a :class:`MemError`. The CLI maps ``exit_code`` to the
process exit status; the table is documented in ``spec/cli.md`` and must not change meaning.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mem search's lean path)
if TYPE_CHECKING:
    from pathlib import Path


class ExitCode:
    """Process exit statuses of the ``mem`` command (see ``spec/cli.md``), as plain ints.

    Not an ``enum.IntEnum``: importing ``enum`` is a large share of a whole lexical
    ``mem search``, whose lean path imports this module (bench/README.md, "Figures behind
    constants in the code").
    """

    OK = 0
    CHECK_FAILED = 1  # verify found errors; diff found differences (like ``git diff --exit-code``)
    USAGE = 2  # bad command line (unknown option, missing argument, bad value)
    NOT_FOUND = 3  # no such record, store, revision or file
    INVALID_INPUT = 4  # bad input data: a record, an import file, a query, a transcript
    STORE_INVALID = 5  # the store itself cannot be used (declaration missing/unknown version)
    TOMBSTONED = 6  # refused: the content or id was forgotten (tombstone)
    LOCKED = 7  # the store's writer lock could not be taken within the timeout
    CONFLICT = 8  # the operation does not apply to the record's state (e.g. supersede a rejected)
    INDEX_UNAVAILABLE = 9  # a derived index is missing, stale beyond repair, or corrupt
    EMBEDDER_UNAVAILABLE = 10  # the embedding model cannot be loaded or does not match
    IO_ERROR = 11  # the file system refused (disk full, read-only, permissions)
    INTERRUPTED = 130


class MemError(Exception):
    """Base class of every error the library raises on purpose.

    ``rule``: the rule the error is about, named where it is raised. For a rule of the format,
    its validation code or sub-code (``E103.5``, spec/validation-codes.md), which ``mem verify``
    reports for a file the reader refuses; for a secret refusal, the secrets policy's rule.
    None: no rule of either table.
    """

    exit_code: int = ExitCode.INVALID_INPUT
    code: str = "mem-error"

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        hint: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.hint = hint
        self.rule = rule

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        text = where + self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "error": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "hint": self.hint,
            "exit_code": int(self.exit_code),
        }


def import_failure(exc: ImportError, what: str) -> str:
    """The message for ``what`` (a runtime) that cannot be imported: the missing module's name,
    or, for an ImportError raised inside a package (a shared library that does not load, a name
    it lacks), which has no name, the error itself."""
    if exc.name:
        return f"cannot import {exc.name}: {what} is missing"
    return f"{what} cannot be imported: {exc}"


class UsageError(MemError):
    """A bad command line: a missing argument, options that do not go together."""

    exit_code = ExitCode.USAGE
    code = "usage"


class NotFoundError(MemError):
    exit_code = ExitCode.NOT_FOUND
    code = "not-found"


class StoreNotFoundError(NotFoundError):
    code = "store-not-found"


class InvalidInputError(MemError):
    exit_code = ExitCode.INVALID_INPUT
    code = "invalid-input"


class RecordParseError(InvalidInputError):
    """A record file that cannot be read as a record of this format."""

    code = "invalid-record"


class ValidationError(InvalidInputError):
    """A value that breaks a rule of the format (bad scope, bad id, empty content...)."""

    code = "invalid-value"


class SecretRefusedError(InvalidInputError):
    """Text that holds a credential (a key, token, password, card number...), refused by the
    secrets policy (``format/rules/secretpolicy.py``) unless the caller allows it explicitly.
    ``rule`` names the rule that fired (never the text)."""

    code = "secret"

    rule: str

    def __init__(self, message: str, *, rule: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, rule=rule)


class StoreInvalidError(MemError):
    exit_code = ExitCode.STORE_INVALID
    code = "store-invalid"


class UnsupportedFormatError(StoreInvalidError):
    code = "unsupported-format"


class TombstonedError(MemError):
    exit_code = ExitCode.TOMBSTONED
    code = "tombstoned"


class LockTimeoutError(MemError):
    exit_code = ExitCode.LOCKED
    code = "locked"


class ConflictError(MemError):
    exit_code = ExitCode.CONFLICT
    code = "conflict"


class IndexUnavailableError(MemError):
    exit_code = ExitCode.INDEX_UNAVAILABLE
    code = "index-unavailable"


class EmbedderUnavailableError(MemError):
    exit_code = ExitCode.EMBEDDER_UNAVAILABLE
    code = "embedder-unavailable"


class RerankerUnavailableError(EmbedderUnavailableError):
    """The reranker's model cannot be loaded (not installed, corrupt, its runtime missing)."""

    code = "reranker-unavailable"


class StoreIOError(MemError):
    exit_code = ExitCode.IO_ERROR
    code = "io-error"


class ReadOnlyStoreError(StoreIOError):
    """The file system refused a write because the store is read-only for this process (a
    read-only mount, files of another user): exit 11 like any refusal. Readers that can answer
    without writing (a search from the index as it is) catch it and say so."""
