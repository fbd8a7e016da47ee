package prompted

// Config tunes the prompts and requests. Zero values take the defaults.
type Config struct {
	// Model is named in every request (default: the Chatter's default
	// model).
	Model string
	// MaxTokens caps each answer (default 2048).
	MaxTokens int
	// Temperature of the requests (default 0).
	Temperature float64
	// MaxTurnRunes cuts the text of each turn shown to the model (default
	// 600).
	MaxTurnRunes int
	// MaxEarlier is how many of the most recent earlier topics the
	// recursive prompt shows (default 30).
	MaxEarlier int
	// MaxSummaryTurns is how many turns a Summarize prompt shows; beyond
	// it the middle turns are left out (default 80).
	MaxSummaryTurns int
}

// Defaults of Config.
const (
	DefaultMaxTokens       = 2048
	DefaultMaxTurnRunes    = 600
	DefaultMaxEarlier      = 30
	DefaultMaxSummaryTurns = 80
)

// Limits of the text the package returns.
const (
	// MaxSummaryRunes is the longest summary, in characters.
	MaxSummaryRunes = 120
	// MaxTitleRunes is the longest title.
	MaxTitleRunes = 80
	// MaxKeywords is how many keywords a topic keeps, each at most
	// MaxKeywordRunes long.
	MaxKeywords     = 8
	MaxKeywordRunes = 40
)

func (c Config) withDefaults() Config {
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.MaxTurnRunes <= 0 {
		c.MaxTurnRunes = DefaultMaxTurnRunes
	}
	if c.MaxEarlier <= 0 {
		c.MaxEarlier = DefaultMaxEarlier
	}
	if c.MaxSummaryTurns <= 0 {
		c.MaxSummaryTurns = DefaultMaxSummaryTurns
	}
	return c
}
