// Package jobs handles the worker's Asynq tasks: bot:join makes the bot
// join a room.
package jobs
