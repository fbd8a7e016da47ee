package qmsum

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A split's meetings come in name order, other files left out; a
// directory without meetings is an error that names it.
func TestMeetingFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.json", "a.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := MeetingFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}; !reflect.DeepEqual(got, want) {
		t.Errorf("MeetingFiles = %v, want %v", got, want)
	}
	empty := t.TempDir()
	if _, err := MeetingFiles(empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("MeetingFiles(empty dir) = %v, want an error naming it", err)
	}
}
