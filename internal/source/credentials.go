package source

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Credential is a user name and password for one host.
type Credential struct {
	Username, Password string
}

// Credentials are the chart repositories' credentials, by scheme and host
// (with port): a credential goes to requests to its own host only.
type Credentials struct {
	byHost map[string]Credential
}

// For is the credential for requests to u.
func (c *Credentials) For(u *url.URL) (Credential, bool) {
	if c == nil || u == nil {
		return Credential{}, false
	}
	cred, ok := c.byHost[hostKey(u)]
	return cred, ok
}

// Secrets are the passwords, for the redaction set.
func (c *Credentials) Secrets() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, cred := range c.byHost {
		out = append(out, cred.Password)
	}
	return out
}

func hostKey(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + portOf(u)
}

// helmRepositories is Helm's repositories.yaml, the parts read.
type helmRepositories struct {
	Repositories []struct {
		Name     string `json:"name"`
		URL      string `json:"url"`
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"repositories"`
}

// maxCredentialsFile bounds the repositories file read.
const maxCredentialsFile = 1 << 20

// LoadCredentials reads Helm's repository configuration, as helm finds
// it: $HELM_REPOSITORY_CONFIG, else $XDG_CONFIG_HOME/helm/repositories.yaml,
// else ~/.config/helm/repositories.yaml. No file is no credentials; a file
// that does not read is an error naming the file, never its content.
func LoadCredentials(getenv func(string) string) (*Credentials, error) {
	file := getenv("HELM_REPOSITORY_CONFIG")
	if file == "" {
		dir := getenv("XDG_CONFIG_HOME")
		if dir == "" {
			home := getenv("HOME")
			if home == "" {
				return &Credentials{}, nil
			}
			dir = filepath.Join(home, ".config")
		}
		file = filepath.Join(dir, "helm", "repositories.yaml")
	}
	data, err := readSmall(file, maxCredentialsFile)
	if os.IsNotExist(err) {
		return &Credentials{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the Helm repository configuration %s: %w", file, err)
	}
	return parseCredentials(file, data)
}

func parseCredentials(file string, data []byte) (*Credentials, error) {
	var rf helmRepositories
	if err := yaml.Unmarshal(data, &rf); err != nil {
		// The parser's message may quote the file's text: it is not passed on.
		return nil, fmt.Errorf("the Helm repository configuration %s is not a repositories.yaml Helm reads", file)
	}
	c := &Credentials{byHost: map[string]Credential{}}
	for _, r := range rf.Repositories {
		if r.Username == "" && r.Password == "" {
			continue
		}
		u, err := url.Parse(r.URL)
		if err != nil || u.Host == "" {
			continue
		}
		c.byHost[hostKey(u)] = Credential{Username: r.Username, Password: r.Password}
	}
	return c, nil
}

func readSmall(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > max {
		return nil, fmt.Errorf("not a regular file of at most %d bytes", max)
	}
	return readAll(f, max, file)
}
