package config

import (
	"github.com/spf13/pflag"
)

// Flags holds the command-line flags that feed Config. The flag names and
// their help live here, next to the keys they override, so the CLI and the
// configuration file cannot drift apart.
type Flags struct {
	set *pflag.FlagSet

	ConfigFile    string
	Root          string
	Paths         []string // positional arguments
	Exclude       []string
	FailOn        string
	Formats       []string
	SARIFCategory string
	// MinLevel and Verbose shape the text report (--min-level, --verbose).
	MinLevel      string
	Verbose       bool
	MaxFileSize   string
	MaxDepth      int
	MaxAliasNodes int
	// MaxTargetSize and MaxTargetTime are a render target's budget.
	MaxTargetSize, MaxTargetTime string
	Reproducible                 bool
	Rules                        []string // --rules
	Explain                      bool
	Params                       []string
	AllowRemote                  bool
	// KubernetesVersion is --kubernetes-version (kubernetes.go).
	KubernetesVersion string
	// KubeVirtTemplates are --kubevirt-templates directories.
	KubeVirtTemplates []string
	// CRDs are --crds files and directories (schema.go).
	CRDs []string
	// Policies are --policies files and directories (policies.go).
	Policies []string
	// Reference and DiffConfig are the reference comparison (compare.go).
	Reference, DiffConfig string
	// Changed is --changed (changed.go).
	Changed bool
	prFlags
	ChecksFlags
	helmFlags
	cacheFlags
	remoteFlags
}

// BindInputFlags registers the flags that say what to read: configuration,
// root, exclusions and limits. render and check share them.
func BindInputFlags(fs *pflag.FlagSet) *Flags {
	fl := &Flags{set: fs}
	fs.StringVar(&fl.ConfigFile, "config", "", configFlagHelp)
	fs.StringVar(&fl.Root, "root", "", rootFlagHelp)
	fs.StringArrayVar(&fl.Exclude, "exclude", nil, "skip repository paths matching this glob, e.g. 'charts/**' (repeatable)")
	fs.StringVar(&fl.MaxFileSize, "max-file-size", "10MiB", "largest manifest file read")
	fs.IntVar(&fl.MaxDepth, "max-depth", 500, "deepest nesting of YAML mappings and sequences accepted")
	fs.IntVar(&fl.MaxAliasNodes, "max-alias-nodes", 100000, "most nodes YAML aliases may expand to in one document")
	fs.StringVar(&fl.MaxTargetSize, "max-target-size", "64MiB", "size budget of a render target: what a kustomize build may read, and what a build or a chart's templates may produce")
	fs.StringVar(&fl.MaxTargetTime, "max-target-time", "1m", "time budget of a render target (a kustomize build, a chart render); a target still rendering then is reported and not checked")
	bindRulesInputFlags(fs, fl)
	fs.StringArrayVar(&fl.Params, "param", nil, "OpenShift Template parameter value NAME=VALUE, for every template that declares NAME (repeatable)")
	fs.BoolVar(&fl.AllowRemote, "allow-remote", false, "let plumb fetch from every host: kustomize remote bases and resources, and the charts GitOps definitions name (loopback and private addresses still need --remote-host)")
	fs.StringArrayVar(&fl.RemoteHosts, "remote-host", nil, "let plumb fetch the charts GitOps definitions name from this host, HOST or HOST:PORT (repeatable; also remote.hosts in .plumb.yaml)")
	fs.BoolVar(&fl.Offline, "offline", false, "fetch nothing: remote charts come from the cache an earlier run filled")
	bindHelmFlags(fs, fl)
	bindCacheFlags(fs, fl)
	fs.StringVar(&fl.KubernetesVersion, "kubernetes-version", DefaultKubernetesVersion.MinorString(), "Kubernetes version to check for, e.g. 1.30 or v1.30.2 (Helm's .Capabilities.KubeVersion, schemas, removed APIs)")
	return fl
}

// BindCheckFlags registers the flags of `plumb check` on top of the input
// flags.
func BindCheckFlags(fs *pflag.FlagSet) *Flags {
	fl := BindInputFlags(fs)
	fs.StringArrayVar(&fl.Formats, "format", []string{"text"}, "report format and optional file: text, json, sarif, markdown, annotations (F or F=FILE; repeatable)")
	fs.StringVar(&fl.SARIFCategory, "sarif-category", "", "runAutomationDetails.id category of the SARIF report (default plumb/); code scanning keeps one set of alerts per category")
	fs.StringVar(&fl.FailOn, "fail-on", "error", "exit 1 when a finding is at least this severe: error, warning or never")
	fs.StringArrayVar(&fl.CRDs, "crds", nil, "CustomResourceDefinition file or directory; custom resources of its kinds are validated against it (repeatable)")
	fs.StringArrayVar(&fl.Policies, "policies", nil, "admission policy file or directory (ValidatingAdmissionPolicy and binding, Kyverno ValidatingPolicy), evaluated on the rendered objects (repeatable)")
	fs.StringVar(&fl.MinLevel, "min-level", "note", "text report: show findings at least this severe: note, warning or error (JSON and SARIF keep every finding)")
	fs.BoolVarP(&fl.Verbose, "verbose", "v", false, "text report: list the files skipped as not Kubernetes objects")
	fs.StringArrayVar(&fl.KubeVirtTemplates, "kubevirt-templates", nil, "directory of OpenShift Templates in which VMs' parent Templates (vm.kubevirt.io/template) are looked up (repeatable)")
	fs.BoolVar(&fl.Reproducible, "reproducible", false, "write duration_ms as 0 so identical inputs give byte-identical reports (also on when SOURCE_DATE_EPOCH is set)")
	bindRulesCheckFlags(fs, fl)
	fs.StringVar(&fl.Reference, "reference", "", "compare every render target with this kube-compare reference (its metadata.yaml or directory)")
	fs.StringVar(&fl.DiffConfig, "diff-config", "", "kube-compare diff configuration for --reference (manual correlation pairs)")
	bindPRFlags(fs, fl)
	bindChecksFlags(fs, fl)
	bindChangedFlag(fs, fl)
	return fl
}

func (fl *Flags) changed(name string) bool {
	if fl.set == nil {
		return false
	}
	f := fl.set.Lookup(name)
	return f != nil && f.Changed
}

// The help of --config and --root, shared by every command that takes them.
const (
	configFlagHelp = "configuration file (default: the nearest .plumb.yaml from the working directory up to the repository root)"
	rootFlagHelp   = "repository root; nothing outside it is read and reported file paths are relative to it " +
		"(default: the git top level of the working directory, or of the first PATH when that lies outside it; " +
		"without git, the working directory, or the common parent of the PATHs outside it)"
)
