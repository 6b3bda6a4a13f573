# bash completion for mem. Generated from the CLI by completions/generate.py; do not edit.
# Install: mem completion install   (or: mem completion bash > <file>, see below)
# Load: source this file, or put it in ~/.local/share/bash-completion/completions/mem
_mem_values() {
    # $1: scopes|kinds|tags; $2: the --store given on the line, if any
    if [[ -n "$2" ]]; then
        command mem --store "$2" __complete-values "$1" 2>/dev/null
    else
        command mem __complete-values "$1" 2>/dev/null
    fi
}

_mem_completion() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" store="" i w
    (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"
    COMPREPLY=()
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            --store|-s) (( i++ )); store="${COMP_WORDS[i]}";;
            --lock-timeout) (( i++ ));;
            -*) ;;
            *) cmd="$w"; break;;
        esac
    done
    for (( i = 1; i < COMP_CWORD - 1; i++ )); do
        [[ "${COMP_WORDS[i]}" == --store ]] && store="${COMP_WORDS[i+1]}"
    done
    store="${store/#\~/$HOME}"
    if [[ -z "$cmd" ]]; then
        case "$prev" in
            --store|-s) COMPREPLY=($(compgen -d -- "$cur")); return;;
            --lock-timeout) return;;
        esac
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W '--store -s --quiet -q --no-color --lock-timeout --no-pager --json-errors --version -V --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W 'init add show list edit update supersede accept reject forget search eval log why stats capture context review import export consolidate verify diff sync compact rebuild embed repair mcp hooks completion help' -- "$cur"))
        fi
        return
    fi
    case "$cmd" in
        init)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--git --hook --json --help' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        add)
            case "$prev" in
                --file|-f) COMPREPLY=($(compgen -f -- "$cur")); return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --tag|-t) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --confidence) return;;
                --status) COMPREPLY=($(compgen -W 'active candidate superseded rejected all' -- "$cur")); return;;
                --derived-from) return;;
                --valid-from) return;;
                --valid-to) return;;
                --reason) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--file -f --scope --kind --tag -t --confidence --status --derived-from --valid-from --valid-to --allow-forgotten --reason --allow-secret --json --help' -- "$cur"))
            fi
            ;;
        show)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --raw --json --help' -- "$cur"))
            fi
            ;;
        list)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --status) COMPREPLY=($(compgen -W 'active candidate superseded rejected all' -- "$cur")); return;;
                --tag|-t) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --as-of) return;;
                --known-at) return;;
                --limit|-n) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --kind --status --tag -t --as-of --known-at --limit -n --json --help' -- "$cur"))
            fi
            ;;
        edit)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--allow-forgotten --allow-secret --json --help' -- "$cur"))
            fi
            ;;
        update)
            case "$prev" in
                --content|-c) return;;
                --file|-f) COMPREPLY=($(compgen -f -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --confidence) return;;
                --tag|-t) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --untag) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --valid-from) return;;
                --valid-to) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--content -c --file -f --kind --scope --confidence --tag -t --untag --valid-from --valid-to --allow-forgotten --allow-secret --json --help' -- "$cur"))
            fi
            ;;
        supersede)
            case "$prev" in
                --file|-f) COMPREPLY=($(compgen -f -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --tag|-t) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --confidence) return;;
                --valid-from) return;;
                --reason) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--file -f --kind --tag -t --confidence --valid-from --reason --allow-secret --json --help' -- "$cur"))
            fi
            ;;
        accept)
            case "$prev" in
                --reason) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--reason --json --help' -- "$cur"))
            fi
            ;;
        reject)
            case "$prev" in
                --reason) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--reason --json --help' -- "$cur"))
            fi
            ;;
        forget)
            case "$prev" in
                --source) return;;
                --transcript) return;;
                --reason) return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--source --transcript --all --reason --scope --dry-run -n --yes -y --json --help' -- "$cur"))
            fi
            ;;
        search)
            case "$prev" in
                --mode|-m) COMPREPLY=($(compgen -W 'hybrid lexical vector' -- "$cur")); return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --tag|-t) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values tags "$store")" -- "$cur")); return;;
                --status) COMPREPLY=($(compgen -W 'active candidate superseded rejected all' -- "$cur")); return;;
                --as-of) return;;
                --known-at) return;;
                -k|--limit) return;;
                --min-score) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--mode -m --scope --kind --tag -t --status --as-of --known-at -k --limit --json --explain --batch --rerank --no-rerank --min-score --help' -- "$cur"))
            fi
            ;;
        eval)
            case "$prev" in
                -k|--k) return;;
                --mode|-m) COMPREPLY=($(compgen -W 'hybrid lexical vector' -- "$cur")); return;;
                --fail-under) return;;
                --min-score) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '-k --k --mode -m --fail-under --min-score --json --help' -- "$cur"))
            fi
            ;;
        log)
            case "$prev" in
                --id) return;;
                --op) return;;
                --limit|-n) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--id --op --limit -n --verify --json --help' -- "$cur"))
            fi
            ;;
        why)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--json --help' -- "$cur"))
            fi
            ;;
        stats)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--json --help' -- "$cur"))
            fi
            ;;
        capture)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --scope-from) return;;
                --format|-F) COMPREPLY=($(compgen -W 'auto jsonl text skales windieos claude-code codex chatgpt json' -- "$cur")); return;;
                --source-name) return;;
                --interval) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --scope-from --format -F --source-name --dry-run -n --rescan --no-embed --json --watch --interval --hook --help' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        context)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --query|-q) return;;
                --budget|-b) return;;
                --format|-F) return;;
                --session) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --query -q --budget -b --format -F --include-candidates --omitted --session --help' -- "$cur"))
            fi
            ;;
        review)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --sort) return;;
                --limit|-n) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--accept --reject --list --scope --kind --sort --limit -n --json --help' -- "$cur"))
            fi
            ;;
        import)
            case "$prev" in
                --from) COMPREPLY=($(compgen -W 'jsonl csv windieos matrixos skales soulofwaifu mem0 basic-memory claude-code letta chatgpt-memories' -- "$cur")); return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --scope-map) return;;
                --timezone) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--from --scope --scope-map --timezone --dry-run -n --no-embed --allow-forgotten --allow-secret --json --help' -- "$cur"))
            fi
            ;;
        export)
            case "$prev" in
                --format|-f) COMPREPLY=($(compgen -W 'jsonl csv markdown mem0 basic-memory claude-md' -- "$cur")); return;;
                --output|-o) COMPREPLY=($(compgen -f -- "$cur")); return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --status) COMPREPLY=($(compgen -W 'active candidate superseded rejected all' -- "$cur")); return;;
                --since) return;;
                --until) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--format -f --output -o --scope --kind --status --since --until --no-tombstones --json --help' -- "$cur"))
            fi
            ;;
        consolidate)
            case "$prev" in
                --summarizer) return;;
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --kind) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values kinds "$store")" -- "$cur")); return;;
                --window|-n) return;;
                --overlap) return;;
                --min-new) return;;
                --max-windows) return;;
                --timeout) return;;
                --min-chars) return;;
                --min-fact-chars) return;;
                --existing) return;;
                --confidence) return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--summarizer --scope --kind --window -n --overlap --min-new --max-windows --timeout --min-chars --min-fact-chars --existing --confidence --trust --dry-run --preview --no-embed --json --help' -- "$cur"))
            fi
            ;;
        verify)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--full --no-index --forgotten --history --json --help' -- "$cur"))
            else
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        diff)
            case "$prev" in
                --textconv) COMPREPLY=($(compgen -f -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--stat --json --textconv --help' -- "$cur"))
            fi
            ;;
        sync)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--no-push --json --help' -- "$cur"))
            fi
            ;;
        compact)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--dry-run --json --help' -- "$cur"))
            fi
            ;;
        rebuild)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--lexical --vectors --json --help' -- "$cur"))
            fi
            ;;
        embed)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--json --help' -- "$cur"))
            fi
            ;;
        repair)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--dry-run -n --adopt --json --help' -- "$cur"))
            fi
            ;;
        mcp)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --store|-s) COMPREPLY=($(compgen -d -- "$cur")); return;;
                --remember-as) COMPREPLY=($(compgen -W 'candidate active' -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --store -s --remember-as --read-only --warm --lazy --help' -- "$cur"))
            fi
            ;;
        hooks)
            case "$prev" in
                --scope) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(_mem_values scopes "$store")" -- "$cur")); return;;
                --budget) return;;
                --settings) COMPREPLY=($(compgen -f -- "$cur")); return;;
                --agents-file) COMPREPLY=($(compgen -f -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--scope --budget --settings --agents-file --json --help' -- "$cur"))
            fi
            ;;
        completion)
            case "$prev" in
                --shell) COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur")); return;;
            esac
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--shell --help' -- "$cur"))
            else
                COMPREPLY=($(compgen -W 'bash zsh fish install' -- "$cur"))
            fi
            ;;
        help)
            if [[ "$cur" == -* ]]; then
                COMPREPLY=($(compgen -W '--help' -- "$cur"))
            fi
            ;;
    esac
}

complete -F _mem_completion mem
