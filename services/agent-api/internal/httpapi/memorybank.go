package httpapi

import (
	"errors"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
)

type memoryEntryJSON struct {
	Project   string     `json:"project"`
	Category  string     `json:"category"`
	Content   string     `json:"content"`
	UpdatedAt *time.Time `json:"updated_at"`
}

type projectStatusJSON struct {
	MeetingID string    `json:"meeting_id"`
	Content   string    `json:"content"`
	UpdatedAt time.Time `json:"updated_at"`
}

type memoryBankJSON struct {
	Project    string              `json:"project"`
	Categories []memoryEntryJSON   `json:"categories"`
	Status     []projectStatusJSON `json:"status"`
}

// memoryStatusLimit is how many project statuses GET returns.
const memoryStatusLimit = 20

// projectParam returns the route's project, percent-decoded and checked.
func projectParam(c *fiber.Ctx) (string, error) {
	p, err := url.PathUnescape(c.Params("project"))
	if err != nil || !utf8.ValidString(p) {
		return "", errInvalid("project in the path is not valid percent-encoded UTF-8")
	}
	if err := membank.ValidateProject(p); err != nil {
		return "", err
	}
	return p, nil
}

func categoryParam(c *fiber.Ctx) (string, error) {
	cat := c.Params("category")
	if !membank.IsCategory(cat) {
		return "", errInvalid("category %q is not one of %s", truncate(cat, 64), strings.Join(membank.Categories, ", "))
	}
	return cat, nil
}

// getMemoryBank returns every category of the project (empty ones with
// no updated_at) and its latest project statuses.
func (s *Server) getMemoryBank(c *fiber.Ctx) error {
	project, err := projectParam(c)
	if err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	ctx, tenant := c.UserContext(), tenantOf(c)
	entries, err := s.MemoryBank.MemoryBank(ctx, tenant.ID, project)
	if err != nil {
		return err
	}
	statuses, err := s.MemoryBank.ProjectStatuses(ctx, tenant.ID, project, memoryStatusLimit)
	if err != nil {
		return err
	}
	out := memoryBankJSON{Project: project, Categories: make([]memoryEntryJSON, len(membank.Categories)), Status: []projectStatusJSON{}}
	for i, cat := range membank.Categories {
		out.Categories[i] = memoryEntryJSON{Project: project, Category: cat}
		for _, e := range entries {
			if e.Category == cat {
				out.Categories[i] = toMemoryEntryJSON(e)
			}
		}
	}
	for _, st := range statuses {
		out.Status = append(out.Status, projectStatusJSON{MeetingID: st.MeetingID, Content: st.Content, UpdatedAt: st.UpdatedAt})
	}
	return c.JSON(out)
}

func toMemoryEntryJSON(e membank.Entry) memoryEntryJSON {
	at := e.UpdatedAt
	return memoryEntryJSON{Project: e.Project, Category: e.Category, Content: e.Content, UpdatedAt: &at}
}

// getMemoryEntry returns one category; one never written is empty.
func (s *Server) getMemoryEntry(c *fiber.Ctx) error {
	project, err := projectParam(c)
	if err != nil {
		return err
	}
	cat, err := categoryParam(c)
	if err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	e, err := s.MemoryBank.MemoryEntryOf(c.UserContext(), tenantOf(c).ID, project, cat)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return c.JSON(memoryEntryJSON{Project: project, Category: cat})
		}
		return err
	}
	return c.JSON(toMemoryEntryJSON(e))
}

type putMemoryEntryRequest struct {
	Content *string `json:"content"`
}

// putMemoryEntry replaces one category's content.
func (s *Server) putMemoryEntry(c *fiber.Ctx) error {
	project, err := projectParam(c)
	if err != nil {
		return err
	}
	cat, err := categoryParam(c)
	if err != nil {
		return err
	}
	var req putMemoryEntryRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if req.Content == nil {
		return errInvalid("content is required")
	}
	if err := checkText("content", *req.Content, membank.MaxContentLen); err != nil {
		return err
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	e, err := s.MemoryBank.PutMemoryEntry(c.UserContext(), tenantOf(c).ID, project, cat, *req.Content)
	if err != nil {
		return err
	}
	return c.JSON(toMemoryEntryJSON(e))
}

type putMemoryBankRequest struct {
	Categories map[string]string `json:"categories"`
}

// putMemoryBank replaces several categories at once, in one transaction.
func (s *Server) putMemoryBank(c *fiber.Ctx) error {
	project, err := projectParam(c)
	if err != nil {
		return err
	}
	var req putMemoryBankRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if len(req.Categories) == 0 {
		return errInvalid("categories must map at least one category to its content")
	}
	cats := make([]string, 0, len(req.Categories))
	for cat, content := range req.Categories {
		if !membank.IsCategory(cat) {
			return errInvalid("category %q is not one of %s", truncate(cat, 64), strings.Join(membank.Categories, ", "))
		}
		if err := checkText("categories."+cat, content, membank.MaxContentLen); err != nil {
			return err
		}
		cats = append(cats, cat)
	}
	if err := s.prsConfigured(); err != nil {
		return err
	}
	ctx, tenant := c.UserContext(), tenantOf(c)
	if err := s.MemoryBank.MergeMemory(ctx, tenant.ID, project, cats, func(map[string]string) (map[string]string, error) {
		return req.Categories, nil
	}); err != nil {
		return err
	}
	return s.getMemoryBank(c)
}
