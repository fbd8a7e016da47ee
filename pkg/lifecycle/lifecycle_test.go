package lifecycle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/lifecycle"
)

func TestExitMessageRedactsSecrets(t *testing.T) {
	err := fmt.Errorf("MITHUB_REDIS_URL: %w",
		errors.New(`parse "redis://:redis-pw@host:badport/0": invalid port ":badport" after host`))
	got := lifecycle.ExitMessage("agent-api", err)
	want := `agent-api: MITHUB_REDIS_URL: parse "redis://:[redacted]@host:badport/0": invalid port ":badport" after host`
	if got != want {
		t.Errorf("ExitMessage = %q, want %q", got, want)
	}
	got = lifecycle.ExitMessage("pr-worker", errors.New("open postgres: host=db password=pg-pw: 연결 거부"))
	if strings.Contains(got, "pg-pw") || !strings.Contains(got, "연결 거부") {
		t.Errorf("ExitMessage = %q", got)
	}
}
