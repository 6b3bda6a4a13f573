"""``mem hooks``: wire mem into agent hosts' own configuration (``spec/cli/hooks.md``).

- ``claude-code``: hooks in Claude Code's ``settings.json`` (default ``~/.claude/settings.json``):
  ``SessionStart`` runs ``mem context`` (its output is added to the session), ``Stop`` and
  ``PreCompact`` run ``mem capture --hook`` (which reads the event's ``transcript_path``).
- ``codex``: a managed section in ``AGENTS.md`` (default ``~/.codex/AGENTS.md``) between markers,
  holding the ``mem context`` block (``mem hooks refresh codex`` rewrites it), and a
  ``[mcp_servers.mem]`` table in ``~/.codex/config.toml`` that starts ``mem mcp``.

Installing merges into what is there: a user's own settings, hooks, text and tables are kept as
they are (JSON is re-serialized with the file's indentation; the text files are only appended
to). It is idempotent: installing again with the same arguments changes no byte. Every entry mem
writes is recognizable (a ``# mem-hooks`` comment ends each hook command; markers surround the
text blocks), and the file's bytes before the first install are kept in the hooks state
(``$XDG_CONFIG_HOME/mem/hooks.json``, default ``~/.config/mem/hooks.json``). Uninstall gives the
file back byte for byte when it still is what mem wrote; if the user changed it since, mem
removes only its own entries and keeps their changes (and says so).

Pure library code: paths come from the caller (the CLI passes ``$HOME``-based defaults).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mem.format.base.errors import InvalidInputError
from mem.format.base.fsutil import atomic_write, ensure_dir

HOSTS: tuple[str, ...] = ("claude-code", "codex")
MARK = "# mem-hooks"
BEGIN = "<!-- mem:begin (managed by `mem hooks`; `mem hooks refresh codex` rewrites it) -->"
END = "<!-- mem:end -->"
TOML_BEGIN = "# >>> mem (managed by `mem hooks`) >>>"
TOML_END = "# <<< mem <<<"
CLAUDE_EVENTS: tuple[str, ...] = ("SessionStart", "Stop", "PreCompact")
DEFAULT_BUDGET = 2000
STATE_VERSION = 1


@dataclass(frozen=True)
class Paths:
    """Where each host keeps what mem changes, and where mem keeps its hooks state."""

    home: Path
    claude_settings: Path
    codex_agents: Path
    codex_config: Path
    state: Path

    @classmethod
    def defaults(cls, home: Path, env: Mapping[str, str]) -> Paths:
        xdg = env.get("XDG_CONFIG_HOME") or str(home / ".config")
        codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
        return cls(
            home=home,
            claude_settings=home / ".claude" / "settings.json",
            codex_agents=codex_home / "AGENTS.md",
            codex_config=codex_home / "config.toml",
            state=Path(xdg) / "mem" / "hooks.json",
        )


@dataclass(frozen=True)
class Wiring:
    """What the hooks run: the mem executable, the store, the scope and the context budget."""

    mem: str
    store: Path
    scope: str = "default"
    budget: int = DEFAULT_BUDGET

    def base(self) -> list[str]:
        return [self.mem, "--store", str(self.store)]

    def context_command(self) -> list[str]:
        return [*self.base(), "context", "--scope", self.scope, "--budget", str(self.budget)]

    def capture_command(self) -> list[str]:
        return [*self.base(), "--quiet", "capture", "--hook", "--scope", self.scope]

    def mcp_args(self) -> list[str]:
        return ["--store", str(self.store), "mcp", "--scope", self.scope]


@dataclass
class Change:
    """What an install or uninstall did to one file."""

    path: Path
    action: str  # "created", "updated", "unchanged", "restored", "removed", "entries-removed", "absent"
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "action": self.action, "detail": self.detail}


@dataclass
class Status:
    host: str
    files: list[dict[str, Any]] = field(default_factory=list)

    @property
    def installed(self) -> bool:
        return any(f["installed"] for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "installed": self.installed, "files": self.files}


# ---------------------------------------------------------------------------------------------
# The hooks state: the bytes of each file before mem first touched it


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _load_state(paths: Paths) -> dict[str, Any]:
    try:
        raw = paths.state.read_text("utf-8")
    except FileNotFoundError:
        return {"version": STATE_VERSION, "files": {}}
    try:
        st = json.loads(raw)
    except ValueError:
        raise InvalidInputError("the hooks state is not valid JSON", path=paths.state,
                                hint="move it away; mem then treats the files as never touched") from None
    if not isinstance(st, dict) or not isinstance(st.get("files"), dict):
        raise InvalidInputError("the hooks state is malformed", path=paths.state)
    return st


def _save_state(paths: Paths, st: dict[str, Any]) -> None:
    ensure_dir(paths.state.parent)
    atomic_write(paths.state, json.dumps(st, indent=2, sort_keys=True) + "\n")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InvalidInputError("is a directory, not a configuration file", path=path) from None


def _write(path: Path, data: bytes) -> None:
    mode = 0o644
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        ensure_dir(path.parent)
    atomic_write(path, data, mode)


def _apply(paths: Paths, st: dict[str, Any], host: str, path: Path, before: bytes | None, after: bytes) -> Change:
    """Write ``after`` (recording the original bytes on the first install) and say what happened."""
    key = str(path)
    if before == after:
        rec = st["files"].get(key)
        if rec is not None:
            rec["written"] = _sha(after)
        return Change(path, "unchanged")
    rec = st["files"].get(key)
    if rec is None:  # the first install: keep the bytes the user had
        rec = {"host": host, "original": None if before is None else base64.b64encode(before).decode("ascii")}
        st["files"][key] = rec
    _write(path, after)
    rec["written"] = _sha(after)
    return Change(path, "created" if before is None else "updated")


def _remove(st: dict[str, Any], path: Path, current: bytes | None, stripped: bytes | None) -> Change:
    """Uninstall from one file: the original bytes back when the file is still what mem wrote,
    else ``stripped`` (the file without mem's entries; None: delete it)."""
    key = str(path)
    rec = st["files"].get(key)
    if current is None:
        st["files"].pop(key, None)
        return Change(path, "absent")
    if rec is not None and rec.get("written") == _sha(current):
        orig = rec.get("original")
        st["files"].pop(key, None)
        if orig is None:
            path.unlink()
            return Change(path, "removed", "mem created it")
        _write(path, base64.b64decode(orig))
        return Change(path, "restored", "byte for byte as before the first install")
    st["files"].pop(key, None)
    if stripped is None or stripped == current:
        return Change(path, "unchanged", "no entry of mem's here")
    _write(path, stripped)
    return Change(path, "entries-removed", "the file changed since mem wrote it: only mem's entries were removed")


# ---------------------------------------------------------------------------------------------
# Claude Code settings.json


def _json_indent(text: str) -> int | str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            ws = line[: len(line) - len(stripped)]
            return "\t" if ws.startswith("\t") else len(ws)
    return 2


def _load_settings(path: Path, data: bytes | None) -> tuple[dict[str, Any], int | str, bool]:
    if data is None or not data.strip():
        return {}, 2, True
    try:
        text = data.decode("utf-8")
        obj = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(f"not valid JSON ({exc}); nothing was changed", path=path) from None
    if not isinstance(obj, dict):
        raise InvalidInputError("settings are not a JSON object; nothing was changed", path=path)
    hooks = obj.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InvalidInputError("'hooks' is not an object; nothing was changed", path=path)
    return obj, _json_indent(text), text.endswith("\n")


def _dump_settings(obj: dict[str, Any], indent: int | str, newline: bool) -> bytes:
    return (json.dumps(obj, indent=indent, ensure_ascii=False) + ("\n" if newline else "")).encode("utf-8")


def _is_ours(group: object) -> bool:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return False
    return any(isinstance(h, dict) and str(h.get("command", "")).endswith(MARK) for h in group["hooks"])


def _strip_claude(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without mem's hook groups (and without events or ``hooks`` left empty by that)."""
    out = dict(obj)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    new_hooks: dict[str, Any] = {}
    for event, groups in hooks.items():
        if isinstance(groups, list):
            kept = [g for g in groups if not _is_ours(g)]
            if kept or not any(_is_ours(g) for g in groups):
                new_hooks[event] = kept
        else:
            new_hooks[event] = groups
    if new_hooks or not any(isinstance(g, list) and any(_is_ours(x) for x in g) for g in hooks.values()):
        out["hooks"] = new_hooks
    else:
        del out["hooks"]
    return out


def claude_groups(w: Wiring) -> dict[str, dict[str, Any]]:
    """The hook group mem adds for each Claude Code event."""
    def cmd(argv: list[str]) -> str:
        return " ".join(shlex.quote(a) for a in argv) + " " + MARK

    ctx = {"type": "command", "command": cmd(w.context_command()), "timeout": 30}
    cap = {"type": "command", "command": cmd(w.capture_command()), "timeout": 120}
    return {"SessionStart": {"hooks": [ctx]}, "Stop": {"hooks": [cap]}, "PreCompact": {"hooks": [cap]}}


def install_claude(paths: Paths, w: Wiring, settings: Path | None = None) -> list[Change]:
    path = settings or paths.claude_settings
    st = _load_state(paths)
    before = _read(path)
    obj, indent, newline = _load_settings(path, before)
    obj = _strip_claude(obj)  # a reinstall replaces mem's own groups (e.g. another scope)
    hooks = obj.setdefault("hooks", {})
    for event, group in claude_groups(w).items():
        groups = hooks.get(event)
        if groups is None:
            groups = hooks[event] = []
        elif not isinstance(groups, list):
            raise InvalidInputError(f"hooks.{event} is not a list; nothing was changed", path=path)
        groups.append(group)
    change = _apply(paths, st, "claude-code", path, before, _dump_settings(obj, indent, newline))
    _save_state(paths, st)
    return [change]


def uninstall_claude(paths: Paths, settings: Path | None = None) -> list[Change]:
    path = settings or paths.claude_settings
    st = _load_state(paths)
    current = _read(path)
    stripped: bytes | None = current
    if current is not None:
        obj, indent, newline = _load_settings(path, current)
        stripped = _dump_settings(_strip_claude(obj), indent, newline)
        if not any(_is_ours(g) for gs in (obj.get("hooks") or {}).values() if isinstance(gs, list) for g in gs):
            stripped = current
    change = _remove(st, path, current, stripped)
    _save_state(paths, st)
    return [change]


def status_claude(paths: Paths, settings: Path | None = None) -> Status:
    path = settings or paths.claude_settings
    data = _read(path)
    events: list[str] = []
    commands: list[str] = []
    if data is not None:
        try:
            obj, _, _ = _load_settings(path, data)
        except InvalidInputError:
            obj = {}
        for event, groups in (obj.get("hooks") or {}).items():
            for g in groups if isinstance(groups, list) else []:
                if _is_ours(g):
                    events.append(event)
                    commands += [h["command"] for h in g["hooks"] if isinstance(h, dict) and "command" in h]
    return Status("claude-code", [_file_status(paths, path, data, bool(events), {"events": events, "commands": commands})])


def _file_status(paths: Paths, path: Path, data: bytes | None, installed: bool, extra: dict[str, Any]) -> dict[str, Any]:
    rec = _load_state(paths)["files"].get(str(path))
    return {
        "path": str(path),
        "exists": data is not None,
        "installed": installed,
        "changed_since_install": bool(rec and data is not None and rec.get("written") != _sha(data)),
        **extra,
    }


# ---------------------------------------------------------------------------------------------
# Codex: AGENTS.md section and config.toml table (text blocks between markers)


def _append_block(text: str, block: str) -> str:
    if not text:
        return block
    sep = "\n" if text.endswith("\n") else "\n\n"
    if text.endswith("\n\n"):
        sep = ""
    return text + sep + block


def _strip_block(text: str, begin: str, end: str) -> str:
    """``text`` without the block from ``begin`` to ``end`` (and the blank line mem put before it)."""
    start = text.find(begin)
    if start < 0:
        return text
    stop = text.find(end, start)
    stop = len(text) if stop < 0 else stop + len(end)
    if text[stop : stop + 1] == "\n":
        stop += 1
    head = text[:start]
    if head.endswith("\n\n"):
        head = head[:-1]
    return head + text[stop:]


def agents_block(context: str) -> str:
    return f"{BEGIN}\n{context.rstrip(chr(10))}\n{END}\n"


def toml_block(w: Wiring) -> str:
    args = ", ".join(json.dumps(a) for a in w.mcp_args())
    return (
        f"{TOML_BEGIN}\n[mcp_servers.mem]\ncommand = {json.dumps(w.mem)}\nargs = [{args}]\n{TOML_END}\n"
    )


def _decode(path: Path, data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError("not UTF-8 text; nothing was changed", path=path) from None


def _check_toml(path: Path, text: str, *, ours: bool) -> None:
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        what = "would not be valid TOML with mem's table" if ours else "is not valid TOML"
        raise InvalidInputError(f"{what} ({exc}); nothing was changed", path=path) from None
    if not ours and isinstance(doc.get("mcp_servers"), dict) and "mem" in doc["mcp_servers"]:
        raise InvalidInputError(
            "already has an [mcp_servers.mem] table that mem did not write; nothing was changed",
            path=path, hint="remove or rename it, then install again",
        )


def install_codex(paths: Paths, w: Wiring, context: str, agents: Path | None = None) -> list[Change]:
    agents_path = agents or paths.codex_agents
    st = _load_state(paths)
    changes: list[Change] = []
    # config.toml: checked first, so that a refusal changes nothing anywhere
    cfg_before = _read(paths.codex_config)
    cfg_text = _strip_block(_decode(paths.codex_config, cfg_before), TOML_BEGIN, TOML_END)
    _check_toml(paths.codex_config, cfg_text, ours=False)
    cfg_after = _append_block(cfg_text, toml_block(w))
    _check_toml(paths.codex_config, cfg_after, ours=True)
    ag_before = _read(agents_path)
    ag_text = _strip_block(_decode(agents_path, ag_before), BEGIN, END)
    ag_after = _append_block(ag_text, agents_block(context))
    changes.append(_apply(paths, st, "codex", agents_path, ag_before, ag_after.encode("utf-8")))
    rec = st["files"].get(str(agents_path))
    if rec is not None:
        rec["context"] = {"scope": w.scope, "budget": w.budget}
    changes.append(_apply(paths, st, "codex", paths.codex_config, cfg_before, cfg_after.encode("utf-8")))
    _save_state(paths, st)
    return changes


def codex_context_args(paths: Paths, agents: Path | None = None) -> tuple[str, int] | None:
    """The scope and budget the AGENTS.md section was installed with (None: not installed)."""
    rec = _load_state(paths)["files"].get(str(agents or paths.codex_agents))
    ctx = rec.get("context") if isinstance(rec, dict) else None
    if not isinstance(ctx, dict):
        return None
    return str(ctx.get("scope") or "default"), int(ctx.get("budget") or DEFAULT_BUDGET)


def refresh_codex(paths: Paths, context: str, agents: Path | None = None) -> list[Change]:
    """Rewrite the managed AGENTS.md section with a new context block (nothing else changes)."""
    agents_path = agents or paths.codex_agents
    before = _read(agents_path)
    text = _decode(agents_path, before)
    if BEGIN not in text:
        raise InvalidInputError("has no mem section to refresh", path=agents_path, hint="run `mem hooks install codex` first")
    start = text.find(BEGIN)
    stop = text.find(END, start)
    stop = len(text) if stop < 0 else stop + len(END) + (1 if text[stop + len(END) : stop + len(END) + 1] == "\n" else 0)
    after = text[:start] + agents_block(context) + text[stop:]
    st = _load_state(paths)
    change = _apply(paths, st, "codex", agents_path, before, after.encode("utf-8"))
    _save_state(paths, st)
    return [change]


def uninstall_codex(paths: Paths, agents: Path | None = None) -> list[Change]:
    agents_path = agents or paths.codex_agents
    st = _load_state(paths)
    changes = []
    for path, begin, end in ((agents_path, BEGIN, END), (paths.codex_config, TOML_BEGIN, TOML_END)):
        current = _read(path)
        stripped = None if current is None else _strip_block(_decode(path, current), begin, end).encode("utf-8")
        changes.append(_remove(st, path, current, stripped))
    _save_state(paths, st)
    return changes


def status_codex(paths: Paths, agents: Path | None = None) -> Status:
    agents_path = agents or paths.codex_agents
    out = Status("codex")
    for path, begin in ((agents_path, BEGIN), (paths.codex_config, TOML_BEGIN)):
        data = _read(path)
        text = "" if data is None else data.decode("utf-8", "replace")
        out.files.append(_file_status(paths, path, data, begin in text, {}))
    return out


def check_host(host: str) -> str:
    if host not in HOSTS:
        raise InvalidInputError(f"unknown host {host!r}; use one of {', '.join(HOSTS)}")
    return host


def environment_paths() -> Paths:
    """The default paths for the current user (``HOME``, ``XDG_CONFIG_HOME``, ``CODEX_HOME``)."""
    return Paths.defaults(Path(os.path.expanduser("~")), os.environ)
