// Package replay streams a recorded meeting (a QMSum JSON file or a JSONL
// file of utterances) into agent-api, optionally paced to a fixed rate of
// utterances per second, with a progress bar.
//
// Segment ids are derived from the file name and the turn or line number,
// so replaying the same file into the same meeting again inserts nothing,
// and an interrupted replay can be resumed with Options.MeetingID.
package replay
