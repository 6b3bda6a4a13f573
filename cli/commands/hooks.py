"""``mem hooks``: install mem into agent hosts (Claude Code hooks; Codex AGENTS.md + MCP entry)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from mem.cli.common import emit_json, info, open_store

ACTIONS = ("install", "uninstall", "status", "refresh")


def _mem_exe() -> str:
    """The absolute path of this mem executable (hooks run outside the user's shell set-up)."""
    argv0 = Path(sys.argv[0])
    if argv0.name.startswith("mem") and argv0.exists():
        return str(argv0.resolve())
    return shutil.which("mem") or "mem"


def register(app: typer.Typer) -> None:
    @app.command("hooks")
    def hooks_(
        action: Annotated[str, typer.Argument(help="install, uninstall, status or refresh.", show_default=False)],
        host: Annotated[str | None, typer.Argument(help="claude-code or codex (status: both when omitted).", show_default=False)] = None,
        scope: Annotated[str, typer.Option("--scope", help="The scope the hooks read and capture into.")] = "default",
        budget: Annotated[int, typer.Option("--budget", min=1, help="Token budget of the context block the hooks put in the prompt.")] = 2000,
        settings: Annotated[Path | None, typer.Option("--settings", help="Claude Code settings file (default ~/.claude/settings.json; a project's .claude/settings.json works too).")] = None,
        agents_file: Annotated[Path | None, typer.Option("--agents-file", help="Codex AGENTS.md (default ~/.codex/AGENTS.md, or a project's AGENTS.md).")] = None,
        json_out: Annotated[bool, typer.Option("--json", help="Print what was done as JSON.")] = False,
    ) -> None:
        """Wire mem into an agent host, merged into its own configuration (idempotent).

        claude-code: SessionStart runs `mem context`; Stop and PreCompact capture the session's
        transcript. codex: a managed section in AGENTS.md holds the context block (`refresh`
        rewrites it) and config.toml gets the [mcp_servers.mem] entry. `uninstall` gives each
        file back byte for byte (or, if you changed it since, removes only mem's entries).
        """
        from mem.format.base.errors import InvalidInputError
        from mem.format.capture import hooks
        from mem.format.rules import ids

        if action not in ACTIONS:
            raise InvalidInputError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        paths = hooks.environment_paths()
        if action == "status":
            wanted = [hooks.check_host(host)] if host else list(hooks.HOSTS)
            out = []
            for h in wanted:
                st = hooks.status_claude(paths, settings) if h == "claude-code" else hooks.status_codex(paths, agents_file)
                out.append(st.to_dict())
            if json_out:
                emit_json(out)
                return
            for st_d in out:
                for f in st_d["files"]:
                    state = "installed" if f["installed"] else ("not installed" if f["exists"] else "no file")
                    note = " (changed since install)" if f["changed_since_install"] else ""
                    events = f" [{', '.join(f['events'])}]" if f.get("events") else ""
                    sys.stdout.write(f"{st_d['host']:<12} {state:<13} {f['path']}{events}{note}\n")
            return
        if host is None:
            raise InvalidInputError(f"`mem hooks {action}` needs a host: {', '.join(hooks.HOSTS)}")
        hooks.check_host(host)
        if action == "uninstall":
            changes = hooks.uninstall_claude(paths, settings) if host == "claude-code" else hooks.uninstall_codex(paths, agents_file)
        else:
            from mem.format.search.context import ContextArgs, build

            store = open_store()
            if action == "refresh":
                if host != "codex":
                    raise InvalidInputError("only the codex section is refreshed (Claude Code runs `mem context` itself)")
                got = hooks.codex_context_args(paths, agents_file)
                if got is None:
                    raise InvalidInputError("no mem section installed for codex here", hint="run `mem hooks install codex` first")
                scope, budget = got
            ids.check_scope(scope)
            wiring = hooks.Wiring(mem=_mem_exe(), store=store.root.resolve(), scope=scope, budget=budget)
            if host == "claude-code":
                changes = hooks.install_claude(paths, wiring, settings)
            else:
                context = build(store, ContextArgs(scopes=(scope,), budget=budget)).text
                if action == "refresh":
                    changes = hooks.refresh_codex(paths, context, agents_file)
                else:
                    changes = hooks.install_codex(paths, wiring, context, agents_file)
        if json_out:
            emit_json([c.to_dict() for c in changes])
            return
        for c in changes:
            sys.stdout.write(f"{c.action:<16} {c.path}" + (f"  ({c.detail})" if c.detail else "") + "\n")
        if action == "install" and host == "codex":
            info("refresh the AGENTS.md section when memories change: mem hooks refresh codex (e.g. from cron)")

    _ = hooks_
