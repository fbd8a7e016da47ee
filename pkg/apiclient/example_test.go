package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mithub/mithub/pkg/apiclient"
)

func Example() {
	// A stand-in for agent-api.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/meetings":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":"m-1","room_name":"standup","title":"Standup","language":"en",
				"status":"active","started_at":"2025-03-01T09:00:00Z","ended_at":null,"metadata":{},
				"counters":{"utterances":0,"tokens":0,"last_seq":-1}}`)
		case "/v1/meetings/m-1/utterances":
			io.WriteString(w, `{"inserted":1,"duplicates":0,"cursor":0}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"meeting_not_found","message":"meeting not found"}}`)
		}
	}))
	defer srv.Close()

	ctx := context.Background()
	c := apiclient.New(srv.URL, "dev-key")
	m, err := c.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: "Standup", RoomName: "standup", Language: "en"})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.PostUtterances(ctx, m.ID, []apiclient.Utterance{{
		SegmentID: "s1", SpeakerID: "alice", SpeakerName: "Alice",
		Text: "Let's start with the release.", StartMS: 0, EndMS: 1800, Confidence: 0.97,
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ID, m.Status, res.Inserted, res.Cursor)

	_, err = c.GetMeeting(ctx, "nope")
	var apiErr *apiclient.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Code)
	}
	// Output:
	// m-1 active 1 0
	// 404 meeting_not_found
}
