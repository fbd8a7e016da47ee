// Package transcriptfile reads and writes meeting transcripts in the
// formats other tools export and import: WebVTT (Zoom, Microsoft Teams and
// Google Meet exports, with <v Speaker> voice tags or "Speaker: text"
// lines), SubRip (SRT), the JSONL utterance files mithubctl replay reads
// (examples/meetings/README.md) and QMSum meeting JSON; and writes WebVTT,
// SRT, Markdown, JSON and JSONL.
//
// Readers stream: they hold one cue (or one JSONL line, or one QMSum turn)
// at a time, so a file of any size is read in bounded memory. Every error
// of a reader is a *LineError naming the 1-based line where the input
// went wrong.
//
// Segments without an id of their own get one derived from their content
// (IDs), so reading the same file twice gives the same ids: an import of
// the same file stores nothing new.
package transcriptfile
