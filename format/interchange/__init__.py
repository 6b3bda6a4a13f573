"""Moving memories in and out: importers, exporters, JSONL and Markdown export, the import applier."""
