package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// Memory-bank categories, in display order.
const (
	CategoryOverview  = "00-project-overview"
	CategorySummary   = "01-summary"
	CategoryProgress  = "02-progress"
	CategoryDecisions = "03-decisions"
	CategoryLessons   = "04-lessons"
)

// Categories lists every memory-bank category in order.
var Categories = []string{CategoryOverview, CategorySummary, CategoryProgress, CategoryDecisions, CategoryLessons}

// Limits of memory-bank text.
const (
	MaxProjectLen       = 128
	MaxMemoryContentLen = 1 << 20
)

// IsCategory reports whether c names a memory-bank category.
func IsCategory(c string) bool { return slices.Contains(Categories, c) }

// MemoryEntry is one category of a project's memory bank.
type MemoryEntry struct {
	Project   string    `db:"project"`
	Category  string    `db:"category"`
	Content   string    `db:"content"`
	UpdatedAt time.Time `db:"updated_at"`
}

// ProjectStatus is the status of a project as of one meeting.
type ProjectStatus struct {
	Project   string    `db:"project"`
	MeetingID string    `db:"meeting_id"`
	Content   string    `db:"content"`
	UpdatedAt time.Time `db:"updated_at"`
}

// validateProject accepts 1..128 bytes of printable UTF-8 without '/'.
func validateProject(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("%w: project is required", ErrInvalid)
	case len(p) > MaxProjectLen:
		return fmt.Errorf("%w: project is longer than %d bytes", ErrInvalid, MaxProjectLen)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: project must be valid UTF-8", ErrInvalid)
	case strings.ContainsAny(p, "/\\") || strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("%w: project must not contain slashes or control characters", ErrInvalid)
	}
	return nil
}

// ValidateProject reports why p cannot name a memory-bank project.
func ValidateProject(p string) error { return validateProject(p) }

func validateEntry(project, category, content string) error {
	if err := validateProject(project); err != nil {
		return err
	}
	if !IsCategory(category) {
		return fmt.Errorf("%w: category %q is not one of %s", ErrInvalid, category, strings.Join(Categories, ", "))
	}
	return cleanText("content", content, MaxMemoryContentLen)
}

// MemoryBank returns the project's stored categories in order; categories
// never written are left out.
func (s *Store) MemoryBank(ctx context.Context, tenantID, project string) ([]MemoryEntry, error) {
	if err := validateProject(project); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT project, category, content, updated_at FROM memory_bank
		WHERE tenant_id = $1 AND project = $2 ORDER BY category`, tenantID, project)
	if err != nil {
		return nil, fmt.Errorf("read memory bank %s: %w", project, translate(err))
	}
	es, err := pgx.CollectRows(rows, pgx.RowToStructByName[MemoryEntry])
	if err != nil {
		return nil, fmt.Errorf("read memory bank %s: %w", project, translate(err))
	}
	return es, nil
}

// MemoryEntryOf returns one category; a category never written is
// ErrNotFound.
func (s *Store) MemoryEntryOf(ctx context.Context, tenantID, project, category string) (MemoryEntry, error) {
	if err := validateEntry(project, category, ""); err != nil {
		return MemoryEntry{}, err
	}
	rows, err := s.pool.Query(ctx, `SELECT project, category, content, updated_at FROM memory_bank
		WHERE tenant_id = $1 AND project = $2 AND category = $3`, tenantID, project, category)
	if err != nil {
		return MemoryEntry{}, fmt.Errorf("read memory bank %s/%s: %w", project, category, translate(err))
	}
	e, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[MemoryEntry])
	if err != nil {
		return MemoryEntry{}, fmt.Errorf("read memory bank %s/%s: %w", project, category, translate(err))
	}
	return e, nil
}

// PutMemoryEntry replaces one category's content and tells listeners
// (ListenMemoryBank) in the same transaction.
func (s *Store) PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (MemoryEntry, error) {
	if err := validateEntry(project, category, content); err != nil {
		return MemoryEntry{}, err
	}
	var e MemoryEntry
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `INSERT INTO memory_bank (tenant_id, project, category, content)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (tenant_id, project, category) DO UPDATE SET content = EXCLUDED.content, updated_at = now()
			RETURNING project, category, content, updated_at`, tenantID, project, category, content)
		if err != nil {
			return err
		}
		if e, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[MemoryEntry]); err != nil {
			return err
		}
		return notifyMemoryBank(ctx, tx, tenantID, project)
	})
	if err != nil {
		return MemoryEntry{}, fmt.Errorf("write memory bank %s/%s: %w", project, category, translate(err))
	}
	return e, nil
}

// MergeMemory updates categories of a project in one transaction: each
// category's row is locked (created empty if missing), merge computes the
// new contents from the current ones, and the results are stored. Two
// merges of the same category run one after the other, so neither loses
// the other's update; merges of different categories run in parallel.
func (s *Store) MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge Merger) error {
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
func mergeCategories(ctx context.Context, tx pgx.Tx, tenantID, project string, categories []string, merge Merger) error {
	if err := validateProject(project); err != nil {
		return err
	}
	cats := slices.Clone(categories)
	slices.Sort(cats)
	cats = slices.Compact(cats)
	for _, c := range cats {
		if !IsCategory(c) {
			return fmt.Errorf("%w: category %q is not one of %s", ErrInvalid, c, strings.Join(Categories, ", "))
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
	if err := cleanText("content", content, MaxMemoryContentLen); err != nil {
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
func (s *Store) ProjectStatuses(ctx context.Context, tenantID, project string, limit int) ([]ProjectStatus, error) {
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
	ps, err := pgx.CollectRows(rows, pgx.RowToStructByName[ProjectStatus])
	if err != nil {
		return nil, fmt.Errorf("read status of project %s: %w", project, translate(err))
	}
	return ps, nil
}
