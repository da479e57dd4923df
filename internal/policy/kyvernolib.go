package policy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"github.com/google/go-containerregistry/pkg/name"
	"google.golang.org/protobuf/types/known/structpb"
	"k8s.io/apiserver/pkg/cel/environment"
)

// This file is the part of Kyverno's CEL library that needs no cluster:
// image reference parsing (Kyverno's kyverno.image library, which parses
// with go-containerregistry's name package, as here) and JSON
// (kyverno.json). It extends the API server's environment (baseEnv), so
// Kyverno policies are compiled and evaluated by the same machinery, with
// the same cost budget, as ValidatingAdmissionPolicies.

// kyvernoEnv is the API server's environment with Kyverno's cluster-free
// functions, built once per process.
var kyvernoEnv = sync.OnceValue(func() *environment.EnvSet {
	env, err := baseEnv().Extend(environment.VersionedOptions{
		IntroducedVersion: environment.DefaultCompatibilityVersion(),
		EnvOptions:        []cel.EnvOption{cel.Lib(kyvernoLib{})},
	})
	if err != nil {
		// The options are static: an error is a programming error.
		panic(fmt.Sprintf("policy: extending the CEL environment with Kyverno's library: %v", err))
	}
	return env
})

// imageType is Kyverno's image reference type.
var imageType = cel.OpaqueType("kyverno.image")

// kyvernoLib declares Kyverno's image and json functions.
type kyvernoLib struct{}

func (kyvernoLib) LibraryName() string { return "plumb.kyverno" }

func (kyvernoLib) CompileOptions() []cel.EnvOption {
	str := []*cel.Type{cel.StringType}
	img := []*cel.Type{imageType}
	member := func(fn, id string, result *cel.Type, impl func(name.Reference) ref.Val) cel.EnvOption {
		return cel.Function(fn, cel.MemberOverload(id, img, result, cel.UnaryBinding(onImage(impl))))
	}
	return []cel.EnvOption{
		// image() is Kyverno's older name of parseImageReference(), kept
		// by Kyverno as an alias.
		cel.Function("image", cel.Overload("plumb_kyverno_string_to_image", str, imageType, cel.UnaryBinding(parseImage))),
		cel.Function("parseImageReference", cel.Overload("plumb_kyverno_parse_image_reference", str, imageType, cel.UnaryBinding(parseImage))),
		cel.Function("isImage", cel.Overload("plumb_kyverno_is_image", str, cel.BoolType, cel.UnaryBinding(isImage))),
		member("registry", "plumb_kyverno_image_registry", cel.StringType, func(r name.Reference) ref.Val {
			return types.String(r.Context().RegistryStr())
		}),
		member("repository", "plumb_kyverno_image_repository", cel.StringType, func(r name.Reference) ref.Val {
			return types.String(r.Context().RepositoryStr())
		}),
		member("identifier", "plumb_kyverno_image_identifier", cel.StringType, func(r name.Reference) ref.Val {
			return types.String(r.Identifier())
		}),
		member("identifierWithSeparator", "plumb_kyverno_image_identifier_with_separator", cel.StringType, identifierWithSeparator),
		member("tag", "plumb_kyverno_image_tag", cel.StringType, func(r name.Reference) ref.Val { return types.String(imageTag(r)) }),
		member("digest", "plumb_kyverno_image_digest", cel.StringType, func(r name.Reference) ref.Val { return types.String(imageDigest(r)) }),
		member("containsDigest", "plumb_kyverno_image_contains_digest", cel.BoolType, func(r name.Reference) ref.Val {
			return types.Bool(imageDigest(r) != "")
		}),
		// json.unmarshal(s) and json.marshal(v): Kyverno binds a json
		// variable with member functions; a qualified function name reads
		// the same in an expression.
		cel.Function("json.unmarshal", cel.Overload("plumb_kyverno_json_unmarshal", str, cel.DynType, cel.UnaryBinding(jsonUnmarshal))),
		cel.Function("json.marshal", cel.Overload("plumb_kyverno_json_marshal", []*cel.Type{cel.DynType}, cel.StringType, cel.UnaryBinding(jsonMarshal))),
	}
}

// ProgramOptions charges the functions' runtime cost by the size of what
// they read or write, as the Kubernetes library charges string functions
// (a tenth per byte): the cost budget counts operations, and a function
// that parses a large annotation in a loop must run out of it, not of the
// CI's time.
func (kyvernoLib) ProgramOptions() []cel.ProgramOption {
	byInput := func(args []ref.Val, _ ref.Val) *uint64 { return sizeCost(args[0]) }
	byResult := func(_ []ref.Val, result ref.Val) *uint64 { return sizeCost(result) }
	var opts []interpreter.CostTrackerOption
	for _, id := range []string{"plumb_kyverno_string_to_image", "plumb_kyverno_parse_image_reference", "plumb_kyverno_is_image", "plumb_kyverno_json_unmarshal"} {
		opts = append(opts, interpreter.OverloadCostTracker(id, byInput))
	}
	opts = append(opts, interpreter.OverloadCostTracker("plumb_kyverno_json_marshal", byResult))
	return []cel.ProgramOption{cel.CostTrackerOptions(opts...)}
}

// sizeCost is one plus a tenth of a string's length in bytes (1 for
// anything else, such as an error).
func sizeCost(v ref.Val) *uint64 {
	c := uint64(1)
	if s, ok := v.(types.String); ok {
		c += uint64(len(s)) / 10
	}
	return &c
}

// imageRef is a parsed image reference as a CEL value.
type imageRef struct{ ref name.Reference }

func (v imageRef) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf("").AssignableTo(t) {
		return v.ref.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from kyverno.image to %v", t)
}

func (v imageRef) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case imageType:
		return v
	case types.StringType:
		return types.String(v.ref.String())
	}
	return types.NewErr("type conversion error from kyverno.image to %s", t)
}

func (v imageRef) Equal(other ref.Val) ref.Val {
	o, ok := other.(imageRef)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.ref.String() == o.ref.String())
}

func (v imageRef) Type() ref.Type { return imageType }
func (v imageRef) Value() any     { return v.ref }

func parseImage(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	r, err := name.ParseReference(s)
	if err != nil {
		return types.WrapErr(err)
	}
	return imageRef{r}
}

func isImage(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := name.ParseReference(s)
	return types.Bool(err == nil)
}

func onImage(f func(name.Reference) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		v, ok := arg.(imageRef)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(v.ref)
	}
}

// imageTag is the reference's tag: the default "latest" when it names
// neither tag nor digest, and the written tag of repo:tag@digest (which
// go-containerregistry parses as a digest, dropping the tag), as Kyverno
// reads it.
func imageTag(r name.Reference) string {
	if t, ok := r.(name.Tag); ok {
		return t.TagStr()
	}
	s := r.String()
	base, _, _ := strings.Cut(s, "@")
	colon := strings.LastIndex(base, ":")
	if colon < 0 || colon < strings.LastIndex(base, "/") {
		return "" // a registry port, not a tag
	}
	return base[colon+1:]
}

func imageDigest(r name.Reference) string {
	if d, ok := r.(name.Digest); ok {
		return d.DigestStr()
	}
	return ""
}

// identifierWithSeparator is "@digest" when the reference has a digest,
// else ":tag".
func identifierWithSeparator(r name.Reference) ref.Val {
	if d := imageDigest(r); d != "" {
		return types.String("@" + d)
	}
	return types.String(":" + r.Identifier())
}

// jsonUnmarshal decodes a JSON document as Kyverno does (encoding/json
// into any: numbers are doubles).
func jsonUnmarshal(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return types.WrapErr(fmt.Errorf("json.unmarshal: %w", err))
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// jsonMarshal encodes a value as JSON.
func jsonMarshal(arg ref.Val) ref.Val {
	// Every CEL value converts to a protobuf Value (the JSON data model),
	// whatever its implementation (literals, or the API server's
	// unstructured objects).
	native, err := arg.ConvertToNative(reflect.TypeFor[*structpb.Value]())
	if err != nil {
		return types.WrapErr(fmt.Errorf("json.marshal: %w", err))
	}
	b, err := json.Marshal(native.(*structpb.Value).AsInterface())
	if err != nil {
		return types.WrapErr(fmt.Errorf("json.marshal: %w", err))
	}
	return types.String(b)
}
