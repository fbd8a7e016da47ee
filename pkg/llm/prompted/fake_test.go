package prompted_test

import (
	"context"
	"sync"

	"github.com/mithub/mithub/pkg/llm"
)

// fakeChatter answers with canned replies, in order (the last repeats),
// and records the requests.
type fakeChatter struct {
	mu      sync.Mutex
	replies []fakeReply
	reqs    []llm.ChatRequest
}

type fakeReply struct {
	content string
	err     error
}

func answer(content string) *fakeChatter {
	return &fakeChatter{replies: []fakeReply{{content: content}}}
}

func failing(err error) *fakeChatter { return &fakeChatter{replies: []fakeReply{{err: err}}} }

func (f *fakeChatter) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.replies[min(len(f.reqs), len(f.replies)-1)]
	f.reqs = append(f.reqs, req)
	if r.err != nil {
		return llm.ChatResponse{}, r.err
	}
	return llm.ChatResponse{Content: r.content, FinishReason: "stop"}, nil
}

func (f *fakeChatter) ChatStream(ctx context.Context, req llm.ChatRequest, onDelta func(string) error) (llm.ChatResponse, error) {
	resp, err := f.Chat(ctx, req)
	if err == nil {
		err = onDelta(resp.Content)
	}
	return resp, err
}

func (f *fakeChatter) requests() []llm.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.ChatRequest(nil), f.reqs...)
}
