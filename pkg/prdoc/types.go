package prdoc

import (
	"context"
	"time"
)

// Turn is one transcript turn of the meeting.
type Turn struct {
	// ID is the transcript row id; Seq the 0-based order in the meeting.
	ID      int64
	Seq     int
	Speaker string
	Text    string
	StartMS int64
	EndMS   int64
}

// Topic is one L1 topic: a span of turns with its title and summary.
type Topic struct {
	ID       string
	Title    string
	Summary  string
	Keywords []string
	StartSeq int
	EndSeq   int
}

// Input is everything a PR is built from.
type Input struct {
	MeetingID string
	// MeetingTitle names the meeting in the PR title and the memory bank.
	MeetingTitle string
	// Date is the meeting's date; due dates such as "Friday" resolve
	// against it.
	Date time.Time
	// Turns in seq order; Topics in seq order, covering a prefix of them.
	Turns  []Turn
	Topics []Topic

	// lessons, when not nil, are the lesson lines already collected from
	// the turns (the streamed path, whose Input has no Turns).
	lessons []string
}

// Document is a generated PR.
type Document struct {
	Title         string         `json:"title"`
	Agenda        []AgendaItem   `json:"agenda"`
	Decisions     []Decision     `json:"decisions"`
	ActionItems   []ActionItem   `json:"action_items"`
	OpenQuestions []OpenQuestion `json:"open_questions"`
	MemoryUpdates []MemoryUpdate `json:"memory_updates"`
	// Provider that extracted the items: "local" or "openai".
	Provider string `json:"provider"`
}

// AgendaItem is one topic the meeting discussed.
type AgendaItem struct {
	Title    string   `json:"title"`
	Summary  string   `json:"summary"`
	Keywords []string `json:"keywords"`
	StartSeq int      `json:"start_seq"`
	EndSeq   int      `json:"end_seq"`
	// StartMS and EndMS are when the item's first turn started and its
	// last one ended (the local extractor's agenda).
	StartMS int64 `json:"start_ms,omitempty"`
	EndMS   int64 `json:"end_ms,omitempty"`
	// TopicID is the L1 topic's id; empty for items built from turns
	// that no topic covered yet.
	TopicID string `json:"topic_id,omitempty"`
}

// Decision is something the meeting agreed on.
type Decision struct {
	Text    string `json:"text"`
	Speaker string `json:"speaker"`
	Seq     int    `json:"seq"`
	Topic   string `json:"topic"`
}

// ActionItem is a task someone took on.
type ActionItem struct {
	Text  string `json:"text"`
	Owner string `json:"owner"`
	// Due is the due date as stated; DueDate the calendar day it resolves
	// to (YYYY-MM-DD), when it does.
	Due     string `json:"due,omitempty"`
	DueDate string `json:"due_date,omitempty"`
	Seq     int    `json:"seq"`
	Topic   string `json:"topic"`
}

// OpenQuestion is a question left open.
type OpenQuestion struct {
	Text  string `json:"text"`
	Asker string `json:"asker"`
	Seq   int    `json:"seq"`
	Topic string `json:"topic"`
}

// MemoryUpdate is proposed content for one memory-bank category.
type MemoryUpdate struct {
	Category string `json:"category"`
	Content  string `json:"content"`
}

// Extractor builds a Document from an Input.
type Extractor interface {
	Extract(ctx context.Context, in Input) (Document, error)
}

// Limits on what a Document holds: the local extractor's default caps
// (LocalOptions) and the cut of an item's text.
const (
	MaxDecisions     = 5
	MaxActionItems   = 25
	MaxOpenQuestions = 5
	// MaxItemRunes cuts the text of one decision, action item or question.
	MaxItemRunes = 300
)
