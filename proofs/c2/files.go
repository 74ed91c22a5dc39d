package c2

import (
	"fmt"
	"path/filepath"

	"github.com/filc2/filc2/proofs/abi"
	"github.com/filc2/filc2/proofs/snark"
)

// Files are the paths of one proof type's parameter files in a directory.
type Files = snark.Files

// FilesIn returns the official file names of p's parameters in dir.
func FilesIn(dir string, p abi.SealProof) Files {
	return Files{
		Params: filepath.Join(dir, p.ParamsFile().Name),
		VK:     filepath.Join(dir, p.VKFile().Name),
		PCE:    filepath.Join(dir, PCEName(p)),
	}
}

// PCEName is the file name of the recorded circuit of p's sector size (all
// proof types of one size share the circuit).
func PCEName(p abi.SealProof) string {
	return fmt.Sprintf("filc2-pce-v1-%s.pce", p.VanillaKey())
}
