// Package tmplcheck puts a check into parsed text/template trees where
// unbounded work has to pass: the start of each template body and of each
// range iteration. text/template cannot be interrupted from outside, so a
// template from a pull request (a kube-compare reference, a Helm chart's
// tpl text) is stopped from inside: the check is a template function that
// returns an error once the execution is over its time (or size) budget,
// which ends the execution at the loop it was in.
package tmplcheck

import "text/template/parse"

// Instrument puts {{fn}} first in tree's body and in every range body
// below it. A list that already starts with the call is left alone, so a
// tree shared by several template sets is instrumented once.
func Instrument(tree *parse.Tree, fn string) {
	if tree == nil || tree.Root == nil {
		return
	}
	addCheck(tree, tree.Root, tree.Root.Position(), fn)
	instrumentList(tree, tree.Root, fn)
}

// instrumentList adds the check to the range bodies below l.
func instrumentList(tree *parse.Tree, l *parse.ListNode, fn string) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.RangeNode:
			if n.List == nil {
				n.List = &parse.ListNode{NodeType: parse.NodeList, Pos: n.Position()}
			}
			addCheck(tree, n.List, n.Position(), fn)
			instrumentList(tree, n.List, fn)
			instrumentList(tree, n.ElseList, fn)
		case *parse.IfNode:
			instrumentList(tree, n.List, fn)
			instrumentList(tree, n.ElseList, fn)
		case *parse.WithNode:
			instrumentList(tree, n.List, fn)
			instrumentList(tree, n.ElseList, fn)
		case *parse.ListNode:
			instrumentList(tree, n, fn)
		}
	}
}

// addCheck puts {{fn}} first in l (unless it is there), positioned at pos
// so that an error names the loop's line.
func addCheck(tree *parse.Tree, l *parse.ListNode, pos parse.Pos, fn string) {
	if len(l.Nodes) > 0 && isCheck(l.Nodes[0], fn) {
		return
	}
	id := parse.NewIdentifier(fn).SetTree(tree).SetPos(pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{cmd}}
	action := &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Pipe: pipe}
	l.Nodes = append([]parse.Node{action}, l.Nodes...)
}

func isCheck(n parse.Node, fn string) bool {
	a, ok := n.(*parse.ActionNode)
	if !ok || a.Pipe == nil || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) != 1 {
		return false
	}
	id, ok := a.Pipe.Cmds[0].Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == fn
}
