-- Term index of memory nodes for BM25 search (docs/architecture.md §7).
-- terms holds a node's search terms in text order, repeats kept (their
-- count is the term frequency), as pkg/textutil.Terms makes them from
-- Korean and English alike: lowercased, stop words dropped, Korean
-- particles stripped. SQL cannot run that tokenizer, so rows start with
-- NULL terms and the store fills them before it searches their scope;
-- the partial index finds the rows still to fill without a scan.
ALTER TABLE memory_nodes ADD COLUMN terms text[];

CREATE INDEX memory_nodes_terms_idx ON memory_nodes USING gin (terms);

CREATE INDEX memory_nodes_unindexed_idx ON memory_nodes (tenant_id, conversation_id)
    WHERE terms IS NULL;
