package llm

import "context"

// UsageObserver learns how a provider's tokenizer differs from the local
// count: tokens.Corrector implements it.
type UsageObserver interface {
	Observe(model string, estimated, reported int)
}

// Metered wraps a Chatter: it counts each request's prompt with the local
// BPE counter and reports it with the provider's usage.prompt_tokens to
// Observer, so budgets follow the provider's real tokenizer.
type Metered struct {
	Chatter
	// Count counts tokens of a text with the local BPE table.
	Count    func(string) int
	Observer UsageObserver
}

// messageOverhead approximates the per-message framing of chat formats.
const messageOverhead = 4

func (m Metered) estimate(req ChatRequest) int {
	n := 3
	for _, msg := range req.Messages {
		n += messageOverhead + m.Count(msg.Content)
	}
	return n
}

func (m Metered) observe(req ChatRequest, resp ChatResponse) {
	if resp.Usage.PromptTokens <= 0 {
		return
	}
	model := req.Model
	if model == "" {
		model = resp.Model
	}
	m.Observer.Observe(model, m.estimate(req), resp.Usage.PromptTokens)
}

// Chat implements Chatter.
func (m Metered) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	resp, err := m.Chatter.Chat(ctx, req)
	if err == nil {
		m.observe(req, resp)
	}
	return resp, err
}

// ChatStream implements Chatter.
func (m Metered) ChatStream(ctx context.Context, req ChatRequest, onDelta func(string) error) (ChatResponse, error) {
	resp, err := m.Chatter.ChatStream(ctx, req, onDelta)
	if err == nil {
		m.observe(req, resp)
	}
	return resp, err
}
