// Package modelfile writes the models the trainers learn (turn weights,
// answer model, decision scorer, heading words) as the repository keeps
// them: indented JSON with a final newline, so a rebuild from the same
// data gives the same bytes.
package modelfile

import "encoding/json"

// Marshal encodes v as a model file.
func Marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
