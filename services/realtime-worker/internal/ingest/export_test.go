package ingest

// SetJournalRotate sets the journal's rotation size and returns a func
// restoring it.
func SetJournalRotate(n int64) func() {
	old := journalRotate
	journalRotate = n
	return func() { journalRotate = old }
}
