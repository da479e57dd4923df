package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	remote "github.com/plumb-ci/plumb/internal/source"
)

// RemoteFile is the remote section of .plumb.yaml: the hosts plumb may
// fetch charts from. In pull-request mode only the base revision's counts
// (BaseRemoteHosts), so a pull request cannot widen it with its own.
type RemoteFile struct {
	Hosts []string `yaml:"hosts"`
}

// RemoteSettings is who may make plumb fetch.
type RemoteSettings struct {
	// Hosts is the allow-list in force: the flags' and, outside
	// pull-request mode, the checked-out .plumb.yaml's.
	Hosts remote.Hosts
	// FlagHosts are the workflow's own (--remote-host, --allow-remote):
	// pull-request mode adds the base revision's file to them.
	FlagHosts remote.Hosts
	// Offline fetches nothing: the cache is read.
	Offline bool
	// File is the configuration file's absolute path ("" when none was
	// read from disk): pull-request mode reads it at the base revision.
	File string
}

// remoteFlags are the flags of remote fetching.
type remoteFlags struct {
	RemoteHosts []string
	Offline     bool
}

func resolveRemote(file *File, fl *Flags) (RemoteSettings, error) {
	var rs RemoteSettings
	var err error
	if rs.FlagHosts, err = remote.ParseHosts(fl.RemoteHosts); err != nil {
		return rs, fmt.Errorf("--remote-host: %w", err)
	}
	if fl.AllowRemote {
		rs.FlagHosts = rs.FlagHosts.Merge(remote.AllHosts())
	}
	fileHosts, err := remote.ParseHosts(file.Remote.Hosts)
	if err != nil {
		return rs, file.src.errorf("remote.hosts", "%v", err)
	}
	rs.Hosts = rs.FlagHosts.Merge(fileHosts)
	rs.Offline = fl.Offline
	rs.File = file.path
	return rs, nil
}

// BaseRemoteHosts reads remote.hosts from a .plumb.yaml as the base
// revision has it (data), for pull-request mode; nothing else of that file
// is used. A file that does not read allows nothing (the error says why).
func BaseRemoteHosts(data []byte) (remote.Hosts, error) {
	var f struct {
		Remote RemoteFile `yaml:"remote"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		return remote.Hosts{}, fmt.Errorf("the base revision's configuration does not read: %v", err)
	}
	return remote.ParseHosts(f.Remote.Hosts)
}
