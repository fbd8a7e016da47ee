// Package tasks holds the Asynq queue contracts: task type names, payload encoding and task options.
//
// Producers (agent-api) build tasks with the New...Task constructors and
// consumers (pr-worker) decode them with the Parse... functions, so both
// sides agree on the type name, the protobuf payload (proto/mithub/v1),
// the queue, the task id used for deduplication, retries and timeouts.
package tasks
