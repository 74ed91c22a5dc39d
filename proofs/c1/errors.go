package c1

import (
	"strconv"
	"strings"
)

// SyntaxError reports C1 input that is not JSON of the SealCommitPhase1Output
// (or wrapper) shape: malformed JSON, a wrong type, an unknown, duplicate or
// missing field. Offset is into the C1 JSON, which for a wrapper file is the
// base64-decoded Phase1Out.
type SyntaxError struct {
	Offset int64  // byte offset of the problem
	Path   string // JSON path of the value being read, such as "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs"
	Msg    string // what is wrong
}

func (e *SyntaxError) Error() string {
	path := e.Path
	if path == "" {
		path = "(top level)"
	}
	return "c1: " + path + " (byte " + strconv.FormatInt(e.Offset, 10) + "): " + e.Msg
}

// ValidationError reports well-formed C1 input that breaks a rule of its
// proof type or a consistency rule of rust-fil-proofs.
type ValidationError struct {
	Path string // JSON path of the offending value, such as "seed" or "vanilla_proofs.StackedDrg32GiBV1[3]"
	Msg  string // what is wrong and what to do about it
}

func (e *ValidationError) Error() string {
	if e.Path == "" {
		return "c1: " + e.Msg
	}
	return "c1: " + e.Path + ": " + e.Msg
}

// pathSeg is one step of a JSON path: a field or variant name, or an index.
type pathSeg struct {
	key   string
	index int // ≥ 0 for an array index; -1 for a key
}

// jsonPath is a stack of path steps, pushed and popped while walking a value.
type jsonPath []pathSeg

func (p *jsonPath) key(k string) { *p = append(*p, pathSeg{key: k, index: -1}) }
func (p *jsonPath) idx(i int)    { *p = append(*p, pathSeg{index: i}) }
func (p *jsonPath) pop()         { *p = (*p)[:len(*p)-1] }

// String writes the path as "a.b[3].c".
func (p jsonPath) String() string {
	var sb strings.Builder
	for i, s := range p {
		if s.index >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.index))
			sb.WriteByte(']')
			continue
		}
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(s.key)
	}
	return sb.String()
}
