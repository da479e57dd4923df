package config

// resolvePolicies merges policies: of the configuration file (relative to
// the file) with --policies (relative to the working directory): the
// admission policy files and directories the policy analyzer reads
// besides the rendered ones. Like CRDs, each is marked Workflow when the
// workflow gives it (a flag, an action input, a configuration file
// outside the repository): the workflow's win over the repository's.
func resolvePolicies(file *File, fl *Flags, root, cwd, configFile string) []InputPath {
	var out []InputPath
	add := func(base, p string, workflow bool) {
		abs, display := resolveInputPath(root, base, p)
		out = append(out, InputPath{Path: abs, Display: display, Workflow: workflow})
	}
	fileIsWorkflows := file.path != "" && !InRepository(root, file.path)
	for _, p := range file.Policies {
		add(configDir(cwd, configFile), p, fileIsWorkflows)
	}
	for _, p := range fl.Policies {
		add(cwd, p, true)
	}
	return out
}
