package labcli

import (
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/load"
)

func TestParseLoad(t *testing.T) {
	env := envMap(map[string]string{"MITHUB_API_KEY": "k", "MITHUB_QMSUM_DIR": "/data/qmsum"})
	tests := []struct {
		name     string
		give     []string
		wantErr  string
		interval time.Duration
	}{
		{"per second", []string{"--rate", "0.5", "--meetings", "200"}, "", 2 * time.Second},
		{"interval", []string{"--rate", "250ms"}, "", 250 * time.Millisecond},
		{"bad rate", []string{"--rate", "often"}, "want utterances per second", 0},
		{"warm-up too long", []string{"--duration", "1m", "--warmup", "2m"}, "warm-up", 0},
		{"bad proc", []string{"--proc", "agent-api=abc"}, "name=pid", 0},
		{"no meetings", []string{"--meetings", "0"}, "meetings", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseLoad(tt.give, env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || cmdline.ExitCode(err) != 2 {
					t.Fatalf("err = %v, want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.Opts.Interval != tt.interval || c.Opts.DataDir != "/data/qmsum" {
				t.Fatalf("interval %s, data %q, err %v", c.Opts.Interval, c.Opts.DataDir, err)
			}
		})
	}
}

func TestLoadVerdict(t *testing.T) {
	rep := &load.Report{
		Options:   load.Options{Warmup: time.Minute},
		Endpoints: []load.EndpointStats{{Endpoint: load.EPUtterances, Requests: 10, Errors: 2}},
		RSS: []load.RSSSeries{{Proc: load.Proc{Name: "agent-api", PID: 1}, Samples: []load.RSSSample{
			{At: time.Minute, KB: 100}, {At: 10 * time.Minute, KB: 115}}}},
	}
	if err := loadVerdict(rep, loadConfig{MaxErrors: -1}); err != nil {
		t.Fatalf("no bounds: %v", err)
	}
	err := loadVerdict(rep, loadConfig{Opts: rep.Options, MaxErrors: 0, MaxRSSGrowth: 10})
	if err == nil || !strings.Contains(err.Error(), "2 failed requests") || !strings.Contains(err.Error(), "agent-api RSS grew 15.0%") {
		t.Fatalf("bounds: %v", err)
	}
	rep.Completeness.Lost = 1
	if err := loadVerdict(rep, loadConfig{MaxErrors: -1}); err == nil || !strings.Contains(err.Error(), "completeness") {
		t.Fatalf("a loss: %v", err)
	}
}
