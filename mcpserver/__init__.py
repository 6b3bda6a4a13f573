"""The MCP server: a face over the library, beside the CLI."""
