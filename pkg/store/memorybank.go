package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/mithub/mithub/pkg/membank"
)

// validateProject is membank.ValidateProject.
func validateProject(p string) error { return membank.ValidateProject(p) }

func validateEntry(project, category, content string) error {
	if err := validateProject(project); err != nil {
		return err
	}
	if err := membank.ValidateCategory(category); err != nil {
		return err
	}
	return cleanText("content", content, membank.MaxContentLen)
}

// MemoryBank returns the project's stored categories in order; categories
// never written are left out.
func (s *Store) MemoryBank(ctx context.Context, tenantID, project string) ([]membank.Entry, error) {
	if err := validateProject(project); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT project, category, content, updated_at FROM memory_bank
		WHERE tenant_id = $1 AND project = $2 ORDER BY category`, tenantID, project)
	if err != nil {
		return nil, fmt.Errorf("read memory bank %s: %w", project, translate(err))
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[membank.Entry])
	if err != nil {
		return nil, fmt.Errorf("read memory bank %s: %w", project, translate(err))
	}
	return es, nil
}

// MemoryEntryOf returns one category; a category never written is
// ErrNotFound.
func (s *Store) MemoryEntryOf(ctx context.Context, tenantID, project, category string) (membank.Entry, error) {
	if err := validateEntry(project, category, ""); err != nil {
		return membank.Entry{}, err
	}
	rows, err := s.pool.Query(ctx, `SELECT project, category, content, updated_at FROM memory_bank
		WHERE tenant_id = $1 AND project = $2 AND category = $3`, tenantID, project, category)
	if err != nil {
		return membank.Entry{}, fmt.Errorf("read memory bank %s/%s: %w", project, category, translate(err))
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[membank.Entry])
	if err != nil {
		return membank.Entry{}, fmt.Errorf("read memory bank %s/%s: %w", project, category, translate(err))
	}
	return e, nil
}

// PutMemoryEntry replaces one category's content and tells listeners
// (ListenMemoryBank) in the same transaction.
func (s *Store) PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (membank.Entry, error) {
	if err := validateEntry(project, category, content); err != nil {
		return membank.Entry{}, err
	}
	var e membank.Entry
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `INSERT INTO memory_bank (tenant_id, project, category, content)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (tenant_id, project, category) DO UPDATE SET content = EXCLUDED.content, updated_at = now()
			RETURNING project, category, content, updated_at`, tenantID, project, category, content)
		if err != nil {
			return err
		}
		if e, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[membank.Entry]); err != nil {
			return err
		}
		return notifyMemoryBank(ctx, tx, tenantID, project)
	})
	if err != nil {
		return membank.Entry{}, fmt.Errorf("write memory bank %s/%s: %w", project, category, translate(err))
	}
	return e, nil
}

// MergeMemory updates categories of a project in one transaction: each
// category's row is locked (created empty if missing), merge computes the
// new contents from the current ones, and the results are stored. Two
// merges of the same category run one after the other, so neither loses
// the other's update; merges of different categories run in parallel.
func (s *Store) MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge membank.Merger) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		return mergeCategories(ctx, tx, tenantID, project, categories, merge)
	})
	if err != nil {
		return fmt.Errorf("merge memory bank %s: %w", project, translate(err))
	}
	return nil
}

// mergeCategories locks the categories in a fixed order (so concurrent
// merges cannot deadlock), applies merge and writes what changed.
func mergeCategories(ctx context.Context, tx pgx.Tx, tenantID, project string, categories []string, merge membank.Merger) error {
	if err := validateProject(project); err != nil {
		return err
	}
	cats := slices.Clone(categories)
	slices.Sort(cats)
	cats = slices.Compact(cats)
	for _, c := range cats {
		if err := membank.ValidateCategory(c); err != nil {
			return err
		}
	}
	if len(cats) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO memory_bank (tenant_id, project, category)
		SELECT $1, $2, c FROM unnest($3::text[]) AS c ORDER BY c
		ON CONFLICT (tenant_id, project, category) DO NOTHING`, tenantID, project, cats); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT category, content FROM memory_bank
		WHERE tenant_id = $1 AND project = $2 AND category = ANY($3) ORDER BY category FOR UPDATE`,
		tenantID, project, cats)
	if err != nil {
		return err
	}
	current := make(map[string]string, len(cats))
	var cat, content string
	if _, err := pgx.ForEachRow(rows, []any{&cat, &content}, func() error {
		current[cat] = content
		return nil
	}); err != nil {
		return err
	}
	next, err := merge(current)
	if err != nil {
		return err
	}
	changed := false
	for _, c := range cats {
		v, ok := next[c]
		if !ok || v == current[c] {
			continue
		}
		if err := validateEntry(project, c, v); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE memory_bank SET content = $4, updated_at = now()
			WHERE tenant_id = $1 AND project = $2 AND category = $3`, tenantID, project, c, v); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	return notifyMemoryBank(ctx, tx, tenantID, project)
}

// PutProjectStatus records the project's status as of a meeting; writing
// it again for the same meeting replaces it.
func (s *Store) PutProjectStatus(ctx context.Context, tenantID, project, meetingID, content string) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		return putProjectStatus(ctx, tx, tenantID, project, meetingID, content)
	})
	if err != nil {
		return fmt.Errorf("write status of project %s: %w", project, translate(err))
	}
	return nil
}

func putProjectStatus(ctx context.Context, tx pgx.Tx, tenantID, project, meetingID, content string) error {
	if err := validateProject(project); err != nil {
		return err
	}
	if err := cleanText("content", content, membank.MaxContentLen); err != nil {
		return err
	}
	if !isUUID(meetingID) {
		return fmt.Errorf("%w: meeting id %q is not a UUID", ErrInvalid, meetingID)
	}
	tag, err := tx.Exec(ctx, `INSERT INTO project_status (tenant_id, project, meeting_id, content)
		SELECT m.tenant_id, $2, m.id, $4 FROM meetings m WHERE m.id = $3 AND m.tenant_id = $1
		ON CONFLICT (tenant_id, project, meeting_id) DO UPDATE SET content = EXCLUDED.content, updated_at = now()`,
		tenantID, project, meetingID, content)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("meeting %s: %w", meetingID, ErrNotFound)
	}
	return nil
}

// ProjectStatuses returns the project's statuses, the most recently
// updated first, at most limit (default 100).
func (s *Store) ProjectStatuses(ctx context.Context, tenantID, project string, limit int) ([]membank.ProjectStatus, error) {
	if err := validateProject(project); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	rows, err := s.pool.Query(ctx, `SELECT project, meeting_id, content, updated_at FROM project_status
		WHERE tenant_id = $1 AND project = $2 ORDER BY updated_at DESC, meeting_id LIMIT $3`, tenantID, project, limit)
	if err != nil {
		return nil, fmt.Errorf("read status of project %s: %w", project, translate(err))
	}
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[membank.ProjectStatus])
	if err != nil {
		return nil, fmt.Errorf("read status of project %s: %w", project, translate(err))
	}
	return ps, nil
}

var _ membank.Store = (*Store)(nil)
