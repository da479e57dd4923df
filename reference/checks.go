package reference

import "embed"

// Checks holds the default checks catalog (checks/<id>.yaml), in the Trento
// checks format with CEL expressions. It runs unless --no-default-checks.
//
//go:embed checks/*.yaml
var Checks embed.FS
