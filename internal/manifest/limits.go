package manifest

// Limits bound what one input file may cost. A pull request controls its
// files, so every limit exists to keep a hostile file from exhausting the
// runner; the defaults are far above what real manifests need.
type Limits struct {
	// MaxFileBytes is the largest file read (default 10 MiB).
	MaxFileBytes int64
	// MaxDepth is the deepest nesting of mappings and sequences (default 500;
	// the deepest CustomResourceDefinitions in common use stay below 100).
	MaxDepth int
	// MaxAliasNodes bounds the nodes that alias expansion may produce in one
	// document (default 100,000), which stops "billion laughs" documents.
	MaxAliasNodes int
}

// DefaultLimits are the limits used when none are configured.
var DefaultLimits = Limits{
	MaxFileBytes:  10 << 20,
	MaxDepth:      500,
	MaxAliasNodes: 100_000,
}

// orDefault fills unset limits with the defaults.
func (l Limits) orDefault() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultLimits.MaxFileBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultLimits.MaxAliasNodes
	}
	return l
}

// OrDefault fills unset limits with the defaults.
func (l Limits) OrDefault() Limits { return l.orDefault() }
