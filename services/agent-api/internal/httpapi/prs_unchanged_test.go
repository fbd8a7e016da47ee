package httpapi_test

import (
	"net/http"
	"testing"
)

// Asking again for the PR of a meeting that has no new turns since its
// last built PR returns that PR (200) instead of building another; new
// turns or ?force=true build a new one.
func TestGeneratePRForUnchangedMeetingReturnsTheBuiltPR(t *testing.T) {
	h := newPRHarness(t)
	key := h.key("acme")
	m := h.meetingIn(key, "모바일앱")
	h.post(key, m.ID, meetingLines("s", 20))
	_, first := h.generate(key, m.ID, "", nil)
	if first.PRID == "" {
		t.Fatal("no first PR")
	}
	h.build(h.tenantID(key), first.PRID)

	for i := range 5 {
		r, _ := h.generate(key, m.ID, "?wait=false", nil)
		var got prAccepted
		if r.status == http.StatusOK {
			r.decode(t, &got)
		}
		if r.status != http.StatusOK || got.PRID != first.PRID || got.Status != "succeeded" {
			t.Fatalf("request %d for the unchanged meeting = %d %s, want 200 with PR %s", i, r.status, r.body, first.PRID)
		}
	}
	countPRs := func() int {
		r := h.do(http.MethodGet, "/v1/meetings/"+m.ID+"/prs", key, nil)
		var list struct {
			PRs []prBody `json:"prs"`
		}
		r.decode(t, &list)
		return len(list.PRs)
	}
	if n := countPRs(); n != 1 {
		t.Fatalf("%d PRs after repeated requests, want 1", n)
	}
	if r, _ := h.generate(key, m.ID, "?force=maybe", nil); r.status != http.StatusBadRequest {
		t.Errorf("force=maybe: %d, want 400", r.status)
	}

	r, forced := h.generate(key, m.ID, "?wait=false&force=true", nil)
	if r.status != http.StatusAccepted || forced.PRID == first.PRID {
		t.Fatalf("force=true = %d %s, want 202 with a new PR", r.status, r.body)
	}
	h.build(h.tenantID(key), forced.PRID)

	// A new turn makes the meeting changed again.
	h.post(key, m.ID, meetingLines("t", 1))
	r, third := h.generate(key, m.ID, "", nil)
	if r.status != http.StatusAccepted || third.PRID == forced.PRID || third.PRID == first.PRID {
		t.Fatalf("after a new turn = %d %s, want 202 with a new PR", r.status, r.body)
	}
	if n := countPRs(); n != 3 {
		t.Fatalf("%d PRs, want 3", n)
	}
}
