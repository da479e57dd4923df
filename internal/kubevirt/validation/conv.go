package validation

import (
	"fmt"
	"math"
	"reflect"

	"gopkg.in/inf.v0"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MismatchError is the validator's type error for integer rules.
type MismatchError struct {
	Type string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("mismatching type: %s, not int or resource.Quantity", e.Type)
}

// NilQuantityError is a null *resource.Quantity where an integer is needed
// (memory.guest absent while memory is present). The validator's webhook
// panics on it, so the API server rejects the VM with "failed calling
// webhook"; plumb reports it as a failed rule instead.
type NilQuantityError struct{}

func (*NilQuantityError) Error() string {
	return "the value is null (a nil *resource.Quantity): the template validator's webhook crashes on it, so the cluster rejects the VM"
}

// ToInt64 converts one value as the validator does: Go integers, floats
// (rounded) and quantities; anything else is a MismatchError. Unlike the
// validator, a quantity is converted to its exact value whatever its
// notation, so 1.5Gi is 1610612736 (the validator's fast path rejects it,
// but in a cluster virt-api re-serialises it as 1536Mi first); only a value
// with a fractional part, or one beyond int64, is a mismatch.
func ToInt64(v reflect.Value) (int64, error) {
	if !v.IsValid() {
		return 0, &MismatchError{Type: "<nil>"}
	}
	if !v.CanInterface() {
		return 0, &MismatchError{Type: v.Type().String()}
	}
	switch x := v.Interface().(type) {
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return int64(x), nil
	case float32:
		return int64(math.Round(float64(x))), nil
	case float64:
		return int64(math.Round(x)), nil
	case resource.Quantity:
		return quantityBytes(&x, "resource.Quantity")
	case *resource.Quantity:
		if x == nil {
			return 0, &NilQuantityError{}
		}
		return quantityBytes(x, "*resource.Quantity")
	default:
		return 0, &MismatchError{Type: fmt.Sprintf("%T", x)}
	}
}

// quantityBytes returns the exact integer value of q without modifying it.
func quantityBytes(q *resource.Quantity, typeName string) (int64, error) {
	if n, ok := q.AsInt64(); ok {
		return n, nil
	}
	d := q.DeepCopy()
	dec := d.AsDec()
	whole := new(inf.Dec).Round(dec, 0, inf.RoundDown)
	if whole.Cmp(dec) != 0 {
		return 0, &MismatchError{Type: typeName}
	}
	u := whole.UnscaledBig()
	if !u.IsInt64() {
		return 0, &MismatchError{Type: typeName}
	}
	return u.Int64(), nil
}

// AsInt64 converts every value; the first failure is the error.
func AsInt64(vals []reflect.Value) ([]int64, error) {
	out := make([]int64, len(vals))
	for i, v := range vals {
		n, err := ToInt64(v)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// ToString renders one value as the validator does: a string (or a named
// string type) as its text, anything else as Go's "<T Value>" placeholder,
// e.g. "<uint32 Value>" for cpu.cores.
func ToString(v reflect.Value) string { return v.String() }

// AsStrings renders every value.
func AsStrings(vals []reflect.Value) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = ToString(v)
	}
	return out
}
