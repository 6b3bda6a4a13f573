"""Search: the hybrid engine, the calibrated relevance score, the reranker, the lean one-shot lexical path, `mem eval`, `mem context`."""
