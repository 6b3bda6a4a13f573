"""The store on disk: opening, reading and writing records under the writer lock, listing, history, the read log."""
