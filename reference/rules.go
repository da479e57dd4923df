// Package reference holds plumb's embedded defaults: the built-in
// inspection rules (and, beside them, the other engines' defaults). Each
// engine's embed declaration lives in its own file.
package reference

import "embed"

// Rules holds the built-in inspection rules (rules/*.yaml). They are always
// loaded and cannot be removed or overridden.
//
//go:embed rules/*.yaml
var Rules embed.FS
