package bench

import (
	"context"
	"fmt"
	"sync"

	"github.com/mithub/mithub/pkg/apiclient"
)

// fillMeetings creates n meetings through the API, eight at a time, posts
// utts(i) into meeting i in batches of 100, and runs settle on each, so the
// measurement starts against warm contexts. It returns the meeting ids.
func fillMeetings(ctx context.Context, client *apiclient.Client, n int, name string,
	utts func(i int) []apiclient.Utterance, settle func(ctx context.Context, id string, last int) error) ([]string, error) {
	ids := make([]string, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ids[i], errs[i] = fillMeeting(ctx, client, fmt.Sprint(name, " ", i), utts(i), settle)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func fillMeeting(ctx context.Context, client *apiclient.Client, title string, text []apiclient.Utterance,
	settle func(ctx context.Context, id string, last int) error) (string, error) {
	m, err := client.CreateMeeting(ctx, apiclient.CreateMeetingRequest{Title: title, Language: "en"})
	if err != nil {
		return "", err
	}
	for b := 0; b < len(text); b += 100 {
		if _, err := client.PostUtterances(ctx, m.ID, text[b:min(b+100, len(text))]); err != nil {
			return "", err
		}
	}
	return m.ID, settle(ctx, m.ID, len(text)-1)
}
