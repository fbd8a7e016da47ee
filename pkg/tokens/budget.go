package tokens

// Estimates for prompt parts that are not text.
const (
	// ImageTokens is the estimate for one image part.
	ImageTokens = 1000
	// FileTokens is the estimate for one attached file.
	FileTokens = 5000
)

// Budget is the prompt budget of one model call: 90% of the context window,
// leaving 10% for the gap between the counted and the real tokenizer and for
// message framing, minus the tokens reserved for the answer.
type Budget struct {
	Window         int
	ReservedOutput int
}

// NewBudget returns the budget for a context window and the tokens reserved
// for the output.
func NewBudget(window, reservedOutput int) Budget {
	return Budget{Window: window, ReservedOutput: reservedOutput}
}

// Available is floor(window × 0.90) − reserved output, never negative.
func (b Budget) Available() int {
	if b.Window <= 0 {
		return 0
	}
	return max(b.Window*9/10-max(b.ReservedOutput, 0), 0)
}
