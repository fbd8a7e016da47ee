// Package transcript turns what a LiveKit room carries — lk.transcription
// text streams in LiveKit Agents' format, transcription events — and
// replayed JSONL files into final segments attributed to a speaker.
package transcript
