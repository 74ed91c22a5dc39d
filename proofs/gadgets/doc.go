// Package gadgets holds the circuit gadgets of the StackedDRG PoRep circuit,
// ported from bellpepper-core 0.2.1 (boolean, num), bellperson 0.27 (uint32,
// multieq, multipack, sha256) and rust-fil-proofs (uint64, insertion,
// constraint, encode, util::reverse_bit_numbering, the filecoin-hashers
// SHA-256 tree hash and create_label_circuit).
//
// Every gadget allocates its variables and enforces its constraints in exactly
// the order of the Rust reference, with the same linear combinations, so that
// the R1CS it records is bit-identical to bellperson's (spec §2). Values are
// always computed natively and handed to Alloc; in Count and Record mode they
// are simply whatever the inputs were. In Witness mode (cs.Constraining() is
// false) no linear combination is built; a gadget that skips Enforce calls
// there counts them with cs.SkipConstraints, so that a witness-mode System's
// counts are still the circuit's.
//
// The package owns these gadgets and their tests (counts, canonical digests,
// witnesses). It does not own the constraint system (proofs/r1cs), Poseidon
// (proofs/poseidon), PoR inclusion or the StackedCircuit itself.
package gadgets
