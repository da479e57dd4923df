package github

import (
	"fmt"
	"slices"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
)

// todo is a finding to bring to the author: where, and its place among
// the findings (most important first).
type todo struct {
	f      *finding.Finding
	where  where
	anchor Anchor
	idx    int
	// discussed: new on a line whose plumb comment has replies; listed in
	// the review's body (see sameLine).
	discussed bool
}

// keptTodo is a finding that plumb's comment c already covers.
type keptTodo struct {
	todo
	c *gogithub.PullRequestComment
}

// lineKey is a line of a file of the head.
type lineKey struct {
	path string
	line int
}

// sameLine keeps one comment per line when a push brings a new problem to
// a line plumb already commented on (its comment is about other findings,
// which are still there). Without it the new problem would get a second
// comment on the line; with a comment nobody answered, it would be easy
// to post nothing and the new problem would go unseen. So:
//
//   - the earlier comment has no replies: it is replaced, like an
//     outdated one, by one comment about every problem of the line — the
//     author is notified, and the line still has one comment;
//   - it has replies: a conversation is not rewritten under the people
//     in it; the new problem is a line of the review's body that says
//     where it is (once: the body's marker remembers it), and the summary
//     lists it as every new finding.
//
// It returns the pending findings (those of replaced comments added, in
// order of importance), the findings still covered by a kept comment, and
// the findings whose comment is replaced.
func sameLine(pending []todo, keptOn []keptTodo, keep map[int64]bool, replies map[int64]int, listed map[string]bool) ([]todo, []keptTodo, map[*finding.Finding]bool) {
	at := map[lineKey]*gogithub.PullRequestComment{}
	for _, k := range keptOn {
		if c := k.c; c.Line != nil && c.GetSubjectType() != "file" {
			at[lineKey{c.GetPath(), c.GetLine()}] = c
		}
	}
	if len(at) == 0 {
		return pending, keptOn, nil
	}
	replace := map[int64]bool{}
	out := pending[:0:0]
	for _, p := range pending {
		c := at[lineKey{p.anchor.Path, p.anchor.Line}]
		switch {
		case p.where != onLine || c == nil:
		case replies[c.GetID()] == 0:
			replace[c.GetID()] = true
		case listed[p.f.Fingerprint]:
			// Listed by an earlier review: nothing more to say.
			keptOn = append(keptOn, keptTodo{p, c})
			continue
		default:
			p.discussed = true
		}
		out = append(out, p)
	}
	if len(replace) == 0 {
		return out, keptOn, nil
	}
	replaced := map[*finding.Finding]bool{}
	still := keptOn[:0:0]
	for _, k := range keptOn {
		if !replace[k.c.GetID()] {
			still = append(still, k)
			continue
		}
		delete(keep, k.c.GetID())
		replaced[k.f] = true
		out = append(out, k.todo)
	}
	slices.SortStableFunc(out, func(a, b todo) int { return a.idx - b.idx })
	return out, still, replaced
}

// replaces reports whether the comment is about a finding whose earlier
// comment it replaces.
func (d *draft) replaces(replaced map[*finding.Finding]bool) bool {
	for f := range replaced {
		if d.holds(f) {
			return true
		}
	}
	return false
}

// replacedComment reports whether c is a comment replaced by one about
// every problem of its line: one of the findings it is about is.
func replacedComment(c *gogithub.PullRequestComment, replaced map[*finding.Finding]bool) bool {
	fps := commentFingerprints(c.GetBody())
	for f := range replaced {
		if slices.Contains(fps, f.Fingerprint) {
			return true
		}
	}
	return false
}

// discussedText is the review body's line about a new problem on a line
// whose plumb comment has replies.
func discussedText(f *finding.Finding, alike []*finding.Finding, line int) string {
	return listingText(f, alike) + fmt.Sprintf(" — new on line %d, where plumb's earlier comment has replies (left as it is)", line)
}
