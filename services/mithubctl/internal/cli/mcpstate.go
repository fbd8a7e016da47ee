package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// envStateDir names the directory where mithubctl keeps its state.
const envStateDir = "MITHUB_STATE_DIR"

// mcpStateFile holds, per tenant and agent-api URL, the conversation
// `mithubctl mcp` served last, so a restarted server resumes it
// (docs/architecture.md §7).
const mcpStateFile = "mcp-conversations.json"

// defaultStateDir is $MITHUB_STATE_DIR, else $XDG_STATE_HOME/mithub, else
// ~/.local/state/mithub; "" when none can be found.
func defaultStateDir(getenv func(string) string) string {
	if d := getenv(envStateDir); d != "" {
		return d
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mithub")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "mithub")
}

// mcpState reads and writes the state file in dir; an empty dir keeps no
// state.
type mcpState struct {
	dir string
}

func mcpStateKey(tenantID, apiURL string) string { return tenantID + " " + apiURL }

// load returns the conversation served last for key ("" when none).
func (s mcpState) load(key string) (string, error) {
	m, err := s.read()
	return m[key], err
}

// save records id as the conversation served for key.
func (s mcpState) save(key, id string) error {
	if s.dir == "" {
		return nil
	}
	m, err := s.read()
	if err != nil {
		// A damaged file is replaced rather than blocking the session.
		m = map[string]string{}
	}
	m[key] = id
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, mcpStateFile+".*")
	if err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("state file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	// Rename is atomic: a reader sees the old file or the new one.
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, mcpStateFile)); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}

func (s mcpState) read() (map[string]string, error) {
	m := map[string]string{}
	if s.dir == "" {
		return m, nil
	}
	b, err := os.ReadFile(filepath.Join(s.dir, mcpStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("state file: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]string{}, fmt.Errorf("state file %s: %w", filepath.Join(s.dir, mcpStateFile), err)
	}
	return m, nil
}
