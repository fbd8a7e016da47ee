// Package labcli implements mithub-lab, the developer tools kept apart
// from the mithubctl users run: QMSum evaluations (eval, eval-pr,
// eval-memory), the trainers of the local provider's shipped models
// (train-*), benchmarks (bench-*), the load generator and the fake LLM
// server of the fault matrix. The measuring and training code lives in
// packages eval, agendaeval, memoryeval, turntrain, answertrain,
// decisiontrain, bench, load and fakellm; this package parses their
// command lines through package cmdline.
package labcli
