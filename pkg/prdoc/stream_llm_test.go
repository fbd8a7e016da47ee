package prdoc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mithub/mithub/pkg/llm"
	"github.com/mithub/mithub/pkg/prdoc"
	"github.com/mithub/mithub/pkg/tokens"
)

// partAnswer answers a map request from the seqs it holds: a decision, an
// action item and a question tied to them, a repeat every part sends, and
// prose (so the cue rules take over) for every third part.
func partAnswer(user string) (int, string) {
	seqs := seqsOf(user)
	if len(seqs) == 0 {
		return http.StatusOK, "{}"
	}
	first, last := seqs[0], seqs[len(seqs)-1]
	if first%3 == 0 {
		return http.StatusOK, "Nothing to report."
	}
	return http.StatusOK, fmt.Sprintf(`{"decisions":[{"text":"Settle turns %d to %d","seq":%d}],
"action_items":[{"text":"정리 %d","owner":"alice","due":"by Friday","seq":%d},{"text":"Resize the cluster","owner":"Bob","seq":%d}],
"open_questions":[{"text":"What about turn %d?","seq":%d}]}`, first, last, first, last, last, first, first, first)
}

// The streamed LLM extractor sends the same parts and builds exactly the
// in-memory document, on fixtures whose packing splits agenda items and
// joins several, with answers that are used, repeated or unusable.
func TestLLMExtractStreamEqualsExtract(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	fx := streamFixtures(t)
	cases := map[string]prdoc.Input{"long": longMeeting(120), "short": fx["short"]}
	for name, in := range fx {
		if strings.HasPrefix(name, "Bed") || strings.HasPrefix(name, "launch-review/") {
			cases[name] = in
		}
	}
	for name, in := range cases {
		for _, window := range []int{1500, 6000} {
			var whole, streamed chatServer
			w := newLLM(t, whole.start(t, counter, partAnswer), counter, window)
			s := newLLM(t, streamed.start(t, counter, partAnswer), counter, window)
			want, err := w.Extract(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.ExtractStream(context.Background(), streamOf(in))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := docJSON(t, got), docJSON(t, want); g != w {
				t.Errorf("%s window %d: streamed document differs\n--- streamed\n%s\n--- in memory\n%s", name, window, g, w)
			}
			slices.Sort(whole.users)
			slices.Sort(streamed.users)
			if !slices.Equal(whole.users, streamed.users) {
				t.Errorf("%s window %d: streamed path sent %d different prompts (in memory %d)", name, window, len(streamed.users), len(whole.users))
			}
			if len(whole.users) == 0 {
				t.Errorf("%s window %d: no requests", name, window)
			}
		}
	}
}

// A rejected request fails the streamed extraction as permanent, and a
// window too small for the instructions is ErrBudget before any request.
func TestLLMExtractStreamErrors(t *testing.T) {
	counter, err := tokens.ForEncoding(tokens.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	in := streamOf(longMeeting(120))
	var rejecting chatServer
	_, err = newLLM(t, rejecting.start(t, counter, func(string) (int, string) {
		return http.StatusBadRequest, ""
	}), counter, 1500).ExtractStream(context.Background(), in)
	if !errors.Is(err, llm.ErrPermanent) {
		t.Errorf("rejected request = %v, want llm.ErrPermanent", err)
	}
	var unused chatServer
	_, err = newLLM(t, unused.start(t, counter, partAnswer), counter, 300).ExtractStream(context.Background(), in)
	if !errors.Is(err, prdoc.ErrBudget) || len(unused.users) != 0 {
		t.Errorf("tiny window = %v after %d requests, want ErrBudget before any", err, len(unused.users))
	}
}
