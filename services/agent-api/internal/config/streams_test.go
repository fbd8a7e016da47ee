package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mithub/mithub/services/agent-api/internal/config"
)

func TestEventStreamSettings(t *testing.T) {
	c, err := config.FromMap(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.EventsMaxPerKey != 20 || c.EventsMaxPerTenant != 100 || c.EventsMaxStreams != 1000 || c.EventsKeyRecheck != 30*time.Second {
		t.Fatalf("defaults: key %d tenant %d server %d recheck %s", c.EventsMaxPerKey, c.EventsMaxPerTenant, c.EventsMaxStreams, c.EventsKeyRecheck)
	}
	c, err = config.FromMap(map[string]string{
		"MITHUB_EVENTS_MAX_PER_KEY": "3", "MITHUB_EVENTS_MAX_PER_TENANT": "7",
		"MITHUB_EVENTS_MAX_STREAMS": "50", "MITHUB_EVENTS_KEY_RECHECK": "2s",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.EventsMaxPerKey != 3 || c.EventsMaxPerTenant != 7 || c.EventsMaxStreams != 50 || c.EventsKeyRecheck != 2*time.Second {
		t.Fatalf("key %d tenant %d server %d recheck %s", c.EventsMaxPerKey, c.EventsMaxPerTenant, c.EventsMaxStreams, c.EventsKeyRecheck)
	}
	for _, give := range []map[string]string{
		{"MITHUB_EVENTS_MAX_PER_KEY": "0"},
		{"MITHUB_EVENTS_MAX_PER_TENANT": "-1"},
		{"MITHUB_EVENTS_MAX_STREAMS": "many"},
		{"MITHUB_EVENTS_KEY_RECHECK": "31s"},
		{"MITHUB_EVENTS_KEY_RECHECK": "1ms"},
	} {
		var name string
		for name = range give {
		}
		if _, err := config.FromMap(give); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("FromMap(%v) error %v, want it to name %s", give, err, name)
		}
	}
}
