"""The store declaration (``memstore.json``) and the store configuration (``config.toml``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import StoreInvalidError, UnsupportedFormatError
from .tomlplain import plain_tables

DECLARATION_FILE = "memstore.json"
CONFIG_FILE = "config.toml"
FORMAT_NAME = "mem-store"
FORMAT_VERSION = 1
#: Extensions this implementation understands (none yet beyond the core format).
KNOWN_EXTENSIONS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Declaration:
    format: str
    version: int
    extensions: tuple[dict[str, Any], ...]
    created_at: str | None

    def to_json(self) -> str:
        obj: dict[str, Any] = {
            "format": self.format,
            "version": self.version,
            "extensions": list(self.extensions),
        }
        if self.created_at:
            obj["created_at"] = self.created_at
        return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def read_declaration(root: Path) -> Declaration:
    path = root / DECLARATION_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise StoreInvalidError(
            "the store declaration is missing", path=path, hint="run `mem init` to create a store"
        ) from None
    except OSError as exc:
        raise StoreInvalidError(f"cannot read the declaration: {exc.strerror}", path=path) from None
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise StoreInvalidError(f"the declaration is not valid JSON: {exc}", path=path) from None
    if not isinstance(obj, dict):
        raise StoreInvalidError("the declaration is not a JSON object", path=path)
    if obj.get("format") != FORMAT_NAME:
        raise UnsupportedFormatError(
            f"format {obj.get('format')!r} is not {FORMAT_NAME!r}", path=path
        )
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise StoreInvalidError("the declaration's version is not an integer", path=path)
    if version != FORMAT_VERSION:
        raise UnsupportedFormatError(
            f"format version {version} is not supported by this mem (it reads version {FORMAT_VERSION})",
            path=path,
            hint="upgrade mem" if version > FORMAT_VERSION else None,
        )
    exts = obj.get("extensions", [])
    if not isinstance(exts, list):
        raise StoreInvalidError("extensions must be a list", path=path)
    for ext in exts:
        if not isinstance(ext, dict) or not isinstance(ext.get("name"), str):
            raise StoreInvalidError("each extension must be an object with a name", path=path)
        if ext.get("must_understand", True) and ext["name"] not in KNOWN_EXTENSIONS:
            raise UnsupportedFormatError(
                f"the store uses the extension {ext['name']!r}, which this mem does not understand",
                path=path,
                hint="upgrade mem, or use a tool that knows this extension",
            )
    created = obj.get("created_at")
    return Declaration(FORMAT_NAME, version, tuple(exts), created if isinstance(created, str) else None)


@dataclass
class Config:
    """Settings of a store. Unknown sections are kept for the parts of mem that read them."""

    embedder: dict[str, Any] = field(default_factory=dict)
    verify: dict[str, Any] = field(default_factory=dict)
    search: dict[str, Any] = field(default_factory=dict)
    capture: dict[str, Any] = field(default_factory=dict)
    permissions: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def file_mode(self) -> int:
        v = self.permissions.get("file_mode", "0600")
        return int(str(v), 8)

    @property
    def dir_mode(self) -> int:
        v = self.permissions.get("dir_mode", "0700")
        return int(str(v), 8)


DEFAULT_CONFIG = """\
# mem store configuration. Every key is optional; see spec/format.md, "Configuration".

[embedder]
# provider = "minilm"   # the default offline model; "hashing" is for tests only
# threads = 1           # ONNX threads; on a busy 2-core machine one thread is fastest

[search]
# default_k = 10

[verify]
# Lower or silence a finding, as `git fsck` allows:
# severity = { W101 = "ignore", W301 = "error" }
"""


def read_config(root: Path) -> Config:
    path = root / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise StoreInvalidError(f"cannot read the configuration: {exc.strerror}", path=path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreInvalidError(f"the configuration is not valid TOML: {exc}", path=path) from None
    tables = plain_tables(text)  # the file `mem init` writes: no tomllib import needed
    if tables is not None:
        data: dict[str, Any] = {name: {} for name in tables}
    else:
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise StoreInvalidError(f"the configuration is not valid TOML: {exc}", path=path) from None

    def sect(name: str) -> dict[str, Any]:
        v = data.get(name, {})
        if not isinstance(v, dict):
            raise StoreInvalidError(f"[{name}] must be a table", path=path)
        return v

    return Config(
        embedder=sect("embedder"),
        verify=sect("verify"),
        search=sect("search"),
        capture=sect("capture"),
        permissions=sect("permissions"),
        raw=data,
    )
