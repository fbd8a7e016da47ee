module github.com/mithub/mithub/examples/webhook-receiver

go 1.26.0
