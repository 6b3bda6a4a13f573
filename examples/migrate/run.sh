#!/usr/bin/env bash
# A worked migration: export a store, transform it with a short script, re-import it.
#   examples/migrate/run.sh [WORKDIR]      (needs `mem` on PATH)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
old="$work/old-store" new="$work/new-store"
rm -rf "$old" "$new"

mem init "$old" >/dev/null
mem --store "$old" add "Allergic to peanuts" --scope personal --kind fact >/dev/null
mem --store "$old" add "Prefers window seats" --scope personal --kind preference >/dev/null
mem --store "$old" add "Standup is at 9:30" --scope work --kind event >/dev/null
scratch=$(mem --store "$old" add "scratch note, not worth keeping" --scope personal)
gone=$(mem --store "$old" add "Old phone number 555-0100" --scope personal --kind contact)
mem --store "$old" forget "$gone" --yes --reason "changed number" >/dev/null

# 1. export everything (records and tombstones) as JSON Lines
mem --store "$old" export -o "$work/export.jsonl"
# 2. transform: rename the scope "personal" to "alice", tag every record, drop notes
python3 "$here/transform.py" --rename personal=alice --tag migrated --drop-kind note \
    < "$work/export.jsonl" > "$work/transformed.jsonl"
# 3. import into a new store (a second run adds nothing)
mem init "$new" >/dev/null
mem --store "$new" import "$work/transformed.jsonl"
mem --store "$new" import "$work/transformed.jsonl"
# the forgotten number stays forgotten in the new store, under its new scope
echo '{"content": "Old phone number 555-0100", "scope": "alice"}' | mem --store "$new" import - || true
mem --store "$new" list --scope alice --scope work
echo "dropped: $scratch" >&2
