package abi

import (
	"fmt"
	"strconv"
)

// ParseName returns the proof type named s: either its C1 registered_proof
// name, such as "StackedDrg32GiBV1_1", or its number in decimal, such as "8".
// Names are case-sensitive. A vanilla_proofs key such as "StackedDrg32GiBV1"
// is not read as a size: it is the name of the V1 type and parses as that.
func ParseName(s string) (SealProof, error) {
	t := table()
	for _, p := range t {
		if p.Name == s {
			return p, nil
		}
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && n < numProofs {
		return t[n], nil
	}
	return SealProof{}, fmt.Errorf("abi: unknown seal proof %q: want a registered_proof name (StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}{V1,V1_1,V1_1_Feat_SyntheticPoRep,V1_2_Feat_NonInteractivePoRep}) or a number 0-%d", s, numProofs-1)
}

// VanillaKey returns the C1 vanilla_proofs enum key, such as
// "StackedDrg32GiBV1". All proof types of one sector size share it.
func (p SealProof) VanillaKey() string { return "StackedDrg" + sizeLabel(uint64(p.SectorSize)) + "V1" }

// VanillaKeyFor returns the vanilla_proofs enum key of a sector size.
func VanillaKeyFor(sectorSize uint64) (string, error) {
	p, err := BySectorSize(sectorSize, Interactive)
	if err != nil {
		return "", err
	}
	return p.VanillaKey(), nil
}

// sizeLabel writes a sector size the way proof names do: "2KiB", "32GiB".
func sizeLabel(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatUint(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatUint(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatUint(n>>10, 10) + "KiB"
	}
	return strconv.FormatUint(n, 10) + "B"
}
