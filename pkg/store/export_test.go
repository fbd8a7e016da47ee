package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// SaveCheckpointBatch exposes the batched insert to the tests.
func (s *Store) SaveCheckpointBatch(ctx context.Context, cps []TenantCheckpoint) ([]bool, error) {
	return s.saveCheckpoints(ctx, cps)
}

// ExplainTenantTopicSearch returns the plan of the tenant-wide pgvector
// nearest-neighbour query, one line per row, with sequential scans and
// sorts disabled in its transaction. On a small table, or for a tenant
// with few topics, the planner rightly prefers the tenant index and an
// exact sort; the question here is whether an index can deliver the
// query's order, which only the HNSW cosine index can.
func (s *Store) ExplainTenantTopicSearch(ctx context.Context, tenantID string, query []float32, k int) ([]string, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `EXPLAIN `+pgvectorQuery(false), pgvector.NewVector(query), tenantID, k)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// TopicIndexDef returns the definition of the named index on topics in
// the store's schema, "" when there is none.
func (s *Store) TopicIndexDef(ctx context.Context, name string) (string, error) {
	var def string
	err := s.pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'topics' AND indexname = $1`, name).Scan(&def)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return def, err
}
