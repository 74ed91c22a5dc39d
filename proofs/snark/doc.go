// Package snark is the Groth16 glue every proof kind shares: the parameter
// files of a circuit (.params, .vk and filc2's recorded circuit beside them),
// making test parameters for a recorded circuit, reading and matching a key
// pair, and the blinding of a proof. Packages c2 (PoRep) and post (PoSt)
// bring the circuits; this package knows none of them.
package snark
