package prompted

import "errors"

// ErrUnusable means the model's answer could not be parsed or held
// nothing usable; the result returned with it is the fallback.
var ErrUnusable = errors.New("prompted: model answer unusable")

// ErrNoInput means Summarize got neither turns nor topics.
var ErrNoInput = errors.New("prompted: nothing to summarize")
