package ask

import (
	"context"
	"strings"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
)

// BankReader reads a project's memory bank.
type BankReader interface {
	MemoryBank(ctx context.Context, tenantID, project string) ([]membank.Entry, error)
}

// StoredBank returns the MemoryBank of a meeting's project from r: each
// non-empty category under its name, in category order.
func StoredBank(r BankReader) MemoryBank {
	return func(ctx context.Context, tenantID string, m store.Meeting) (string, error) {
		entries, err := r.MemoryBank(ctx, tenantID, m.Project())
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		for _, e := range entries {
			if strings.TrimSpace(e.Content) == "" {
				continue
			}
			sb.WriteString("### " + e.Category + "\n" + strings.TrimSpace(e.Content) + "\n")
		}
		return sb.String(), nil
	}
}
