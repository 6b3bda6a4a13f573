#!/usr/bin/env python3
"""Bridge `mem consolidate` to any LLM command-line tool that reads a prompt on stdin.

    mem consolidate --summarizer 'python3 examples/summarizers/llm_cli.py -- llm -m gpt-4o-mini'
    mem consolidate --summarizer 'python3 examples/summarizers/llm_cli.py -- ollama run llama3.2'

Everything after `--` is the model command (run without a shell). This script builds a prompt
from the window document (spec/consolidate.md), runs the command with the prompt on stdin,
takes the first JSON object (or the word NONE) out of the model's reply, and prints it. It does
not judge the answer: mem validates it and refuses anything off-schema, too short or empty, so a
bad generation never reaches the store. Exit status 1 (a refusal in mem) when the model command
fails or replies with neither JSON nor NONE.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROMPT = """You maintain the long-term memory of a personal assistant.
Below is a window of a conversation (oldest first). Episodes marked [context] were already
summarized; use them only to understand the others.

Answer with ONE JSON object and nothing else:
{{"summary": "<{min_summary}+ characters: what happened in the new episodes>",
 "facts": ["<durable fact about the user, third person>", ...],
 "supersedes": [{{"id": "<id of an existing memory that is now wrong>",
                 "content": "<the corrected memory>",
                 "reason": "<how you resolved the contradiction>"}}]}}
Only durable facts (preferences, relationships, plans, biographical details); no greetings, no
transient app state, no tool errors. If nothing durable happened, answer exactly: NONE

Existing memories (newest first):
{existing}

Conversation window:
{episodes}
"""


def build_prompt(window: dict) -> str:  # type: ignore[type-arg]
    existing = "\n".join(
        f"- [{r['id']}] ({r['kind']}) {r['content'].strip()}" for r in window["existing"]
    )
    episodes = "\n".join(
        f"- {'[context] ' if e['overlap'] else ''}{e.get('role') or 'turn'}: {e['content'].strip()}"
        for e in window["episodes"]
    )
    return PROMPT.format(
        min_summary=window["limits"]["min_summary_chars"],
        existing=existing or "(none)",
        episodes=episodes,
    )


def extract(reply: str) -> str | None:
    text = reply.strip()
    if text == "NONE" or text.endswith("\nNONE"):
        return "NONE"
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(obj, dict):
            return json.dumps(obj, ensure_ascii=False)
        start = text.find("{", start + 1)
    return None


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.stderr.write("usage: llm_cli.py -- MODEL-COMMAND [ARGS...]\n")
        return 2
    command = argv[argv.index("--") + 1 :]
    window = json.load(sys.stdin)
    proc = subprocess.run(command, input=build_prompt(window), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(f"model command failed ({proc.returncode}): {proc.stderr[-500:]}\n")
        return 1
    answer = extract(proc.stdout)
    if answer is None:
        sys.stderr.write("the model replied with neither JSON nor NONE\n")
        return 1
    sys.stdout.write(answer + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
