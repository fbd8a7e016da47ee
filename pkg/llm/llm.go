package llm

import "context"

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one message of a conversation.
type Message struct {
	Role    string
	Content string
}

// ChatRequest asks a model for the next assistant message.
type ChatRequest struct {
	// Model names the model; empty means the provider's configured default.
	Model    string
	Messages []Message
	// MaxTokens caps the answer; 0 leaves it to the provider.
	MaxTokens   int
	Temperature float64
	// JSON asks the provider to answer with a JSON object.
	JSON bool
}

// Usage is the token usage a provider reported for one request.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
}

// ChatResponse is a model's answer.
type ChatResponse struct {
	Content string
	Usage   Usage
	// Model is the model that answered, as the provider names it.
	Model string
	// FinishReason is why the model stopped: "stop", "length",
	// "content_filter", ... as the provider reports it.
	FinishReason string
}

// Chatter talks to a chat model.
type Chatter interface {
	// Chat returns the whole answer at once.
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
	// ChatStream calls onDelta with each piece of the answer as it arrives
	// and returns the whole answer at the end. An error from onDelta stops
	// the stream and is returned.
	ChatStream(ctx context.Context, req ChatRequest, onDelta func(string) error) (ChatResponse, error)
}
