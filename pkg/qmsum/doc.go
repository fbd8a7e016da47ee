// Package qmsum reads meeting transcripts for replay and evaluation: QMSum
// meeting JSON files (Load) and JSON Lines files with one utterance per line
// (ReadJSONL, LoadJSONL).
//
// A QMSum file holds the turns of one meeting, annotated topics and queries
// whose relevant_text_span values are inclusive turn-index ranges written as
// strings (["0","90"]); Load parses them into Span values and checks them
// against the turn count. Utterances turns a meeting into the API's
// utterance shape with stable segment ids, so replaying the same file twice
// into one meeting inserts nothing the second time.
package qmsum
