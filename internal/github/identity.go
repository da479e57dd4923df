package github

import (
	"context"
	"fmt"
	"strings"

	gogithub "github.com/google/go-github/v60/github"
)

// account is who a token acts as: a person (a personal access token) or a
// GitHub App's bot (GITHUB_TOKEN and other installation tokens).
type account struct {
	login string
}

// wrote reports whether author is this account. The REST API names a bot
// "name[bot]" (type Bot) where GraphQL may name it "name"; a person's login
// must match exactly (case aside).
func (a account) wrote(author *gogithub.User) bool {
	if author == nil || a.login == "" {
		return false
	}
	login := author.GetLogin()
	if strings.EqualFold(login, a.login) {
		return true
	}
	return author.GetType() == "Bot" && strings.EqualFold(login, a.login+"[bot]")
}

// learnSelf finds out, once per client, which account the token acts as:
// GraphQL's viewer (any token), else GET /user (a person's token, on a
// GitHub Enterprise Server without GraphQL). Markers are plain text anyone
// can type: a comment is plumb's only when this account wrote it, so
// another bot's or a person's comment is never edited, deleted or taken
// for one of plumb's. When neither call answers, the error says so and
// the caller posts nothing rather than guess.
func (c *Client) learnSelf(ctx context.Context) error {
	if c.selfKnown {
		return c.selfErr
	}
	login, err := c.viewer(ctx)
	if err != nil {
		if me, _, uerr := c.gh.Users.Get(ctx, ""); uerr == nil && me.GetLogin() != "" {
			login, err = me.GetLogin(), nil
		}
	}
	if IsRateLimited(err) {
		return err // not learnt: a later call may try again
	}
	c.selfKnown = true
	if err != nil {
		// Not %w: a 404 from GraphQL is not a permission problem of the token.
		c.selfErr = fmt.Errorf("cannot tell which GitHub account the token acts as, so which comments are plumb's own (%v)", err)
		return c.selfErr
	}
	c.self = account{login: login}
	return nil
}

// ours reports whether author is the token's account (learnSelf first).
func (c *Client) ours(author *gogithub.User) bool { return c.self.wrote(author) }
