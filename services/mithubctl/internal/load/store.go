package load

import (
	"context"
	"fmt"

	"github.com/mithub/mithub/pkg/store"
)

// PGStore reads transcripts and PRs of one tenant from PostgreSQL.
type PGStore struct {
	st       *store.Store
	tenantID string
}

// OpenStore connects to the API's database and resolves apiKey to its
// tenant. Close it when done.
func OpenStore(ctx context.Context, databaseURL, apiKey string, opts store.Options) (*PGStore, error) {
	if opts.MaxConns == 0 {
		opts.MaxConns = 4
	}
	// The load generator reads the database directly, so it is trusted
	// with every tenant's rows: it resolves the dev key (load runs against
	// a dev-mode agent-api) like any other.
	opts.AcceptDevKeys = true
	st, err := store.Open(ctx, databaseURL, opts)
	if err != nil {
		return nil, err
	}
	t, err := st.Authenticate(ctx, apiKey)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("resolve the API key's tenant: %w", err)
	}
	return &PGStore{st: st, tenantID: t.ID}, nil
}

// Close closes the pool.
func (s *PGStore) Close() { s.st.Close() }

// Segments implements Store.
func (s *PGStore) Segments(ctx context.Context, meetingID string) ([]StoredSegment, error) {
	ts, err := s.st.ListTranscripts(ctx, s.tenantID, meetingID, -1, 1_000_000)
	if err != nil {
		return nil, err
	}
	out := make([]StoredSegment, len(ts))
	for i, t := range ts {
		out[i] = StoredSegment{SegmentID: t.SegmentID, Seq: t.Seq}
	}
	return out, nil
}

// PRStatuses implements Store.
func (s *PGStore) PRStatuses(ctx context.Context, meetingID string) (map[string]string, error) {
	prs, err := s.st.ListMeetingPRs(ctx, s.tenantID, meetingID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(prs))
	for _, pr := range prs {
		out[pr.ID] = pr.Status
	}
	return out, nil
}
