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

// lookupFuncNames are the template functions that read the run's other
// inputs: a template that calls one is bound to each run's inputs.
var lookupFuncNames = map[string]bool{"lookupCR": true, "lookupCRs": true}

// mutatesData reports whether any template of the set calls a mutating
// function.
func mutatesData(t *template.Template) bool { return callsAny(t, mutatingFuncs) }

// usesLookups reports whether any template of the set calls lookupCR or
// lookupCRs.
func usesLookups(t *template.Template) bool { return callsAny(t, lookupFuncNames) }

// callsAny reports whether any template of the set names one of funcs.
func callsAny(t *template.Template, funcs map[string]bool) bool {
	for _, tt := range t.Templates() {
		if tt.Tree != nil && nodeCalls(tt.Tree.Root, funcs) {
			return true
		}
	}
	return false
}

func nodeCalls(n parse.Node, funcs map[string]bool) bool {
	switch n := n.(type) {
	case nil:
		return false
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if nodeCalls(c, funcs) {
				return true
			}
		}
	case *parse.ActionNode:
		return nodeCalls(n.Pipe, funcs)
	case *parse.IfNode:
		return nodeCalls(n.Pipe, funcs) || nodeCalls(n.List, funcs) || nodeCalls(n.ElseList, funcs)
	case *parse.RangeNode:
		return nodeCalls(n.Pipe, funcs) || nodeCalls(n.List, funcs) || nodeCalls(n.ElseList, funcs)
	case *parse.WithNode:
		return nodeCalls(n.Pipe, funcs) || nodeCalls(n.List, funcs) || nodeCalls(n.ElseList, funcs)
	case *parse.TemplateNode:
		return nodeCalls(n.Pipe, funcs)
	case *parse.PipeNode:
		if n == nil {
			return false
		}
		for _, c := range n.Cmds {
			if nodeCalls(c, funcs) {
				return true
			}
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			if nodeCalls(a, funcs) {
				return true
			}
		}
	case *parse.ChainNode:
		return nodeCalls(n.Node, funcs)
	case *parse.IdentifierNode:
		return funcs[n.Ident]
	}
	return false
}
