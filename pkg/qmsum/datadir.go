package qmsum

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DataDir locates the QMSum data directory: $MITHUB_QMSUM_DIR when set,
// otherwise shared/data/qmsum beside the repository root (the directory
// holding go.work), searched upward from the working directory.
func DataDir() (string, error) {
	if dir := os.Getenv("MITHUB_QMSUM_DIR"); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("MITHUB_QMSUM_DIR: %w", err)
		}
		return dir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("QMSum data: no go.work above the working directory; set MITHUB_QMSUM_DIR")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data", "qmsum")
	if _, err := os.Stat(data); err != nil {
		return "", fmt.Errorf("QMSum data (set MITHUB_QMSUM_DIR): %w", err)
	}
	return data, nil
}
