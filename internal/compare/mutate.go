package compare

import (
	"text/template"
	"text/template/parse"
)

// mutatingFuncs are the template functions that change a map they are
// given. A template that calls none of them can be given the input itself
// as data; one that does gets a copy, so the input is never changed.
var mutatingFuncs = map[string]bool{
	"set": true, "unset": true, "merge": true, "mergeOverwrite": true, "mustMerge": true, "mustMergeOverwrite": true,
}

// mutatesData reports whether any template of the set calls a mutating
// function.
func mutatesData(t *template.Template) bool {
	for _, tt := range t.Templates() {
		if tt.Tree != nil && nodeMutates(tt.Tree.Root) {
			return true
		}
	}
	return false
}

func nodeMutates(n parse.Node) bool {
	switch n := n.(type) {
	case nil:
		return false
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if nodeMutates(c) {
				return true
			}
		}
	case *parse.ActionNode:
		return nodeMutates(n.Pipe)
	case *parse.IfNode:
		return nodeMutates(n.Pipe) || nodeMutates(n.List) || nodeMutates(n.ElseList)
	case *parse.RangeNode:
		return nodeMutates(n.Pipe) || nodeMutates(n.List) || nodeMutates(n.ElseList)
	case *parse.WithNode:
		return nodeMutates(n.Pipe) || nodeMutates(n.List) || nodeMutates(n.ElseList)
	case *parse.TemplateNode:
		return nodeMutates(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return false
		}
		for _, c := range n.Cmds {
			if nodeMutates(c) {
				return true
			}
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			if nodeMutates(a) {
				return true
			}
		}
	case *parse.ChainNode:
		return nodeMutates(n.Node)
	case *parse.IdentifierNode:
		return mutatingFuncs[n.Ident]
	}
	return false
}
