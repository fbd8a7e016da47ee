package qmsum

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// SpokenTurnsOf returns every turn with text of the meetings of the given
// splits under dir ("train", "val", "test"), split after split, meeting
// after meeting in file-name order: filler text for long synthetic
// conversations.
func SpokenTurnsOf(dir string, splits ...string) ([]Turn, error) {
	var files []string
	for _, split := range splits {
		fs, err := filepath.Glob(filepath.Join(dir, split, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(fs)
		files = append(files, fs...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no QMSum meetings (%s) under %s", strings.Join(splits, ", "), dir)
	}
	var out []Turn
	for _, f := range files {
		m, err := Load(f)
		if err != nil {
			return nil, err
		}
		for _, t := range m.Turns {
			if strings.TrimSpace(t.Content) != "" {
				out = append(out, t)
			}
		}
	}
	return out, nil
}
