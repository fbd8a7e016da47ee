// Command mithubctl is the MitHub command line for users and operators:
// replay meetings into agent-api, read their context, ask and generate
// PRs, keep long-term conversation memory and serve it over MCP, migrate
// the database, manage API keys and check a deployment's security.
// Evaluation, training and benchmark tools are in mithub-lab.
package main

import (
	"github.com/mithub/mithub/services/mithubctl/internal/cli"
	"github.com/mithub/mithub/services/mithubctl/internal/cmdline"
)

func main() { cmdline.Main("mithubctl", cli.Run) }
