package apiclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

func TestGeneratePRAndGetPR(t *testing.T) {
	srv, reqs := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/meetings/m-1/generate-pr":
			reply(http.StatusAccepted, `{"pr_id":"p-1","status":"queued"}`)(w, r)
		case "/v1/prs/p-1":
			reply(http.StatusOK, `{"id":"p-1","meeting_id":"m-1","status":"succeeded","title":"주간 회의","markdown":"# 주간 회의\n","attempts":1}`)(w, r)
		default:
			reply(http.StatusNotFound, `{"error":{"code":"not_found","message":"PR not found"}}`)(w, r)
		}
	})
	c := New(srv.URL, "k")
	ref, err := c.GeneratePR(context.Background(), "m-1", true)
	if err != nil || ref != (PRRef{PRID: "p-1", Status: PRQueued}) {
		t.Fatalf("generate: %+v, %v", ref, err)
	}
	if r := <-reqs; r.method != http.MethodPost || string(r.body) != "{}" {
		t.Fatalf("generate request %s %q", r.method, r.body)
	}
	pr, err := c.GetPR(context.Background(), ref.PRID)
	if err != nil || !pr.Done() || pr.Markdown != "# 주간 회의\n" || pr.MeetingID != "m-1" {
		t.Fatalf("get: %+v, %v", pr, err)
	}
	var apiErr *APIError
	if _, err := c.GetPR(context.Background(), "missing"); !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound {
		t.Fatalf("missing PR: %v", err)
	}
}
