package gadgets

import "github.com/filc2/filc2/proofs/r1cs"

// Encode is encode.rs encode: the replica node key + value, as Add(key, value).
func Encode(cs *r1cs.System, key, value AllocatedNum) AllocatedNum { return Add(cs, key, value) }

// Decode is encode.rs decode: value − key, as Sub(value, key).
func Decode(cs *r1cs.System, key, value AllocatedNum) AllocatedNum { return Sub(cs, value, key) }
