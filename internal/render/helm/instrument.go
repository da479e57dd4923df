package helm

import (
	"strconv"
	"text/template/parse"
)

// Instrumentation: every node of a parsed template is preceded by a call of
// a function that prints nothing and records, in the render's trace, that
// the node starts writing at the current output offset (with the dot, the
// root and the variables it reads, from which the trace later works out
// which values key the node printed). The calls go into the parse tree, not
// the template text, so line numbers, whitespace trimming and error
// messages stay Helm's own; the output is byte for byte what Helm writes.

const (
	fnAt   = "__plumb_at"   // before a node: (id, dot, $, vars...)
	fnIter = "__plumb_iter" // first node of a range body: (id)
)

// nodeKind says what an instrumented node is.
type nodeKind uint8

const (
	kindText nodeKind = iota
	kindAction
	kindRange
	kindWith
	kindIf
	kindTemplate
	kindIter
)

// nodeInfo is what the trace needs to know about an instrumented node.
type nodeInfo struct {
	file *tmplFile
	pos  int // byte offset in the template source
	kind nodeKind
	text []byte          // kindText: the text it writes
	pipe *parse.PipeNode // kindAction, kindRange, kindWith: the pipeline
	// vars are the variables passed to the recording call after dot and
	// $: those the pipeline reads.
	vars []string
	// blocks are the enclosing range and with nodes, innermost last.
	blocks []int
	// rng is the range node a kindIter node belongs to.
	rng int
}

// instrumenter numbers the nodes of one template file's trees.
type instrumenter struct {
	file  *tmplFile
	base  int // the file's first node id
	nodes []nodeInfo
}

func (in *instrumenter) add(info nodeInfo) int {
	info.file = in.file
	in.nodes = append(in.nodes, info)
	return in.base + len(in.nodes) - 1
}

// list instruments a list of nodes; blocks are the enclosing range/with ids.
func (in *instrumenter) list(l *parse.ListNode, blocks []int) {
	if l == nil {
		return
	}
	out := make([]parse.Node, 0, 2*len(l.Nodes))
	for _, n := range l.Nodes {
		switch t := n.(type) {
		case *parse.TextNode:
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindText, text: t.Text, blocks: blocks})
			out = append(out, in.call(t.Pos, id, nil))
		case *parse.ActionNode:
			vars := pipeVars(t.Pipe)
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindAction, pipe: t.Pipe, vars: vars, blocks: blocks})
			out = append(out, in.call(t.Pos, id, vars))
		case *parse.RangeNode:
			vars := pipeVars(t.Pipe)
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindRange, pipe: t.Pipe, vars: vars, blocks: blocks})
			out = append(out, in.call(t.Pos, id, vars))
			inner := append(append([]int(nil), blocks...), id)
			in.list(t.List, inner)
			iter := in.add(nodeInfo{pos: int(t.Pos), kind: kindIter, rng: id, blocks: inner})
			if t.List != nil {
				t.List.Nodes = append([]parse.Node{in.iterCall(t.Pos, iter)}, t.List.Nodes...)
			}
			in.list(t.ElseList, blocks)
		case *parse.WithNode:
			vars := pipeVars(t.Pipe)
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindWith, pipe: t.Pipe, vars: vars, blocks: blocks})
			out = append(out, in.call(t.Pos, id, vars))
			in.list(t.List, append(append([]int(nil), blocks...), id))
			in.list(t.ElseList, blocks)
		case *parse.IfNode:
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindIf, blocks: blocks})
			out = append(out, in.call(t.Pos, id, nil))
			in.list(t.List, blocks)
			in.list(t.ElseList, blocks)
		case *parse.TemplateNode:
			id := in.add(nodeInfo{pos: int(t.Pos), kind: kindTemplate, blocks: blocks})
			out = append(out, in.call(t.Pos, id, nil))
		}
		out = append(out, n)
	}
	l.Nodes = out
}

// call builds {{__plumb_at ID . $ $var...}}.
func (in *instrumenter) call(pos parse.Pos, id int, vars []string) *parse.ActionNode {
	args := []parse.Node{
		identifier(fnAt, pos), number(id, pos),
		&parse.DotNode{NodeType: parse.NodeDot, Pos: pos},
		variable("$", pos),
	}
	for _, v := range vars {
		args = append(args, variable(v, pos))
	}
	return action(pos, args)
}

// iterCall builds {{__plumb_iter ID}}.
func (in *instrumenter) iterCall(pos parse.Pos, id int) *parse.ActionNode {
	return action(pos, []parse.Node{identifier(fnIter, pos), number(id, pos)})
}

func action(pos parse.Pos, args []parse.Node) *parse.ActionNode {
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: args}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
}

func identifier(name string, pos parse.Pos) *parse.IdentifierNode {
	return parse.NewIdentifier(name).SetPos(pos)
}

func number(id int, pos parse.Pos) *parse.NumberNode {
	return &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(id),
		IsFloat: true, Float64: float64(id), Text: strconv.Itoa(int(id))}
}

func variable(name string, pos parse.Pos) *parse.VariableNode {
	return &parse.VariableNode{NodeType: parse.NodeVariable, Pos: pos, Ident: []string{name}}
}

// pipeVars lists the variables (other than $) a pipeline reads, once each.
// The parser accepted the template, so each is declared where the pipeline
// runs.
func pipeVars(p *parse.PipeNode) []string {
	var out []string
	seen := map[string]bool{"$": true}
	var visit func(n parse.Node)
	visit = func(n parse.Node) {
		switch t := n.(type) {
		case *parse.PipeNode:
			if t == nil {
				return
			}
			for _, c := range t.Cmds {
				visit(c)
			}
		case *parse.CommandNode:
			for _, a := range t.Args {
				visit(a)
			}
		case *parse.VariableNode:
			if !seen[t.Ident[0]] {
				seen[t.Ident[0]] = true
				out = append(out, t.Ident[0])
			}
		case *parse.ChainNode:
			visit(t.Node)
		}
	}
	visit(p)
	return out
}
