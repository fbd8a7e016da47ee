package store

import "context"

// SaveCheckpointBatch exposes the batched insert to the tests.
func (s *Store) SaveCheckpointBatch(ctx context.Context, cps []TenantCheckpoint) ([]bool, error) {
	return s.saveCheckpoints(ctx, cps)
}
