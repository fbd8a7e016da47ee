package ask

import (
	"context"

	"github.com/mithub/mithub/pkg/store"
)

// BatchedStore is the store as agent-api's ask path uses it: meeting rows
// read in batches with other asks' (each still read after its ask
// arrived) and thread checkpoints saved with group commit.
type BatchedStore struct {
	*store.Store
	Checkpoints *store.CheckpointWriter
	Meetings    *store.MeetingReader
}

// SaveCheckpoint saves through the group-commit writer.
func (b BatchedStore) SaveCheckpoint(ctx context.Context, tenantID string, cp store.Checkpoint) error {
	return b.Checkpoints.Save(ctx, tenantID, cp)
}

// GetMeeting reads through the batching reader.
func (b BatchedStore) GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error) {
	return b.Meetings.Get(ctx, tenantID, id)
}
