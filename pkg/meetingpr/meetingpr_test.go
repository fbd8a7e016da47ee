package meetingpr_test

import (
	"testing"

	"github.com/mithub/mithub/pkg/meetingpr"
)

func TestOpen(t *testing.T) {
	for status, open := range map[string]bool{
		meetingpr.Queued: true, meetingpr.Running: true,
		meetingpr.Succeeded: false, meetingpr.Failed: false, meetingpr.Approved: false, meetingpr.Rejected: false,
	} {
		if got := (meetingpr.PR{Status: status}).Open(); got != open {
			t.Errorf("a %s PR: Open() = %v, want %v", status, got, open)
		}
	}
}
