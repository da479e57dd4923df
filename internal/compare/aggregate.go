package compare

import "github.com/plumb-ci/plumb/internal/manifest"

// aggregate turns per-input results into the summary: match counts,
// inferred templates, validation issues and totals.
func (r *run) aggregate(results []crResult) *Result {
	res := &Result{Ref: r.ref, Counts: map[*Template]int{}, overrides: r.opts.Overrides}
	if r.opts.Overrides != nil {
		res.overridesFile = r.opts.Overrides.File
	}
	for _, cr := range results {
		switch {
		case cr.compared != nil:
			c := cr.compared
			res.Compared = append(res.Compared, c)
			res.Counts[c.Template]++
			if c.HasDiff {
				res.NumDiffCRs++
			}
			if len(c.Overrides) > 0 {
				res.PatchedCRs++
			}
		case cr.unmatched != nil:
			res.Unmatched = append(res.Unmatched, cr.unmatched)
		}
		if cr.err != nil {
			res.Errors = append(res.Errors, *cr.err)
		}
	}
	// kube-compare's proactive owner/subject pass (pkg/compare/compare.go,
	// PR #258): every template whose empty-data identity an input refers
	// to counts one match and is listed as not validated, even when an
	// input was also compared with it (its count then adds to that match).
	refs := referencedIdentities(r.inputs)
	for _, t := range r.ref.Templates {
		if t.fixed.Name == "" || t.fixed.APIVersion == "" {
			continue
		}
		if refs[t.fixed.String()] {
			res.Counts[t]++
			res.Inferred = append(res.Inferred, t)
		}
	}
	byPath := make(map[string]int, len(res.Counts))
	for t, n := range res.Counts {
		res.TotalCRs += n
		byPath[t.Path] += n
	}
	for _, p := range r.ref.Parts {
		for _, c := range p.Components {
			if is := validate(c, byPath); is != nil {
				res.Issues = append(res.Issues, is)
				res.NumMissing += is.Count
			}
		}
	}
	return res
}

// referencedIdentities indexes the objects the inputs refer to: owners in
// metadata.ownerReferences (with and without the referring object's
// namespace) and ServiceAccount subjects of (Cluster)RoleBindings (with and
// without the subject's namespace).
func referencedIdentities(inputs []*manifest.Object) map[string]bool {
	refs := map[string]bool{}
	for _, o := range inputs {
		obj := o.Content
		ns := stringField(obj, "metadata", "namespace")
		md, _ := obj["metadata"].(map[string]any)
		owners, _ := md["ownerReferences"].([]any)
		for _, x := range owners {
			or, _ := x.(map[string]any)
			id := identity{APIVersion: stringField(or, "apiVersion"), Kind: stringField(or, "kind"), Name: stringField(or, "name")}
			if id.Kind == "" || id.Name == "" {
				continue
			}
			refs[id.String()] = true
			if ns != "" {
				id.Namespace = ns
				refs[id.String()] = true
			}
		}
		kind := stringField(obj, "kind")
		if kind != "ClusterRoleBinding" && kind != "RoleBinding" {
			continue
		}
		subjects, _ := obj["subjects"].([]any)
		for _, x := range subjects {
			s, _ := x.(map[string]any)
			if stringField(s, "kind") != "ServiceAccount" || stringField(s, "name") == "" {
				continue
			}
			id := identity{APIVersion: "v1", Kind: "ServiceAccount", Name: stringField(s, "name")}
			refs[id.String()] = true
			if sns := stringField(s, "namespace"); sns != "" {
				id.Namespace = sns
				refs[id.String()] = true
			}
		}
	}
	return refs
}

// validate applies a component's rule to the match counts by template path
// (research §1.3, §1.4).
func validate(c *Component, counts map[string]int) *Issue {
	var matched, unmatched []*Template
	for _, t := range c.Templates {
		if counts[t.Path] > 0 {
			matched = append(matched, t)
		} else {
			unmatched = append(unmatched, t)
		}
	}
	issue := func(msg string, ts []*Template, count int, desc bool) *Issue {
		return &Issue{Part: c.Part, Component: c, Msg: msg, Templates: ts, Count: count, Descriptions: desc}
	}
	if c.Group == "" { // v1
		switch {
		case len(unmatched) == 0:
		case c.Type == TypeRequired:
			return issue(MsgMissing, unmatched, len(unmatched), true)
		case c.Type == TypeOptional && len(matched) > 0:
			return issue(MsgMissing, unmatched, len(unmatched), true)
		}
		return nil
	}
	switch c.Group {
	case AllOf:
		if len(unmatched) > 0 {
			return issue(MsgMissing, unmatched, len(unmatched), true)
		}
	case AllOrNoneOf:
		if len(matched) > 0 && len(unmatched) > 0 {
			return issue(MsgMissing, unmatched, len(unmatched), false)
		}
	case OneOf:
		if len(matched) == 0 {
			return issue(MsgOneRequired, c.Templates, 1, false)
		}
		if len(matched) > 1 {
			return issue(MsgOnlyOne, matched, 0, false)
		}
	case AnyOneOf:
		if len(matched) > 1 {
			return issue(MsgOnlyOne, matched, 0, false)
		}
	case NoneOf:
		if len(matched) > 0 {
			return issue(MsgNoneOf, matched, 0, false)
		}
	}
	return nil
}

// Validation issue messages (kube-compare's exact texts).
const (
	MsgMissing     = "Missing CRs"
	MsgOneRequired = "One of the following is required"
	MsgOnlyOne     = "Should only match one but matched"
	MsgNoneOf      = "These should not have been matched"
)
