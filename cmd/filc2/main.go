// Command filc2 is a Filecoin SealCommit2 prover: it turns a saved C1 output
// into the Groth16 proof bytes lotus and curio put on chain.
package main

import (
	"os"

	"github.com/filc2/filc2/cli"
)

func main() {
	os.Exit(cli.Main(os.Args))
}
