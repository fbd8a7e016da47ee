package tokens_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/tokens"
)

func TestBudgetAvailable(t *testing.T) {
	tests := []struct {
		window, reserved int
		want             int
	}{
		{8192, 1024, 6348},
		{128000, 4096, 111104},
		{8191, 0, 7371},
		{10, 0, 9},
		{4096, -10, 3686},
		{1000, 2000, 0},
		{0, 0, 0},
		{-5, 0, 0},
	}
	for _, tt := range tests {
		if got := tokens.NewBudget(tt.window, tt.reserved).Available(); got != tt.want {
			t.Errorf("NewBudget(%d, %d).Available() = %d, want %d", tt.window, tt.reserved, got, tt.want)
		}
	}
}
