-- Document frequency per indexed term, read to skip query terms that occur in half
-- the memories or more: BM25 gives them an IDF of ~0, yet scoring every row that
-- contains them is most of the cost of a query.
CREATE VIRTUAL TABLE memory_fts_vocab USING fts5vocab (memory_fts, 'row');
