package compare

import "github.com/plumb-ci/plumb/internal/tmplcheck"

// maxValueBytes bounds the size of any value a template function returns
// (tmplcheck.CapFuncs). The rendered output is capped at 8 MiB; inputs
// seen through lookupCRs are counted too.
const maxValueBytes = 64 << 20

// builtinOverrides are text/template's builtins that build strings, as
// functions so that they are capped too.
var builtinOverrides = tmplcheck.BuiltinOverrides

// acyclicMutators are sprig's set and merge functions that refuse to make
// a map contain itself.
func acyclicMutators() map[string]any { return tmplcheck.AcyclicMutators(sprigFuncs) }

func capFuncs(m map[string]any) { tmplcheck.CapFuncs(m, maxValueBytes) }

func capped(fn any) any { return tmplcheck.Capped(fn, maxValueBytes) }
