// Package membank defines a team's memory bank: per project, five
// categories of Markdown that approved meeting PRs update and that answers
// read as background (docs/architecture.md §8). It holds the domain's
// types, rules and the persistence contract; package store implements
// Store on PostgreSQL.
package membank

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mithub/mithub/pkg/errdefs"
)

// Categories of a project's memory bank, in display order.
const (
	CategoryOverview  = "00-project-overview"
	CategorySummary   = "01-summary"
	CategoryProgress  = "02-progress"
	CategoryDecisions = "03-decisions"
	CategoryLessons   = "04-lessons"
)

// Categories lists every memory-bank category in order.
var Categories = []string{CategoryOverview, CategorySummary, CategoryProgress, CategoryDecisions, CategoryLessons}

// IsCategory reports whether c names a memory-bank category.
func IsCategory(c string) bool { return slices.Contains(Categories, c) }

// Limits of memory-bank text.
const (
	MaxProjectLen = 128
	MaxContentLen = 1 << 20
)

// DefaultProject is the project of a meeting whose metadata names none.
const DefaultProject = "default"

// Entry is one category of a project's memory bank.
type Entry struct {
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

// Merger computes the new content of memory-bank categories. It gets the
// current content of the categories it asked for (empty when unset) and
// returns the content to store for each; categories it leaves out keep
// their content.
type Merger func(current map[string]string) (map[string]string, error)

// ValidateProject reports why p cannot name a project: it must be 1..128
// bytes of printable UTF-8 without slashes. The error wraps
// errdefs.ErrInvalid.
func ValidateProject(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("%w: project is required", errdefs.ErrInvalid)
	case len(p) > MaxProjectLen:
		return fmt.Errorf("%w: project is longer than %d bytes", errdefs.ErrInvalid, MaxProjectLen)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: project must be valid UTF-8", errdefs.ErrInvalid)
	case strings.ContainsAny(p, "/\\") || strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return fmt.Errorf("%w: project must not contain slashes or control characters", errdefs.ErrInvalid)
	}
	return nil
}

// ValidateCategory reports why c is not a category; the error wraps
// errdefs.ErrInvalid.
func ValidateCategory(c string) error {
	if !IsCategory(c) {
		return fmt.Errorf("%w: category %q is not one of %s", errdefs.ErrInvalid, c, strings.Join(Categories, ", "))
	}
	return nil
}

// Store is the persistence of memory banks. Every method is scoped to a
// tenant; a project or category that breaks the rules above is
// errdefs.ErrInvalid.
type Store interface {
	// MemoryBank returns the project's stored categories in order;
	// categories never written are left out.
	MemoryBank(ctx context.Context, tenantID, project string) ([]Entry, error)
	// MemoryEntryOf returns one category; one never written is
	// errdefs.ErrNotFound.
	MemoryEntryOf(ctx context.Context, tenantID, project, category string) (Entry, error)
	// PutMemoryEntry replaces one category's content.
	PutMemoryEntry(ctx context.Context, tenantID, project, category, content string) (Entry, error)
	// MergeMemory updates categories of a project atomically with merge;
	// concurrent merges of one category run one after the other.
	MergeMemory(ctx context.Context, tenantID, project string, categories []string, merge Merger) error
	// PutProjectStatus records the project's status as of a meeting.
	PutProjectStatus(ctx context.Context, tenantID, project, meetingID, content string) error
	// ProjectStatuses returns the project's statuses, newest first.
	ProjectStatuses(ctx context.Context, tenantID, project string, limit int) ([]ProjectStatus, error)
}
