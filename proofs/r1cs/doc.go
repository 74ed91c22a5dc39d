// Package r1cs is a rank-1 constraint system shaped like bellpepper's: variables
// are allocated as aux or public inputs, constraints are enforced as
// ⟨A,w⟩·⟨B,w⟩ = ⟨C,w⟩ over linear combinations whose equal variables merge.
//
// One System type runs in one of four modes: Count (numbers and densities, no
// matrices), Record (CSR matrices of A, B and C with the density bitmaps),
// Witness (values only; constraints are never built) and Check (values, with every
// constraint evaluated as it is enforced). Input 0 is ONE, allocated by New, and
// Finish appends bellperson's trailing input_i·0 = 0 constraints, so a finished
// System describes exactly the R1CS bellperson's prover and generator see.
//
// A System can Fork children for consecutive blocks of the circuit whose sizes
// (a Layout; Measure finds one) are known in advance, and the children
// synthesise their blocks concurrently. In Witness mode they write their values
// in place into the parent's assignment; in Record and Count mode (without a
// digest) they record their own rows and densities, which Join appends in fork
// order. Join checks that each child filled exactly its block, so that the
// result — assignment, matrices, coefficient table, densities — is the
// sequential one. Check mode and digests stay sequential.
//
// The package owns the constraint-system API, the recorded circuit (Circuit, the
// PCE file format) and the canonical R1CS digest. It knows nothing of gadgets,
// Groth16 or Filecoin.
package r1cs
