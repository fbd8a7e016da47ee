package membank_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/errdefs"
	"github.com/mithub/mithub/pkg/membank"
)

func TestValidateProject(t *testing.T) {
	for _, tt := range []struct {
		give string
		ok   bool
	}{
		{"default", true},
		{"로켓 출시", true},
		{strings.Repeat("p", membank.MaxProjectLen), true},
		{"", false},
		{"   ", false},
		{strings.Repeat("p", membank.MaxProjectLen+1), false},
		{"a/b", false},
		{`a\b`, false},
		{"tab\there", false},
		{"bad\xffutf8", false},
	} {
		err := membank.ValidateProject(tt.give)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateProject(%q) = %v, want ok %v", tt.give, err, tt.ok)
		}
		if err != nil && !errors.Is(err, errdefs.ErrInvalid) {
			t.Errorf("ValidateProject(%q) = %v, not errdefs.ErrInvalid", tt.give, err)
		}
	}
}

func TestCategories(t *testing.T) {
	for _, c := range membank.Categories {
		if !membank.IsCategory(c) || membank.ValidateCategory(c) != nil {
			t.Errorf("%q is listed but not accepted", c)
		}
	}
	for _, c := range []string{"", "01-Summary", "05-other", "summary"} {
		err := membank.ValidateCategory(c)
		if membank.IsCategory(c) || !errors.Is(err, errdefs.ErrInvalid) || !strings.Contains(err.Error(), membank.CategoryOverview) {
			t.Errorf("ValidateCategory(%q) = %v, want ErrInvalid naming the categories", c, err)
		}
	}
}
