package jobs

// Queues pr-worker serves; the server weighs them 6:3:1.
const (
	QueuePR      = "pr"
	QueueMemory  = "memory"
	QueueDefault = "default"
)
