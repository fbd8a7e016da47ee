// Command mithub-lab holds MitHub's evaluation, training, benchmark and
// load tools: eval, eval-pr, train-*, bench-*, load and fake-llm. Users
// and operators run mithubctl instead.
package main

import (
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
	"github.com/mithub/mithub/services/mithubctl/internal/labcli"
)

func main() { cmdline.Main("mithub-lab", labcli.Run) }
