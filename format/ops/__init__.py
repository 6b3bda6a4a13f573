"""Whole-store operations: compact, consolidate, diff, git sync and set-up, shell-completion values, `mem why`."""
